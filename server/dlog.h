/* dlog.h: dserver's own log, in DTail's server line format
 *
 *   LEVEL|MMDD-HHMMSS|message
 *
 * to stdout (logger "stdout"), to the log file (logger "file": base/logfile.h,
 * daily or signal-rotated), to both ("fout") or nowhere ("none"). Lines
 * are buffered in 64 KiB and written when the buffer fills
 * and at every dlog_flush (dserver's main loop calls it every 100 ms), so a
 * burst of log lines costs one write. Installed as base/log.h's sink, so the
 * LOG_* macros keep their level check: a disabled level formats nothing.
 *
 * dlog_stats writes DTail's self-stats line (§3.7), which dmap's default
 * format reads (`dmap --files LOG 'from STATS select ...'`). */
#ifndef DTAIL_SERVER_DLOG_H
#define DTAIL_SERVER_DLOG_H

#include <stddef.h>

#include "base/err.h"
#include "base/log.h"
#include "server/counters.h"

/* Opens the log; logger is none, stdout, file or fout (any case). The
 * file is <log_dir>/YYYYMMDD.log, a new one each day, or with name (not
 * NULL: signal rotation) <log_dir>/<name>.log, reopened by dlog_reopen. */
int dlog_open(const char *logger, const char *log_dir, const char *name, err_t *e);
/* Closes the log file and opens its path again (after a rotation moved
 * it away: SIGHUP). What is buffered goes to the old file first. Returns
 * 0, or -1 with e when the path cannot be opened (the old file is kept). */
int dlog_reopen(err_t *e);
void dlog_flush(void);
void dlog_close(void);

/* Appends one line (without newline) at level; also the log.h sink. */
void dlog_line(enum log_level level, const char *msg, size_t len);

/* Writes the MAPREDUCE:STATS line: INFO|MMDD-HHMMSS|pid|stats.c:1|cpus|
 * threads|0|loadavg|uptime|MAPREDUCE:STATS|currentConnections=N|... */
void dlog_stats(const server_counters_t *c);

/* Formats seconds as a Go duration ("471h0m21s"), as DTail's uptime field. */
void dlog_go_duration(unsigned long long secs, char *out, size_t cap);

#endif
