/* followset.c: see followset.h. */
#include "exec/scan/followset.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
    free(fs->dev);
    free(fs->ino);
    pthread_mutex_destroy(&fs->mu);
    memset(fs, 0, sizeof *fs);
}

static int known_id(const followset_t *fs, const struct stat *st)
{
    for (size_t i = 0; i < fs->n_ids; i++)
        if (fs->dev[i] == st->st_dev && fs->ino[i] == st->st_ino)
            return 1;
    return 0;
}

static void add_id(followset_t *fs, const struct stat *st)
{
    if (known_id(fs, st))
        return;
    if (fs->n_ids == fs->cap_ids) {
        size_t cap = fs->cap_ids ? fs->cap_ids * 2 : 16;
        dev_t *d = realloc(fs->dev, cap * sizeof *d);
        if (d)
            fs->dev = d;
        ino_t *i = realloc(fs->ino, cap * sizeof *i);
        if (i)
            fs->ino = i;
        if (!d || !i)
            return;
        fs->cap_ids = cap;
    }
    fs->dev[fs->n_ids] = st->st_dev;
    fs->ino[fs->n_ids++] = st->st_ino;
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
    struct stat st;
    int exists = stat(path, &st) == 0;
    pthread_mutex_lock(&fs->mu);
    int claim = !known_path(fs, path) && !(exists && known_id(fs, &st));
    if (claim && fs->n_paths == fs->cap_paths) {
        size_t cap = fs->cap_paths ? fs->cap_paths * 2 : 16;
        char **p = realloc(fs->paths, cap * sizeof *p);
        if (p) {
            fs->paths = p;
            fs->cap_paths = cap;
        } else {
            claim = 0;
        }
    }
    char *copy = claim ? strdup(path) : NULL;
    if (copy) {
        fs->paths[fs->n_paths++] = copy;
        if (exists)
            add_id(fs, &st);
    }
    pthread_mutex_unlock(&fs->mu);
    return copy != NULL;
}

int followset_has(followset_t *fs, const char *path)
{
    struct stat st;
    int exists = stat(path, &st) == 0;
    pthread_mutex_lock(&fs->mu);
    int has = known_path(fs, path) || (exists && known_id(fs, &st));
    pthread_mutex_unlock(&fs->mu);
    return has;
}

void followset_note_current(followset_t *fs)
{
    pthread_mutex_lock(&fs->mu);
    for (size_t i = 0; i < fs->n_paths; i++) {
        struct stat st;
        if (stat(fs->paths[i], &st) == 0)
            add_id(fs, &st);
    }
    pthread_mutex_unlock(&fs->mu);
}
