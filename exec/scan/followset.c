/* followset.c: see followset.h. */
#include "exec/scan/followset.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "base/grow.h"

void followset_init(followset_t *fs)
{
    memset(fs, 0, sizeof *fs);
    pthread_mutex_init(&fs->mu, NULL);
}

void followset_free(followset_t *fs)
{
    for (size_t i = 0; i < fs->n_paths; i++)
        free(fs->paths[i]);
    free(fs->paths);
    free(fs->ids);
    pthread_mutex_destroy(&fs->mu);
    memset(fs, 0, sizeof *fs);
}

/* The identity of the file at path; 0 when there is none. */
static int id_of(const char *path, struct followset_id *id)
{
    memset(id, 0, sizeof *id);
#ifdef STATX_BTIME
    struct statx sx;
    if (statx(AT_FDCWD, path, 0, STATX_INO | STATX_BTIME, &sx) == 0) {
        id->dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
        id->ino = (ino_t)sx.stx_ino;
        if (sx.stx_mask & STATX_BTIME) {
            id->born_s = (long long)sx.stx_btime.tv_sec;
            id->born_ns = (long)sx.stx_btime.tv_nsec;
        }
        return 1;
    }
    return 0;
#else
    struct stat st;
    if (stat(path, &st) < 0)
        return 0;
    id->dev = st.st_dev;
    id->ino = st.st_ino;
    return 1;
#endif
}

static int same_id(const struct followset_id *a, const struct followset_id *b)
{
    if (a->dev != b->dev || a->ino != b->ino)
        return 0;
    int a_born = a->born_s || a->born_ns, b_born = b->born_s || b->born_ns;
    return !a_born || !b_born || (a->born_s == b->born_s && a->born_ns == b->born_ns);
}

static int known_id(const followset_t *fs, const struct followset_id *id)
{
    for (size_t i = 0; i < fs->n_ids; i++)
        if (same_id(&fs->ids[i], id))
            return 1;
    return 0;
}

static void add_id(followset_t *fs, const struct followset_id *id)
{
    if (known_id(fs, id))
        return;
    if (GROW_ARRAY(fs->ids, fs->cap_ids, fs->n_ids + 1, 16) < 0)
        return;
    fs->ids[fs->n_ids++] = *id;
}

static int known_path(const followset_t *fs, const char *path)
{
    for (size_t i = 0; i < fs->n_paths; i++)
        if (strcmp(fs->paths[i], path) == 0)
            return 1;
    return 0;
}

int followset_claim(followset_t *fs, const char *path)
{
    struct followset_id id;
    int exists = id_of(path, &id);
    pthread_mutex_lock(&fs->mu);
    int claim = !known_path(fs, path) && !(exists && known_id(fs, &id));
    if (claim && GROW_ARRAY(fs->paths, fs->cap_paths, fs->n_paths + 1, 16) < 0)
        claim = 0;
    char *copy = claim ? strdup(path) : NULL;
    if (copy) {
        fs->paths[fs->n_paths++] = copy;
        if (exists)
            add_id(fs, &id);
    }
    pthread_mutex_unlock(&fs->mu);
    return copy != NULL;
}

int followset_has(followset_t *fs, const char *path)
{
    struct followset_id id;
    int exists = id_of(path, &id);
    pthread_mutex_lock(&fs->mu);
    int has = known_path(fs, path) || (exists && known_id(fs, &id));
    pthread_mutex_unlock(&fs->mu);
    return has;
}

void followset_note_current(followset_t *fs)
{
    pthread_mutex_lock(&fs->mu);
    for (size_t i = 0; i < fs->n_paths; i++) {
        struct followset_id id;
        if (id_of(fs->paths[i], &id))
            add_id(fs, &id);
    }
    pthread_mutex_unlock(&fs->mu);
}
