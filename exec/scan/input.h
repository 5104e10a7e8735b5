/* input.h: one readable byte stream: a regular file, stdin, or a gzip or
 * zstd file, recognised by its magic bytes whatever its name; or the
 * lines of a journal target, made by code (an input source).
 *
 * The reader above asks for large reads; decompression happens here so the
 * rest of the engine never knows whether bytes were compressed. */
#ifndef DTAIL_EXEC_INPUT_H
#define DTAIL_EXEC_INPUT_H

#include <stddef.h>
#include <sys/types.h>

#include "base/err.h"

enum input_kind {
    INPUT_PLAIN = 0,  /* bytes as they are */
    INPUT_GZIP,       /* gzip (also multi-member) */
    INPUT_ZSTD,       /* zstd frames */
};

typedef struct input input_t;

/* Opens path ("-" = stdin; "journal:<unit>": the lines of a systemd
 * journal target, exec/scan/journal.h). Rejects directories and other
 * non-regular, non-stream files with an error naming the path. */
input_t *input_open(const char *path, err_t *e);
/* input_open for a run that ends at deadline_ms (clock_now_ms(); 0: none):
 * a stream (stdin) that has no bytes by then reads as ended, so a stalled
 * pipe cannot hold the run past its --timeout. Regular files never block
 * and are read as ever. */
input_t *input_open_until(const char *path, long long deadline_ms, err_t *e);
/* Opens a regular file already open as fd (not closed by input_close;
 * reads are positional, so the descriptor can be opened again and again),
 * e.g. a memfd holding an input kept in memory; name is for messages. */
input_t *input_open_fd(int fd, const char *name, err_t *e);
/* Bytes produced by code rather than read from a descriptor: a followed
 * file (exec/scan/follow.h). read returns the count, 0 at the end, or -1
 * with e set; a source that does not block may also return INPUT_AGAIN
 * (nothing now, ask again later) or INPUT_CUT (the bytes after the last
 * '\n' handed out are void: the file was truncated under an unfinished
 * line, whose start must not be shown as a line). close frees ctx. */
#define INPUT_AGAIN (-2)
#define INPUT_CUT (-3)
typedef struct input_source {
    void *ctx;
    ssize_t (*read)(void *ctx, char *buf, size_t cap, err_t *e);
    void (*close)(void *ctx);
} input_source_t;
/* An input over src (a stream: never mapped, never split into ranges). */
input_t *input_open_source(const input_source_t *src, const char *name, err_t *e);
/* Reads up to cap bytes; returns bytes read, 0 at end, -1 on error (e set),
 * or from a source, INPUT_AGAIN or INPUT_CUT. */
ssize_t input_read(input_t *in, char *buf, size_t cap, err_t *e);
enum input_kind input_kind(const input_t *in);
/* Size in bytes for a plain regular file, -1 otherwise (stream or compressed). */
long long input_plain_size(const input_t *in);
int input_fd(const input_t *in);
/* The path it was opened as, for messages. */
const char *input_name(const input_t *in);
/* A second reader of a plain regular file, starting at byte `from`, sharing
 * whole's descriptor (positional reads). Close it before whole. */
input_t *input_slice(const input_t *whole, long long from, err_t *e);
/* A regular file that is shorter now than when it was opened may have
 * lost lines under a finite read: every runner checks at the end of a
 * file (0, or -1 with the error naming name). Streams always pass. */
int input_check_not_shrunk(const input_t *in, const char *name, err_t *e);
/* The one message for a file found shorter while it was read: -1, e set. */
int input_err_shrank(err_t *e, const char *name);
void input_close(input_t *in);

#endif
