/* log.c: the diagnostic writer, shared by the clients (stderr and their
 * log file, DTail's --logger) and dserver (its sink, server/dlog.c).
 *
 * A log record is one line, and in DTail's format its fields are split on
 * '|' with no escaping (docs/dserver.md, "Logs"), so a value written raw
 * could end the record or add fields: a user name or a file name holding
 * "\nINFO|...|MAPREDUCE:STATS|..." would forge a self-stats record that
 * `dmap 'from STATS ...'` reads. log_write therefore formats the message
 * itself: the format text (the program's own, with its '|' separators) is
 * kept, and every %s and %c argument is written escaped by log_escape.
 * This covers every value of every LOG_* call without a change to the
 * callers, and costs nothing when the level is disabled (the macros check
 * the level first). A message assembled elsewhere, with separators of its
 * own (an err_t naming a user), goes through LOG_MSG, which only escapes
 * control bytes; whoever assembled it escaped its values. */
#include "base/log.h"

#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "base/fdio.h"
#include "base/logfile.h"
#include "base/outbuf.h"
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

/* ---- escaping ------------------------------------------------------------ */

/* A bounded output: bytes past cap - 1 are dropped, out stays a string. */
typedef struct out {
    char *p;
    size_t cap, n;
} out_t;

static void put(out_t *o, const char *s, size_t n)
{
    size_t room = o->cap - 1 - o->n;
    if (n > room)
        n = room;
    memcpy(o->p + o->n, s, n);
    o->n += n;
    o->p[o->n] = '\0';
}

/* s[0..n) escaped: \n \r \t, \xHH for the other control bytes and DEL,
 * and for a field (a value) also \\ for a backslash and \x7c for '|'.
 * Other bytes (UTF-8 included) are kept. A message assembled by the
 * caller (fields 0) keeps its backslashes and '|': its values were
 * escaped as fields already, and must not be escaped twice. */
static void put_escaped(out_t *o, const char *s, size_t n, int fields)
{
    static const char hex[] = "0123456789abcdef";
    size_t run = 0;   /* bytes kept as they are, copied in one go */
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != 0x7f && !(fields && (c == '\\' || c == '|')))
            continue;
        put(o, s + run, i - run);
        run = i + 1;
        char esc[4] = {'\\', 0, 0, 0};
        size_t k = 2;
        switch (c) {
        case '\\': esc[1] = '\\'; break;
        case '\n': esc[1] = 'n'; break;
        case '\r': esc[1] = 'r'; break;
        case '\t': esc[1] = 't'; break;
        default:
            esc[1] = 'x';
            esc[2] = hex[c >> 4];
            esc[3] = hex[c & 15];
            k = 4;
        }
        put(o, esc, k);
    }
    put(o, s + run, n - run);
}

const char *log_escape(const char *s, char *out, size_t cap)
{
    if (cap == 0)
        return "";
    out_t o = {out, cap, 0};
    out[0] = '\0';
    put_escaped(&o, s ? s : "(null)", s ? strlen(s) : 6, 1);
    return out;
}

/* ---- formatting ---------------------------------------------------------- */

/* Up to 6 decimal digits at *pp (a width or precision), -1 when none. */
static int digits(const char **pp)
{
    const char *p = *pp;
    int v = -1;
    for (int k = 0; k < 6 && *p >= '0' && *p <= '9'; k++, p++)
        v = (v < 0 ? 0 : v * 10) + (*p - '0');
    while (*p >= '0' && *p <= '9')
        p++;
    *pp = p;
    return v;
}

static void pad(out_t *o, int n)
{
    for (; n > 0; n--)
        put(o, " ", 1);
}

/* printf with every %s and %c argument escaped as a field (log_escape).
 * Numbers go through snprintf one conversion at a time, with their own
 * flags, width and precision ('*' ones read and written in as digits).
 * An unsupported conversion (%n, wide strings) ends the message. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
static void format_escaped(out_t *o, const char *fmt, va_list ap)
{
    const char *p = fmt;
    while (*p) {
        const char *pct = strchr(p, '%');
        if (!pct) {
            put(o, p, strlen(p));
            return;
        }
        put(o, p, (size_t)(pct - p));
        p = pct + 1;
        if (*p == '%') {
            put(o, "%", 1);
            p++;
            continue;
        }
        char flags[8];
        size_t nf = 0;
        int left = 0;
        for (; *p && strchr("-+ #0", *p); p++) {
            if (nf < sizeof flags - 2)
                flags[nf++] = *p;
            left |= *p == '-';
        }
        int width = -1, prec = -1;
        if (*p == '*') {
            width = va_arg(ap, int);
            p++;
            if (width < 0) {
                flags[nf++] = '-';
                left = 1;
                width = width == INT_MIN ? 0 : -width;
            }
        } else {
            width = digits(&p);
        }
        flags[nf] = '\0';
        if (*p == '.') {
            p++;
            if (*p == '*') {
                prec = va_arg(ap, int);   /* negative: as if none */
                p++;
            } else {
                prec = digits(&p);
                if (prec < 0)
                    prec = 0;
            }
        }
        char len[3] = "";
        size_t nl = strspn(p, "hljztL");
        if (nl > 2)
            return;
        memcpy(len, p, nl);
        p += nl;
        char conv = *p++;
        if (!conv)
            return;
        char spec[48];
        int sl = snprintf(spec, sizeof spec, "%%%s", flags);
        if (width >= 0)
            sl += snprintf(spec + sl, sizeof spec - (size_t)sl, "%d", width);
        if (prec >= 0)
            sl += snprintf(spec + sl, sizeof spec - (size_t)sl, ".%d", prec);
        snprintf(spec + sl, sizeof spec - (size_t)sl, "%s%c", len, conv);
        char num[512];
        int k = -1;
        int l1 = len[0] == 'l' && !len[1], ll = len[0] == 'l' && len[1] == 'l';
        switch (conv) {
        case 's': {
            if (nl) /* %ls */
                return;
            const char *str = va_arg(ap, const char *);
            if (!str)
                str = "(null)";
            size_t n = prec >= 0 ? strnlen(str, (size_t)prec) : strlen(str);
            int fill = width > (int)n ? width - (int)n : 0;
            if (!left)
                pad(o, fill);
            put_escaped(o, str, n, 1);
            if (left)
                pad(o, fill);
            continue;
        }
        case 'c': {
            char ch = (char)va_arg(ap, int);
            if (!left)
                pad(o, width - 1);
            put_escaped(o, &ch, 1, 1);
            if (left)
                pad(o, width - 1);
            continue;
        }
        case 'd': case 'i':
            if (ll)
                k = snprintf(num, sizeof num, spec, va_arg(ap, long long));
            else if (l1)
                k = snprintf(num, sizeof num, spec, va_arg(ap, long));
            else if (len[0] == 'j')
                k = snprintf(num, sizeof num, spec, va_arg(ap, intmax_t));
            else if (len[0] == 'z' || len[0] == 't')
                k = snprintf(num, sizeof num, spec, va_arg(ap, ptrdiff_t));
            else
                k = snprintf(num, sizeof num, spec, va_arg(ap, int));   /* hh, h promote */
            break;
        case 'o': case 'u': case 'x': case 'X':
            if (ll)
                k = snprintf(num, sizeof num, spec, va_arg(ap, unsigned long long));
            else if (l1)
                k = snprintf(num, sizeof num, spec, va_arg(ap, unsigned long));
            else if (len[0] == 'j')
                k = snprintf(num, sizeof num, spec, va_arg(ap, uintmax_t));
            else if (len[0] == 'z' || len[0] == 't')
                k = snprintf(num, sizeof num, spec, va_arg(ap, size_t));
            else
                k = snprintf(num, sizeof num, spec, va_arg(ap, unsigned int));
            break;
        case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
            if (len[0] == 'L')
                k = snprintf(num, sizeof num, spec, va_arg(ap, long double));
            else
                k = snprintf(num, sizeof num, spec, va_arg(ap, double));
            break;
        case 'p':
            k = snprintf(num, sizeof num, spec, va_arg(ap, void *));
            break;
        default:
            return;
        }
        if (k > 0)
            put(o, num, (size_t)k < sizeof num ? (size_t)k : sizeof num - 1);
    }
}
#pragma GCC diagnostic pop

/* The longest record; the rest of a message is cut. */
#define LOG_LINE 4096

static void emit(enum log_level level, out_t *o, char *line)
{
    if (log_sink) {
        log_sink(level, line, o->n);
        return;
    }
    line[o->n++] = '\n';   /* put keeps one byte free */
    log_diag_write(line, o->n);
}

static void start(out_t *o, char *line, enum log_level level)
{
    *o = (out_t){line, LOG_LINE, 0};
    line[0] = '\0';
    if (log_sink)
        return;   /* the sink adds its own prefix */
    put(o, "CLIENT|", 7);
    put(o, log_host, strlen(log_host));
    put(o, "|", 1);
    put(o, log_level_name(level), strlen(log_level_name(level)));
    put(o, "|", 1);
}

void log_write(enum log_level level, const char *fmt, ...)
{
    char line[LOG_LINE];
    out_t o;
    start(&o, line, level);
    va_list ap;
    va_start(ap, fmt);
    format_escaped(&o, fmt, ap);
    va_end(ap);
    emit(level, &o, line);
}

void log_write_msg(enum log_level level, const char *msg)
{
    char line[LOG_LINE];
    out_t o;
    start(&o, line, level);
    put_escaped(&o, msg, strlen(msg), 0);
    emit(level, &o, line);
}

/* ---- the clients' diagnostics: terminal and log file --------------------- */

static unsigned log_outputs = LOG_OUT_TERMINAL;

/* The client log file and the thread that writes it. */
static struct {
    pthread_mutex_t mu;     /* guards everything below */
    pthread_cond_t wake;    /* tells the writer to stop */
    pthread_t writer;       /* writes what is pending once a second */
    int open;               /* file is open, writer runs */
    int stop;               /* the writer ends */
    logfile_t file;         /* <dir>/YYYYMMDD.log or <dir>/<name>.log */
} cl = {.mu = PTHREAD_MUTEX_INITIALIZER, .file = {.fd = -1}};

int log_outputs_parse(const char *logger, unsigned *outputs)
{
    static const struct { const char *name; unsigned outputs; } names[] = {
        {"none", 0}, {"stdout", LOG_OUT_TERMINAL}, {"file", LOG_OUT_FILE},
        {"fout", LOG_OUT_TERMINAL | LOG_OUT_FILE},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcasecmp(logger, names[i].name) == 0) {
            *outputs = names[i].outputs;
            return 0;
        }
    }
    return -1;
}

void log_set_outputs(unsigned outputs)
{
    log_outputs = outputs;
}

/* Values are escaped already; what is left for a terminal is bytes that
 * are not valid UTF-8 and C1 controls in messages. */
static const palette_t *msg_palette;

void log_set_palette(const palette_t *p)
{
    msg_palette = p;
}

/* [p, p+n) into o, escaped when stderr is a terminal. */
static void put_data(outbuf_t *o, const char *p, size_t n, int esc)
{
    if (esc)
        outbuf_append_escaped(o, p, n, TERM_LINE_END);
    else
        outbuf_append(o, p, n);
}

/* A line "CLIENT|host|rest" or "SERVER|host|rest" painted as DTail paints
 * them: the word, '|', the host, '|', the rest, each with its group's
 * paint; any other line as it is. */
static void paint_line(outbuf_t *o, const char *l, size_t n, int esc)
{
    int server = n > 7 && memcmp(l, "SERVER|", 7) == 0;
    const char *host = l + 7, *bar = n > 7 ? memchr(host, '|', n - 7) : NULL;
    if (!bar || (!server && memcmp(l, "CLIENT|", 7) != 0)) {
        put_data(o, l, n, esc);
        return;
    }
    /* the group's slots in order: delimiter, word, hostname, text */
    const paint_t *s = msg_palette->slot + (server ? PAL_SERVER_DELIMITER : PAL_CLIENT_DELIMITER);
    paint_append(o, s[1], NULL, 0, l, 6, 0);
    paint_append(o, s[0], NULL, 0, "|", 1, 0);
    paint_append(o, s[2], NULL, 0, host, (size_t)(bar - host), esc);
    paint_append(o, s[0], NULL, 0, "|", 1, 0);
    size_t rest = n - (size_t)(bar + 1 - l);
    size_t nl = rest && bar[rest] == '\n';
    paint_append(o, s[3], NULL, 0, bar + 1, rest - nl, esc);
    if (nl)
        outbuf_putc(o, '\n');
}

static void write_painted(const char *text, size_t n)
{
    outbuf_t o;
    err_t e;
    if (outbuf_init_mem(&o, n * TERM_ESCAPE_MAX + 256, &e) < 0) {
        (void)fdio_write_all(STDERR_FILENO, text, n);
        return;
    }
    int esc = term_escapes(STDERR_FILENO);
    for (const char *p = text, *end = text + n; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl + 1 - p) : (size_t)(end - p);
        paint_line(&o, p, len, esc);
        p += len;
    }
    (void)fdio_write_all(STDERR_FILENO, o.data, o.len);
    outbuf_free(&o);
}

static void write_terminal(const char *text, size_t n)
{
    if (msg_palette) {
        write_painted(text, n);
        return;
    }
    if (!term_escapes(STDERR_FILENO)) {
        (void)fdio_write_all(STDERR_FILENO, text, n);
        return;
    }
    term_write_escaped(stderr, text, n);   /* stderr: unbuffered, one write */
}

void log_file_copy(const char *p, size_t n)
{
    pthread_mutex_lock(&cl.mu);
    if (cl.open)
        logfile_append(&cl.file, p, n);
    pthread_mutex_unlock(&cl.mu);
}

void log_diag_write(const char *text, size_t n)
{
    if (log_outputs & LOG_OUT_TERMINAL)
        write_terminal(text, n);
    if (log_outputs & LOG_OUT_FILE)
        log_file_copy(text, n);
}

static void *file_writer(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&cl.mu);
    while (!cl.stop) {
        struct timespec at;
        clock_gettime(CLOCK_MONOTONIC, &at);
        at.tv_sec += 1;
        pthread_cond_timedwait(&cl.wake, &cl.mu, &at);
        logfile_flush(&cl.file);
    }
    pthread_mutex_unlock(&cl.mu);
    return NULL;
}

/* The writer with every signal blocked: the clients' signals (Ctrl-C,
 * SIGTERM) keep going to the threads that were there to take them. */
static int start_writer(err_t *e)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&cl.wake, &ca);
    pthread_condattr_destroy(&ca);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&cl.writer, NULL, file_writer, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        pthread_cond_destroy(&cl.wake);
        return err_set(e, ERR_IO, "cannot start the log file writer: %s", strerror(rc));
    }
    return 0;
}

int log_file_open(const char *dir, const char *name, err_t *e)
{
    pthread_mutex_lock(&cl.mu);
    int rc = cl.open ? err_set(e, ERR_IO, "the log file is open already")
                     : logfile_open(&cl.file, dir, name, e);
    cl.stop = 0;
    if (rc == 0 && (rc = start_writer(e)) < 0)
        logfile_close(&cl.file);
    cl.open = rc == 0;
    pthread_mutex_unlock(&cl.mu);
    return rc;
}

void log_file_close(void)
{
    pthread_mutex_lock(&cl.mu);
    int was_open = cl.open;
    cl.stop = 1;
    if (was_open)
        pthread_cond_signal(&cl.wake);
    pthread_mutex_unlock(&cl.mu);
    if (!was_open)
        return;
    pthread_join(cl.writer, NULL);
    pthread_mutex_lock(&cl.mu);
    logfile_close(&cl.file);
    cl.open = 0;
    pthread_mutex_unlock(&cl.mu);
    pthread_cond_destroy(&cl.wake);
}
