/* test_agg_table.c: the group table and aggregate states: every aggregate's
 * semantics, and the merge property partial results rely on: any split of
 * the input into k parts, aggregated separately, serialized, and merged in
 * any order, equals the whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/agg/quant.h"
#include "exec/agg/sketch.h"
#include "exec/agg/table.h"
#include "exec/sink/result.h"
#include "tests/support/rng.h"

static uint64_t rng = 99;
static unsigned next_rand(void)
{
    return rng_next(&rng);
}

static const agg_spec_t specs[] = {
    {PLAN_AGG_COUNT, 0, 0, false, 0}, {PLAN_AGG_SUM, 0, 0, false, 0}, {PLAN_AGG_MIN, 0, 0, false, 0}, {PLAN_AGG_MAX, 0, 0, false, 0},
    {PLAN_AGG_AVG, 0, 0, false, 0}, {PLAN_AGG_LAST, 0, 0, false, 0}, {PLAN_AGG_LEN, 0, 0, false, 0},
    {PLAN_AGG_PERCENTAGE, 0, 0, false, 0}, {PLAN_AGG_PERCENTILE, 0, 0, false, 0}, {PLAN_AGG_QUANTILE, 0.9, 0, false, 0},
};
#define N_SPECS (sizeof specs / sizeof specs[0])

typedef struct row {
    char key[16];
    char val[16];
    int missing;
    uint64_t seq;
} row_t;

static void fold(agg_table_t *t, const row_t *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        /* Keys as the engine builds them: each part length-prefixed. */
        char key[16];
        uint32_t kl = (uint32_t)strlen(rows[i].key);
        memcpy(key, &kl, 4);
        memcpy(key + 4, rows[i].key, kl);
        long g = agg_table_group(t, key, kl + 4, agg_key_hash(key, kl + 4));
        assert_true(g >= 0);
        uint32_t gid = (uint32_t)g;
        sv_t v = rows[i].missing ? (sv_t){NULL, SV_MISSING}
                                 : (sv_t){rows[i].val, (uint32_t)strlen(rows[i].val)};
        for (size_t s = 0; s < N_SPECS; s++)
            agg_table_update(t, s, &gid, &v, &rows[i].seq, 1);
    }
}

/* Renders all groups of t in key order, one string, for comparison. */
static char *render(const agg_table_t *t)
{
    plan_select_t sel[N_SPECS];
    memset(sel, 0, sizeof sel);
    for (size_t s = 0; s < N_SPECS; s++)
        sel[s].name = "c";
    plan_value_t gv = {0};
    const plan_value_t *gb[] = {&gv};
    plan_t plan = {.select = sel, .n_select = N_SPECS, .n_columns = N_SPECS, .group_by = gb,
                   .n_group_by = 1, .order_index = -1, .limit = -1};
    result_t r;
    err_t e;
    assert_int_equal(result_build(&plan, t, -1, &r, &e), 0);
    size_t cap = 1 << 16, len = 0;
    char *out = malloc(cap);
    for (size_t i = 0; i < r.n_rows; i++)
        for (size_t c = 0; c < r.n_cols; c++) {
            const char *cell = result_cell(&r, i, c);
            while (len + strlen(cell) + 2 > cap)
                out = realloc(out, cap *= 2);
            len += (size_t)sprintf(out + len, "%s%c", cell, c + 1 == r.n_cols ? '\n' : ',');
        }
    out[len] = '\0';
    result_free(&r);
    return out;
}

static void make_rows(row_t *rows, size_t n, unsigned n_keys)
{
    for (size_t i = 0; i < n; i++) {
        snprintf(rows[i].key, sizeof rows[i].key, "k%u", next_rand() % n_keys);
        unsigned kind = next_rand() % 10;
        rows[i].missing = kind == 0;
        if (kind == 1)
            snprintf(rows[i].val, sizeof rows[i].val, "n/a");
        else   /* halves: sums of these are exact in double, whatever the order */
            snprintf(rows[i].val, sizeof rows[i].val, "%d.5", (int)(next_rand() % 2000) - 1000);
        rows[i].seq = i + 1;
    }
}

/* Up to 3000 random rows over n_keys keys, their table and its rendering. */
typedef struct sample {
    row_t *rows;            /* the rows */
    size_t n;               /* their count */
    agg_table_t whole;      /* all of them folded */
    char *want;             /* render(&whole) */
} sample_t;

static void sample_make(sample_t *sm, unsigned n_keys)
{
    err_t e;
    sm->n = 1 + next_rand() % 3000;
    sm->rows = malloc(sm->n * sizeof *sm->rows);
    make_rows(sm->rows, sm->n, n_keys);
    assert_int_equal(agg_table_init(&sm->whole, specs, N_SPECS, &e), 0);
    fold(&sm->whole, sm->rows, sm->n);
    sm->want = render(&sm->whole);
}

/* Frees sm after checking that table t renders as the whole. */
static void sample_check_free(sample_t *sm, const agg_table_t *t)
{
    char *got = render(t);
    assert_string_equal(got, sm->want);
    free(got);
    free(sm->want);
    agg_table_free(&sm->whole);
    free(sm->rows);
}

static void test_merge_equals_whole(void **state)
{
    (void)state;
    err_t e;
    for (int round = 0; round < 50; round++) {
        sample_t sm;
        sample_make(&sm, 7);
        size_t n = sm.n;

        /* k parts, serialized, merged in a random order. */
        size_t k = 1 + next_rand() % 6;
        size_t cut[8] = {0};
        for (size_t p = 1; p < k; p++)
            cut[p] = next_rand() % (n + 1);
        cut[k] = n;
        for (size_t a = 1; a < k; a++)      /* sort the cut points */
            for (size_t b = a + 1; b < k; b++)
                if (cut[b] < cut[a]) {
                    size_t t = cut[a];
                    cut[a] = cut[b];
                    cut[b] = t;
                }
        unsigned char *blob[8];
        size_t blen[8];
        for (size_t p = 0; p < k; p++) {
            agg_table_t part;
            assert_int_equal(agg_table_init(&part, specs, N_SPECS, &e), 0);
            fold(&part, sm.rows + cut[p], cut[p + 1] - cut[p]);
            blob[p] = agg_table_serialize(&part, &blen[p]);
            assert_non_null(blob[p]);
            agg_table_free(&part);
        }
        agg_table_t merged;
        assert_int_equal(agg_table_init(&merged, specs, N_SPECS, &e), 0);
        for (size_t p = k; p-- > 0;) {   /* reverse order: last() must still win by seq */
            assert_int_equal(agg_table_merge_serialized(&merged, blob[p], blen[p], &e), 0);
            free(blob[p]);
        }
        sample_check_free(&sm, &merged);
        agg_table_free(&merged);
    }
}

/* A table sent in parts (agg_table_serialize_part, as dserver does for a
 * result larger than a frame) and joined again (agg_serialized_join, as
 * the client does) merges to the same table; so do the parts merged one by
 * one. Every part but a single-group one stays within the size asked. */
static void test_parts_join_equals_whole(void **state)
{
    (void)state;
    err_t e;
    for (int round = 0; round < 30; round++) {
        sample_t sm;
        sample_make(&sm, 900);
        const agg_table_t *whole = &sm.whole;
        size_t max = 64 + next_rand() % 4096;
        agg_bytes_t joined = {0};
        agg_table_t one_by_one;
        assert_int_equal(agg_table_init(&one_by_one, specs, N_SPECS, &e), 0);
        size_t from = 0, parts = 0;
        do {
            size_t next, len;
            unsigned char *p = agg_table_serialize_part(whole, from, max, &next, &len);
            assert_non_null(p);
            assert_true(next > from || whole->n_groups == 0);
            assert_true(len <= max || next == from + 1);
            assert_int_equal(agg_serialized_join(&joined, p, len, &e), 0);
            assert_int_equal(agg_table_merge_serialized(&one_by_one, p, len, &e), 0);
            free(p);
            from = next;
            parts++;
        } while (from < whole->n_groups);
        assert_true(parts > 1 || whole->n_groups < 3 || max > 3000);
        agg_table_t rejoined;
        assert_int_equal(agg_table_init(&rejoined, specs, N_SPECS, &e), 0);
        assert_int_equal(agg_table_merge_serialized(&rejoined, joined.p, joined.len, &e), 0);
        char *got1 = render(&one_by_one);
        assert_string_equal(got1, sm.want);
        free(got1);
        sample_check_free(&sm, &rejoined);
        free(joined.p);
        agg_table_free(&rejoined);
        agg_table_free(&one_by_one);
    }
    /* Parts of tables of other select items, or no partial at all, are
     * errors naming the part. */
    agg_table_t a, b;
    assert_int_equal(agg_table_init(&a, specs, N_SPECS, &e), 0);
    assert_int_equal(agg_table_init(&b, specs, 3, &e), 0);
    size_t la, lb;
    unsigned char *pa = agg_table_serialize(&a, &la), *pb = agg_table_serialize(&b, &lb);
    agg_bytes_t j = {0};
    assert_int_equal(agg_serialized_join(&j, pa, la, &e), 0);
    assert_int_equal(agg_serialized_join(&j, pb, lb, &e), -1);
    assert_non_null(strstr(e.msg, "select items differ"));
    assert_int_equal(agg_serialized_join(&j, (const unsigned char *)"DTAG", 4, &e), -1);
    assert_non_null(strstr(e.msg, "malformed"));
    free(j.p);
    free(pa);
    free(pb);
    agg_table_free(&a);
    agg_table_free(&b);
}

static void test_semantics(void **state)
{
    (void)state;
    err_t e;
    agg_table_t t;
    assert_int_equal(agg_table_init(&t, specs, N_SPECS, &e), 0);
    row_t rows[] = {
        {"g", "10", 0, 1}, {"g", "x", 0, 2}, {"g", "", 1, 3}, {"g", "30", 0, 4},
        {"h", "20", 0, 5},
    };
    fold(&t, rows, 5);
    char *got = render(&t);
    /* g: count 3 (the non-numeric counts, missing not), sum 40, min 10,
     * max 30, avg over numeric values 20, last "30", len 2, percentage
     * 40/60, percentile rank of 40 among {40,20}: 100; p90 ~30 (1 %). */
    assert_non_null(strstr(got, "3,40.000000,10.000000,30.000000,20.000000,30,2.000000,66.666667,100.000000,"));
    assert_non_null(strstr(got, "\n1,20.000000,20.000000,20.000000,20.000000,20,2.000000,33.333333,50.000000,"));
    free(got);
    agg_table_free(&t);
}

/* DTail's sum starts from the first value: a sum of -0 alone is -0, as
 * the Go dserver sends and prints it; -0 and 0 make 0; no value is 0. */
static void test_sum_of_negative_zero(void **state)
{
    (void)state;
    err_t e;
    agg_table_t t;
    assert_int_equal(agg_table_init(&t, specs, N_SPECS, &e), 0);
    row_t rows[] = {{"a", "-0", 0, 1}, {"b", "-0", 0, 2}, {"b", "0", 0, 3}, {"c", "x", 0, 4}};
    fold(&t, rows, 4);
    assert_int_equal(t.n_groups, 3);
    for (size_t g = 0; g < 3; g++) {
        const unsigned char *st = agg_table_state(&t, g, 1);
        agg_sum_t s;
        memcpy(&s, st, sizeof s);
        double v = agg_state_number(&t.specs[1], st);
        assert_true(v == 0);
        assert_int_equal(signbit(v) != 0, g == 0);
        assert_int_equal(signbit(s.sum) != 0, g != 1);
    }
    agg_table_free(&t);
}

/* Values that are never numbers: each numeric aggregate skips and counts
 * them, and an item marked null_empty renders the state without a number
 * as an empty cell, also after a serialized merge (the server's path);
 * unmarked, it stays DTail's 0.000000. */
static void test_no_number_is_empty(void **state)
{
    (void)state;
    err_t e;
    agg_table_t t, m;
    assert_int_equal(agg_table_init(&t, specs, N_SPECS, &e), 0);
    assert_int_equal(agg_table_init(&m, specs, N_SPECS, &e), 0);
    char key[5] = {1, 0, 0, 0, 't'};
    uint32_t gid = (uint32_t)agg_table_group(&t, key, 5, agg_key_hash(key, 5));
    const sv_t vals[] = {{"x", 1}, {"y", 1}, {NULL, SV_MISSING}};
    uint64_t seq[] = {1, 2, 3};
    uint32_t gids[] = {gid, gid, gid};
    for (size_t s = 0; s < N_SPECS; s++) {
        size_t bad = agg_table_update(&t, s, gids, vals, seq, 3);
        enum plan_agg a = specs[s].agg;
        assert_int_equal(bad, a == PLAN_AGG_COUNT || a == PLAN_AGG_LAST || a == PLAN_AGG_LEN ? 0 : 2);
        assert_int_equal(agg_state_no_number(&t.specs[s], agg_table_state(&t, 0, s)),
                         !(a == PLAN_AGG_COUNT || a == PLAN_AGG_LAST || a == PLAN_AGG_LEN));
    }
    char *got = render(&t);
    assert_string_equal(got, "2,0.000000,0.000000,0.000000,0.000000,y,1.000000,0.000000,"
                             "100.000000,0.000000\n");
    free(got);
    size_t len;
    unsigned char *p = agg_table_serialize(&t, &len);
    assert_non_null(p);
    assert_int_equal(agg_table_merge_serialized(&m, p, len, &e), 0);
    free(p);
    for (size_t s = 0; s < N_SPECS; s++)
        m.specs[s].null_empty = true;
    got = render(&m);
    assert_string_equal(got, "2,,,,,y,1.000000,,,\n");
    free(got);
    agg_table_free(&t);
    agg_table_free(&m);
}

static void test_malformed_partials_are_errors(void **state)
{
    (void)state;
    err_t e;
    agg_table_t t;
    assert_int_equal(agg_table_init(&t, specs, N_SPECS, &e), 0);
    row_t rows[] = {{"g", "10", 0, 1}};
    fold(&t, rows, 1);
    size_t len;
    unsigned char *b = agg_table_serialize(&t, &len);
    agg_table_t u;
    assert_int_equal(agg_table_init(&u, specs, N_SPECS, &e), 0);
    for (size_t cut = 0; cut < len; cut++) {
        err_clear(&e);
        assert_int_equal(agg_table_merge_serialized(&u, b, cut, &e), -1);
        assert_true(strstr(e.msg, "partial aggregate") != NULL);
    }
    agg_table_t other;
    assert_int_equal(agg_table_init(&other, specs, 3, &e), 0);
    assert_int_equal(agg_table_merge_serialized(&other, b, len, &e), -1);
    assert_non_null(strstr(e.msg, "select items"));
    agg_table_free(&other);
    agg_table_free(&u);
    agg_table_free(&t);
    free(b);
}

/* A quantile sketch whose buckets lie where no value can fall (a far
 * store offset) is malformed: merged as it came, it would grow the store
 * toward gigabytes (found by fuzz_wire). */
static void test_sketch_far_index_is_an_error(void **state)
{
    (void)state;
    err_t e;
    static const agg_spec_t q[] = {{PLAN_AGG_QUANTILE, 0.5, 0, false, 0}};
    agg_table_t t;
    assert_int_equal(agg_table_init(&t, q, 1, &e), 0);
    char key[8] = {1, 0, 0, 0, 'g'};
    long g = agg_table_group(&t, key, 5, agg_key_hash(key, 5));
    uint32_t gid = (uint32_t)g;
    sv_t v = {"42", 2};
    for (int i = 0; i <= QUANT_EXACT_MAX; i++)   /* one past the bound: a sketch */
        agg_table_update(&t, 0, &gid, &v, NULL, 1);
    size_t len;
    unsigned char *b = agg_table_serialize(&t, &len);
    /* header 18, group count 8, key length 4, key 5, state size 4, form 1,
     * then total, zero, min, max (32) and the positive store's offset */
    const size_t off_at = 18 + 8 + 4 + 5 + 4 + 1 + 32;
    assert_true(len > off_at + 8);
    agg_table_t u;
    assert_int_equal(agg_table_init(&u, q, 1, &e), 0);
    assert_int_equal(agg_table_merge_serialized(&u, b, len, &e), 0);   /* as it is: fine */
    /* far but allocatable (8 MB of buckets without the check), past the
     * int32 end, and below */
    static const int32_t fars[] = {1000000, INT32_MAX - 3, -1000000};
    for (int k = 0; k < 3; k++) {
        int32_t far = fars[k];
        memcpy(b + off_at, &far, 4);
        err_clear(&e);
        assert_int_equal(agg_table_merge_serialized(&u, b, len, &e), -1);
        assert_non_null(strstr(e.msg, "partial aggregate"));
    }
    free(b);
    agg_table_free(&u);
    agg_table_free(&t);
}

static void test_sketch_accuracy(void **state)
{
    (void)state;
    sketch_t *s = sketch_new();
    for (int i = 1; i <= 100000; i++)
        sketch_add(s, i);
    double q[] = {0.5, 0.9, 0.99};
    for (int i = 0; i < 3; i++) {
        double want = q[i] * 100000, got = sketch_quantile(s, q[i]);
        assert_true(fabs(got - want) / want < 0.02);
    }
    sketch_free(s);
}

/* Any double goes into a sketch (infinities were a bucket index from
 * log(inf), out of every store); the infinities are the two ends of the
 * order and survive encoding. A sketch of finite values encodes as before
 * infinities were counted, so such partials stay what older peers read. */
/* Buckets from the first to the last that counts anything. */
static size_t span(const sketch_store_t *st)
{
    size_t lo = 0, hi = st->n;
    while (lo < hi && !st->counts[lo])
        lo++;
    while (hi > lo && !st->counts[hi - 1])
        hi--;
    return hi - lo;
}

static void test_sketch_any_double(void **state)
{
    (void)state;
    static const double vals[] = {-INFINITY, -DBL_MAX, -1, -DBL_MIN, -5e-324, 0, 5e-324,
                                  DBL_MIN, 1e-9, 1, DBL_MAX, INFINITY, INFINITY};
    const size_t n = sizeof vals / sizeof vals[0];
    sketch_t *s = sketch_new(), *finite = sketch_new();
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(sketch_add(s, vals[i]), 0);
        if (isfinite(vals[i]))
            assert_int_equal(sketch_add(finite, vals[i]), 0);
    }
    assert_int_equal(sketch_add(s, NAN), 0);   /* ignored */
    assert_int_equal(s->total, n);
    assert_true(sketch_quantile(s, 0.01) == -INFINITY);
    assert_true(sketch_quantile(s, 0.99) == INFINITY);
    double prev = -INFINITY;
    for (double q = 0.01; q < 1; q += 0.01) {   /* monotone over the whole range */
        double v = sketch_quantile(s, q);
        assert_false(isnan(v));
        assert_true(v >= prev);
        prev = v;
    }
    size_t len = sketch_encoded_size(s);
    unsigned char *buf = malloc(len);
    assert_int_equal(sketch_encode(s, buf), len);
    sketch_t *back = sketch_new();
    assert_int_equal(sketch_decode(back, buf, len), (long)len);
    assert_int_equal(back->inf, 2);
    assert_int_equal(back->ninf, 1);
    for (double q = 0.01; q < 1; q += 0.01)
        assert_true(sketch_quantile(back, q) == sketch_quantile(s, q));
    free(buf);
    size_t flen = sketch_encoded_size(finite);
    /* header 32, two store heads, the counts from the first to the last
     * bucket that counts anything, and no infinity counts */
    assert_int_equal(flen, 32 + 16 + (span(&finite->pos) + span(&finite->neg)) * 8);
    sketch_free(back);
    sketch_free(finite);
    sketch_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_semantics),
        cmocka_unit_test(test_no_number_is_empty),
        cmocka_unit_test(test_sum_of_negative_zero),
        cmocka_unit_test(test_merge_equals_whole),
        cmocka_unit_test(test_parts_join_equals_whole),
        cmocka_unit_test(test_malformed_partials_are_errors),
        cmocka_unit_test(test_sketch_far_index_is_an_error),
        cmocka_unit_test(test_sketch_accuracy),
        cmocka_unit_test(test_sketch_any_double),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
