/* detect.c: the format of a sample of lines, each format's shape checked
 * by hand (no regex: this runs once per file, but it must not accept a
 * line of another format). */
#include "exec/extract/detect.h"

#include <stdbool.h>
#include <string.h>

typedef struct span {
    const char *p, *e;
} span_t;

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
static bool is_lower(char c) { return c >= 'a' && c <= 'z'; }

static span_t trim(span_t s)
{
    while (s.p < s.e && (*s.p == ' ' || *s.p == '\t'))
        s.p++;
    while (s.e > s.p && (s.e[-1] == ' ' || s.e[-1] == '\t' || s.e[-1] == '\r'))
        s.e--;
    return s;
}

static size_t digits(const char *p, const char *e)
{
    size_t n = 0;
    while (p + n < e && is_digit(p[n]))
        n++;
    return n;
}

/* DTail's own line: LEVEL|MMDD-HHMMSS|... (a MAPREDUCE record or any
 * other line its logger writes). */
static bool is_default(span_t s)
{
    const char *p = s.p;
    while (p < s.e && is_upper(*p))
        p++;
    if (p == s.p || p - s.p > 7 || p >= s.e || *p != '|')
        return false;
    p++;
    return s.e - p >= 12 && digits(p, s.e) == 4 && p[4] == '-' && digits(p + 5, s.e) >= 6 &&
           memchr(p, '|', (size_t)(s.e - p)) != NULL;
}

static bool is_json(span_t s)
{
    return s.e - s.p >= 2 && s.p[0] == '{' && s.e[-1] == '}' && memchr(s.p, '"', (size_t)(s.e - s.p));
}

/* A key of logfmt: letters, digits, _ . - / @. */
static bool key_byte(char c)
{
    return is_lower(c) || is_upper(c) || is_digit(c) || c == '_' || c == '.' || c == '-' ||
           c == '/' || c == '@';
}

/* key=value pairs separated by spaces, a value bare or quoted (with
 * escapes); at least two pairs, and every token a pair. */
static bool is_logfmt(span_t s)
{
    const char *p = s.p;
    int pairs = 0;
    while (p < s.e) {
        const char *k = p;
        while (p < s.e && key_byte(*p))
            p++;
        if (p == k || p >= s.e || *p != '=')
            return false;
        p++;
        if (p < s.e && *p == '"') {
            for (p++; p < s.e && *p != '"'; p++)
                if (*p == '\\' && p + 1 < s.e)
                    p++;
            if (p >= s.e)
                return false;
            p++;
        } else {
            while (p < s.e && *p != ' ' && *p != '"')
                p++;
        }
        pairs++;
        if (p < s.e && *p != ' ')
            return false;
        while (p < s.e && *p == ' ')
            p++;
    }
    return pairs >= 2;
}

/* A token without spaces, then one space. */
static const char *token(const char *p, const char *e)
{
    const char *t = p;
    while (p < e && *p != ' ')
        p++;
    return p > t && p < e ? p + 1 : NULL;
}

/* The common and combined formats: addr ident user [time] "request"
 * status bytes ... */
static bool is_nginx(span_t s)
{
    const char *p = s.p;
    for (int i = 0; i < 3 && p; i++)
        p = token(p, s.e);
    if (!p || p >= s.e || *p != '[')
        return false;
    const char *close = memchr(p, ']', (size_t)(s.e - p));
    if (!close || close + 3 > s.e || close[1] != ' ' || close[2] != '"')
        return false;
    p = close + 3;
    for (; p < s.e && *p != '"'; p++)
        if (*p == '\\' && p + 1 < s.e)
            p++;
    if (p + 5 >= s.e || p[1] != ' ')
        return false;
    p += 2;
    if (digits(p, s.e) != 3 || p[3] != ' ')
        return false;
    p += 4;
    return (p < s.e && *p == '-') || digits(p, s.e) > 0;
}

static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

/* "Mmm dd hh:mm:ss " (RFC 3164's timestamp, the day padded with a space). */
static bool bsd_time(const char *p, const char *e)
{
    if (e - p < 16)
        return false;
    bool month = false;
    for (int i = 0; i < 12 && !month; i++)
        month = memcmp(p, months[i], 3) == 0;
    return month && p[3] == ' ' && (p[4] == ' ' || is_digit(p[4])) && is_digit(p[5]) &&
           p[6] == ' ' && is_digit(p[7]) && is_digit(p[8]) && p[9] == ':' && is_digit(p[10]) &&
           is_digit(p[11]) && p[12] == ':' && is_digit(p[13]) && is_digit(p[14]) && p[15] == ' ';
}

/* <PRI> then RFC 5424 ("1 " and an ISO time) or RFC 3164 (a BSD time);
 * or, as /var/log/syslog writes it, a BSD time, a host and "app[pid]:". */
static bool is_syslog(span_t s)
{
    const char *p = s.p;
    if (p < s.e && *p == '<') {
        size_t n = digits(p + 1, s.e);
        if (n == 0 || n > 3 || p + 1 + n >= s.e || p[1 + n] != '>')
            return false;
        p += 2 + n;
        if (s.e - p >= 2 && is_digit(p[0]) && p[1] == ' ')
            return true;
        return bsd_time(p, s.e);
    }
    if (!bsd_time(p, s.e))
        return false;
    p += 16;
    p = token(p, s.e);      /* the host */
    if (!p)
        return false;
    const char *tag = p;
    while (p < s.e && *p != ' ' && *p != ':' && *p != '[')
        p++;
    if (p == tag || p >= s.e)
        return false;
    if (*p == '[') {
        size_t n = digits(p + 1, s.e);
        if (!n || p + 1 + n >= s.e || p[1 + n] != ']')
            return false;
        p += 2 + n;
    }
    return p < s.e && *p == ':';
}

/* Comma-separated fields (RFC 4180 quotes); -1 when a quote is left open. */
static int csv_fields(span_t s)
{
    int n = 1;
    bool quoted = false;
    for (const char *p = s.p; p < s.e; p++) {
        if (*p == '"')
            quoted = !quoted;
        else if (*p == ',' && !quoted)
            n++;
    }
    return quoted ? -1 : n;
}

/* A header of names: no field empty or a number, no JSON or braces. */
static bool csv_header(span_t s)
{
    const char *f = s.p;
    for (const char *p = s.p; p <= s.e; p++) {
        if (p < s.e && *p != ',')
            continue;
        span_t t = trim((span_t){f, p});
        if (t.p < t.e && *t.p == '"' && t.e - t.p >= 2) {
            t.p++;
            t.e--;
        }
        if (t.p == t.e || digits(t.p, t.e) == (size_t)(t.e - t.p) || memchr(t.p, '{', (size_t)(t.e - t.p)))
            return false;
        f = p + 1;
    }
    return true;
}

enum { F_DEFAULT, F_JSON, F_LOGFMT, F_NGINX, F_SYSLOG, N_LINE_FORMATS };
static const char *const line_format_names[N_LINE_FORMATS] = {"default", "json", "logfmt",
                                                              "nginx", "syslog"};

const char *extract_detect(const char *sample, size_t len)
{
    span_t lines[DETECT_LINES];
    int n = 0;
    const char *p = sample, *end = sample + len;
    while (p < end && n < DETECT_LINES) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl && n > 0)
            break;      /* a line cut by the sample's end */
        span_t s = trim((span_t){p, nl ? nl : end});
        if (s.p < s.e)
            lines[n++] = s;
        p = nl ? nl + 1 : end;
    }
    if (n == 0)
        return "generic";
    /* A format every line is of; the checks exclude each other. */
    unsigned all = (1u << N_LINE_FORMATS) - 1;
    for (int i = 0; i < n; i++) {
        unsigned m = (is_default(lines[i]) ? 1u << F_DEFAULT : 0) |
                     (is_json(lines[i]) ? 1u << F_JSON : 0) |
                     (is_logfmt(lines[i]) ? 1u << F_LOGFMT : 0) |
                     (is_nginx(lines[i]) ? 1u << F_NGINX : 0) |
                     (is_syslog(lines[i]) ? 1u << F_SYSLOG : 0);
        all &= m;
    }
    for (int f = 0; f < N_LINE_FORMATS; f++)
        if (all & (1u << f))
            return line_format_names[f];
    /* CSV: a header of names and at least one row, every line with its
     * number of fields (at least two). */
    int k = csv_fields(lines[0]);
    if (n < 2 || k < 2 || !csv_header(lines[0]))
        return "generic";
    for (int i = 1; i < n; i++)
        if (csv_fields(lines[i]) != k)
            return "generic";
    return "csv";
}
