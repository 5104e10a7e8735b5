/* log.h: diagnostics with a level check before any argument is evaluated.
 *
 * LOG_AT(level, ...) expands to `if (level <= log_level) log_write(...)`, so a
 * disabled level costs one compare and formats nothing (lesson 5). Never call
 * it inside a per-line loop. */
#ifndef DTAIL_BASE_LOG_H
#define DTAIL_BASE_LOG_H

#include <stddef.h>

enum log_level {
    LOG_NONE = 0,
    LOG_FATAL,
    LOG_ERROR,
    LOG_WARN,
    LOG_INFO,
    LOG_VERBOSE,
    LOG_DEBUG,
    LOG_TRACE,
};

extern enum log_level log_level;   /* current threshold, default LOG_WARN */

/* Parses a DTail level name (none fatal error warn info default verbose debug
 * devel trace all, any case). Returns 0, or -1 for an unknown name. */
int log_level_parse(const char *name, enum log_level *out);
const char *log_level_name(enum log_level level);
/* Writes `CLIENT|host|LEVEL|message` to stderr in one write. */
void log_write(enum log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Host name used in log lines (set once at start-up). */
void log_set_host(const char *host);
/* Redirects every log line to sink (dserver's own log, server/dlog.h) with
 * the formatted message only; the sink adds its own prefix. NULL restores
 * the client's stderr writer. Set once at start-up, before threads. */
typedef void (*log_sink_fn)(enum log_level level, const char *msg, size_t len);
void log_set_sink(log_sink_fn sink);

#define LOG_AT(level, ...) \
    do { if ((level) <= log_level) log_write((level), __VA_ARGS__); } while (0)
#define LOG_ERROR(...) LOG_AT(LOG_ERROR, __VA_ARGS__)
#define LOG_WARN(...) LOG_AT(LOG_WARN, __VA_ARGS__)
#define LOG_INFO(...) LOG_AT(LOG_INFO, __VA_ARGS__)
#define LOG_DEBUG(...) LOG_AT(LOG_DEBUG, __VA_ARGS__)

#endif
