/* test_agg_exact.c: the aggregates that are exact up to a bound and
 * estimates beyond it (issue 18): quantiles (exec/agg/quant.h), distinct
 * counts (distinct.h) and top values (topk.h). Each: the exact answer
 * below the bound, the stated error above it, and merges of any split
 * through the serialized partial equal to the whole. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/agg/distinct.h"
#include "exec/agg/quant.h"
#include "exec/agg/table.h"
#include "exec/agg/topk.h"
#include "exec/sink/result.h"
#include "tests/support/rng.h"

/* ---- a one-item table over numbered values ----------------------------- */

typedef struct tab {
    agg_table_t t;
    agg_spec_t spec;
} tab_t;

static void tab_init(tab_t *x, enum plan_agg agg, double q, uint32_t k)
{
    err_t e;
    x->spec = (agg_spec_t){.agg = agg, .quantile = q, .top_k = k};
    assert_int_equal(agg_table_init(&x->t, &x->spec, 1, &e), 0);
    x->spec = x->t.specs[0];
}

static void tab_add(tab_t *x, const char *v)
{
    long g = agg_table_group(&x->t, "", 0, agg_key_hash("", 0));
    assert_true(g >= 0);
    uint32_t gid = (uint32_t)g;
    sv_t sv = {v, (uint32_t)strlen(v)};
    uint64_t seq = 1;
    agg_table_update(&x->t, 0, &gid, &sv, &seq, 1);
    assert_false(x->t.failed);
}

static void tab_addf(tab_t *x, double v)
{
    char b[64];
    snprintf(b, sizeof b, "%.17g", v);
    tab_add(x, b);
}

static const unsigned char *tab_state(const tab_t *x)
{
    return agg_table_state(&x->t, 0, 0);
}

static double tab_number(const tab_t *x)
{
    return agg_state_number(&x->t.specs[0], tab_state(x));
}

/* Folds part into whole through its serialized partial. */
static void tab_merge_wire(tab_t *whole, const tab_t *part)
{
    size_t len;
    err_t e;
    unsigned char *b = agg_table_serialize(&part->t, &len);
    assert_non_null(b);
    if (agg_table_merge_serialized(&whole->t, b, len, &e) < 0)
        fail_msg("%s", e.msg);
    free(b);
}

static char *tab_cell(const tab_t *x)
{
    size_t need = result_cell_need(&x->t.specs[0], tab_state(x));
    char *buf = malloc(need);
    assert_non_null(buf);
    result_format_cell(buf, need, &x->t.specs[0], tab_state(x), NULL);
    return buf;
}

/* ---- quantiles --------------------------------------------------------- */

/* DuckDB's quantile_cont of the examples (its own outputs). */
static void test_quant_cont_duckdb(void **state)
{
    (void)state;
    static const double two[] = {1, 2}, four[] = {0, 0, 0, 10};
    double ten[10];
    for (int i = 0; i < 10; i++)
        ten[i] = i + 1;
    assert_true(quant_cont(two, 2, 0.99) == 1.99);
    assert_true(quant_cont(ten, 10, 0.9) == 9.1);
    assert_true(fabs(quant_cont(ten, 10, 0.99) - 9.91) < 1e-12);
    assert_true(quant_cont(four, 4, 0.99) == 9.699999999999998);   /* DuckDB's bits */
    assert_true(quant_cont(ten, 10, 0) == 1 && quant_cont(ten, 10, 1) == 10);
    assert_true(quant_cont(two, 1, 0.5) == 1);
}

/* p0 is min and p100 max, exact or not; up to QUANT_EXACT_MAX values the
 * state is exact, one more makes it a sketch within 1 %. */
static void test_quant_bound(void **state)
{
    (void)state;
    tab_t x, lo, hi;
    tab_init(&x, PLAN_AGG_QUANTILE, 0.99, 0);
    tab_init(&lo, PLAN_AGG_QUANTILE, 0, 0);
    tab_init(&hi, PLAN_AGG_QUANTILE, 1, 0);
    uint64_t r = 7;
    double *v = malloc((QUANT_EXACT_MAX + 1) * sizeof *v);
    for (int i = 0; i < QUANT_EXACT_MAX; i++) {
        v[i] = (double)(rng_next(&r) % 100000) / 7.0;
        tab_addf(&x, v[i]);
        tab_addf(&lo, v[i]);
        tab_addf(&hi, v[i]);
    }
    assert_false(agg_state_approx(&x.spec, tab_state(&x)));
    /* the exact buffer is in the table's memory accounting */
    assert_true(x.t.heap_bytes >= QUANT_EXACT_MAX * sizeof(double));
    double sorted[QUANT_EXACT_MAX];
    memcpy(sorted, v, sizeof sorted);
    for (int i = 1; i < QUANT_EXACT_MAX; i++)   /* insertion sort: small enough */
        for (int j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
            double t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    assert_true(tab_number(&x) == quant_cont(sorted, QUANT_EXACT_MAX, 0.99));
    tab_addf(&x, 5.0);
    tab_addf(&lo, -1.0);
    tab_addf(&hi, 1e6);
    assert_true(agg_state_approx(&x.spec, tab_state(&x)));
    assert_false(agg_state_approx(&lo.spec, tab_state(&lo)));   /* p0: the exact minimum */
    assert_true(tab_number(&lo) == -1.0);
    assert_true(tab_number(&hi) == 1e6);
    double want = quant_cont(sorted, QUANT_EXACT_MAX, 0.99);
    assert_true(fabs(tab_number(&x) - want) / want < 0.011);
    free(v);
    agg_table_free(&x.t);
    agg_table_free(&lo.t);
    agg_table_free(&hi.t);
}

/* Three servers' partials: exact while their union holds at most
 * QUANT_EXACT_MAX values (the same bits as one table of everything),
 * and past it the sketch of the union, whichever order they merge in;
 * also when parts are past QUANT_PRE_AT and keep a sketch beside their
 * values. */
static void test_quant_merge(void **state)
{
    (void)state;
    static const struct { int n[3]; bool approx; } cases[] = {
        {{3000, 3000, 3000}, false},
        {{3434, 3434, 3434}, true},
        {{6000, 6000, 6000}, true},   /* each part with a pre-sketch */
        {{6000, 2000, 1500}, false},  /* one part with one, the union exact */
        {{1, 9999, 1}, true},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tab_t whole, parts[3], m1, m2;
        tab_init(&whole, PLAN_AGG_QUANTILE, 0.95, 0);
        tab_init(&m1, PLAN_AGG_QUANTILE, 0.95, 0);
        tab_init(&m2, PLAN_AGG_QUANTILE, 0.95, 0);
        uint64_t r = 11;
        for (int p = 0; p < 3; p++) {
            tab_init(&parts[p], PLAN_AGG_QUANTILE, 0.95, 0);
            for (int i = 0; i < cases[c].n[p]; i++) {
                double v = (double)(rng_next(&r) % 1000000) / 100.0;
                tab_addf(&whole, v);
                tab_addf(&parts[p], v);
            }
        }
        for (int p = 0; p < 3; p++) {
            tab_merge_wire(&m1, &parts[p]);
            assert_int_equal(agg_table_merge(&m2.t, &parts[2 - p].t), 0);   /* in memory */
        }
        bool approx = cases[c].approx;
        assert_true(agg_state_approx(&whole.spec, tab_state(&whole)) == approx);
        assert_true(agg_state_approx(&m1.spec, tab_state(&m1)) == approx);
        assert_true(agg_state_approx(&m2.spec, tab_state(&m2)) == approx);
        if (tab_number(&m1) != tab_number(&whole) || tab_number(&m2) != tab_number(&whole))
            fail_msg("case %zu: %.17g, %.17g, whole %.17g", c, tab_number(&m1), tab_number(&m2),
                     tab_number(&whole));
        /* more values after the merge: the states go on alike */
        for (int i = 0; i < 3000; i++) {
            double v = (double)(rng_next(&r) % 1000) / 10.0;
            tab_addf(&whole, v);
            tab_addf(&m1, v);
            tab_addf(&m2, v);
        }
        assert_true(tab_number(&m1) == tab_number(&whole));
        assert_true(tab_number(&m2) == tab_number(&whole));
        agg_table_free(&whole.t);
        agg_table_free(&m1.t);
        agg_table_free(&m2.t);
        for (int p = 0; p < 3; p++)
            agg_table_free(&parts[p].t);
    }
}

/* ---- count(distinct) --------------------------------------------------- */

static void add_distinct(tab_t *x, long from, long to)
{
    char b[32];
    for (long i = from; i < to; i++) {
        snprintf(b, sizeof b, "user%ld", i);
        tab_add(x, b);
    }
}

/* Exact up to DISTINCT_EXACT_MAX distinct values, repeats not counted. */
static void test_distinct_exact(void **state)
{
    (void)state;
    tab_t x;
    tab_init(&x, PLAN_AGG_COUNT_DISTINCT, 0, 0);
    add_distinct(&x, 0, DISTINCT_EXACT_MAX);
    add_distinct(&x, 0, 500);
    assert_true(tab_number(&x) == DISTINCT_EXACT_MAX);
    assert_false(agg_state_approx(&x.spec, tab_state(&x)));
    add_distinct(&x, DISTINCT_EXACT_MAX, DISTINCT_EXACT_MAX + 1);
    assert_true(agg_state_approx(&x.spec, tab_state(&x)));
    assert_true(fabs(tab_number(&x) - (DISTINCT_EXACT_MAX + 1)) < 0.03 * DISTINCT_EXACT_MAX);
    agg_table_free(&x.t);
}

/* HyperLogLog over large counts: within 3 standard errors (3 x 0.81 %),
 * and the merge of three overlapping partials equals the whole exactly. */
static void test_distinct_hll(void **state)
{
    (void)state;
    static const long ns[] = {20000, 100000, 1000000};
    for (int c = 0; c < 3; c++) {
        long n = ns[c];
        tab_t whole, parts[3], m;
        tab_init(&whole, PLAN_AGG_COUNT_DISTINCT, 0, 0);
        tab_init(&m, PLAN_AGG_COUNT_DISTINCT, 0, 0);
        for (int p = 0; p < 3; p++)
            tab_init(&parts[p], PLAN_AGG_COUNT_DISTINCT, 0, 0);
        add_distinct(&whole, 0, n);
        add_distinct(&parts[0], 0, n / 2);
        add_distinct(&parts[1], n / 3, n);
        add_distinct(&parts[2], n / 4, n / 2);
        for (int p = 0; p < 3; p++)
            tab_merge_wire(&m, &parts[p]);
        double est = tab_number(&whole);
        assert_true(agg_state_approx(&whole.spec, tab_state(&whole)));
        if (fabs(est - (double)n) / (double)n > 3 * 1.04 / 128.0)
            fail_msg("%ld distinct: estimate %.0f", n, est);
        assert_true(tab_number(&m) == est);
        agg_table_free(&whole.t);
        agg_table_free(&m.t);
        for (int p = 0; p < 3; p++)
            agg_table_free(&parts[p].t);
    }
}

/* Partials whose union fits are exact: 3 x 3000 values, overlapping. */
static void test_distinct_merge_exact(void **state)
{
    (void)state;
    tab_t m, parts[3];
    tab_init(&m, PLAN_AGG_COUNT_DISTINCT, 0, 0);
    for (int p = 0; p < 3; p++) {
        tab_init(&parts[p], PLAN_AGG_COUNT_DISTINCT, 0, 0);
        add_distinct(&parts[p], p * 2000, p * 2000 + 3000);
        tab_merge_wire(&m, &parts[p]);
        agg_table_free(&parts[p].t);
    }
    assert_true(tab_number(&m) == 7000);
    assert_false(agg_state_approx(&m.spec, tab_state(&m)));
    agg_table_free(&m.t);
}

/* ---- top --------------------------------------------------------------- */

/* Exact counts below the bound: the same cell from any split. */
static void test_top_merge_exact(void **state)
{
    (void)state;
    tab_t whole, parts[3], m;
    tab_init(&whole, PLAN_AGG_TOP, 0, 4);
    tab_init(&m, PLAN_AGG_TOP, 0, 4);
    for (int p = 0; p < 3; p++)
        tab_init(&parts[p], PLAN_AGG_TOP, 0, 4);
    uint64_t r = 5;
    char b[32];
    for (int i = 0; i < 30000; i++) {
        /* a skewed distribution of 5000 values: low numbers often */
        unsigned v = (unsigned)(rng_next(&r) % 5000);
        v = v * v / 5000;
        snprintf(b, sizeof b, "/p%u", v);
        tab_add(&whole, b);
        tab_add(&parts[i % 3], b);
    }
    for (int p = 0; p < 3; p++)
        tab_merge_wire(&m, &parts[p]);
    char *a = tab_cell(&whole), *c = tab_cell(&m);
    assert_string_equal(a, c);
    assert_false(agg_state_approx(&m.spec, tab_state(&m)));
    assert_non_null(strstr(a, "/p0:"));
    free(a);
    free(c);
    agg_table_free(&whole.t);
    agg_table_free(&m.t);
    for (int p = 0; p < 3; p++)
        agg_table_free(&parts[p].t);
}

/* Past the bound: heavy values are kept, each count at most `error`
 * below the true one, error <= N / (TOP_KEEP + 1); merged partials too. */
static void test_top_summary(void **state)
{
    (void)state;
    topk_t *t = topk_new(), *parts[3], *m = topk_new();
    for (int p = 0; p < 3; p++)
        parts[p] = topk_new();
    char b[32];
    uint64_t n = 0;
    for (int i = 0; i < 200000; i++) {
        int heavy = i % 4 == 0;
        if (heavy)
            snprintf(b, sizeof b, "hot%d", i % 3);
        else
            snprintf(b, sizeof b, "cold%d", i);
        assert_int_equal(topk_add(t, b, (uint32_t)strlen(b)), 0);
        assert_int_equal(topk_add(parts[i % 3], b, (uint32_t)strlen(b)), 0);
        n++;
    }
    for (int p = 0; p < 3; p++)
        assert_int_equal(topk_merge(m, parts[p]), 0);
    const topk_t *both[] = {t, m};
    for (int s = 0; s < 2; s++) {
        const topk_t *x = both[s];
        assert_false(topk_exact(x));
        assert_true(x->error <= n / (TOP_KEEP + 1));
        assert_true(x->total == n);
        char cell[256];
        assert_true(topk_render_need(x, 3) <= sizeof cell);
        topk_render(x, 3, cell, sizeof cell);
        /* hot0..hot2 each 16667 or 16666 times: first, with counts near */
        for (int h = 0; h < 3; h++) {
            char want[16];
            snprintf(want, sizeof want, "hot%d:", h);
            const char *at = strstr(cell, want);
            assert_non_null(at);
            long c = strtol(at + strlen(want), NULL, 10);
            assert_true(c <= 16667 && c >= 16666 - (long)x->error);
        }
    }
    topk_free(t);
    topk_free(m);
    for (int p = 0; p < 3; p++)
        topk_free(parts[p]);
}

/* ---- wire -------------------------------------------------------------- */

/* A serialized state that lies is refused, named. */
static void test_malformed_states(void **state)
{
    (void)state;
    static const struct {
        enum plan_agg agg;
        const char *val;
        size_t at;          /* byte of the state to change, after its length */
        uint8_t byte;
        const char *want;
    } cases[] = {
        {PLAN_AGG_QUANTILE, "1", 0, 7, "quantile state of unknown form 7"},
        {PLAN_AGG_QUANTILE, "1", 1, 2, "quantile state of 2 values in 8 bytes"},
        {PLAN_AGG_QUANTILE, "1", 12, 0xff, "quantile state holds NaN"},
        {PLAN_AGG_COUNT_DISTINCT, "1", 0, 9, "distinct state of unknown form 9"},
        {PLAN_AGG_COUNT_DISTINCT, "1", 1, 0, "distinct state of 0 hashes"},
        {PLAN_AGG_TOP, "1", 16, 0, "top state of 0 entries"},
        {PLAN_AGG_TOP, "1", 20, 0, "top entry with count 0"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        tab_t x, y;
        tab_init(&x, cases[c].agg, 0.5, 3);
        tab_init(&y, cases[c].agg, 0.5, 3);
        tab_add(&x, cases[c].val);
        size_t len;
        unsigned char *b = agg_table_serialize(&x.t, &len);
        /* header 18 + group count 8 + empty key 4 + state length 4 */
        size_t at = 34 + cases[c].at;
        assert_true(at < len);
        if (cases[c].at == 12)
            b[at - 1] = 0xf8;   /* with 0xff above it: a NaN's top bytes */
        b[at] = cases[c].byte;
        err_t e;
        err_clear(&e);
        int rc = agg_table_merge_serialized(&y.t, b, len, &e);
        if (rc == 0 || !strstr(e.msg, cases[c].want))
            fail_msg("case %zu: rc %d, \"%s\", want \"%s\"", c, rc, e.msg, cases[c].want);
        free(b);
        agg_table_free(&x.t);
        agg_table_free(&y.t);
    }
}

/* A table of the new kinds is version 3, and one of a version-2 reader's
 * kinds still version 2. */
static void test_versions(void **state)
{
    (void)state;
    tab_t q, c;
    tab_init(&q, PLAN_AGG_QUANTILE, 0.5, 0);
    tab_init(&c, PLAN_AGG_COUNT, 0, 0);
    size_t len;
    unsigned char *b = agg_table_serialize(&q.t, &len);
    assert_int_equal(b[4], 3);
    free(b);
    b = agg_table_serialize(&c.t, &len);
    assert_int_equal(b[4], 2);
    free(b);
    agg_table_free(&q.t);
    agg_table_free(&c.t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quant_cont_duckdb),
        cmocka_unit_test(test_quant_bound),
        cmocka_unit_test(test_quant_merge),
        cmocka_unit_test(test_distinct_exact),
        cmocka_unit_test(test_distinct_hll),
        cmocka_unit_test(test_distinct_merge_exact),
        cmocka_unit_test(test_top_merge_exact),
        cmocka_unit_test(test_top_summary),
        cmocka_unit_test(test_malformed_states),
        cmocka_unit_test(test_versions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
