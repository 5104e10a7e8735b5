/* fmt_logfmt.c: the `logfmt` log format: space-separated key=value pairs,
 * as Go's go-logfmt and Heroku write them:
 *
 *   time=2024-05-01T10:00:00Z level=info msg="GET /a \"x\"" took=12ms cached
 *
 * - A key runs to '=', a space or the end; `key=` is the empty value, a
 *   bare key (no '=') is the value "true".
 * - A value is bare (to the next space; '=' and '"' inside are ordinary
 *   bytes) or quoted: from '"' to the next '"' not escaped by a backslash,
 *   with \" \\ \n \r \t \uXXXX... read (extract_unescape; copied to scratch
 *   only then).
 * - Pairs are separated by one or more spaces; the later of two equal keys
 *   wins.
 * - EXTRACT_ERROR: an empty key (`=x`), a key holding '"', a quoted value
 *   without its closing quote, text right after a closing quote.
 * - $time is the first of the keys time, ts, timestamp the line has, read
 *   as a timestamp (extract.c).
 *
 * The bytes that end tokens are found with xscan (four vector compares per
 * 64 bytes), never byte by byte. */
#include "exec/extract/extract_int.h"
#include "exec/extract/xscan.h"

enum { LF_SP = 1, LF_EQ = 2, LF_QUOTE = 4, LF_BSLASH = 8 };

static const char lf_bytes[4] = {' ', '=', '"', '\\'};
static const char lf_true[] = "true";   /* a bare key's value */

/* Sets the field of key [k, k+kl), if requested, to value [v, v+vl),
 * unescaped when esc; false when out of scratch. */
static inline __attribute__((always_inline)) bool lf_set(extractor_t *x, size_t i, sv_t *const *cols, const char *k, uint32_t kl,
                   const char *v, uint32_t vl, bool esc)
{
    uint32_t f = extract_dyn_field(x, k, kl);
    if (f == EXTRACT_NONE)
        return true;
    if (esc) {
        char *out = extract_scratch(x, vl);
        if (!out)
            return false;
        vl = extract_unescape(v, vl, out);
        v = out;
    }
    cols[f][i].p = v;
    cols[f][i].len = vl;
    return true;
}

static uint8_t lf_fail(extractor_t *x, const char *why, uint32_t at)
{
    extract_error(x, "logfmt line rejected: %s at byte %u", why, at);
    return EXTRACT_ERROR;
}

static uint8_t logfmt_line(extractor_t *x, size_t i, const char *p, uint32_t n, sv_t *const *cols)
{
    xscan_t s;
    xscan_init(&s, p, n, lf_bytes);
    uint32_t pos = xscan_find(&s, 0, LF_SP, false);
    while (pos < n) {
        uint32_t ks = pos, ke = xscan_find(&s, pos, LF_SP | LF_EQ | LF_QUOTE, true);
        if (ke < n && p[ke] == '"')
            return lf_fail(x, "quote in a key", ke);
        if (ke == ks)
            return lf_fail(x, "empty key", ks);
        if (ke == n || p[ke] == ' ') {
            if (!lf_set(x, i, cols, p + ks, ke - ks, lf_true, 4, false))
                return lf_fail(x, "out of memory", ke);
            pos = xscan_find(&s, ke, LF_SP, false);
            continue;
        }
        uint32_t v = ke + 1, ve;
        bool esc = false;
        if (v < n && p[v] == '"') {
            uint32_t q = v + 1;
            for (;;) {
                q = xscan_find(&s, q, LF_QUOTE | LF_BSLASH, true);
                if (q >= n)
                    return lf_fail(x, "unterminated quoted value", v);
                if (p[q] == '"')
                    break;
                esc = true;
                q += 2;                    /* the backslash and what it escapes */
            }
            if (q + 1 < n && p[q + 1] != ' ')
                return lf_fail(x, "text after a quoted value", q + 1);
            if (!lf_set(x, i, cols, p + ks, ke - ks, p + v + 1, q - v - 1, esc))
                return lf_fail(x, "out of memory", v);
            ve = q + 1;
        } else {
            ve = xscan_find(&s, v, LF_SP, true);
            lf_set(x, i, cols, p + ks, ke - ks, p + v, ve - v, false);
        }
        pos = xscan_find(&s, ve, LF_SP, false);
    }
    return EXTRACT_OK;
}

/* Parsed whatever the query names: a bad line is one either way. */
static void logfmt_batch(extractor_t *x, const char *const *line, const uint32_t *len, size_t n,
                         sv_t *const *cols, uint8_t *status)
{
    extract_each_line(x, line, len, n, cols, status, logfmt_line);
}

/* The keys of a line (unchecked: for "did you mean"). */
static void logfmt_names(const extractor_t *x, const char *p, uint32_t n, extract_name_fn fn,
                         void *arg)
{
    (void)x;
    uint32_t k = 0;
    while (k < n) {
        while (k < n && p[k] == ' ')
            k++;
        uint32_t ks = k;
        while (k < n && p[k] != ' ' && p[k] != '=')
            k++;
        if (k > ks)
            fn(arg, p + ks, k - ks);
        if (k < n && p[k] == '=' && k + 1 < n && p[k + 1] == '"') {
            for (k += 2; k < n && p[k] != '"'; k++)
                k += p[k] == '\\';
            k++;
        }
        while (k < n && p[k] != ' ')
            k++;
    }
}

static bool logfmt_plan_var(const char *name, field_plan_t *fp)
{
    if (strcmp(name, "$time") != 0)
        return false;
    fp->kind = FIELD_TIME;
    return true;
}

static const char *const logfmt_time_keys[] = {"time", "ts", "timestamp", NULL};

const extract_format_t extract_format_logfmt = {
    .name = "logfmt", .dynamic = true, .plan_var = logfmt_plan_var, .batch = logfmt_batch,
    .names = logfmt_names, .time_keys = logfmt_time_keys, .consts = lf_true,
    .consts_len = sizeof lf_true,
};
