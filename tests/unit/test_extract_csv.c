/* test_extract_csv.c: the `csv` format (dtail-behaviour.md §3.5): the
 * header per source, columns as fields, fewer and more values than the
 * header, RFC 4180 quoting, explicit headers for parallel workers, headers
 * that look like variables, random rows against a char-by-char
 * state-machine oracle, and csvnoheader's $1, $2, ... columns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec/extract/extract.h"
#include "exec/extract/extract_int.h"
#include "tests/support/extract_oracle.h"
#include "tests/support/extract_unit.h"
#include "tests/support/rng.h"

static const extract_env_t env = {"host07", "UTC", "0"};

static extractor_t *make(const char *const *fields, size_t n)
{
    return xt_make("csv", &env, fields, n);
}

static void test_header_and_rows(void **state)
{
    (void)state;
    const char *fields[] = {"count($time)", "$time", "max($goroutines)", "$line", "nosuch"};
    extractor_t *x = make(fields, 5);
    const char *lines[] = {
        "count($time),$time,max($goroutines),avg($goroutines),min($goroutines)",
        "23,1002-071147,16.000000,14.391304,12.000000",
        "20,1002-071213,17.000000,14.100000,12.000000\r",
    };
    sv_t v[5 * 3];
    uint8_t st[3];
    xt_run_lines(x, 5, lines, 3, v, st);
    assert_int_equal(st[0], EXTRACT_SKIP);
    assert_int_equal(st[1], EXTRACT_OK);
    assert_int_equal(st[2], EXTRACT_OK);
    assert_sv(v[0 * 3 + 0], NULL);
    assert_sv(v[0 * 3 + 1], "23");
    assert_sv(v[1 * 3 + 1], "1002-071147");
    assert_sv(v[2 * 3 + 2], "17.000000");
    assert_sv(v[3 * 3 + 2], "20,1002-071213,17.000000,14.100000,12.000000");
    assert_sv(v[4 * 3 + 1], NULL);
    /* header is per source: the next line is a row until a new source */
    const char *more[] = {"1,2,3,4,5"};
    xt_run_lines(x, 5, more, 1, v, st);
    assert_int_equal(st[0], EXTRACT_OK);
    assert_sv(v[0], "1");
    extractor_begin_source(x, "second.csv");
    const char *second[] = {"$time,count($time)", "t9,99"};
    xt_run_lines(x, 5, second, 2, v, st);
    assert_int_equal(st[0], EXTRACT_SKIP);
    assert_int_equal(st[1], EXTRACT_OK);
    assert_sv(v[0 * 2 + 1], "99");
    assert_sv(v[1 * 2 + 1], "t9");
    assert_sv(v[2 * 2 + 1], NULL);   /* not in this header */
    extractor_free(x);
}

static void test_fewer_and_more(void **state)
{
    (void)state;
    const char *fields[] = {"a", "b", "c"};
    extractor_t *x = make(fields, 3);
    const char *lines[] = {"a,b,c", "1", "1,2", "1,2,3", "1,2,3,4", "", ",,", ",,,"};
    sv_t v[3 * 8];
    uint8_t st[8];
    xt_run_lines(x, 3, lines, 8, v, st);
    uint8_t want_st[] = {EXTRACT_SKIP, EXTRACT_OK, EXTRACT_OK, EXTRACT_OK, EXTRACT_ERROR,
                         EXTRACT_OK, EXTRACT_OK, EXTRACT_ERROR};
    for (int i = 0; i < 8; i++)
        assert_int_equal(st[i], want_st[i]);
    assert_sv(v[0 * 8 + 1], "1");
    assert_sv(v[1 * 8 + 1], NULL);
    assert_sv(v[1 * 8 + 2], "2");
    assert_sv(v[2 * 8 + 2], NULL);
    assert_sv(v[2 * 8 + 3], "3");
    assert_sv(v[0 * 8 + 4], NULL);
    assert_sv(v[0 * 8 + 5], "");     /* an empty line is one empty value */
    assert_sv(v[1 * 8 + 5], NULL);
    assert_sv(v[2 * 8 + 6], "");
    assert_string_equal(extractor_last_error(x), "CSV line has more fields than the header");
    extractor_free(x);
}

static void test_quoting(void **state)
{
    (void)state;
    const char *fields[] = {"a", "b", "c"};
    extractor_t *x = make(fields, 3);
    const char *lines[] = {
        "a,b,c",
        "\"x,y\",\"say \"\"hi\"\"\",\"\"",          /* comma, "" escapes, empty quoted */
        "\"\"\"\",q\"uote,\"a\"\"\"",                /* just a quote; quote inside unquoted */
        "\"1\",2,\"3\"",
        "\"unterminated,2,3",
        "\"a\"b,2,3",                                  /* text after the closing quote */
        "\"a\" ,2,3",
        "1,2,\"x\"\"",                                 /* ends inside the quotes */
        "\"a,b\",\"c,d\",\"e,f\",g",                   /* 4 values */
        "\",\",\",\",\",\"",
    };
    enum { N = sizeof lines / sizeof lines[0] };
    sv_t v[3 * N];
    uint8_t st[N];
    xt_run_lines(x, 3, lines, N, v, st);
    assert_int_equal(st[1], EXTRACT_OK);
    assert_sv(v[0 * N + 1], "x,y");
    assert_sv(v[1 * N + 1], "say \"hi\"");
    assert_sv(v[2 * N + 1], "");
    assert_true(extract_owns(x, v[1 * N + 1].p, v[1 * N + 1].len));   /* unquoted copy */
    assert_ptr_equal(v[0 * N + 1].p, lines[1] + 1);                    /* a view */
    assert_int_equal(st[2], EXTRACT_OK);
    assert_sv(v[0 * N + 2], "\"");
    assert_sv(v[1 * N + 2], "q\"uote");
    assert_sv(v[2 * N + 2], "a\"");
    assert_int_equal(st[3], EXTRACT_OK);
    assert_sv(v[0 * N + 3], "1");
    assert_sv(v[2 * N + 3], "3");
    for (int i = 4; i <= 7; i++) {
        if (st[i] != EXTRACT_ERROR)
            fail_msg("line %d: status %d, want error", i, st[i]);
        assert_sv(v[0 * N + i], NULL);
    }
    assert_int_equal(st[8], EXTRACT_ERROR);
    assert_int_equal(st[9], EXTRACT_OK);
    assert_sv(v[0 * N + 9], ",");
    assert_sv(v[2 * N + 9], ",");
    assert_string_equal(extractor_last_error(x), "CSV line has a malformed quoted field");
    extractor_free(x);
}

static void test_quoted_header(void **state)
{
    (void)state;
    const char *fields[] = {"a,b", "say \"x\"", "plain"};
    extractor_t *x = make(fields, 3);
    const char *lines[] = {"\"a,b\",\"say \"\"x\"\"\",plain", "1,2,3"};
    sv_t v[3 * 2];
    uint8_t st[2];
    xt_run_lines(x, 3, lines, 2, v, st);
    assert_int_equal(st[0], EXTRACT_SKIP);
    assert_int_equal(st[1], EXTRACT_OK);
    assert_sv(v[0 * 2 + 1], "1");
    assert_sv(v[1 * 2 + 1], "2");
    assert_sv(v[2 * 2 + 1], "3");
    /* a malformed header: reported, and the source's rows are errors */
    extractor_begin_source(x, "bad.csv");
    const char *bad[] = {"\"a,b", "1,2,3"};
    xt_run_lines(x, 3, bad, 2, v, st);
    assert_int_equal(st[0], EXTRACT_ERROR);
    assert_int_equal(st[1], EXTRACT_ERROR);
    assert_string_equal(extractor_last_error(x), "CSV header has a malformed quoted field");
    xt_run_lines(x, 3, bad + 1, 1, v, st);
    assert_string_equal(extractor_last_error(x), "CSV header of this source could not be read");
    extractor_begin_source(x, "good.csv");
    xt_run_lines(x, 3, lines, 2, v, st);
    assert_int_equal(st[1], EXTRACT_OK);
    extractor_free(x);
}

/* A parallel worker starting inside a file gets the header explicitly. */
static void test_set_header(void **state)
{
    (void)state;
    const char *fields[] = {"b", "a"};
    extractor_t *x = make(fields, 2);
    err_t e;
    assert_int_equal(extractor_set_header(x, " a,b\r", 5, &e), 0);
    const char *lines[] = {"1,2", "3,4"};
    sv_t v[2 * 2];
    uint8_t st[2];
    xt_run_lines(x, 2, lines, 2, v, st);
    assert_int_equal(st[0], EXTRACT_OK);
    assert_sv(v[0 * 2 + 0], "2");
    assert_sv(v[1 * 2 + 1], "3");
    assert_int_not_equal(extractor_set_header(x, "\"a", 2, &e), 0);
    assert_int_equal(e.code, ERR_INPUT);
    assert_non_null(strstr(e.msg, "malformed"));
    extractor_free(x);
    /* other formats ignore it */
    x = extractor_new("generic", fields, 2, &env, &e);
    assert_int_equal(extractor_set_header(x, "\"", 1, &e), 0);
    extractor_free(x);
}

/* A column named like a common variable overrides it (DTail's field map);
 * repeated header names: the later column wins. */
static void test_header_names(void **state)
{
    (void)state;
    const char *fields[] = {"$line", "$hostname", "x", "*"};
    extractor_t *x = make(fields, 4);
    const char *lines[] = {"$line,x,x", "L,1,2", "L"};
    sv_t v[4 * 3];
    uint8_t st[3];
    xt_run_lines(x, 4, lines, 3, v, st);
    assert_sv(v[0 * 3 + 1], "L");
    assert_sv(v[1 * 3 + 1], "host07");
    assert_sv(v[2 * 3 + 1], "2");
    assert_sv(v[3 * 3 + 1], "*");
    assert_sv(v[2 * 3 + 2], NULL);
    extractor_free(x);
}

static void test_before_any_header(void **state)
{
    (void)state;
    const char *fields[] = {"a"};
    extractor_t *x = make(fields, 1);
    /* no begin_source: the first line ever is still the header */
    const char *lines[] = {"a", "5", ""};
    sv_t v[3];
    uint8_t st[3];
    xt_run_lines(x, 1, lines, 3, v, st);
    assert_int_equal(st[0], EXTRACT_SKIP);
    assert_sv(v[1], "5");
    assert_sv(v[2], "");
    /* an empty header line names one column "" */
    extractor_begin_source(x, NULL);
    const char *empty[] = {"", "1", "1,2"};
    xt_run_lines(x, 1, empty, 3, v, st);
    assert_int_equal(st[0], EXTRACT_SKIP);
    assert_int_equal(st[1], EXTRACT_OK);
    assert_int_equal(st[2], EXTRACT_ERROR);
    extractor_free(x);
}

/* ---- random rows against a state-machine oracle ---- */

static uint64_t rng = 99;

/* A row as the oracle sees it (xo_csv_split parses it byte by byte): the
 * status, and the values in row (free it with xo_row_free). */
static uint8_t oracle(const char *p, size_t n, size_t n_cols, xo_row_t *row)
{
    uint32_t n32 = (uint32_t)n;
    extract_trim(&p, &n32);
    bool ok = xo_csv_split(p, n32, row);
    return ok && row->n <= n_cols ? EXTRACT_OK : EXTRACT_ERROR;
}

static void test_random(void **state)
{
    (void)state;
    static const char *const pieces[] = {"a", ",", "\"", "\"\"", "x y", "\r", " ", "\0",
                                         "long-value-", ",,", "\",\""};
    enum { N = 1000, CAP = 1200, NF = 12 };
    const char *names[NF] = {"c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7", "c8", "c9",
                             "c1", "$line"};
    extractor_t *x = make(names, NF);
    xt_batch_t bt;
    xt_batch_init(&bt, N, CAP, NF);
    size_t seen[3] = {0};
    for (int round = 0; round < 20; round++) {
        err_t e;
        size_t n_cols = 1 + rng_next(&rng) % 40;
        char header[512];
        size_t ho = 0;
        for (size_t c = 0; c < n_cols; c++)
            ho += (size_t)sprintf(header + ho, "%sc%zu", c ? "," : "", c % 10);
        if (extractor_set_header(x, header, ho, &e) != 0)
            fail_msg("header: %s", e.msg);
        xt_batch_random(&bt, CAP, &rng, 8, 120, pieces, sizeof pieces / sizeof pieces[0]);
        xt_batch_run(x, &bt);
        for (size_t i = 0; i < N; i++) {
            xo_row_t row;
            uint8_t ws = oracle(bt.lines[i], bt.lens[i], n_cols, &row);
            if (ws != bt.st[i])
                fail_msg("round %d line %zu: status %d, oracle %d", round, i, bt.st[i], ws);
            seen[ws]++;
            if (ws != EXTRACT_OK) {
                xo_row_free(&row);
                continue;
            }
            for (size_t f = 0; f < NF - 1; f++) {
                /* the last column whose header names field f */
                size_t want = SIZE_MAX;
                for (size_t c = 0; c < row.n && c < n_cols; c++) {
                    char nm[8];
                    snprintf(nm, sizeof nm, "c%zu", c % 10);
                    if (strcmp(nm, names[f]) == 0)
                        want = c;
                }
                sv_t v = bt.cols[f][i];
                if (want == SIZE_MAX) {
                    assert_int_equal(v.len, SV_MISSING);
                    continue;
                }
                if (v.len != row.len[want] || (v.len && memcmp(v.p, row.val[want], v.len) != 0))
                    fail_msg("round %d line %zu field %s differs", round, i, names[f]);
                bool inside = v.p >= bt.lines[i] && v.p + v.len <= bt.lines[i] + bt.lens[i];
                assert_true(inside || extract_owns(x, v.p, v.len));
            }
            xo_row_free(&row);
        }
    }
    assert_true(seen[EXTRACT_OK] > 2000);
    assert_true(seen[EXTRACT_ERROR] > 2000);
    xt_batch_free(&bt);
    extractor_free(x);
}

/* csvnoheader: no header line, columns $1, $2, ...; any number of them. */
static void test_noheader(void **state)
{
    (void)state;
    const char *fields[] = {"$1", "$3", "$10", "$0", "$01", "a", "$line"};
    extractor_t *x = xt_make("csvnoheader", &env, fields, 7);
    assert_false(extractor_per_source(x));
    extractor_begin_source(x, "s");
    const char *lines[] = {"a,b,c", "1,\"x, \"\"y\"\"\",3,4,5,6,7,8,9,ten,11", "only", "\"bad", ""};
    sv_t v[7 * 5];
    uint8_t st[5];
    xt_run_lines(x, 7, lines, 5, v, st);
    assert_int_equal(st[0], EXTRACT_OK);               /* the first line is a row */
    assert_sv(v[0 * 5 + 0], "a");
    assert_sv(v[1 * 5 + 0], "c");
    assert_sv(v[2 * 5 + 0], NULL);
    assert_int_equal(st[1], EXTRACT_OK);
    assert_sv(v[1 * 5 + 1], "3");
    assert_sv(v[2 * 5 + 1], "ten");
    for (int f = 3; f < 6; f++)
        assert_sv(v[f * 5 + 1], NULL);                 /* $0, $01, a: no column */
    assert_int_equal(st[2], EXTRACT_OK);
    assert_sv(v[0 * 5 + 2], "only");
    assert_sv(v[1 * 5 + 2], NULL);
    assert_int_equal(st[3], EXTRACT_ERROR);
    assert_int_equal(st[4], EXTRACT_OK);
    assert_sv(v[0 * 5 + 4], "");
    /* a quoted second column */
    const char *q[] = {"1,\"x, \"\"y\"\"\""};
    const char *g[] = {"$2"};
    extractor_t *y = xt_make("csvnoheader", &env, g, 1);
    sv_t w[1];
    uint8_t s1[1];
    xt_run_lines(y, 1, q, 1, w, s1);
    assert_sv(w[0], "x, \"y\"");
    extractor_free(y);
    extractor_free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_and_rows),
        cmocka_unit_test(test_fewer_and_more),
        cmocka_unit_test(test_quoting),
        cmocka_unit_test(test_quoted_header),
        cmocka_unit_test(test_set_header),
        cmocka_unit_test(test_header_names),
        cmocka_unit_test(test_before_any_header),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_noheader),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
