/* test_linescan.c: the cat/grep plan (sequential and parallel) against the
 * naive line-by-line oracle: every pattern strategy, invert, before/after
 * context, max, long-line splitting, numbered and plain output. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "exec/linescan.h"
#include "tests/support/memfile.h"
#include "tests/support/oracle.h"
#include "tests/support/rng.h"

static uint64_t rng = 4242;
static unsigned next_rand(void)
{
    return rng_next(&rng);
}

static const char *const words[] = {"INFO", "ERROR", "WARN", "user12", "ab", "x", "", "|", " "};

static char *make_log(size_t n, size_t long_every)
{
    char *t = malloc(n + 1);
    size_t i = 0;
    while (i < n) {
        size_t n_words = next_rand() % 8;
        if (long_every && next_rand() % long_every == 0)
            n_words = 2000;
        for (size_t w = 0; w < n_words && i < n; w++) {
            const char *word = words[next_rand() % (sizeof words / sizeof words[0])];
            for (; *word && i < n; word++)
                t[i++] = *word;
        }
        if (i < n)
            t[i++] = '\n';
    }
    return t;
}

typedef struct scan_case {
    const char *pattern;
    int invert;
    unsigned before, after;
    unsigned long long max;
    size_t max_line_len;
    enum line_format format;
} scan_case_t;

static void check_case(const char *text, size_t n, const scan_case_t *c, int parallel)
{
    char path[64];
    int fd = memfile_create(text, n, path, sizeof path);
    assert_true(fd >= 0);
    err_t e;
    matcher_t m;
    assert_int_equal(matcher_init(&m, c->pattern, &e), 0);
    outbuf_t out;
    outbuf_init_mem(&out, 4096, &e);
    line_sink_t sink;
    line_sink_init(&sink, &out, c->format, "h", NULL);
    line_sink_set_source(&sink, "s");
    linescan_opts_t o = {.matcher = &m, .invert = c->invert, .before = c->before,
                         .after = c->after, .max = c->max, .max_line_len = c->max_line_len};
    input_t *in = input_open(path, &e);
    assert_non_null(in);
    int rc;
    linescan_stats_t st = {0};
    /* Plain cat (noop, unnumbered) deliberately stays sequential: it writes
     * from the mapping without staging. Every other fast-path plan,
     * numbered ones included, goes parallel. */
    if (parallel && m.kind == MATCHER_NOOP && c->format == LINE_PLAIN) {
        assert_false(linescan_parallel_eligible(&o, &sink, in));
        parallel = 0;
    }
    if (parallel) {
        assert_true(linescan_parallel_eligible(&o, &sink, in));
        rc = linescan_run_parallel(&o, in, path, &sink, 3, &st, &e);
    } else {
        linescan_t ls;
        assert_int_equal(linescan_init(&ls, &o, &e), 0);
        rc = linescan_run(&ls, in, path, &sink, &st, &e);
        linescan_free(&ls);
    }
    assert_int_equal(rc, 0);
    input_close(in);
    /* Every byte once: ranges meet at line starts, windows re-map a
     * partial line; --max may stop a file early. */
    if (c->max)
        assert_true(st.bytes_read <= n);
    else
        assert_int_equal(st.bytes_read, n);

    oracle_out_t want = {0};
    assert_int_equal(oracle_expect(text, n, c->pattern, c->invert, c->before, c->after, c->max,
                                   c->max_line_len, c->format == LINE_REMOTE, &want), 0);
    if (!oracle_same(out.data, out.len, &want)) {
        print_error("mismatch: pattern '%s' invert %d before %u after %u max %llu len %zu "
                    "format %d parallel %d: got %zu bytes, want %zu\n",
                    c->pattern, c->invert, c->before, c->after, c->max, c->max_line_len,
                    (int)c->format, parallel, out.len, want.len);
        fail();
    }
    free(want.data);
    line_sink_free(&sink);
    outbuf_free(&out);
    matcher_free(&m);
    close(fd);
}

static const char *const patterns[] = {
    "", ".", "ERROR", "x", "ERROR.*user[0-9]+", "^INFO", "ab$", "(WARN|x)", "^$", "user1[0-9]",
};

static void test_random_cases_sequential(void **state)
{
    (void)state;
    for (int round = 0; round < 400; round++) {
        size_t n = next_rand() % 20000;
        char *text = make_log(n, round % 3 ? 0 : 50);
        scan_case_t c = {
            .pattern = patterns[next_rand() % (sizeof patterns / sizeof patterns[0])],
            .invert = next_rand() % 3 == 0,
            .before = next_rand() % 3 ? 0 : next_rand() % 4,
            .after = next_rand() % 3 ? 0 : next_rand() % 4,
            .max = next_rand() % 3 ? 0 : 1 + next_rand() % 5,
            .max_line_len = next_rand() % 2 ? 1 << 20 : 16 + next_rand() % 200,
            .format = next_rand() % 2 ? LINE_PLAIN : LINE_REMOTE,
        };
        check_case(text, n, &c, 0);
        free(text);
    }
}

static void test_compat_context_semantics(void **state)
{
    (void)state;
    /* dgrepcontext-like: consecutive matches, context both sides, max with
     * after-context stopping at the next match. */
    const char text[] = "a\nb\nM1\nc\nM2\nM3\nd\ne\nf\ng\nM4\nh\n";
    static const scan_case_t cases[] = {
        {"M", 0, 2, 3, 0, 1 << 20, LINE_REMOTE},
        {"M", 1, 2, 3, 0, 1 << 20, LINE_REMOTE},
        {"M", 0, 0, 2, 1, 1 << 20, LINE_PLAIN},
        {"M", 0, 1, 0, 2, 1 << 20, LINE_PLAIN},
        {"M", 0, 5, 5, 0, 1 << 20, LINE_PLAIN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_case(text, sizeof text - 1, &cases[i], 0);
}

static void test_parallel_equals_sequential(void **state)
{
    (void)state;
    size_t n = 17u << 20;   /* above the parallel threshold */
    char *text = make_log(n, 2000);
    static const scan_case_t cases[] = {
        {"", 0, 0, 0, 0, 1 << 20, LINE_PLAIN},
        {"ERROR", 0, 0, 0, 0, 1 << 20, LINE_PLAIN},
        {"ERROR.*user[0-9]+", 0, 0, 0, 0, 1 << 20, LINE_PLAIN},
        {"(WARN|x)$", 0, 0, 0, 0, 1 << 20, LINE_PLAIN},
        {"", 0, 0, 0, 0, 100, LINE_PLAIN},          /* many split lines */
        {"ab", 0, 0, 0, 0, 1000, LINE_PLAIN},
        /* Numbered output: ranges count their lines first. */
        {"", 0, 0, 0, 0, 1 << 20, LINE_REMOTE},
        {"ERROR", 0, 0, 0, 0, 1 << 20, LINE_REMOTE},
        {"", 0, 0, 0, 0, 100, LINE_REMOTE},         /* split pieces are numbered too */
        {"(WARN|x)$", 0, 0, 0, 0, 1000, LINE_REMOTE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_case(text, n, &cases[i], 1);
    /* No final newline. */
    text[n - 1] = 'q';
    check_case(text, n, &cases[0], 1);
    free(text);
}

/* Split long lines that straddle the parallel ranges' boundaries: the
 * pieces belong to the range where the line starts. */
static void test_parallel_long_lines_across_ranges(void **state)
{
    (void)state;
    size_t n = 17u << 20, range = 4u << 20;
    char *text = malloc(n);
    for (size_t i = 0; i < n; i++)
        text[i] = (i % 97 == 96) ? '\n' : (char)('a' + i % 23);
    for (size_t b = range; b < n; b += range) {
        /* A 30000-byte line from b - 7000, then short lines. */
        size_t s0 = b - 7000;
        text[s0 - 1] = '\n';
        for (size_t i = s0; i < s0 + 30000; i++)
            text[i] = (char)('a' + i % 23);
        text[s0 + 30000] = '\n';
    }
    static const scan_case_t cases[] = {
        {"a", 0, 0, 0, 0, 1000, LINE_PLAIN},
        {"bcd", 0, 0, 0, 0, 4096, LINE_PLAIN},
        {"a", 0, 0, 0, 0, 1000, LINE_REMOTE},
        {"", 0, 0, 0, 0, 4096, LINE_REMOTE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_case(text, n, &cases[i], 1);
    free(text);
}

int main(void)
{
    log_level = LOG_ERROR;   /* the long-line warnings are expected here */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_cases_sequential),
        cmocka_unit_test(test_compat_context_semantics),
        cmocka_unit_test(test_parallel_equals_sequential),
        cmocka_unit_test(test_parallel_long_lines_across_ranges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
