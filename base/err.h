/* err.h: the one error value of the project.
 *
 * Functions that can fail return a status (0 ok, -1 failed) and fill an
 * err_t owned by the caller; only main() prints and exits. The message names
 * what failed and where (file, pattern, byte offset). */
#ifndef DTAIL_BASE_ERR_H
#define DTAIL_BASE_ERR_H

#include <stddef.h>

enum err_code {
    ERR_NONE = 0,
    ERR_USAGE,      /* bad flag or argument: exit 2 */
    ERR_PATTERN,    /* invalid regex: exit 2 */
    ERR_QUERY,      /* invalid query: exit 2 */
    ERR_CONFIG,     /* invalid config file: exit 2 */
    ERR_INPUT,      /* an input file could not be read: exit 1 */
    ERR_IO,         /* write or system failure: exit 1 */
    ERR_NOMEM,      /* allocation failed */
};

typedef struct err {
    enum err_code code;   /* ERR_NONE when nothing failed */
    long offset;          /* byte offset into the offending text, -1 if none */
    char msg[1024];       /* human readable, without trailing newline */
} err_t;

void err_clear(err_t *e);
/* Sets code and a printf-formatted message; returns -1 so callers can
 * `return err_set(...)`. */
int err_set(err_t *e, enum err_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Like err_set, with a byte offset into some text. */
int err_set_at(err_t *e, enum err_code code, long offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Process exit status for an error code (documented in docs/exit-codes.md). */
int err_exit_status(enum err_code code);

#endif
