/* test_spill.c: a run that spills its groups to SQLite under a tiny memory
 * budget gives exactly the result of the same run in memory, for every
 * aggregate kind (count, sum, min, max, avg, last in input order across
 * inputs and workers, len, percentage, percentile, quantiles, set-derived
 * keys), every order (key order, order by, rorder by, limit), both as one
 * result and streamed in chunks. Real files, the real engine (mapscan on two
 * workers, the parallel path on a large file), the real SQLite database. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec/agg/accum.h"
#include "exec/agg/spill.h"
#include "exec/agg/spill_result.h"
#include "exec/mapscan.h"
#include "exec/sink/result.h"
#include "parser/parser.h"
#include "tests/support/rng.h"

#define TINY_BUDGET (64 * 1024)

static char dir[256];            /* scratch directory, also $TMPDIR */
static char small_a[300], small_b[300], big[300];

/* key=K|v=V|s=S lines: keys from a pool of n_keys, values numeric or not.
 * Numbers are multiples of 1/4, so every sum is exact whatever order the
 * partial sums are added in (for other fractions the last bits of a sum
 * depend on that order: in memory too, between one worker and two). */
static void write_file(const char *path, size_t n_lines, unsigned n_keys, uint64_t seed)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    uint64_t rng = seed;
    for (size_t i = 0; i < n_lines; i++) {
        unsigned k = (unsigned)(rng_next(&rng) % n_keys);
        unsigned v = (unsigned)(rng_next(&rng) % 5000);
        unsigned s = (unsigned)(rng_next(&rng) % 7);
        if (s == 0)
            fprintf(f, "key=k%u|v=n/a|s=%u\n", k, v);
        else
            fprintf(f, "key=k%u|v=%u.%02u|s=%.*s\n", k, v, s % 4 * 25, (int)s, "abcdefg");
    }
    assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/test_spill.XXXXXX");
    assert_non_null(mkdtemp(dir));
    setenv("TMPDIR", dir, 1);   /* the spill database goes here */
    snprintf(small_a, sizeof small_a, "%s/a.log", dir);
    snprintf(small_b, sizeof small_b, "%s/b.log", dir);
    snprintf(big, sizeof big, "%s/big.log", dir);
    write_file(small_a, 20000, 6000, 1);
    write_file(small_b, 20000, 6000, 2);
    /* 17 MiB or more: read in ranges by both workers. */
    write_file(big, 900000, 9000, 3);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(small_a);
    unlink(small_b);
    unlink(big);
    /* Nothing else may be left: the spill database is unlinked by SQLite. */
    assert_int_equal(rmdir(dir), 0);
    return 0;
}

typedef struct run {
    query_t *q;                  /* the parsed query */
    mapscan_t ms;                /* the engine after every input */
} run_t;

static void run_query(run_t *r, const char *query, size_t budget, const char *const *files,
                      size_t n_files)
{
    err_t e;
    err_clear(&e);
    if (query_parse(query, strlen(query), NULL, &r->q, &e) < 0)
        fail_msg("query: %s", e.msg);
    map_opts_t o = {
        .plan = query_plan(r->q),
        .max_line_len = 1 << 20,
        .env = {.hostname = "h", .timezone = "UTC", .timeoffset = "0"},
        .n_threads = 2,
        .memory_limit = budget,
    };
    if (mapscan_init(&r->ms, &o, &e) < 0)
        fail_msg("init: %s", e.msg);
    for (size_t i = 0; i < n_files; i++) {
        input_t *in = input_open(files[i], &e);
        assert_non_null(in);
        if (mapscan_run(&r->ms, in, files[i], files[i], (unsigned)i, &e) < 0)
            fail_msg("run: %s", e.msg);
        input_close(in);
    }
}

static void run_free(run_t *r)
{
    mapscan_free(&r->ms);
    query_free(r->q);
}

static void assert_same(const result_t *a, const result_t *b, const char *query)
{
    assert_int_equal(a->n_cols, b->n_cols);
    if (a->n_rows != b->n_rows || a->n_groups != b->n_groups)
        fail_msg("%s: %zu rows of %zu groups, spilled %zu of %zu", query, a->n_rows,
                 a->n_groups, b->n_rows, b->n_groups);
    for (size_t i = 0; i < a->n_rows; i++)
        for (size_t c = 0; c < a->n_cols; c++)
            if (strcmp(result_cell(a, i, c), result_cell(b, i, c)) != 0)
                fail_msg("%s: row %zu col %zu: %s vs spilled %s", query, i, c,
                         result_cell(a, i, c), result_cell(b, i, c));
}

/* Appends every chunk's rows to one CSV text. */
typedef struct chunks {
    outbuf_t text;               /* the rows so far */
    size_t n_chunks;             /* emits */
    size_t n_groups;             /* the last emit's group count */
} chunks_t;

static int collect_chunk(const result_t *r, void *arg, err_t *e)
{
    (void)e;
    chunks_t *c = arg;
    result_render_csv(r, &c->text, c->n_chunks++ == 0);
    c->n_groups = r->n_groups;
    return 0;
}

/* The query in memory and spilled: the same rows, as one result and as
 * chunks of 1000 rows. */
static void check_query(const char *query, long long limit, const char *const *files,
                        size_t n_files)
{
    run_t mem, sp;
    run_query(&mem, query, 0, files, n_files);
    run_query(&sp, query, TINY_BUDGET, files, n_files);
    assert_false(mapscan_spilled(&mem.ms));
    if (!mapscan_spilled(&sp.ms))
        fail_msg("%s: nothing spilled under %d bytes", query, TINY_BUDGET);
    err_t e;
    err_clear(&e);
    const plan_t *plan = query_plan(mem.q);
    result_t want, got;
    assert_int_equal(result_build(plan, &mem.ms.result, limit, &want, &e), 0);
    spill_t *s = mapscan_spill_rest(&sp.ms, &e);
    assert_non_null(s);
    assert_int_equal(sp.ms.result.n_groups, 0);
    if (spill_result_build(plan, s, limit, &got, &e) < 0)
        fail_msg("%s: %s", query, e.msg);
    assert_same(&want, &got, query);

    chunks_t c = {.n_chunks = 0};
    outbuf_t whole;
    assert_int_equal(outbuf_init_mem(&c.text, 1 << 16, &e), 0);
    assert_int_equal(outbuf_init_mem(&whole, 1 << 16, &e), 0);
    assert_int_equal(spill_result_each(plan, s, limit, 1000, collect_chunk, &c, &e), 0);
    result_render_csv(&want, &whole, 1);
    assert_int_equal(c.n_groups, want.n_groups);
    assert_true(c.n_chunks >= 1 && c.n_chunks >= want.n_rows / 1000);
    assert_int_equal(c.text.len, whole.len);
    assert_memory_equal(c.text.data, whole.data, whole.len);
    outbuf_free(&c.text);
    outbuf_free(&whole);
    result_free(&want);
    result_free(&got);
    run_free(&mem);
    run_free(&sp);
}

#define ALL_AGGS "count($line),sum(v),min(v),max(v),avg(v),last(s),len(s),percentage(v)," \
                 "percentile(v),p90(v),quantile(v,0.25),key"

static void test_every_aggregate_two_inputs(void **state)
{
    (void)state;
    const char *files[] = {small_a, small_b};
    check_query("select " ALL_AGGS " group by key logformat generickv", -1, files, 2);
}

static void test_parallel_workers(void **state)
{
    (void)state;
    /* The large file is cut into ranges for both workers; each spills its
     * own table; last() must still take the last line in file order. */
    const char *files[] = {small_a, big, small_b};
    check_query("select " ALL_AGGS " group by key logformat generickv", -1, files, 3);
}

static void test_orders_and_limits(void **state)
{
    (void)state;
    const char *files[] = {small_a, small_b};
    check_query("select count($line),sum(v),key group by key order by sum(v) logformat generickv",
                -1, files, 2);
    check_query("select count($line),max(v),key group by key rorder by max(v) limit 25 "
                "logformat generickv", 25, files, 2);
    check_query("select avg(v),last(s),key group by key limit 10 logformat generickv", 10, files, 2);
    check_query("select count($line),key group by key limit 0 logformat generickv", 0, files, 2);
}

static void test_set_keys_and_two_parts(void **state)
{
    (void)state;
    const char *files[] = {small_a, small_b};
    /* A key of two parts, one derived by set: parts stay apart, rows sort
     * by the ','-joined display key. */
    check_query("select count($line),min(v),$m,s set $m = maskdigits(key) group by $m,s,key "
                "logformat generickv", -1, files, 2);
}

static void test_key_order(void **state)
{
    (void)state;
    /* Display order first ("a" < "a,b" < "ab"), raw bytes on ties. */
    char k1[16], k2[16], k3[16];
    uint32_t one = 1, two = 2;
    memcpy(k1, &one, 4);
    memcpy(k1 + 4, "a", 1);                        /* a   */
    memcpy(k2, &one, 4);
    memcpy(k2 + 4, "a", 1);
    memcpy(k2 + 5, &one, 4);
    memcpy(k2 + 9, "b", 1);                        /* a,b */
    memcpy(k3, &two, 4);
    memcpy(k3 + 4, "ab", 2);                       /* ab  */
    assert_true(spill_key_cmp(k1, 5, k2, 10) < 0);
    assert_true(spill_key_cmp(k2, 10, k3, 6) < 0);
    assert_true(spill_key_cmp(k1, 5, k3, 6) < 0);
    assert_int_equal(spill_key_cmp(k2, 10, k2, 10), 0);
    char k4[16];   /* "a,b" as one part: same display key as k2 */
    uint32_t three = 3;
    memcpy(k4, &three, 4);
    memcpy(k4 + 4, "a,b", 3);
    assert_true(spill_key_cmp(k2, 10, k4, 7) != 0);
    assert_int_equal(spill_key_cmp(k2, 10, k4, 7), -spill_key_cmp(k4, 7, k2, 10));
}

static void test_no_temporary_file_left(void **state)
{
    (void)state;
    const char *files[] = {small_a};
    run_t sp;
    run_query(&sp, "select count($line),key group by key logformat generickv", TINY_BUDGET,
              files, 1);
    assert_true(mapscan_spilled(&sp.ms));
    /* While open, the database is a file SQLite has already unlinked. */
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *de;
    while ((de = readdir(d)))
        if (strncmp(de->d_name, "etilqs_", 7) == 0)
            fail_msg("spill file visible in %s: %s", dir, de->d_name);
    closedir(d);
    run_free(&sp);
}

/* order by a text column, spilled: in byte order (descending for order
 * by), the same as in memory. Spilled rows were sorted by the value 0 of
 * every text, so in key order. */
static void check_text_order(const char *query, size_t col, int desc)
{
    const char *files[] = {small_a, small_b};
    check_query(query, -1, files, 2);
    run_t sp;
    run_query(&sp, query, TINY_BUDGET, files, 2);
    err_t e;
    err_clear(&e);
    spill_t *s = mapscan_spill_rest(&sp.ms, &e);
    assert_non_null(s);
    result_t got;
    assert_int_equal(spill_result_build(query_plan(sp.q), s, -1, &got, &e), 0);
    assert_true(got.n_rows > 1000);
    for (size_t i = 1; i < got.n_rows; i++) {
        int c = strcmp(result_cell(&got, i - 1, col), result_cell(&got, i, col));
        if (desc ? c < 0 : c > 0)
            fail_msg("%s: row %zu '%s' before '%s'", query, i, result_cell(&got, i - 1, col),
                     result_cell(&got, i, col));
    }
    result_free(&got);
    run_free(&sp);
}

static void test_order_by_text(void **state)
{
    (void)state;
    check_text_order("select count($line),last(s),key group by key order by last(s) "
                     "logformat generickv", 1, 1);
    check_text_order("select count($line),key group by key order by key logformat generickv",
                     1, 1);
    check_text_order("select last(s),key group by key rorder by last(s) logformat generickv",
                     0, 0);
}

/* The client's merge of many servers (exec/agg/accum.h): two "servers"'
 * results, sent in parts of 1 KiB, each staged in a tiny-budget
 * accumulator and drained into a tiny-budget run accumulator, give the
 * rows of the in-memory merge of the same tables. */
static void test_accum_of_parts(void **state)
{
    (void)state;
    /* last() and len() are order dependent across servers (each numbers
     * its own inputs): not compared here. */
    const char *query = "select count($line),sum(v),min(v),max(v),avg(v),percentage(v),"
                        "percentile(v),p90(v),quantile(v,0.25),key group by key logformat generickv";
    const char *fa[] = {small_a}, *fb[] = {small_b}, *both[] = {small_a, small_b};
    run_t a, b, mem;
    run_query(&a, query, 0, fa, 1);
    run_query(&b, query, 0, fb, 1);
    run_query(&mem, query, 0, both, 2);
    const plan_t *plan = query_plan(mem.q);
    err_t e;
    err_clear(&e);
    agg_accum_t acc;
    assert_int_equal(agg_accum_init(&acc, mem.ms.specs, plan->n_select, 8192, &e), 0);
    const agg_table_t *hosts[] = {&a.ms.result, &b.ms.result};
    for (size_t h = 0; h < 2; h++) {
        agg_accum_t stage;
        assert_int_equal(agg_accum_init(&stage, mem.ms.specs, plan->n_select, 2048, &e), 0);
        size_t from = 0, parts = 0;
        do {
            size_t next, len;
            unsigned char *p = agg_table_serialize_part(hosts[h], from, 1024, &next, &len);
            assert_non_null(p);
            if (agg_accum_add_serialized(&stage, p, len, &e) < 0)
                fail_msg("part %zu: %s", parts, e.msg);
            free(p);
            from = next;
            parts++;
        } while (from < hosts[h]->n_groups);
        if (parts < 2)
            fail_msg("host %zu: %zu groups in %zu part(s)", h, hosts[h]->n_groups, parts);
        assert_true(agg_accum_spilled(&stage));   /* the staging spilled too */
        if (agg_accum_drain_into(&acc, &stage, &e) < 0)
            fail_msg("drain: %s", e.msg);
        agg_accum_free(&stage);
    }
    assert_int_equal(agg_accum_finish(&acc, &e), 0);
    assert_true(agg_accum_spilled(&acc));
    result_t want, got;
    assert_int_equal(result_build(plan, &mem.ms.result, -1, &want, &e), 0);
    if (spill_result_build(plan, acc.spill, -1, &got, &e) < 0)
        fail_msg("%s", e.msg);
    assert_same(&want, &got, query);
    result_free(&want);
    result_free(&got);
    agg_accum_free(&acc);
    run_free(&a);
    run_free(&b);
    run_free(&mem);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accum_of_parts),
        cmocka_unit_test(test_key_order),
        cmocka_unit_test(test_every_aggregate_two_inputs),
        cmocka_unit_test(test_orders_and_limits),
        cmocka_unit_test(test_order_by_text),
        cmocka_unit_test(test_set_keys_and_two_parts),
        cmocka_unit_test(test_parallel_workers),
        cmocka_unit_test(test_no_temporary_file_left),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
