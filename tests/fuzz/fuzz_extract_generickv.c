/* fuzz_extract_generickv.c: libFuzzer target over the `generickv` format.
 *
 * Input layout: two bytes choose which of 16 candidate field names are
 * requested, one byte the batch size, the rest is lines separated by '\n'.
 * Every line must be accepted (no hang on tokens without '=', defect D1);
 * aborts when a view points outside its line and the extractor's own
 * storage, a line gives another result alone than in a batch, or any value
 * differs from a naive oracle. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/extract/extract.h"
#include "exec/extract/extract_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[16] = {
    "a", "b", "c", "", "$line", "*", "hostname", "x=y", "a", "$time", "$empty", "$hostname",
    "key", "k|v", " a", "a ",
};

typedef struct want {
    const char *p;      /* value */
    size_t len;         /* SIZE_MAX: missing */
} want_t;

/* generickv the slow obvious way. */
static uint8_t oracle(const char *p, size_t n, const char *const *fields, size_t nf, want_t *out)
{
    uint32_t n32 = (uint32_t)n;
    extract_trim(&p, &n32);
    n = n32;
    for (size_t f = 0; f < nf; f++) {
        out[f].len = SIZE_MAX;
        if (strcmp(fields[f], "$line") == 0) {
            out[f].p = p;
            out[f].len = n;
        }
        if (strcmp(fields[f], "*") == 0) {
            out[f].p = "*";
            out[f].len = 1;
        }
        if (strcmp(fields[f], "$empty") == 0) {
            out[f].p = "";
            out[f].len = 0;
        }
        if (strcmp(fields[f], "$hostname") == 0) {
            out[f].p = "fuzzhost";
            out[f].len = 8;
        }
    }
    size_t at = 0;
    for (size_t k = 0; k <= n; k++) {
        if (k < n && p[k] != '|')
            continue;
        const char *eq = memchr(p + at, '=', k - at);
        if (eq) {
            size_t kl = (size_t)(eq - (p + at));
            for (size_t f = 0; f < nf; f++)
                if (strlen(fields[f]) == kl && memcmp(fields[f], p + at, kl) == 0) {
                    out[f].p = eq + 1;
                    out[f].len = k - at - kl - 1;
                }
        }
        at = k + 1;
    }
    return EXTRACT_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    unsigned mask = (unsigned)data[0] | (unsigned)data[1] << 8;
    size_t batch = 1 + data[2] % 16;
    const char *fields[16];
    size_t nf = 0;
    for (int k = 0; k < 16; k++)
        if (mask >> k & 1)
            fields[nf++] = names[k];
    extract_env_t env = {"fuzzhost", "UTC", "0"};
    err_t e;
    extractor_t *x = extractor_new("generickv", fields, nf, &env, &e);
    if (!x)
        abort();

    /* lines; a private copy each, so a read past a line is caught by ASan */
    const char *text = (const char *)data + 3;
    size_t n = size - 3, n_lines = 1;
    for (size_t k = 0; k < n; k++)
        n_lines += text[k] == '\n';
    char **lines = calloc(n_lines, sizeof *lines);
    uint32_t *lens = calloc(n_lines, sizeof *lens);
    size_t i = 0, at = 0;
    for (size_t k = 0; k <= n; k++)
        if (k == n || text[k] == '\n') {
            lens[i] = (uint32_t)(k - at);
            lines[i] = malloc(lens[i] ? lens[i] : 1);
            memcpy(lines[i], text + at, lens[i]);
            i++;
            at = k + 1;
        }

    sv_t *mem = calloc((nf ? nf : 1) * batch, sizeof *mem);
    sv_t *cols[16];
    for (size_t f = 0; f < nf; f++)
        cols[f] = mem + f * batch;
    uint8_t st[16];
    sv_t one[16];
    sv_t *one_cols[16];
    for (size_t f = 0; f < nf; f++)
        one_cols[f] = &one[f];
    want_t want[16];
    for (size_t b = 0; b < n_lines; b += batch) {
        size_t m = n_lines - b < batch ? n_lines - b : batch;
        extract_batch(x, (const char *const *)lines + b, lens + b, m, cols, st);
        bool any_err = false;
        for (size_t r = 0; r < m; r++) {
            const char *lp = lines[b + r];
            uint32_t ll = lens[b + r];
            if (st[r] > EXTRACT_ERROR)
                abort();
            any_err |= st[r] == EXTRACT_ERROR;
            uint8_t ws = oracle(lp, ll, fields, nf, want);
            if (ws != st[r])
                abort();
            for (size_t f = 0; f < nf; f++) {
                sv_t v = cols[f][r];
                if (want[f].len == SIZE_MAX) {
                    if (v.len != SV_MISSING)
                        abort();
                    continue;
                }
                if (v.len != want[f].len || (v.len && memcmp(v.p, want[f].p, v.len) != 0))
                    abort();
                bool inside = v.p >= lp && v.p + v.len <= lp + ll;
                if (!inside && !extract_owns(x, v.p, v.len))
                    abort();
            }
        }
        if (any_err != (extractor_last_error(x)[0] != '\0'))
            abort();
        /* each line alone gives the same (checked after the batch's views) */
        for (size_t r = 0; r < m; r++) {
            sv_t keep[16];
            for (size_t f = 0; f < nf; f++)
                keep[f] = cols[f][r];
            uint8_t s1;
            extract_batch(x, (const char *const *)lines + b + r, lens + b + r, 1, one_cols, &s1);
            if (s1 != st[r])
                abort();
            for (size_t f = 0; f < nf; f++)
                if (one[f].len != keep[f].len || (one[f].len != SV_MISSING && one[f].p != keep[f].p))
                    abort();
        }
    }
    for (size_t k = 0; k < n_lines; k++)
        free(lines[k]);
    free(lines);
    free(lens);
    free(mem);
    extractor_free(x);
    return 0;
}
