/* fuzz_extract_pattern.c: libFuzzer target over `logformat pattern "..."`
 * (parser/logpattern.c reads the pattern, fmt_pattern.c matches lines)
 * and timeformat layouts (logtime.c).
 *
 * Input layout: three bytes as tests/support/extract_check.h reads them,
 * one byte choosing a timeformat (or none), then the pattern up to the
 * first '\n', then the lines. A pattern logpattern_read refuses must be
 * refused by the extractor too; one it reads must make an extractor,
 * whose lines keep extract_check.h's invariants and give the statuses and
 * values of the naive matcher below (docs/log-formats.md's rule done the
 * obvious way: byte by byte, every position tried). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parser/logpattern.h"
#include "tests/support/extract_check.h"
#include "tests/support/format_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[XC_MAX] = {
    "$remote_addr", "$remote_user", "$time_local", "$request", "$status", "$body_bytes_sent",
    "$http_user_agent", "$a", "$b", "$time_iso8601", "$msec", "$time", "$line", "*",
    "$request_time", "$http_referer",
};

static const char *const layouts[] = {
    NULL, "%d/%b/%Y:%H:%M:%S %z", "%Y-%m-%d %H:%M:%S.%f", "%s", "%a %e %B %y %I:%M %p %Z",
    "%j %T", "%D %R%n%z", "%F%%",
};

static logpattern_t pat;
static logtime_ctx_t tc = {1773576000, 0, NULL, NULL};
static const char *const time_keys[] = {"$time_local", "$time_iso8601", "$msec", NULL};

static bool naive_pattern(const char *p, size_t n)
{
    size_t pos = 0;
    for (size_t k = 0; k < pat.n; k++) {
        const logpattern_item_t *it = &pat.item[k];
        const char *t = logpattern_text(&pat, k);
        if (it->kind == LOGPATTERN_LITERAL) {
            if (n - pos < it->len || memcmp(p + pos, t, it->len) != 0)
                return false;
            pos += it->len;
            continue;
        }
        bool last = k + 1 == pat.n;
        bool quoted = !last && k > 0 && logpattern_text(&pat, k - 1)[pat.item[k - 1].len - 1] == '"' &&
                      logpattern_text(&pat, k + 1)[0] == '"';
        size_t end = n;
        if (quoted) {
            end = pos;
            while (end < n && p[end] != '"')
                end += p[end] == '\\' ? 2 : 1;
            if (end >= n)
                return false;
        } else if (!last) {
            const char *next = logpattern_text(&pat, k + 1);
            size_t nl = pat.item[k + 1].len;
            for (end = pos; end + nl <= n && memcmp(p + end, next, nl) != 0; end++)
                ;
            if (end + nl > n)
                return false;
        }
        const char *v = p + pos;
        size_t vl = end - pos;
        if (it->zero_dash && vl == 1 && v[0] == '-')
            v = "0";
        else if (quoted && xf_has_bs(v, vl))
            v = xf_unescape(v, vl, &vl);
        xf_pair(t, it->len, v, vl);
        pos = end;
    }
    return pos == n;
}

static uint8_t oracle(const char *p, size_t n, const char *const *fields, size_t nf,
                      const extract_env_t *env, xo_val_t *out)
{
    return xf_oracle(p, n, fields, nf, env, naive_pattern, time_keys, &tc, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 4)
        return 0;
    const char *text = (const char *)data + 4;
    size_t n = size - 4;
    const char *nl = memchr(text, '\n', n);
    size_t pl = nl ? (size_t)(nl - text) : n;
    if (memchr(text, '\0', pl))
        return 0;   /* a query's string holds no NUL */
    char *pattern = malloc(pl + 1);
    memcpy(pattern, text, pl);
    pattern[pl] = '\0';
    const char *why;
    size_t at;
    bool ok = logpattern_read(pattern, pl, &pat, &why, &at);
    if (!ok && at > pl)
        abort();
    tc.layout = layouts[data[3] % (sizeof layouts / sizeof *layouts)];
    xc_opts = (extract_opts_t){.pattern = pattern, .now = tc.now, .timeformat = tc.layout};
    if (!ok) {
        err_t e;
        if (extractor_new_opts("pattern", names, 3, NULL, &xc_opts, &e))
            abort();
        free(pattern);
        return 0;
    }
    /* the three header bytes, then the lines after the pattern's */
    size_t rest = nl ? n - pl - 1 : 0;
    uint8_t *in = malloc(3 + rest);
    memcpy(in, data, 3);
    if (rest)
        memcpy(in + 3, nl + 1, rest);
    xc_fuzz_copies(in, 3 + rest, "pattern", names, oracle);
    free(in);
    free(pattern);
    return 0;
}
