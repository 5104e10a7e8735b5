/* extract_unit.h: cmocka helpers shared by the extractor unit tests
 * (tests/unit/test_extract*.c): making an extractor, running one line or
 * one big batch through it, and asserting a value. Include after <cmocka.h>.
 * Header-only so each test binary stays one file. */
#ifndef DTAIL_TESTS_EXTRACT_UNIT_H
#define DTAIL_TESTS_EXTRACT_UNIT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/extract/extract.h"
#include "exec/extract/extract_int.h"
#include "tests/support/extract_oracle.h"
#include "tests/support/rng.h"

/* extractor_new of format with env, or the test fails. */
static inline extractor_t *xt_make(const char *format, const extract_env_t *env,
                                   const char *const *fields, size_t n)
{
    err_t e;
    extractor_t *x = extractor_new(format, fields, n, env, &e);
    if (!x)
        fail_msg("extractor_new(%s): %s", format, e.msg);
    return x;
}

/* Runs one line through x; the values land in out[0..n_fields). */
static inline uint8_t xt_run1(extractor_t *x, size_t n_fields, const char *line, size_t len,
                              sv_t *out)
{
    sv_t *cols[64] = {0};
    for (size_t f = 0; f < n_fields; f++)
        cols[f] = &out[f];
    uint8_t st = 0xff;
    uint32_t l = (uint32_t)len;
    extract_batch(x, &line, &l, 1, cols, &st);
    return st;
}

/* One big batch: n lines of up to cap bytes each (line i at buf + i * cap)
 * and a column for each of nf fields. */
typedef struct xt_batch {
    size_t n;               /* lines */
    char *buf;              /* their bytes */
    const char **lines;     /* line i */
    uint32_t *lens;         /* its length */
    sv_t *mem;              /* the columns' storage */
    sv_t *cols[64];         /* cols[f][i]: field f of line i */
    uint8_t *st;            /* line i's status */
} xt_batch_t;

static inline void xt_batch_init(xt_batch_t *b, size_t n, size_t cap, size_t nf)
{
    assert_true(nf <= sizeof b->cols / sizeof b->cols[0]);
    b->n = n;
    b->buf = malloc(n * cap);
    b->lines = calloc(n, sizeof *b->lines);
    b->lens = calloc(n, sizeof *b->lens);
    b->mem = calloc(nf * n, sizeof *b->mem);
    for (size_t f = 0; f < nf; f++)
        b->cols[f] = b->mem + f * n;
    b->st = calloc(n, 1);
}

static inline void xt_batch_free(xt_batch_t *b)
{
    free(b->buf);
    free(b->lines);
    free(b->lens);
    free(b->mem);
    free(b->st);
}

/* Makes each line of the batch (cap bytes each, as given to xt_batch_init)
 * random pieces (rng_pieces): one line in long_every is up to cap - 16
 * bytes long, the others up to short_max. */
static inline void xt_batch_random(xt_batch_t *b, size_t cap, uint64_t *rng, unsigned long_every,
                                   size_t short_max, const char *const *pieces, size_t n_pieces)
{
    for (size_t i = 0; i < b->n; i++) {
        char *l = b->buf + i * cap;
        size_t target = rng_next(rng) % long_every == 0 ? rng_next(rng) % (cap - 16)
                                                         : rng_next(rng) % short_max;
        b->lines[i] = l;
        b->lens[i] = (uint32_t)rng_pieces(rng, l, target, pieces, n_pieces);
    }
}

/* Runs lines[0..n) (NUL-terminated, n <= 64) as one batch through x;
 * field f of line i lands in out[f * n + i]. */
static inline void xt_run_lines(extractor_t *x, size_t n_fields, const char *const *lines,
                                size_t n, sv_t *out, uint8_t *st)
{
    sv_t *cols[64];
    uint32_t lens[64];
    assert_true(n_fields <= 64 && n <= 64);
    for (size_t f = 0; f < n_fields; f++)
        cols[f] = out + f * n;
    for (size_t i = 0; i < n; i++)
        lens[i] = (uint32_t)strlen(lines[i]);
    extract_batch(x, lines, lens, n, cols, st);
}

/* v is the string want, or missing when want is NULL. */
static inline void assert_sv(sv_t v, const char *want)
{
    if (!want) {
        if (v.len != SV_MISSING)
            fail_msg("value \"%.*s\", want missing", (int)v.len, v.p);
        return;
    }
    if (v.len != strlen(want))
        fail_msg("value \"%.*s\" (len %u), want \"%s\"", v.len == SV_MISSING ? 0 : (int)v.len,
                 v.p ? v.p : "", v.len, want);
    if (v.len)
        assert_memory_equal(v.p, want, v.len);
}

/* Line l gives EXTRACT_OK and field f (names[f], f < n) the value
 * want[f] (NULL: missing). */
static inline void xt_check_line(extractor_t *x, const char *const *names, size_t n,
                                 const char *l, const char *const *want)
{
    sv_t v[64];
    assert_true(n <= 64);
    assert_int_equal(xt_run1(x, n, l, strlen(l), v), EXTRACT_OK);
    for (size_t f = 0; f < n; f++) {
        if (!want[f] ? v[f].len == SV_MISSING
                     : v[f].len == strlen(want[f]) && memcmp(v[f].p, want[f], v[f].len) == 0)
            continue;
        fail_msg("%s of '%s': \"%.*s\", want %s", names[f], l,
                 v[f].len == SV_MISSING ? 7 : (int)v[f].len,
                 v[f].len == SV_MISSING ? "missing" : v[f].p, want[f] ? want[f] : "missing");
    }
}

/* A line and the value it must give the first requested field. */
typedef struct xt_case {
    const char *line;       /* the line, accepted */
    const char *want;       /* the value, NULL: missing */
} xt_case_t;

/* Each case through x (made for nf fields): EXTRACT_OK and its value. */
static inline void xt_check_cases(extractor_t *x, size_t nf, const xt_case_t *cases, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        sv_t v[64];
        assert_true(nf <= 64);
        assert_int_equal(xt_run1(x, nf, cases[k].line, strlen(cases[k].line), v), EXTRACT_OK);
        assert_sv(v[0], cases[k].want);
    }
}

/* Extracts the batch's lines with x into its columns and statuses. */
static inline void xt_batch_run(extractor_t *x, xt_batch_t *b)
{
    extract_batch(x, b->lines, b->lens, b->n, b->cols, b->st);
}


/* A naive model of a format (tests/support/format_oracle.h): out[f] for
 * fields[f] of one line, SIZE_MAX when missing; returns its status. */
typedef uint8_t (*xt_oracle_fn)(const char *p, size_t n, const char *const *fields, size_t nf,
                                const extract_env_t *env, xo_val_t *out);

/* rounds batches of n random lines (pieces, as xt_batch_random: one line in
 * 8 up to cap - 16 bytes, the others up to 160) through x, which was made
 * for fields[0..nf) with env: every status and value is the oracle's, and
 * every view lies in its line or the extractor. Counts the statuses into
 * seen[0..3). */
static inline void xt_random_vs_oracle(extractor_t *x, const char *const *fields, size_t nf,
                                       const extract_env_t *env, xt_oracle_fn oracle,
                                       const char *const *pieces, size_t n_pieces, int rounds,
                                       uint64_t *rng, size_t seen[3])
{
    enum { N = 512, CAP = 2048 };
    xt_batch_t bt;
    xt_batch_init(&bt, N, CAP, nf);
    xo_val_t want[64];
    assert_true(nf <= 64);
    for (int round = 0; round < rounds; round++) {
        xt_batch_random(&bt, CAP, rng, 8, 160, pieces, n_pieces);
        xt_batch_run(x, &bt);
        for (size_t i = 0; i < N; i++) {
            uint8_t ws = oracle(bt.lines[i], bt.lens[i], fields, nf, env, want);
            char q[600], qv[300], qw[300];
            if (ws != bt.st[i]) {
                extract_quote(q, sizeof q, bt.lines[i], bt.lens[i], 400);
                fail_msg("round %d line %zu \"%s\": status %d, oracle %d", round, i, q,
                         bt.st[i], ws);
            }
            seen[ws < 3 ? ws : 2]++;
            for (size_t f = 0; f < nf; f++) {
                sv_t v = bt.cols[f][i];
                bool same = want[f].len == SIZE_MAX
                                ? v.len == SV_MISSING
                                : v.len == want[f].len &&
                                      (!v.len || memcmp(v.p, want[f].p, v.len) == 0);
                if (!same) {
                    extract_quote(q, sizeof q, bt.lines[i], bt.lens[i], 400);
                    extract_quote(qv, sizeof qv, v.len == SV_MISSING ? "(missing)" : v.p,
                                  v.len == SV_MISSING ? 9 : v.len, 200);
                    extract_quote(qw, sizeof qw, want[f].len == SIZE_MAX ? "(missing)" : want[f].p,
                                  want[f].len == SIZE_MAX ? 9 : want[f].len, 200);
                    fail_msg("line \"%s\" field %s: \"%s\", want \"%s\"", q, fields[f], qv, qw);
                }
                if (v.len == SV_MISSING)
                    continue;
                bool inside = v.p >= bt.lines[i] && v.p + v.len <= bt.lines[i] + bt.lens[i];
                if (!inside && !extract_owns(x, v.p, v.len))
                    fail_msg("field %s: a view outside its line and the extractor", fields[f]);
            }
        }
    }
    xt_batch_free(&bt);
}

#endif
