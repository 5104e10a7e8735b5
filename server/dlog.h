/* dlog.h: dserver's own log, in DTail's server line format
 *
 *   LEVEL|MMDD-HHMMSS|message
 *
 * to stdout (logger "stdout"), to <LogDir>/YYYYMMDD.log (logger "file",
 * reopened when the local date changes), to both ("fout") or nowhere
 * ("none"). Lines are buffered in 64 KiB and written when the buffer fills
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

/* Opens the log; logger is none, stdout, file or fout (any case). */
int dlog_open(const char *logger, const char *log_dir, err_t *e);
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
