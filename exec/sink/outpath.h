/* outpath.h: where an outfile goes, decided once for every writer.
 *
 * Every outfile (CSV and its PATH.query, SQLite; dmap with or without
 * servers, the REPL, dtail --query) resolves its destination here before it
 * writes anything, so all of them treat what is at the path the same way:
 *   - a symbolic link is followed (chains too) and its target is written:
 *     the temporary goes beside the target and is renamed over it, and the
 *     link stays a link; a dangling link gets its target created;
 *   - an existing regular file is replaced (or appended to) and keeps its
 *     permission bits; a new file gets 0644;
 *   - anything else that exists (FIFO, device, directory, socket) is
 *     refused: nothing on disk changes;
 *   - "-" is stdout (outpath_is_stdout): no temporary, no PATH.query.
 * Errors read "outfile GIVEN: ...", GIVEN being the path the user wrote. */
#ifndef DTAIL_EXEC_SINK_OUTPATH_H
#define DTAIL_EXEC_SINK_OUTPATH_H

#include <stddef.h>
#include <sys/types.h>

#include "base/err.h"

#define OUTPATH_MAX 4200

typedef struct outpath {
    const char *given;          /* the outfile as the user wrote it, for messages */
    char target[OUTPATH_MAX];   /* the file written: the path with its links resolved */
    int exists;                 /* target is an existing regular file */
    mode_t mode;                /* permission bits the written file gets */
} outpath_t;

/* "-": the result goes to stdout. */
int outpath_is_stdout(const char *path);

/* Resolves path (given: what messages name; usually path itself) into
 * op. Fails, naming given, when path or a link's target exists and is not
 * a regular file, when links loop, or when a new file's directory does not
 * exist. op->given keeps the pointer: given must outlive op. */
int outpath_resolve(outpath_t *op, const char *path, const char *given, err_t *e);

/* Creates an empty temporary file with op->mode in op->target's directory
 * (so the final rename stays on one file system) and returns its fd, its
 * name in tmp[0..cap). On failure tmp is "" and nothing was created. */
int outpath_temp(const outpath_t *op, char *tmp, size_t cap, err_t *e);

/* Renames tmp over op->target. On failure tmp is removed. */
int outpath_commit(const outpath_t *op, const char *tmp, err_t *e);

#endif
