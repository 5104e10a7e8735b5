/* test_matcher.c: pattern classification, the required-literal extractor,
 * and matcher_next_line against a per-line pcre2 oracle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "exec/filter/matcher.h"
#include "tests/support/oracle.h"
#include "tests/support/rng.h"

static void test_classification(void **state)
{
    (void)state;
    static const struct { const char *pattern; enum matcher_kind kind; } cases[] = {
        {"", MATCHER_NOOP}, {".", MATCHER_NOOP}, {".*", MATCHER_NOOP},
        {"ERROR", MATCHER_LITERAL}, {"File not found", MATCHER_LITERAL},
        {"john.doe@example.com", MATCHER_REGEX}, {"1002-07194[789]", MATCHER_REGEX},
        {"a|b", MATCHER_REGEX}, {"x$", MATCHER_REGEX},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        matcher_t m;
        err_t e;
        assert_int_equal(matcher_init(&m, cases[i].pattern, &e), 0);
        assert_int_equal(m.kind, cases[i].kind);
        matcher_free(&m);
    }
}

static void test_required_literal(void **state)
{
    (void)state;
    static const struct { const char *pattern; const char *want; } cases[] = {
        {"ERROR.*user[0-9]+", "ERROR"},
        {"1002-07194[789]", "1002-07194"},
        {"errors?", "error"},
        {"ab*c", "a"},
        {"x{2}yz", "yz"},
        {"(ERROR|CRITICAL)", ""},
        {"(?i)error", ""},
        {"(abc)?def", "def"},
        {"[ERROR]x", "x"},
        {"[]abc]de", "de"},
        {"\\d+ms", "ms"},
        {"^2025-07-02 10:00:0[0-5]", "2025-07-02 10:00:0"},
        {"0+1", "0"},
        /* Escapes with arguments: their argument is not text. */
        {"\\PP", ""}, {"ab\\pLcd", ""}, {"\\x41BC", ""}, {"(a)\\1b", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[64] = "";
        int n = matcher_required_literal(cases[i].pattern, out, sizeof out);
        if (!cases[i].want[0]) {
            assert_int_equal(n, 0);
        } else {
            assert_string_equal(out, cases[i].want);
        }
    }
}

static void test_invalid_regex_names_pattern_and_offset(void **state)
{
    (void)state;
    matcher_t m;
    err_t e;
    err_clear(&e);
    assert_int_equal(matcher_init(&m, "abc(def", &e), -1);
    assert_int_equal(e.code, ERR_PATTERN);
    assert_non_null(strstr(e.msg, "abc(def"));
    assert_non_null(strstr(e.msg, "offset 7"));
    assert_int_equal(e.offset, 7);
}

static void test_dollar_anchor_matches_line_end(void **state)
{
    (void)state;
    const char text[] = "a=5\na=55x\nb=5\r\nc=5\n";
    matcher_t m;
    err_t e;
    assert_int_equal(matcher_init(&m, "=5$", &e), 0);
    const char *ls, *le;
    const char *p = text, *end = text + sizeof text - 1;
    int hits = 0;
    while (matcher_next_line(&m, p, end, &ls, &le)) {
        hits++;
        assert_true(le[-1] == '5');
        p = le + 1;
    }
    assert_int_equal(hits, 2);   /* a=5 and c=5; the CRLF line keeps its \r */
    matcher_free(&m);
}

static uint64_t rng = 12345;
static unsigned next_rand(void)
{
    return rng_next(&rng);
}

/* Every strategy (literal, regex+literal, chunk regex, line regex) finds
 * exactly the lines that match on their own. */
static void test_next_line_against_oracle(void **state)
{
    (void)state;
    static const char *patterns[] = {
        "ab", "a", "ERROR", "a.b", "a\\s+b", "[^x]+y", "^ab", "b$", "^$", "a*",
        "\\Ab", "b\\z", "(?=a)ab", "(a|b)x", "ab|^x", "x\\n?a", "E.*R[0-9]+", "\\bab\\b",
        "(?:ab)+c", "[ab]{3}", "\\PP", "\\pLb", "\\x61b", "\\R$", "a\\s*+$", "\\X$", "a(*COMMIT)b",
    };
    const char alpha[] = "abxyER09 \r\n";
    char text[400];
    for (size_t pi = 0; pi < sizeof patterns / sizeof patterns[0]; pi++) {
        matcher_t m;
        err_t e;
        assert_int_equal(matcher_init(&m, patterns[pi], &e), 0);
        print_message("pattern %s: %s\n", patterns[pi], matcher_strategy(&m));
        oracle_matcher_t om;
        assert_int_equal(oracle_matcher_init(&om, patterns[pi]), 0);
        for (int round = 0; round < 300; round++) {
            size_t n = 1 + next_rand() % (sizeof text - 2);
            for (size_t i = 0; i < n; i++)
                text[i] = alpha[next_rand() % (sizeof alpha - 1)];
            text[n++] = '\n';
            oracle_line_t *lines;
            size_t nl = oracle_split(text, n, 1u << 20, &lines);
            const char *p = text, *end = text + n, *ls, *le;
            size_t li = 0;
            while (matcher_next_line(&m, p, end, &ls, &le)) {
                /* Every line skipped must not match; the hit must. */
                while (lines[li].p != ls) {
                    assert_false(oracle_match(&om, lines[li].p, lines[li].len));
                    li++;
                }
                assert_true(le == ls + lines[li].len);
                assert_true(oracle_match(&om, lines[li].p, lines[li].len));
                li++;
                p = le + 1;
            }
            for (; li < nl; li++)
                assert_false(oracle_match(&om, lines[li].p, lines[li].len));
            free(lines);
        }
        oracle_matcher_free(&om);
        matcher_free(&m);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classification),
        cmocka_unit_test(test_required_literal),
        cmocka_unit_test(test_invalid_regex_names_pattern_and_offset),
        cmocka_unit_test(test_dollar_anchor_matches_line_end),
        cmocka_unit_test(test_next_line_against_oracle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
