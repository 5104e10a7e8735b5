/* log.h: diagnostics with a level check before any argument is evaluated.
 *
 * LOG_AT(level, ...) expands to `if (level <= log_level) log_write(...)`, so a
 * disabled level costs one compare and formats nothing (lesson 5). Never call
 * it inside a per-line loop. */
#ifndef DTAIL_BASE_LOG_H
#define DTAIL_BASE_LOG_H

#include <stddef.h>

#include "base/err.h"

#include "base/palette.h"

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
/* Writes `CLIENT|host|LEVEL|message` to stderr in one write (or the
 * message to the sink). A record is one line whose fields are split on '|',
 * so the values cannot be trusted to keep to it: every %s and %c argument
 * is written as log_escape writes it, while the format's own text (its '|'
 * separators) is kept. A message longer than 4 KiB is cut. */
void log_write(enum log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The same for a message assembled by the caller (an err_t's text), whose
 * '|' are its separators: only control bytes are escaped (the record stays
 * one line), so each value in it must have gone through log_escape. */
void log_write_msg(enum log_level level, const char *msg);
/* s as a log field in out (cap bytes, cut to fit; returns out): a
 * backslash becomes \\, newline, CR and tab \n \r \t, the other control
 * bytes, DEL and '|' \xHH. Other bytes, UTF-8 included, are kept. */
const char *log_escape(const char *s, char *out, size_t cap);
/* Host name used in log lines (set once at start-up). */
void log_set_host(const char *host);
/* Redirects every log line to sink (dserver's own log, server/dlog.h) with
 * the formatted message only; the sink adds its own prefix. NULL restores
 * the client's stderr writer. Set once at start-up, before threads. */
typedef void (*log_sink_fn)(enum log_level level, const char *msg, size_t len);
void log_set_sink(log_sink_fn sink);

/* ---- where a client's diagnostics go (DTail's --logger) ----------------
 *
 * A client's diagnostics are its CLIENT|host|LEVEL|... records and the
 * messages it writes to stderr through term_fprintf (server messages,
 * errors, notices). They go to the terminal (stderr), to the client log
 * file (base/logfile.h), to both or nowhere; until log_set_outputs, to the
 * terminal. The payload (stdout) is not a diagnostic: it reaches the file
 * only through log_file_copy (--log-payload). */
#define LOG_OUT_TERMINAL 1u
#define LOG_OUT_FILE     2u
/* DTail's logger names, any case: none, stdout (the terminal), file, fout
 * (both). Returns 0 with *outputs set, or -1 for another name. */
int log_outputs_parse(const char *logger, unsigned *outputs);
/* Set once at start-up, after log_file_open when LOG_OUT_FILE is in it. */
void log_set_outputs(unsigned outputs);
/* Paints the CLIENT| and SERVER| lines written to the terminal with p's
 * Client and Server paints (Client.TermColors); NULL (the default): not
 * painted. Set once, before any thread starts; p must outlive the log. */
void log_set_palette(const palette_t *p);
/* Opens the client log file and starts the thread that writes it: what is
 * pending is written once a second (and when 64 KiB are pending, and at
 * log_file_close), never per line. Returns 0, or -1 with ERR_IO. */
int log_file_open(const char *dir, const char *name, err_t *e);
/* Writes what is pending, stops the thread, closes the file. */
void log_file_close(void);
/* A diagnostic, whole lines: on the terminal (escaped when stderr is one,
 * base/term.h) and appended to the open log file as it is. */
void log_diag_write(const char *text, size_t n);
/* Payload for the log file only (--log-payload); nothing without a file. */
void log_file_copy(const char *p, size_t n);

#define LOG_AT(level, ...) \
    do { if ((level) <= log_level) log_write((level), __VA_ARGS__); } while (0)
#define LOG_ERROR(...) LOG_AT(LOG_ERROR, __VA_ARGS__)
#define LOG_WARN(...) LOG_AT(LOG_WARN, __VA_ARGS__)
#define LOG_INFO(...) LOG_AT(LOG_INFO, __VA_ARGS__)
#define LOG_DEBUG(...) LOG_AT(LOG_DEBUG, __VA_ARGS__)
/* log_write_msg at level, with the same level check. */
#define LOG_MSG(level, msg) \
    do { if ((level) <= log_level) log_write_msg((level), (msg)); } while (0)

#endif
