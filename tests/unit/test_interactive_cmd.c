/* test_interactive_cmd.c: the --interactive-query command language
 * (client/interactive/cmd.h): tokens, commands, reload flags per mode, and
 * the exact error texts of shared reference §6.6. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "client/interactive/cmd.h"

static const unsigned LINES = ICMD_ALLOW_COMMON | ICMD_ALLOW_GREP;
static const unsigned QUERY = ICMD_ALLOW_COMMON | ICMD_ALLOW_QUERY;

static void expect_tokens(const char *line, int n, const char *const *want)
{
    char **argv;
    int argc;
    err_t e;
    assert_int_equal(icmd_tokenize(line, &argv, &argc, &e), 0);
    assert_int_equal(argc, n);
    for (int i = 0; i < n; i++)
        assert_string_equal(argv[i], want[i]);
    assert_null(argv[n]);
    icmd_free_tokens(argv);
}

static void test_tokens(void **state)
{
    (void)state;
    expect_tokens("", 0, NULL);
    expect_tokens("   \t ", 0, NULL);
    expect_tokens(":reload --grep WARN", 3, (const char *const[]){":reload", "--grep", "WARN"});
    expect_tokens("a  'b c'  \"d e\"", 3, (const char *const[]){"a", "b c", "d e"});
    expect_tokens("x\\ y 'it''s' \"q\\\"uote\"", 3, (const char *const[]){"x y", "its", "q\"uote"});
    expect_tokens("'' \"\" end", 3, (const char *const[]){"", "", "end"});
    expect_tokens("'no \\escape' a\"b c\"d", 2, (const char *const[]){"no \\escape", "ab cd"});
    expect_tokens("--query=\"select count($line) from stats\"", 1,
                  (const char *const[]){"--query=select count($line) from stats"});
}

static void expect_error(const char *line, unsigned allow, const char *msg)
{
    icmd_t c;
    err_t e;
    err_clear(&e);
    assert_int_equal(icmd_parse(line, allow, &c, &e), -1);
    assert_string_equal(e.msg, msg);
    assert_null(c.files);
    assert_null(c.regex);
    assert_null(c.query);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error(":reload --grep 'WARN", LINES, "unterminated quoted string");
    expect_error(":reload --grep \"WARN", LINES, "unterminated quoted string");
    expect_error(":reload --grep WARN\\", LINES, "unterminated escape sequence");
    expect_error(":reload", LINES, "reload requires flags to change");
    expect_error(":reload   ", QUERY, "reload requires flags to change");
    expect_error(":reload --grep WARN extra args", LINES, "unexpected arguments: extra args");
    expect_error(":reload -- --grep", LINES, "unexpected arguments: --grep");
    expect_error("reload --grep x", LINES, "unknown command \"reload --grep x\"");
    expect_error("  :bogus  ", LINES, "unknown command \":bogus\"");
    expect_error(":reload --query 'select 1'", LINES, "flag provided but not defined: -query");
    expect_error(":reload --grep x", QUERY, "flag provided but not defined: -grep");
    expect_error(":reload --nope", LINES, "flag provided but not defined: -nope");
    expect_error(":reload --max", LINES, "flag needs an argument: -max");
    expect_error(":reload --max=x", LINES, "invalid value \"x\" for flag -max");
    expect_error(":reload --timeout -1", LINES, "invalid value \"-1\" for flag -timeout");
    expect_error(":reload --plain=maybe", LINES, "invalid boolean value \"maybe\" for -plain");
    expect_error(":show now", LINES, "unexpected arguments: now");
    expect_error(":quit please", LINES, "unexpected arguments: please");
}

static void test_commands(void **state)
{
    (void)state;
    icmd_t c;
    err_t e;
    assert_int_equal(icmd_parse("\n", LINES, &c, &e), 0);
    assert_int_equal(c.kind, ICMD_NONE);
    assert_int_equal(icmd_parse(":show\n", LINES, &c, &e), 0);
    assert_int_equal(c.kind, ICMD_SHOW);
    assert_int_equal(icmd_parse(" :help ", QUERY, &c, &e), 0);
    assert_int_equal(c.kind, ICMD_HELP);
    assert_int_equal(icmd_parse(":quit", QUERY, &c, &e), 0);
    assert_int_equal(c.kind, ICMD_QUIT);

    assert_int_equal(icmd_parse(":reload --grep WARN -invert --before=2 --max 3 --plain=false "
                                "--files 'a.log,b b.log'", LINES, &c, &e), 0);
    assert_int_equal(c.kind, ICMD_RELOAD);
    assert_string_equal(c.regex, "WARN");
    assert_string_equal(c.files, "a.log,b b.log");
    assert_int_equal(c.invert, 1);
    assert_int_equal(c.before, 2);
    assert_int_equal(c.max, 3);
    assert_int_equal(c.plain, 0);
    assert_true(c.has & ICMD_HAS_PLAIN);
    assert_false(c.has & ICMD_HAS_AFTER);

    cli_opts_t o;
    memset(&o, 0, sizeof o);
    o.regex = "ERROR";
    o.after = 7;
    o.plain = 1;
    o.n_positional = 2;
    icmd_apply(&c, &o);
    assert_string_equal(o.regex, "WARN");
    assert_int_equal(o.after, 7);      /* not given: kept */
    assert_int_equal(o.plain, 0);
    assert_int_equal(o.n_positional, 0);   /* --files replaces the arguments */
    icmd_free(&c);

    assert_int_equal(icmd_parse(":reload --query \"select count($line) from stats\" --timeout 5",
                                QUERY, &c, &e), 0);
    assert_string_equal(c.query, "select count($line) from stats");
    assert_int_equal(c.timeout, 5);
    /* The last of a repeated flag wins, as with Go's flag package. */
    icmd_free(&c);
    assert_int_equal(icmd_parse(":reload --regex a --grep b", LINES, &c, &e), 0);
    assert_string_equal(c.regex, "b");
    icmd_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tokens),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_commands),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
