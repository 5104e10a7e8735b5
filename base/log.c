/* log.c: the client-side diagnostic writer. */
#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/term.h"

enum log_level log_level = LOG_WARN;
static char log_host[256] = "local";

static const struct { const char *name; enum log_level level; } log_names[] = {
    {"none", LOG_NONE}, {"fatal", LOG_FATAL}, {"error", LOG_ERROR},
    {"warn", LOG_WARN}, {"info", LOG_INFO}, {"default", LOG_INFO},
    {"verbose", LOG_VERBOSE}, {"debug", LOG_DEBUG}, {"devel", LOG_DEBUG},
    {"trace", LOG_TRACE}, {"all", LOG_TRACE},
};

int log_level_parse(const char *name, enum log_level *out)
{
    for (size_t i = 0; i < sizeof log_names / sizeof log_names[0]; i++) {
        if (strcasecmp(name, log_names[i].name) == 0) {
            *out = log_names[i].level;
            return 0;
        }
    }
    return -1;
}

const char *log_level_name(enum log_level level)
{
    static const char *upper[] = {"NONE", "FATAL", "ERROR", "WARN", "INFO",
                                  "VERBOSE", "DEBUG", "TRACE"};
    return (unsigned)level < sizeof upper / sizeof upper[0] ? upper[level] : "?";
}

void log_set_host(const char *host)
{
    snprintf(log_host, sizeof log_host, "%s", host);
}

static log_sink_fn log_sink;

void log_set_sink(log_sink_fn sink)
{
    log_sink = sink;
}

void log_write(enum log_level level, const char *fmt, ...)
{
    char line[4096];
    if (log_sink) {
        va_list sap;
        va_start(sap, fmt);
        int k = vsnprintf(line, sizeof line, fmt, sap);
        va_end(sap);
        log_sink(level, line, k < 0 ? 0 : (size_t)k < sizeof line ? (size_t)k : sizeof line - 1);
        return;
    }
    int n = snprintf(line, sizeof line, "CLIENT|%s|%s|", log_host, log_level_name(level));
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    size_t len = (size_t)n + (m < 0 ? 0 : (size_t)m);
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    line[len++] = '\n';
    const char *p = line;
    char esc[sizeof line * TERM_ESCAPE_MAX];
    if (term_escapes(STDERR_FILENO)) {   /* messages carry names and server text */
        len = term_escape(esc, line, len, 0);
        p = esc;
    }
    ssize_t unused = write(STDERR_FILENO, p, len);
    (void)unused;
}
