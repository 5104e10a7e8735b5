/* extract_oracle.h: naive reference implementations of log formats, for
 * the extractor's differential tests.
 *
 * The `generic`, `generickv` and `default` formats and the CSV row split
 * done the slow, obvious way: split on every separator, compare names with
 * strcmp, unescape quotes byte by byte. Each format's oracle fills out[f]
 * for fields[f] (pointing into the line, the environment or a literal) and
 * returns the line's status. The extractor unit tests
 * (tests/unit/test_extract_*.c) and fuzz targets
 * (tests/fuzz/fuzz_extract_*.c) compare the engine's fast paths against
 * these. Header-only so each test binary stays one file. */
#ifndef DTAIL_TESTS_EXTRACT_ORACLE_H
#define DTAIL_TESTS_EXTRACT_ORACLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/extract/extract.h"
#include "exec/extract/extract_int.h"

/* The value an oracle expects for one field. */
typedef struct xo_val {
    const char *p;      /* value (borrowed) */
    size_t len;         /* SIZE_MAX: missing */
} xo_val_t;

/* With a table literal (extractor_set_table; NULL: none), a line without
 * it is no line of the table whatever it holds: *ws becomes
 * EXTRACT_NO_TABLE and the nf values missing. Lines with it keep the
 * status and values the oracle gave. */
static inline void xo_apply_table(const char *line, size_t len, const char *table, size_t nf,
                                  xo_val_t *want, uint8_t *ws)
{
    if (!table || memmem(line, len, table, strlen(table)))
        return;
    *ws = EXTRACT_NO_TABLE;
    for (size_t f = 0; f < nf; f++)
        want[f].len = SIZE_MAX;
}

/* Trims the line as the formats do (Go's strings.TrimSpace). */
static inline void xo_trim(const char **p, size_t *n)
{
    uint32_t n32 = (uint32_t)*n;
    extract_trim(p, &n32);
    *n = n32;
}

/* The common variables of a (trimmed) line, whatever the format: $line,
 * "*", $empty and the environment's; every other field is missing. */
static inline void xo_common(const char *p, size_t n, const char *const *fields, size_t nf,
                             const extract_env_t *env, xo_val_t *out)
{
    const char *const consts[][2] = {
        {"*", "*"}, {"$empty", ""}, {"$hostname", env->hostname}, {"$server", env->hostname},
        {"$timezone", env->timezone}, {"$timeoffset", env->timeoffset},
    };
    for (size_t f = 0; f < nf; f++) {
        out[f].len = SIZE_MAX;
        if (strcmp(fields[f], "$line") == 0) {
            out[f].p = p;
            out[f].len = n;
        }
        for (size_t c = 0; c < sizeof consts / sizeof consts[0]; c++)
            if (strcmp(fields[f], consts[c][0]) == 0) {
                out[f].p = consts[c][1];
                out[f].len = strlen(consts[c][1]);
            }
    }
}

/* The `generic` format: every line, with only the common variables. */
static inline uint8_t xo_generic(const char *p, size_t n, const char *const *fields, size_t nf,
                                 const extract_env_t *env, xo_val_t *out)
{
    xo_trim(&p, &n);
    xo_common(p, n, fields, nf, env, out);
    return EXTRACT_OK;
}

/* The `generickv` format: generic, and each '|'-separated key=value token
 * (split on its first '='; a later duplicate wins; a token without '=' is
 * ignored). Every line is accepted. */
static inline uint8_t xo_generickv(const char *p, size_t n, const char *const *fields, size_t nf,
                                   const extract_env_t *env, xo_val_t *out)
{
    xo_generic(p, n, fields, nf, env, out);
    xo_trim(&p, &n);
    for (size_t at = 0;;) {
        const char *bar = memchr(p + at, '|', n - at);
        size_t end = bar ? (size_t)(bar - p) : n;
        const char *eq = memchr(p + at, '=', end - at);
        if (eq) {
            size_t kl = (size_t)(eq - (p + at));
            for (size_t f = 0; f < nf; f++)
                if (strlen(fields[f]) == kl && memcmp(fields[f], p + at, kl) == 0) {
                    out[f].p = eq + 1;
                    out[f].len = end - (size_t)(eq + 1 - p);
                }
        }
        if (!bar)
            break;
        at = end + 1;
    }
    return EXTRACT_OK;
}

/* A $time of the full YYYYMMDD-HHMMSS shape. */
static inline bool xo_full_time(const char *t, size_t n)
{
    if (n != 15 || t[8] != '-')
        return false;
    for (int k = 0; k < 15; k++)
        if (k != 8 && (t[k] < '0' || t[k] > '9'))
            return false;
    return true;
}

/* The `default` format (DTail's MapReduce line): an INFO line of at least
 * 11 '|'-separated fields whose 10th starts with "MAPREDUCE:", else
 * skipped; the positional variables, $loglevel, $date..$second of a full
 * $time, the common variables, then key=value tokens, a token without '='
 * being an error. Every value is missing unless the line is EXTRACT_OK. */
static inline uint8_t xo_default(const char *p, size_t n, const char *const *fields, size_t nf,
                                 const extract_env_t *env, xo_val_t *out)
{
    xo_trim(&p, &n);
    xo_common(p, n, fields, nf, env, out);
    if (n < 4 || memcmp(p, "INFO", 4) != 0) {
        for (size_t f = 0; f < nf; f++)
            out[f].len = SIZE_MAX;
        return EXTRACT_SKIP;
    }
    size_t cap = n + 1, nt = 0;
    const char **ts = malloc(cap * sizeof *ts);
    size_t *tl = malloc(cap * sizeof *tl);
    for (size_t at = 0;;) {
        const char *bar = memchr(p + at, '|', n - at);
        size_t end = bar ? (size_t)(bar - p) : n;
        ts[nt] = p + at;
        tl[nt] = end - at;
        nt++;
        if (!bar)
            break;
        at = end + 1;
    }
    uint8_t st = EXTRACT_OK;
    if (nt < 11 || tl[9] < 10 || memcmp(ts[9], "MAPREDUCE:", 10) != 0) {
        st = EXTRACT_SKIP;
        goto out;
    }
    static const char *const pos[] = {"$severity", "$time", "$pid", "$caller", "$cpus",
                                      "$goroutines", "$cgocalls", "$loadavg", "$uptime"};
    static const char *const parts[] = {"$date", "$hour", "$minute", "$second"};
    static const size_t off[] = {0, 9, 11, 13}, len[] = {8, 2, 2, 2};
    for (size_t f = 0; f < nf; f++) {
        const char *name = fields[f];
        for (int k = 0; k < 9; k++)
            if (strcmp(name, pos[k]) == 0) {
                out[f].p = ts[k];
                out[f].len = tl[k];
            }
        if (strcmp(name, "$loglevel") == 0) {
            out[f].p = ts[0];
            out[f].len = tl[0];
        }
        if (xo_full_time(ts[1], tl[1]))
            for (int k = 0; k < 4; k++)
                if (strcmp(name, parts[k]) == 0) {
                    out[f].p = ts[1] + off[k];
                    out[f].len = len[k];
                }
    }
    /* key=value tokens; a key named like a variable overrides it */
    for (size_t t = 10; t < nt; t++) {
        const char *eq = memchr(ts[t], '=', tl[t]);
        if (!eq) {
            st = EXTRACT_ERROR;
            break;
        }
        size_t kl = (size_t)(eq - ts[t]);
        for (size_t f = 0; f < nf; f++)
            if (strlen(fields[f]) == kl && memcmp(fields[f], ts[t], kl) == 0) {
                out[f].p = eq + 1;
                out[f].len = tl[t] - kl - 1;
            }
    }
out:
    if (st != EXTRACT_OK)
        for (size_t f = 0; f < nf; f++)
            out[f].len = SIZE_MAX;
    free(ts);
    free(tl);
    return st;
}

/* One CSV row, split and unescaped. */
typedef struct xo_row {
    char *buf;          /* the values' bytes, back to back */
    const char **val;   /* value k starts at val[k] */
    size_t *len;        /* and has len[k] bytes */
    size_t n;           /* values */
} xo_row_t;

static inline void xo_row_free(xo_row_t *r)
{
    free(r->buf);
    free(r->val);
    free(r->len);
    memset(r, 0, sizeof *r);
}

/* Splits a (trimmed) CSV line by RFC 4180 into r (free it with
 * xo_row_free, also on failure); false when the quoting is malformed. */
static inline bool xo_csv_split(const char *p, size_t n, xo_row_t *r)
{
    r->buf = malloc(n + 1);
    r->val = calloc(n + 1, sizeof *r->val);
    r->len = calloc(n + 1, sizeof *r->len);
    r->n = 0;
    char *v = r->buf;
    size_t i = 0;
    for (;;) {
        size_t vl = 0;
        r->val[r->n++] = v;
        if (i < n && p[i] == '"') {
            i++;
            for (;;) {
                if (i >= n)
                    return false;
                if (p[i] == '"') {
                    if (i + 1 < n && p[i + 1] == '"') {
                        v[vl++] = '"';
                        i += 2;
                        continue;
                    }
                    i++;
                    break;
                }
                v[vl++] = p[i++];
            }
            if (i < n && p[i] != ',')
                return false;
        } else {
            while (i < n && p[i] != ',')
                v[vl++] = p[i++];
        }
        r->len[r->n - 1] = vl;
        v += vl;
        if (i >= n)
            return true;
        i++;   /* the comma */
    }
}

#endif
