/* test_extract_tsv.c: the `tsv` format: the header per source, columns as
 * fields, fewer and more values, the escapes dmap's --output tsv writes
 * (read back in values and header names), no trimming but of a final CR,
 * explicit headers for parallel workers, another delimiter, and random
 * rows against a byte-by-byte oracle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/extract_unit.h"
#include "tests/support/rng.h"

static const extract_env_t env = {"host07", "UTC", "0"};

static void test_header_and_rows(void **state)
{
    (void)state;
    const char *f[] = {"name", "age", "note", "$line", "a\tb", "nosuch"};
    extractor_t *x = xt_make("tsv", &env, f, 6);
    const char *lines[] = {
        "name\tage\tnote\ta\\tb",
        "bob\t3\thas\\ttab and \\\\ and \\n\tx",
        " ann \t5\t\t\r",
        "joe\t7",
        "too\tmany\tvalues\there\tnow",
        "esc\t1\t\\q\\",
    };
    sv_t v[6 * 6];
    uint8_t st[6];
    xt_run_lines(x, 6, lines, 6, v, st);
    assert_int_equal(st[0], EXTRACT_SKIP);
    assert_int_equal(st[1], EXTRACT_OK);
    assert_sv(v[0 * 6 + 1], "bob");
    assert_sv(v[2 * 6 + 1], "has\ttab and \\ and \n");
    assert_true(extract_owns(x, v[2 * 6 + 1].p, v[2 * 6 + 1].len));
    assert_sv(v[4 * 6 + 1], "x");
    assert_int_equal(st[2], EXTRACT_OK);
    assert_sv(v[0 * 6 + 2], " ann ");               /* not trimmed */
    assert_sv(v[2 * 6 + 2], "");                    /* an empty last-but-one field */
    assert_sv(v[4 * 6 + 2], "");                    /* ... and the last: a final tab */
    assert_sv(v[3 * 6 + 2], " ann \t5\t\t");        /* only the CR dropped */
    assert_int_equal(st[3], EXTRACT_OK);
    assert_sv(v[2 * 6 + 3], NULL);                  /* fewer values: missing */
    assert_int_equal(st[4], EXTRACT_ERROR);
    assert_string_equal(extractor_last_error(x), "TSV line has more fields than the header");
    assert_int_equal(st[5], EXTRACT_OK);
    assert_sv(v[2 * 6 + 5], "\\q\\");               /* other backslashes kept */
    for (int k = 0; k < 6; k++)
        assert_sv(v[5 * 6 + k], NULL);
    extractor_free(x);
}

static void test_sources_and_set_header(void **state)
{
    (void)state;
    const char *f[] = {"b"};
    extractor_t *x = xt_make("tsv", &env, f, 1);
    assert_true(extractor_per_source(x));
    err_t e;
    assert_int_equal(extractor_set_header(x, "a\tb\r", 4, &e), 0);
    sv_t v[2];
    uint8_t st[2];
    const char *l1[] = {"1\t2", "3\t4"};
    xt_run_lines(x, 1, l1, 2, v, st);
    assert_int_equal(st[0], EXTRACT_OK);
    assert_sv(v[0], "2");
    assert_sv(v[1], "4");
    extractor_begin_source(x, "next");
    const char *l2[] = {"b\ta", "1\t2"};
    xt_run_lines(x, 1, l2, 2, v, st);
    assert_int_equal(st[0], EXTRACT_SKIP);
    assert_sv(v[1], "1");
    extractor_free(x);
}

/* extract_opts_t.delimiter: another separator; formats without one refuse it. */
static void test_delimiter(void **state)
{
    (void)state;
    const char *f[] = {"b", "c"};
    err_t e;
    extract_opts_t o = {.delimiter = ';'};
    extractor_t *x = extractor_new_opts("tsv", f, 2, &env, &o, &e);
    assert_non_null(x);
    const char *lines[] = {"a;b;c", "1;x\\ty;3\t4"};
    sv_t v[4];
    uint8_t st[2];
    xt_run_lines(x, 2, lines, 2, v, st);
    assert_int_equal(st[1], EXTRACT_OK);
    assert_sv(v[1], "x\ty");
    assert_sv(v[3], "3\t4");
    extractor_free(x);
    x = extractor_new_opts("csv", f, 2, &env, &o, &e);
    assert_non_null(x);
    const char *rows[] = {"a;b;c", "1;\"2;3\";4"};
    xt_run_lines(x, 2, rows, 2, v, st);
    assert_int_equal(st[1], EXTRACT_OK);
    assert_sv(v[1], "2;3");
    assert_sv(v[3], "4");
    extractor_free(x);
    assert_null(extractor_new_opts("json", f, 2, &env, &o, &e));
    assert_non_null(strstr(e.msg, "takes no delimiter"));
    o.delimiter = '"';
    assert_null(extractor_new_opts("csv", f, 2, &env, &o, &e));
    o = (extract_opts_t){.pattern = "%h"};
    assert_null(extractor_new_opts("csv", f, 2, &env, &o, &e));
}

/* The oracle: one byte at a time. */
static size_t unescape(const char *p, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\\' && i + 1 < n && strchr("tnr\\", p[i + 1]) && p[i + 1]) {
            char c = p[++i];
            out[o++] = c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : '\\';
        } else {
            out[o++] = p[i];
        }
    }
    return o;
}

static void test_random(void **state)
{
    (void)state;
    static const char *const pieces[] = {"a", "\t", "\\", "\\t", "\\n", "\\\\", " ", "\r",
                                         "long-value-", "\t\t", "\0", "x\\q"};
    enum { NF = 6 };
    const char *names[NF] = {"c0", "c1", "c2", "c3", "c9", "$line"};
    extractor_t *x = xt_make("tsv", &env, names, NF);
    xt_batch_t bt;
    xt_batch_init(&bt, 800, 1200, NF);
    uint64_t rng = 0x75;
    size_t seen[3] = {0};
    char *buf = malloc(1300);
    for (int round = 0; round < 20; round++) {
        err_t e;
        size_t n_cols = 1 + rng_next(&rng) % 30;
        char header[512];
        size_t ho = 0;
        for (size_t c = 0; c < n_cols; c++)
            ho += (size_t)sprintf(header + ho, "%sc%zu", c ? "\t" : "", c % 10);
        assert_int_equal(extractor_set_header(x, header, ho, &e), 0);
        xt_batch_random(&bt, 1200, &rng, 8, 100, pieces, sizeof pieces / sizeof pieces[0]);
        xt_batch_run(x, &bt);
        for (size_t i = 0; i < bt.n; i++) {
            const char *p = bt.lines[i];
            size_t n = bt.lens[i];
            if (n && p[n - 1] == '\r')
                n--;
            size_t cols = 1;
            for (size_t k = 0; k < n; k++)
                cols += p[k] == '\t';
            uint8_t ws = cols > n_cols ? EXTRACT_ERROR : EXTRACT_OK;
            assert_int_equal(bt.st[i], ws);
            seen[ws]++;
            if (ws != EXTRACT_OK)
                continue;
            for (size_t f = 0; f < NF - 1; f++) {
                /* the last column named names[f], within the row */
                size_t want = SIZE_MAX, c = 0, start = 0, ws_at = 0, we = 0;
                for (size_t k = 0; k <= n; k++) {
                    if (k < n && p[k] != '\t')
                        continue;
                    char nm[8];
                    snprintf(nm, sizeof nm, "c%zu", c % 10);
                    if (c < n_cols && strcmp(nm, names[f]) == 0) {
                        want = c;
                        ws_at = start;
                        we = k;
                    }
                    c++;
                    start = k + 1;
                }
                sv_t v = bt.cols[f][i];
                if (want == SIZE_MAX) {
                    assert_int_equal(v.len, SV_MISSING);
                    continue;
                }
                size_t wl = unescape(p + ws_at, we - ws_at, buf);
                if (v.len != wl || (wl && memcmp(v.p, buf, wl) != 0))
                    fail_msg("round %d line %zu field %s differs", round, i, names[f]);
            }
        }
    }
    print_message("tsv random: %zu ok, %zu errors\n", seen[EXTRACT_OK], seen[EXTRACT_ERROR]);
    assert_true(seen[EXTRACT_OK] > 2000);
    assert_true(seen[EXTRACT_ERROR] > 2000);
    free(buf);
    xt_batch_free(&bt);
    extractor_free(x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_and_rows),
        cmocka_unit_test(test_sources_and_set_header),
        cmocka_unit_test(test_delimiter),
        cmocka_unit_test(test_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
