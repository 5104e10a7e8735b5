/* format_oracle.h: naive reference implementations of the text formats
 * logfmt, nginx/apache, syslog and tsv, for the extractors' differential
 * tests (tests/unit/test_extract_<format>.c, tests/fuzz/fuzz_extract_<format>.c).
 *
 * Each reads a line byte by byte, in the obvious way, into a list of
 * (name, value) pairs; xo_fields then gives the requested fields as the
 * engine must: common variables first, pairs in order (a later pair wins,
 * and in the formats whose lines name fields a pair overrides a variable
 * of that name), then $time from the format's time source, read by
 * logtime (which test_logtime checks against libc). Values that are not
 * views into the line live in the oracle's own buffer until the next
 * line. Header-only so each test binary stays one file. */
#ifndef DTAIL_TESTS_FORMAT_ORACLE_H
#define DTAIL_TESTS_FORMAT_ORACLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/extract/logtime.h"
#include "tests/support/extract_oracle.h"

#define XF_MAX_PAIRS 4096

typedef struct xf_line {
    const char *name[XF_MAX_PAIRS];  /* pair names (copies; may hold NUL) */
    size_t name_len[XF_MAX_PAIRS];   /* their lengths */
    const char *val[XF_MAX_PAIRS];   /* and values */
    size_t len[XF_MAX_PAIRS];        /* value lengths */
    size_t n;                        /* pairs */
    char *buf;                       /* storage of names and values */
    size_t used, cap;                /* of buf */
} xf_line_t;

/* One line's pairs; reset per line. */
static xf_line_t xf;

static inline void xf_reset(size_t line_len)
{
    size_t want = 4 * line_len + 1024;
    if (xf.cap < want) {
        free(xf.buf);
        xf.buf = malloc(want);
        xf.cap = want;
    }
    xf.used = 0;
    xf.n = 0;
}

static inline char *xf_alloc(size_t n)
{
    char *p = xf.buf + xf.used;
    xf.used += n + 1;
    return p;
}

/* Adds a pair; the name is copied, the value borrowed. */
static inline void xf_pair(const char *name, size_t nl, const char *v, size_t vl)
{
    if (xf.n == XF_MAX_PAIRS)
        abort();
    char *nm = xf_alloc(nl);
    memcpy(nm, name, nl);
    nm[nl] = '\0';
    xf.name[xf.n] = nm;
    xf.name_len[xf.n] = nl;
    xf.val[xf.n] = v;
    xf.len[xf.n] = vl;
    xf.n++;
}

static inline void xf_pair_str(const char *name, const char *v, size_t vl)
{
    xf_pair(name, strlen(name), v, vl);
}

static inline int xf_hex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The escapes of extract_unescape, one byte at a time, into the buffer. */
static inline const char *xf_unescape(const char *p, size_t n, size_t *out_len)
{
    char *o = xf_alloc(3 * n);
    size_t k = 0, i = 0;
    while (i < n) {
        if (p[i] != '\\' || i + 1 >= n) {
            o[k++] = p[i++];
            continue;
        }
        char c = p[i + 1];
        const char *simple = "\"\"\\\\//]]n\nr\rt\tb\bf\f";
        bool done = false;
        for (const char *s = simple; *s; s += 2)
            if (c == s[0]) {
                o[k++] = s[1];
                i += 2;
                done = true;
                break;
            }
        if (done)
            continue;
        if (c == 'x' && i + 3 < n && xf_hex(p[i + 2]) >= 0 && xf_hex(p[i + 3]) >= 0) {
            o[k++] = (char)(xf_hex(p[i + 2]) * 16 + xf_hex(p[i + 3]));
            i += 4;
            continue;
        }
        if (c == 'u' && i + 5 < n && xf_hex(p[i + 2]) >= 0 && xf_hex(p[i + 3]) >= 0 &&
            xf_hex(p[i + 4]) >= 0 && xf_hex(p[i + 5]) >= 0) {
            unsigned cp = 0;
            for (int d = 2; d < 6; d++)
                cp = cp * 16 + (unsigned)xf_hex(p[i + d]);
            if (cp < 0x80) {
                o[k++] = (char)cp;
            } else if (cp < 0x800) {
                o[k++] = (char)(0xC0 | cp >> 6);
                o[k++] = (char)(0x80 | (cp & 0x3F));
            } else {
                o[k++] = (char)(0xE0 | cp >> 12);
                o[k++] = (char)(0x80 | ((cp >> 6) & 0x3F));
                o[k++] = (char)(0x80 | (cp & 0x3F));
            }
            i += 6;
            continue;
        }
        o[k++] = p[i++];
    }
    *out_len = k;
    return o;
}

/* Whether [p, p+n) has a backslash. */
static inline bool xf_has_bs(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] == '\\')
            return true;
    return false;
}

/* The value of the last pair called name, or NULL. */
static inline bool xf_get(const char *name, const char **v, size_t *len)
{
    bool got = false;
    size_t nl = strlen(name);
    for (size_t k = 0; k < xf.n; k++)
        if (xf.name_len[k] == nl && memcmp(xf.name[k], name, nl) == 0) {
            *v = xf.val[k];
            *len = xf.len[k];
            got = true;
        }
    return got;
}

/* The requested fields of a line that parsed into xf: the common
 * variables of the (trimmed) line, then the pairs (a pair of a requested
 * name sets it), then $time, when still missing, from the first of
 * time_keys the line has (NULL-terminated), read as a timestamp; *bad
 * counts a source that is none. */
static inline void xf_fields(const char *p, size_t n, const char *const *fields, size_t nf,
                             const extract_env_t *env, const char *const *time_keys,
                             const logtime_ctx_t *tc, xo_val_t *out, unsigned long long *bad)
{
    xo_common(p, n, fields, nf, env, out);
    for (size_t f = 0; f < nf; f++) {
        const char *v;
        size_t l;
        if (xf_get(fields[f], &v, &l)) {
            out[f].p = v;
            out[f].len = l;
        }
    }
    for (size_t f = 0; f < nf; f++) {
        if (strcmp(fields[f], "$time") != 0 || out[f].len != SIZE_MAX || !time_keys)
            continue;
        const char *v = NULL;
        size_t l = 0;
        for (size_t k = 0; time_keys[k] && !v; k++)
            if (!xf_get(time_keys[k], &v, &l))
                v = NULL;
        if (!v)
            continue;
        logtime_t t;
        char *o = xf_alloc(LOGTIME_MAX);
        size_t tl;
        if (logtime_parse(v, l, tc, &t) && (tl = logtime_write_utc(&t, o)) > 0) {
            out[f].p = o;
            out[f].len = tl;
        } else if (bad) {
            (*bad)++;
        }
    }
}

/* A whole oracle: the (raw) line trimmed, parsed by parse into xf, and
 * its fields (xf_fields), or EXTRACT_ERROR with every field missing. */
static inline uint8_t xf_oracle(const char *p, size_t n, const char *const *fields, size_t nf,
                                const extract_env_t *env, bool (*parse)(const char *, size_t),
                                const char *const *time_keys, const logtime_ctx_t *tc,
                                xo_val_t *out)
{
    xo_trim(&p, &n);
    xf_reset(n);
    if (!parse(p, n)) {
        for (size_t f = 0; f < nf; f++)
            out[f].len = SIZE_MAX;
        return EXTRACT_ERROR;
    }
    xf_fields(p, n, fields, nf, env, time_keys, tc, out, NULL);
    return EXTRACT_OK;
}

/* ---- logfmt ---- */

/* Parses a (trimmed) logfmt line into xf; false when it is malformed. */
static inline bool xf_logfmt(const char *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        while (i < n && p[i] == ' ')
            i++;
        if (i >= n)
            break;
        size_t ks = i;
        while (i < n && p[i] != ' ' && p[i] != '=' && p[i] != '"')
            i++;
        if (i < n && p[i] == '"')
            return false;
        if (i == ks)
            return false;
        size_t kl = i - ks;
        if (i >= n || p[i] == ' ') {
            xf_pair(p + ks, kl, "true", 4);
            continue;
        }
        i++;   /* '=' */
        if (i < n && p[i] == '"') {
            size_t vs = ++i;
            for (;;) {
                if (i >= n)
                    return false;
                if (p[i] == '"')
                    break;
                i += p[i] == '\\' ? 2 : 1;
            }
            size_t vl = i - vs;
            i++;
            if (i < n && p[i] != ' ')
                return false;
            if (xf_has_bs(p + vs, vl)) {
                size_t ul;
                const char *u = xf_unescape(p + vs, vl, &ul);
                xf_pair(p + ks, kl, u, ul);
            } else {
                xf_pair(p + ks, kl, p + vs, vl);
            }
        } else {
            size_t vs = i;
            while (i < n && p[i] != ' ')
                i++;
            xf_pair(p + ks, kl, p + vs, i - vs);
        }
    }
    return true;
}

static const char *const xf_logfmt_time[] = {"time", "ts", "timestamp", NULL};

/* ---- nginx and apache ---- */

/* A quoted field starting at p[*i] == '"': its value (unescaped) and *i
 * past the closing quote; false when it is not closed. */
static inline bool xf_quoted(const char *p, size_t n, size_t *i, const char **v, size_t *vl)
{
    size_t s = *i + 1, j = s;
    for (;;) {
        while (j < n && p[j] != '"')
            j++;
        if (j >= n)
            return false;
        size_t bs = 0;
        while (j - bs > s && p[j - bs - 1] == '\\')
            bs++;
        if (bs % 2 == 0)
            break;
        j++;
    }
    *v = p + s;
    *vl = j - s;
    if (xf_has_bs(*v, *vl))
        *v = xf_unescape(p + s, j - s, vl);
    *i = j + 1;
    return true;
}

/* A token up to the next space, which must be there: false when not. */
static inline bool xf_word(const char *p, size_t n, size_t *i, const char **v, size_t *vl)
{
    size_t s = *i;
    while (*i < n && p[*i] != ' ')
        (*i)++;
    if (*i >= n)
        return false;
    *v = p + s;
    *vl = *i - s;
    (*i)++;
    return true;
}

static inline bool xf_number(const char *v, size_t n, bool dot_ok)
{
    size_t digits = 0, dots = 0;
    for (size_t k = 0; k < n; k++) {
        if (v[k] >= '0' && v[k] <= '9')
            digits++;
        else if (v[k] == '.' && dot_ok && dots == 0)
            dots++;
        else
            return false;
    }
    return digits > 0;
}

/* Parses a (trimmed) access log line into xf. */
static inline bool xf_access(const char *p, size_t n)
{
    size_t i = 0, l;
    const char *v;
    if (!xf_word(p, n, &i, &v, &l) || l == 0)
        return false;
    xf_pair_str("$remote_addr", v, l);
    if (!xf_word(p, n, &i, &v, &l) || !xf_word(p, n, &i, &v, &l))
        return false;
    xf_pair_str("$remote_user", v, l);
    if (i >= n || p[i] != '[')
        return false;
    size_t ts = ++i;
    while (i < n && p[i] != ']')
        i++;
    if (i >= n)
        return false;
    xf_pair_str("$time_local", p + ts, i - ts);
    i++;
    if (i + 1 >= n || p[i] != ' ' || p[i + 1] != '"')
        return false;
    i++;
    if (!xf_quoted(p, n, &i, &v, &l))
        return false;
    xf_pair_str("$request", v, l);
    /* method, path, protocol */
    size_t sp1 = 0;
    while (sp1 < l && v[sp1] != ' ')
        sp1++;
    if (sp1 < l) {
        xf_pair_str("$method", v, sp1);
        size_t ps = sp1 + 1, pe = l, sp2 = l;
        for (size_t k = ps; k < l; k++)
            if (v[k] == ' ')
                sp2 = k;
        if (sp2 < l && l - sp2 - 1 >= 5 && memcmp(v + sp2 + 1, "HTTP/", 5) == 0) {
            xf_pair_str("$protocol", v + sp2 + 1, l - sp2 - 1);
            pe = sp2;
        }
        xf_pair_str("$path", v + ps, pe - ps);
    }
    if (i >= n || p[i] != ' ')
        return false;
    i++;
    if (!xf_word(p, n, &i, &v, &l))
        return false;
    if (l != 3 || v[0] < '1' || v[0] > '9' || !xf_number(v, 3, false))
        return false;
    xf_pair_str("$status", v, l);
    size_t bs = i;
    while (i < n && p[i] != ' ')
        i++;
    if (i - bs == 1 && p[bs] == '-')
        xf_pair_str("$body_bytes_sent", "0", 1);
    else if (xf_number(p + bs, i - bs, false))
        xf_pair_str("$body_bytes_sent", p + bs, i - bs);
    else
        return false;
    bool xff = false, rt = false;
    for (int k = 0; i < n; k++) {
        if (p[i] != ' ')
            return false;
        while (i < n && p[i] == ' ')
            i++;
        if (i >= n)
            break;
        bool quoted = p[i] == '"';
        if (quoted) {
            if (!xf_quoted(p, n, &i, &v, &l))
                return false;
        } else {
            size_t s = i;
            while (i < n && p[i] != ' ')
                i++;
            v = p + s;
            l = i - s;
        }
        if (k < 2 && !quoted)
            return false;
        if (k < 2) {
            xf_pair_str(k ? "$http_user_agent" : "$http_referer", v, l);
        } else if (quoted && !xff) {
            xf_pair_str("$http_x_forwarded_for", v, l);
            xff = true;
        } else if (!quoted && !rt && xf_number(v, l, true)) {
            xf_pair_str("$request_time", v, l);
            rt = true;
        }
    }
    return true;
}

static const char *const xf_access_time[] = {"$time_local", NULL};

/* ---- syslog ---- */

static inline bool xf_digit(char c)
{
    return c >= '0' && c <= '9';
}

static const char *const xf_months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                        "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

/* "Mmm dd hh:mm:ss" followed by a space or the end. */
static inline bool xf_bsd(const char *p, size_t n)
{
    if (n < 15)
        return false;
    bool m = false;
    for (int k = 0; k < 12; k++)
        m |= memcmp(p, xf_months[k], 3) == 0;
    const char *pat = "mmm_dd_dd:dd:dd";
    for (int k = 3; k < 15; k++) {
        if (pat[k] == '_' && p[k] != ' ')
            return false;
        if (pat[k] == ':' && p[k] != ':')
            return false;
        if (pat[k] == 'd' && !xf_digit(p[k]) && !(k == 4 && p[k] == ' '))
            return false;
    }
    return m && (n == 15 || p[15] == ' ');
}

/* A 5424 field: "-" is no pair. */
static inline void xf_nil(const char *name, const char *v, size_t l)
{
    if (!(l == 1 && v[0] == '-'))
        xf_pair_str(name, v, l);
}

/* Structured data at p[*i]: "-" or elements; the pairs SDID.NAME. */
static inline bool xf_sd(const char *p, size_t n, size_t *i)
{
    size_t s = *i;
    if (s < n && p[s] == '-') {
        *i = s + 1;
        return true;
    }
    if (s >= n || p[s] != '[')
        return false;
    size_t j = s;
    while (j < n && p[j] == '[') {
        size_t id = ++j;
        while (j < n && p[j] != ' ' && p[j] != ']' && p[j] != '=' && p[j] != '"')
            j++;
        if (j == id || j >= n || (p[j] != ' ' && p[j] != ']'))
            return false;
        size_t idl = j - id;
        while (j < n && p[j] == ' ') {
            size_t nm = ++j;
            while (j < n && p[j] != '=' && p[j] != ' ' && p[j] != ']' && p[j] != '"')
                j++;
            if (j == nm || j + 1 >= n || p[j] != '=' || p[j + 1] != '"')
                return false;
            size_t nml = j - nm;
            j++;
            const char *v;
            size_t vl;
            if (!xf_quoted(p, n, &j, &v, &vl))
                return false;
            if (idl + 1 + nml <= 80) {
                char key[96];
                memcpy(key, p + id, idl);
                key[idl] = '.';
                memcpy(key + idl + 1, p + nm, nml);
                xf_pair(key, idl + 1 + nml, v, vl);
            }
        }
        if (j >= n || p[j] != ']')
            return false;
        j++;
    }
    xf_pair_str("$sd", p + s, j - s);
    *i = j;
    return true;
}

static inline void xf_message(const char *p, size_t n, size_t i)
{
    if (n - i >= 3 && memcmp(p + i, "\xEF\xBB\xBF", 3) == 0)
        i += 3;
    xf_pair_str("$message", p + i, n - i);
}

/* Parses a (trimmed) syslog line into xf. */
static inline bool xf_syslog(const char *p, size_t n)
{
    static const char *const fac[24] = {
        "kern", "user", "mail", "daemon", "auth", "syslog", "lpr", "news", "uucp", "cron",
        "authpriv", "ftp", "ntp", "audit", "alert", "clock", "local0", "local1", "local2",
        "local3", "local4", "local5", "local6", "local7",
    };
    static const char *const sev[8] = {"emerg", "alert", "crit", "err", "warning", "notice",
                                       "info", "debug"};
    size_t i = 0;
    const char *v;
    size_t l;
    if (n && p[0] == '<') {
        size_t d = 1;
        unsigned pri = 0;
        while (d < n && d <= 3 && xf_digit(p[d]))
            pri = pri * 10 + (unsigned)(p[d++] - '0');
        if (d == 1 || d >= n || p[d] != '>' || pri > 191 || (p[1] == '0' && d > 2))
            return false;
        xf_pair_str("$priority", p + 1, d - 1);
        xf_pair_str("$facility", fac[pri / 8], strlen(fac[pri / 8]));
        xf_pair_str("$severity", sev[pri % 8], strlen(sev[pri % 8]));
        i = d + 1;
        size_t k = i;
        while (k < n && xf_digit(p[k]) && k - i < 3)
            k++;
        if (k > i && k < n && p[k] == ' ' && p[i] != '0') {
            /* RFC 5424 */
            xf_pair_str("$version", p + i, k - i);
            i = k + 1;
            static const char *const hdr[5] = {"$timestamp", "$host", "$app", "$pid", "$msgid"};
            for (int h = 0; h < 5; h++) {
                if (!xf_word(p, n, &i, &v, &l) || l == 0)
                    return false;
                xf_nil(hdr[h], v, l);
            }
            if (!xf_sd(p, n, &i))
                return false;
            if (i < n) {
                if (p[i] != ' ')
                    return false;
                xf_message(p, n, i + 1);
            }
            return true;
        }
    }
    /* RFC 3164 */
    if (xf_bsd(p + i, n - i)) {
        xf_pair_str("$timestamp", p + i, 15);
        i += n - i > 15 ? 16 : 15;
    } else if (n - i >= 10 && xf_digit(p[i]) && p[i + 4] == '-') {
        if (!xf_word(p, n, &i, &v, &l))
            return false;
        xf_pair_str("$timestamp", v, l);
    } else {
        return false;
    }
    if (i >= n)
        return false;
    size_t hs = i;
    while (i < n && p[i] != ' ')
        i++;
    if (i == hs)
        return false;
    xf_pair_str("$host", p + hs, i - hs);
    if (i < n)
        i++;
    size_t ts = i, te = i;
    while (te < n && p[te] != ' ')
        te++;
    if (te > ts && p[te - 1] == ':') {
        size_t tl = te - 1 - ts, lb = tl;
        for (size_t k = 0; k < tl; k++)
            if (p[ts + k] == '[') {
                lb = k;
                break;
            }
        if (lb < tl && tl >= 2 && p[ts + tl - 1] == ']') {
            xf_pair_str("$app", p + ts, lb);
            xf_pair_str("$pid", p + ts + lb + 1, tl - lb - 2);
        } else {
            xf_pair_str("$app", p + ts, tl);
        }
        i = te < n ? te + 1 : te;
    }
    xf_message(p, n, i);
    return true;
}

static const char *const xf_syslog_time[] = {"$timestamp", NULL};

#endif
