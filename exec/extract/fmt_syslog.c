/* fmt_syslog.c: the `syslog` log format: RFC 5424 and RFC 3164 (BSD)
 * lines, as syslog daemons write them to files or send them:
 *
 *   <165>1 2003-10-11T22:14:15.003Z host app 1234 ID47 [ex@32473 iut="3"] message
 *   <34>Oct 11 22:14:15 host su[230]: 'su root' failed
 *   Oct 11 22:14:15 host sshd[811]: Accepted publickey for root   (no <PRI>)
 *   2024-05-01T10:00:00.123+02:00 host app[7]: message            (rsyslog's precise form)
 *
 * $variables: $priority (the number), $facility and $severity (their
 * names: kern user mail daemon auth syslog lpr news uucp cron authpriv ftp
 * ntp audit alert clock local0..local7; emerg alert crit err warning
 * notice info debug), $version (5424), $timestamp (as written), $host,
 * $app, $pid, $msgid (5424), $sd (the structured data as written) and
 * $message; $time is $timestamp as an instant (RFC 3164 writes no year
 * and no zone: the year is inferred, logtime.h, and the zone is the
 * host's, $timeoffset). A 5424 NILVALUE "-" is a missing field. Each
 * structured data parameter is a bareword SDID.NAME (`ex@32473.iut`, in
 * backticks where the name needs them), its value unescaped.
 *
 * RFC 3164's tag: the token after the host, when it ends in ':', is
 * APP[PID]: or APP:, and the message follows; otherwise the line has no
 * tag and the message starts there.
 *
 * EXTRACT_ERROR: a <PRI> that is not 0-191 or not closed, a line without a
 * timestamp of either form or without a host, a 5424 line without its six
 * header fields, malformed structured data. */
#include "exec/extract/extract_int.h"
#include "exec/extract/xcur.h"

enum syslog_slot {
    SY_PRIORITY = 1, SY_FACILITY, SY_SEVERITY, SY_VERSION, SY_TIMESTAMP, SY_HOST, SY_APP,
    SY_PID, SY_MSGID, SY_SD, SY_MESSAGE, SY_SLOTS
};

static const char *const syslog_vars[SY_SLOTS] = {
    [SY_PRIORITY] = "$priority", [SY_FACILITY] = "$facility", [SY_SEVERITY] = "$severity",
    [SY_VERSION] = "$version",   [SY_TIMESTAMP] = "$timestamp", [SY_HOST] = "$host",
    [SY_APP] = "$app",           [SY_PID] = "$pid",           [SY_MSGID] = "$msgid",
    [SY_SD] = "$sd",             [SY_MESSAGE] = "$message",
};

/* The facilities' and severities' names, 8 bytes each (NUL-padded), in one
 * block that the format's views point into (extract_format_t.consts). */
static const char names[32][8] = {
    "kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "cron",
    "authpriv", "ftp", "ntp", "audit", "alert", "clock", "local0", "local1", "local2",
    "local3", "local4", "local5", "local6", "local7",
    "emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
};


static bool syslog_plan_var(const char *name, field_plan_t *fp)
{
    if (strcmp(name, "$time") == 0) {
        fp->kind = FIELD_TIME;
        return true;
    }
    for (int s = 1; s < SY_SLOTS; s++)
        if (strcmp(name, syslog_vars[s]) == 0) {
            fp->kind = FIELD_SLOT;
            fp->pos = (uint8_t)s;
            return true;
        }
    return false;
}

static void set_name(xcur_t *s, int slot, unsigned k)
{
    xcur_set(s, slot, names[k], (uint32_t)strnlen(names[k], 8));
}

/* A 5424 field: "-" is missing. */
static inline void sl_set_nil(xcur_t *s, int slot, const char *v, uint32_t len)
{
    if (!(len == 1 && v[0] == '-'))
        xcur_set(s, slot, v, len);
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* "Mmm dd hh:mm:ss" (day maybe space-padded) at p, n bytes left. */
static bool bsd_stamp(const char *p, uint32_t n)
{
    static const char months[] = "JanFebMarAprMayJunJulAugSepOctNovDec";
    if (n < 15 || p[3] != ' ' || p[6] != ' ' || p[9] != ':' || p[12] != ':')
        return false;
    bool month = false;
    for (int k = 0; k < 12 && !month; k++)
        month = memcmp(p, months + 3 * k, 3) == 0;
    return month && (is_digit(p[4]) || p[4] == ' ') && is_digit(p[5]) && is_digit(p[7]) &&
           is_digit(p[8]) && is_digit(p[10]) && is_digit(p[11]) && is_digit(p[13]) &&
           is_digit(p[14]) && (n == 15 || p[15] == ' ');
}

/* <PRI>: the number, its facility and severity; the cursor past '>'. */
static bool sl_priority(xcur_t *s)
{
    uint32_t k = 1, v = 0;
    while (k < s->n && k <= 3 && is_digit(s->p[k]))
        v = v * 10 + (uint32_t)(s->p[k++] - '0');
    if (k == 1 || k >= s->n || s->p[k] != '>' || v > 191 ||
        (s->p[1] == '0' && k > 2))
        return xcur_fail(s, "bad <priority>");
    xcur_set(s, SY_PRIORITY, s->p + 1, k - 1);
    set_name(s, SY_FACILITY, v >> 3);
    set_name(s, SY_SEVERITY, 24 + (v & 7));
    s->pos = k + 1;
    return true;
}

/* The message: the rest of the line, a UTF-8 BOM dropped. */
static void sl_message(xcur_t *s)
{
    uint32_t at = s->pos;
    if (s->n - at >= 3 && memcmp(s->p + at, "\xEF\xBB\xBF", 3) == 0)
        at += 3;
    xcur_set(s, SY_MESSAGE, s->p + at, s->n - at);
}

/* One structured data parameter's value, its closing quote at q. */
static bool sd_param(xcur_t *s, const char *id, uint32_t id_len, const char *name,
                     uint32_t name_len, uint32_t v, uint32_t q)
{
    char key[80];
    if (id_len + 1 + name_len > sizeof key)
        return true;                        /* longer than RFC 5424 allows: no name */
    memcpy(key, id, id_len);
    key[id_len] = '.';
    memcpy(key + id_len + 1, name, name_len);
    uint32_t f = extract_dyn_field(s->x, key, id_len + 1 + name_len);
    if (f == EXTRACT_NONE)
        return true;
    const char *val = s->p + v;
    uint32_t len = q - v;
    if (!xcur_unescape(s, &val, &len))
        return false;
    s->cols[f][s->i].p = val;
    s->cols[f][s->i].len = len;
    return true;
}

/* STRUCTURED-DATA at the cursor: "-" or [ID NAME="v"...]...; the cursor
 * past it. */
static bool sl_sd(xcur_t *s)
{
    const char *p = s->p;
    uint32_t n = s->n, at = s->pos, start = at;
    if (at < n && p[at] == '-') {
        s->pos = at + 1;
        return true;
    }
    if (at >= n || p[at] != '[')
        return xcur_fail(s, "structured data expected");
    while (at < n && p[at] == '[') {
        uint32_t id = ++at;
        while (at < n && p[at] != ' ' && p[at] != ']' && p[at] != '=' && p[at] != '"')
            at++;
        if (at == id || at >= n || (p[at] != ' ' && p[at] != ']'))
            return xcur_fail(s, "bad structured data ID");
        uint32_t id_len = at - id;
        while (at < n && p[at] == ' ') {
            uint32_t name = ++at;
            while (at < n && p[at] != '=' && p[at] != ' ' && p[at] != ']' && p[at] != '"')
                at++;
            if (at == name || at + 1 >= n || p[at] != '=' || p[at + 1] != '"')
                return xcur_fail(s, "bad structured data parameter");
            uint32_t name_len = at - name, v = at + 2, q = xcur_quote_end(p, n, v);
            if (q >= n)
                return xcur_fail(s, "unterminated structured data value");
            if (!sd_param(s, p + id, id_len, p + name, name_len, v, q))
                return false;
            at = q + 1;
        }
        if (at >= n || p[at] != ']')
            return xcur_fail(s, "']' of structured data expected");
        at++;
    }
    xcur_set(s, SY_SD, p + start, at - start);
    s->pos = at;
    return true;
}

static bool syslog_5424(xcur_t *s)
{
    const char *v;
    uint32_t len;
    if (!xcur_token(s, false, &v, &len) || len == 0 || len > 3)
        return xcur_fail(s, "bad version");
    xcur_set(s, SY_VERSION, v, len);
    static const int slots[5] = {SY_TIMESTAMP, SY_HOST, SY_APP, SY_PID, SY_MSGID};
    for (int k = 0; k < 5; k++) {
        if (!xcur_token(s, false, &v, &len) || len == 0)
            return xcur_fail(s, "header fields missing");
        sl_set_nil(s, slots[k], v, len);
    }
    if (!sl_sd(s))
        return false;
    if (s->pos < s->n) {
        if (s->p[s->pos] != ' ')
            return xcur_fail(s, "space after structured data expected");
        s->pos++;
        sl_message(s);
    }
    return true;
}

static bool syslog_3164(xcur_t *s)
{
    const char *v;
    uint32_t len;
    if (bsd_stamp(s->p + s->pos, s->n - s->pos)) {
        xcur_set(s, SY_TIMESTAMP, s->p + s->pos, 15);
        s->pos += 15;
        if (s->pos < s->n)
            s->pos++;
    } else if (s->n - s->pos >= 10 && is_digit(s->p[s->pos]) && s->p[s->pos + 4] == '-') {
        if (!xcur_token(s, false, &v, &len))
            return xcur_fail(s, "host expected");
        xcur_set(s, SY_TIMESTAMP, v, len);
    } else {
        return xcur_fail(s, "timestamp expected");
    }
    if (s->pos >= s->n || !xcur_token(s, true, &v, &len) || len == 0)
        return xcur_fail(s, "host expected");
    xcur_set(s, SY_HOST, v, len);
    uint32_t tag = s->pos;
    const char *sp = tag < s->n ? memchr(s->p + tag, ' ', s->n - tag) : NULL;
    uint32_t end = sp ? (uint32_t)(sp - s->p) : s->n;
    if (end > tag && s->p[end - 1] == ':') {
        const char *t = s->p + tag;
        uint32_t tl = end - 1 - tag;
        const char *lb = memchr(t, '[', tl);
        if (lb && tl >= 2 && t[tl - 1] == ']') {
            xcur_set(s, SY_APP, t, (uint32_t)(lb - t));
            xcur_set(s, SY_PID, lb + 1, (uint32_t)(t + tl - 1 - lb - 1));
        } else {
            xcur_set(s, SY_APP, t, tl);
        }
        s->pos = sp ? end + 1 : end;
    }
    sl_message(s);
    return true;
}

static bool syslog_line(xcur_t *s)
{
    if (s->n && s->p[0] == '<') {
        if (!sl_priority(s))
            return false;
        uint32_t k = s->pos;
        while (k < s->n && is_digit(s->p[k]) && k - s->pos < 3)
            k++;
        if (k > s->pos && k < s->n && s->p[k] == ' ' && s->p[s->pos] != '0')
            return syslog_5424(s);
    }
    return syslog_3164(s);
}

static uint8_t syslog_parse(extractor_t *x, size_t i, const char *p, uint32_t len,
                            sv_t *const *cols)
{
    return xcur_line(x, i, p, len, cols, syslog_line);
}

static void syslog_batch(extractor_t *x, const char *const *line, const uint32_t *len, size_t n,
                         sv_t *const *cols, uint8_t *status)
{
    extract_each_line(x, line, len, n, cols, status, syslog_parse);
}

/* The structured data parameters' names, SDID.NAME (for "did you mean":
 * every '[' is taken for an element, also one in the message). */
static void syslog_names(const extractor_t *x, const char *p, uint32_t n, extract_name_fn fn,
                         void *arg)
{
    (void)x;
    char key[80];
    for (uint32_t at = 0; at < n; at++) {
        if (p[at] != '[')
            continue;
        uint32_t id = at + 1;
        for (at = id; at < n && p[at] != ' ' && p[at] != ']';)
            at++;
        uint32_t id_len = at - id;
        while (at < n && p[at] == ' ') {
            uint32_t name = ++at;
            while (at < n && p[at] != '=' && p[at] != ' ' && p[at] != ']')
                at++;
            if (at > name && id_len + 1 + (at - name) <= sizeof key) {
                memcpy(key, p + id, id_len);
                key[id_len] = '.';
                memcpy(key + id_len + 1, p + name, at - name);
                fn(arg, key, id_len + 1 + (at - name));
            }
            if (at + 1 < n && p[at] == '=' && p[at + 1] == '"') {
                for (at += 2; at < n && p[at] != '"'; at++)
                    at += p[at] == '\\';
                if (at < n)
                    at++;
            }
        }
    }
}

const extract_format_t extract_format_syslog = {
    .name = "syslog", .dynamic = true, .plan_var = syslog_plan_var, .batch = syslog_batch,
    .names = syslog_names, .time_slot = SY_TIMESTAMP, .consts = names[0],
    .consts_len = sizeof names,
};
