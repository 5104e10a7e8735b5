/* test_mapscan_reporter.c: interim reports while a map runs. A reporter
 * hands snapshots (the whole result so far, what our clients replace
 * their table with); one started with mapscan_reporter_start_deltas
 * hands takes (what was read since its previous report, what DTail's
 * clients add up), and what came after its last report stays in the
 * scan's result for the final send. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec/mapscan.h"
#include "parser/parser.h"
#include "tests/support/tmpdir.h"

#define LINES 1000

typedef struct reports {
    pthread_mutex_t mu;
    uint64_t counts[16];         /* count($line) of each report */
    int n;
} reports_t;

static void note_report(const agg_table_t *snap, void *arg)
{
    reports_t *r = arg;
    uint64_t c = 0;
    if (snap->n_groups)
        memcpy(&c, agg_table_state(snap, 0, 0), sizeof c);
    pthread_mutex_lock(&r->mu);
    if (r->n < 16)
        r->counts[r->n++] = c;
    pthread_mutex_unlock(&r->mu);
}

static int n_reports(reports_t *r)
{
    pthread_mutex_lock(&r->mu);
    int n = r->n;
    pthread_mutex_unlock(&r->mu);
    return n;
}

/* Waits (at most 5 s) until r has more than `had` reports. */
static void wait_report(reports_t *r, int had)
{
    for (int i = 0; i < 500 && n_reports(r) <= had; i++)
        usleep(10 * 1000);
    assert_true(n_reports(r) > had);
}

static void fold(mapscan_t *ms, const char *path)
{
    err_t e;
    input_t *in = input_open(path, &e);
    assert_non_null(in);
    assert_int_equal(mapscan_run(ms, in, path, path, 0, &e), 0);
    input_close(in);
}

/* Folds path, waits for a report, folds it again, waits for another, then
 * folds it a third time and stops: the two reports' counts, and what the
 * result holds at the end. */
static void run(const char *path, int deltas, uint64_t *first, uint64_t *second, uint64_t *left)
{
    query_t *q;
    err_t e;
    const char *text = "select count($line)";
    assert_int_equal(query_parse(text, strlen(text), NULL, &q, &e), 0);
    map_opts_t o = {
        .plan = query_plan(q),
        .max_line_len = 1024 * 1024,
        .env = {"h", "UTC", "0"},
        .n_threads = 2,
    };
    mapscan_t ms;
    assert_int_equal(mapscan_init(&ms, &o, &e), 0);
    reports_t r = {.n = 0};
    pthread_mutex_init(&r.mu, NULL);
    mapscan_reporter_t rep;
    if (deltas)
        mapscan_reporter_start_deltas(&rep, &ms, o.plan, 1, note_report, &r);
    else
        mapscan_reporter_start(&rep, &ms, o.plan, 1, note_report, &r);
    assert_true(rep.running);
    fold(&ms, path);
    wait_report(&r, 0);
    int had = n_reports(&r);
    fold(&ms, path);
    wait_report(&r, had);
    mapscan_reporter_stop(&rep);
    fold(&ms, path);
    *first = r.counts[0];
    *second = r.counts[r.n - 1];
    *left = 0;
    if (ms.result.n_groups)
        memcpy(left, agg_table_state(&ms.result, 0, 0), sizeof *left);
    pthread_mutex_destroy(&r.mu);
    mapscan_free(&ms);
    query_free(q);
}

static void make_input(char *dir, size_t dcap, char *path, size_t pcap)
{
    assert_int_equal(tmpdir_make(dir, dcap, "reporter"), 0);
    snprintf(path, pcap, "%s/in.log", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    for (int i = 0; i < LINES; i++)
        fprintf(f, "line %d\n", i);
    fclose(f);
}

/* The reports' counts and what is left at the end, as multiples of LINES. */
static void check(int deltas, uint64_t want_first, uint64_t want_second, uint64_t want_left)
{
    char dir[4096], path[4200];
    make_input(dir, sizeof dir, path, sizeof path);
    uint64_t first, second, left;
    run(path, deltas, &first, &second, &left);
    assert_int_equal(first, want_first * LINES);
    assert_int_equal(second, want_second * LINES);
    assert_int_equal(left, want_left * LINES);
    tmpdir_remove(dir);
}

static void test_snapshots_are_cumulative(void **state)
{
    (void)state;
    check(0, 1, 2, 3);
}

/* Each report only what came after the previous one, and the result at
 * the end only what came after the last. */
static void test_deltas_are_takes(void **state)
{
    (void)state;
    check(1, 1, 1, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_snapshots_are_cumulative),
        cmocka_unit_test(test_deltas_are_takes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
