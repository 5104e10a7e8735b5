/* followset.h: which files a follow run reads. Its file specs are expanded
 * again and again; a path gets one follower, and a file gets one follower
 * whatever it is called: a file rotated away under a name the specs also
 * match (app.log -> app-2026.log for `*.log`) is not read a second time.
 * Shared by dtail and dserver's tail requests; thread-safe. */
#ifndef DTAIL_EXEC_FOLLOWSET_H
#define DTAIL_EXEC_FOLLOWSET_H

#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

/* A file's identity: its inode, and its creation time where the
 * filesystem keeps one, so an inode number freed by a deleted file and
 * given to a new one does not make the new file look followed. */
struct followset_id {
    dev_t dev;
    ino_t ino;
    long long born_s;
    long born_ns;
};

typedef struct followset {
    pthread_mutex_t mu;
    char **paths;            /* paths followed */
    size_t n_paths, cap_paths;
    struct followset_id *ids; /* identities followed, or rotated away */
    size_t n_ids, cap_ids;
} followset_t;

void followset_init(followset_t *fs);
void followset_free(followset_t *fs);
/* 1 (and recorded) when neither path nor the file it names now is followed
 * yet: the caller starts a follower for it. 0 otherwise, or out of memory. */
int followset_claim(followset_t *fs, const char *path);
/* Whether followset_claim would refuse path (it or its file is followed),
 * without recording anything. */
int followset_has(followset_t *fs, const char *path);
/* Records the files the followed paths name now; called before each
 * expansion, so a file later renamed to a matching name is known. */
void followset_note_current(followset_t *fs);

#endif
