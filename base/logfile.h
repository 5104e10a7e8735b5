/* logfile.h: DTail's log file, the one of dserver (server/dlog.h) and of
 * the clients (base/log.h, --logger file or fout).
 *
 * In a directory (created with its parents, as DTail's MkdirAll): with
 * daily rotation <dir>/YYYYMMDD.log for the local date of each write, a
 * new file when the date changes; with signal rotation (a name given)
 * <dir>/<name>.log, the one file, which logfile_reopen opens again after
 * a rotator moved it away (dserver's SIGHUP). Bytes are kept in a block
 * of LOGFILE_BLOCK and written when it fills and at logfile_flush, so a
 * burst of lines costs one write; a span larger than the block is written
 * as it is. Write errors are dropped: there is nowhere left to report
 * them. Not locked: the owner serialises the calls. */
#ifndef DTAIL_BASE_LOGFILE_H
#define DTAIL_BASE_LOGFILE_H

#include <stddef.h>

#include "base/err.h"

#define LOGFILE_BLOCK (64 * 1024)

typedef struct logfile {
    char dir[1024];              /* the log directory */
    char fixed[1100];            /* signal rotation: the file's path; "" = daily */
    int fd;                      /* the open file, -1 when none */
    int day;                     /* YYYYMMDD the open daily file is for */
    char buf[LOGFILE_BLOCK];     /* pending bytes */
    size_t len;                  /* used bytes of buf */
} logfile_t;

/* Creates dir and opens the file of today (or <dir>/<name>.log when name
 * is not NULL). Returns 0, or -1 with ERR_IO naming the path. */
int logfile_open(logfile_t *lf, const char *dir, const char *name, err_t *e);
/* Keeps [p, p+n) for the next write. */
void logfile_append(logfile_t *lf, const char *p, size_t n);
/* Writes what is pending, to today's file (opened when the date changed). */
void logfile_flush(logfile_t *lf);
/* Flushes, then opens the path again; the old file is kept when that
 * fails (-1 with ERR_IO naming the path). */
int logfile_reopen(logfile_t *lf, err_t *e);
/* Flushes and closes; lf may be opened again. */
void logfile_close(logfile_t *lf);

#endif
