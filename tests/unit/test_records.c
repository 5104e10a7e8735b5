/* test_records.c: multi-line records (exec/scan/records.h) and their way
 * through the request: records are the same whatever the chunks the
 * lines come in (regions, windows) and whatever the split points of a
 * parallel range (each record once, never cut in two); a record longer
 * than the bound is cut after its last whole line that fits; the start
 * pattern goes through the wire REQUEST and back; and a map plan made
 * from a request with a multiline pattern folds records: its format reads
 * the start line and $line is the whole record, on one worker and two. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/run/plan.h"
#include "exec/scan/records.h"
#include "exec/sink/result.h"
#include "tests/support/tmpdir.h"
#include "wire/frame.h"

/* What the callbacks collect: every record as "<lines>:<bytes>\x1e". */
typedef struct sink {
    char *p;
    size_t len, cap;
    unsigned long long n;
} sink_t;

static int collect(void *arg, const record_t *rec)
{
    sink_t *s = arg;
    size_t need = s->len + rec->len + 32;
    if (need > s->cap) {
        s->cap = need * 2;
        s->p = realloc(s->p, s->cap);
        assert_non_null(s->p);
    }
    s->len += (size_t)sprintf(s->p + s->len, "%llu:", rec->lines);
    memcpy(s->p + s->len, rec->p, rec->len);
    s->len += rec->len;
    s->p[s->len++] = '\x1e';
    s->n++;
    return 0;
}

/* The oracle: records of text by a start predicate written out here
 * (a line not beginning with space or tab starts one), cut at bound. */
static void oracle(const char *text, size_t bound, sink_t *out)
{
    const char *p = text, *end = text + strlen(text);
    const char *rec = NULL;
    unsigned long long lines = 0;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        int starts = p[0] != ' ' && p[0] != '\t' && p[0] != '\n';
        if (rec && (starts || (size_t)(nl - rec) > bound)) {
            collect(out, &(record_t){.p = rec, .len = (size_t)(p - rec) - 1, .lines = lines});
            rec = NULL;
        }
        if (!rec) {
            rec = p;
            lines = 0;
        }
        lines++;
        p = nl + 1;
    }
    if (rec)
        collect(out, &(record_t){.p = rec, .len = (size_t)(end - rec) - 1, .lines = lines});
}

static const char *TEXT =
    "  orphan continuation\n"
    "2024 INFO one\n"
    "2024 ERROR two\n"
    "java.lang.X: boom\n"    /* starts a record: not indented */
    "\tat a(A.java:1)\n"
    "\tat b(B.java:2)\n"
    "\n"
    "\tat c(C.java:3)\n"
    "2024 WARN three\n"
    "  a long continuation line that makes the record longer than the bound\n"
    "  and another\n"
    "2024 INFO four\n";

static matcher_t start_matcher(void)
{
    matcher_t m;
    err_t e;
    assert_int_equal(matcher_init(&m, "^\\S", &e), 0);
    return m;
}

/* Feeds text in pieces of k lines (each piece a separate buffer, as
 * regions are), then flushes. */
static void feed_pieces(records_t *rs, const char *text, int k, sink_t *out)
{
    const char *p = text, *end = text + strlen(text);
    while (p < end) {
        const char *q = p;
        for (int i = 0; i < k && q < end; i++)
            q = (const char *)memchr(q, '\n', (size_t)(end - q)) + 1;
        char *copy = malloc((size_t)(q - p) + 64);
        memcpy(copy, p, (size_t)(q - p));
        records_feed(rs, copy, copy + (q - p), p - text, collect, out);
        memset(copy, '#', (size_t)(q - p));    /* the region is gone */
        free(copy);
        p = q;
    }
    records_flush(rs, collect, out);
}

static void test_chunks_do_not_matter(void **state)
{
    (void)state;
    matcher_t m = start_matcher();
    sink_t want = {0};
    oracle(TEXT, 1 << 20, &want);
    assert_int_equal(want.n, 6);
    for (int k = 1; k <= 12; k++) {
        records_t rs;
        err_t e;
        assert_int_equal(records_init(&rs, &m, 1 << 20, &e), 0);
        sink_t got = {0};
        feed_pieces(&rs, TEXT, k, &got);
        assert_int_equal(got.len, want.len);
        assert_memory_equal(got.p, want.p, want.len);
        assert_int_equal(rs.n_cut, 0);
        records_free(&rs);
        free(got.p);
    }
    free(want.p);
    matcher_free(&m);
}

static void test_bound_cuts_after_whole_lines(void **state)
{
    (void)state;
    matcher_t m = start_matcher();
    const size_t bound = 40;
    sink_t want = {0};
    oracle(TEXT, bound, &want);
    records_t rs;
    err_t e;
    assert_int_equal(records_init(&rs, &m, bound, &e), 0);
    sink_t got = {0};
    feed_pieces(&rs, TEXT, 3, &got);
    assert_int_equal(got.len, want.len);
    assert_memory_equal(got.p, want.p, want.len);
    assert_true(rs.n_cut >= 2);
    assert_int_equal(got.n, want.n);
    records_free(&rs);
    free(got.p);
    free(want.p);
    matcher_free(&m);
}

/* Every line boundary as a parallel split point: the first range reads
 * to it and on to the first start line (records_feed_tail), the second
 * skips to its first start line; together they are the sequential
 * records, each once. */
static void test_parallel_split_points(void **state)
{
    (void)state;
    matcher_t m = start_matcher();
    sink_t want = {0};
    oracle(TEXT, 1 << 20, &want);
    size_t n = strlen(TEXT);
    for (size_t split = 1; split < n; split++) {
        if (TEXT[split - 1] != '\n')
            continue;
        sink_t got = {0};
        records_t a, b;
        err_t e;
        assert_int_equal(records_init(&a, &m, 1 << 20, &e), 0);
        assert_int_equal(records_init(&b, &m, 1 << 20, &e), 0);
        records_feed(&a, TEXT, TEXT + split, 0, collect, &got);
        if (!records_feed_tail(&a, TEXT + split, TEXT + n, (long long)split, collect, &got))
            records_flush(&a, collect, &got);
        records_reset(&b);
        b.skip_to_start = 1;
        records_feed(&b, TEXT + split, TEXT + n, (long long)split, collect, &got);
        records_flush(&b, collect, &got);
        assert_int_equal(got.len, want.len);
        assert_memory_equal(got.p, want.p, want.len);
        records_free(&a);
        records_free(&b);
        free(got.p);
    }
    free(want.p);
    matcher_free(&m);
}

static void test_request_carries_the_pattern(void **state)
{
    (void)state;
    exec_request_t rq = {.kind = EXEC_GREP, .files = "a.log", .regex = "x", .query = ""};
    err_t e;
    assert_int_equal(exec_request_set_multiline(&rq, "^(", &e), -1);
    assert_int_equal(e.code, ERR_PATTERN);
    assert_int_equal(exec_request_set_multiline(&rq, "^\\d{4}-", &e), 0);
    wire_request_t w = exec_request_to_wire(&rq, "a.log");
    assert_true(w.flags & WIRE_REQ_MULTILINE);
    wire_buf_t b = {0};
    wire_encode_request(&b, &w);
    wire_frame_t f = {WIRE_REQUEST, 0, b.p + WIRE_HEADER_LEN, b.len - WIRE_HEADER_LEN};
    wire_request_t back;
    assert_int_equal(wire_decode_request(&f, &back, &e), 0);
    exec_request_t again;
    palette_t pal;
    assert_int_equal(exec_request_from_wire(&back, &again, &pal, &e), 0);
    assert_string_equal(again.multiline, "^\\d{4}-");
    exec_plan_t p;
    exec_env_t env = {.host = "h", .max_line_len = 4096, .n_threads = 1};
    assert_int_equal(exec_plan_init(&p, &again, &env, &e), 0);
    assert_ptr_equal(p.lo.record_start, &p.start);
    assert_true(matcher_line_matches(p.lo.record_start, "2024-05-01", 10));
    exec_plan_free(&p);
    wire_request_free(&back);
    /* Without a pattern nothing is sent: an older server sees the request
     * it always did (with one, it refuses the unknown flag). */
    assert_int_equal(exec_request_set_multiline(&rq, "", &e), 0);
    w = exec_request_to_wire(&rq, "a.log");
    assert_false(w.flags & WIRE_REQ_MULTILINE);
    wire_buf_free(&b);
}

/* A map plan from a request with a multiline pattern over path, run on
 * n_threads workers; returns the result (group by $line, count). */
static void map_records(const char *path, int n_threads, const char *query, result_t *r)
{
    exec_request_t rq = {.kind = EXEC_MAP, .regex = "", .query = query};
    err_t e;
    assert_int_equal(exec_request_set_multiline(&rq, "^\\S", &e), 0);
    exec_env_t env = {.host = "h", .max_line_len = 1 << 20, .n_threads = n_threads};
    exec_plan_t p;
    assert_int_equal(exec_plan_init(&p, &rq, &env, &e), 0);
    assert_non_null(p.mo.record_start);
    mapscan_t ms;
    assert_int_equal(mapscan_init(&ms, &p.mo, &e), 0);
    input_t *in = input_open(path, &e);
    assert_non_null(in);
    assert_int_equal(mapscan_run(&ms, in, path, path, 0, &e), 0);
    input_close(in);
    assert_int_equal(result_build(p.map, &ms.result, -1, r, &e), 0);
    mapscan_free(&ms);
    exec_plan_free(&p);
}

static const char *cell_of(const result_t *r, const char *key, size_t col)
{
    for (size_t i = 0; i < r->n_rows; i++)
        if (strcmp(result_cell(r, i, 0), key) == 0)
            return result_cell(r, i, col);
    return NULL;
}

/* Rows of a two-column result as "key\x1fcount" strings, sorted (free
 * each and the array). */
static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static char **sorted_rows(const result_t *r)
{
    char **k = calloc(r->n_rows + 1, sizeof *k);
    assert_non_null(k);
    for (size_t i = 0; i < r->n_rows; i++) {
        const char *key = result_cell(r, i, 0), *n = result_cell(r, i, 1);
        k[i] = malloc(strlen(key) + strlen(n) + 2);
        assert_non_null(k[i]);
        sprintf(k[i], "%s\x1f%s", key, n);
    }
    qsort(k, r->n_rows, sizeof *k, cmp_str);
    return k;
}

static void free_rows(char **k, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(k[i]);
    free(k);
}

static void test_map_reads_records(void **state)
{
    (void)state;
    char dir[4096], path[4200];
    assert_int_equal(tmpdir_make(dir, sizeof dir, "records"), 0);
    snprintf(path, sizeof path, "%s/app.log", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("\tat orphan\n", f);
    /* Large enough (> 16 MiB) for the parallel ranges; half the bytes are
     * traces, so ranges end inside records. */
    for (int i = 0; i < 200000; i++) {
        fprintf(f, "level=%s n=%d\n", i % 4 ? "info" : "error", i);
        if (i % 4 == 0)
            for (int d = 0; d < 9; d++)
                fprintf(f, "\tat com.example.Handler%d.handle(Handler.java:%d)\n", d, i % 97);
    }
    fclose(f);
    const char *q = "select level, count($line), max(n), sum(n) group by level logformat logfmt";
    result_t one, two;
    map_records(path, 1, q, &one);
    map_records(path, 2, q, &two);
    for (size_t i = 0; i < one.n_rows; i++)

    /* A record per start line: the traces are no lines of their own. */
    assert_string_equal(cell_of(&one, "info", 1), "150000");
    assert_string_equal(cell_of(&one, "error", 1), "50000");
    for (size_t i = 0; i < one.n_rows; i++)
        for (size_t c = 0; c < one.n_cols; c++)
            assert_string_equal(cell_of(&two, result_cell(&one, i, 0), c), result_cell(&one, i, c));
    result_free(&one);
    result_free(&two);
    /* $line is the whole record, its continuation lines and their '\n's
     * included; the fields come from the start line. */
    const char *ql = "select $line, count($line) group by $line logformat logfmt";
    map_records(path, 1, ql, &one);
    char rec[4096];
    int k = snprintf(rec, sizeof rec, "level=error n=8");
    for (int d = 0; d < 9; d++)
        k += snprintf(rec + k, sizeof rec - (size_t)k,
                      "\n\tat com.example.Handler%d.handle(Handler.java:8)", d);
    assert_non_null(cell_of(&one, rec, 1));
    assert_string_equal(cell_of(&one, rec, 1), "1");
    assert_string_equal(cell_of(&one, "level=info n=9", 1), "1");
    /* Two workers: the records at the ranges' ends whole, each once. */
    map_records(path, 2, ql, &two);
    assert_int_equal(two.n_rows, one.n_rows);
    char **k1 = sorted_rows(&one), **k2 = sorted_rows(&two);
    for (size_t i = 0; i < one.n_rows; i++)
        assert_string_equal(k1[i], k2[i]);
    free_rows(k1, one.n_rows);
    free_rows(k2, two.n_rows);
    result_free(&two);
    result_free(&one);
    tmpdir_remove(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chunks_do_not_matter),
        cmocka_unit_test(test_bound_cuts_after_whole_lines),
        cmocka_unit_test(test_parallel_split_points),
        cmocka_unit_test(test_request_carries_the_pattern),
        cmocka_unit_test(test_map_reads_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
