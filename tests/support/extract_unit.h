/* extract_unit.h: cmocka helpers shared by the extractor unit tests
 * (tests/unit/test_extract*.c): making an extractor, running one line or
 * one big batch through it, and asserting a value. Include after <cmocka.h>.
 * Header-only so each test binary stays one file. */
#ifndef DTAIL_TESTS_EXTRACT_UNIT_H
#define DTAIL_TESTS_EXTRACT_UNIT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/extract/extract.h"
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

/* Extracts the batch's lines with x into its columns and statuses. */
static inline void xt_batch_run(extractor_t *x, xt_batch_t *b)
{
    extract_batch(x, b->lines, b->lens, b->n, b->cols, b->st);
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

#endif
