/* test_parser_errors.c: every query error names the problem, points at the
 * right byte, and renders with a caret (issue: "The query language"). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parser/parser.h"

typedef struct {
    const char *query;     /* the input */
    long offset;           /* byte the error points at */
    const char *msg;       /* a substring of the message */
    enum err_code code;    /* ERR_QUERY unless stated */
} err_case_t;

static void check(const err_case_t *c)
{
    query_t *q = (query_t *)1;
    err_t e;
    int rc = query_parse(c->query, strlen(c->query), NULL, &q, &e);
    if (rc != -1)
        fail_msg("[%s] parsed, expected error \"%s\"", c->query, c->msg);
    assert_null(q);
    enum err_code want = c->code ? c->code : ERR_QUERY;
    if (e.code != want || !strstr(e.msg, c->msg) || e.offset != c->offset)
        fail_msg("[%s]\n  got  %d @%ld: %s\n  want %d @%ld: ...%s...", c->query, e.code,
                 e.offset, e.msg, want, c->offset, c->msg);
    assert_int_equal(err_exit_status(e.code), 2);
}

static void run(const err_case_t *cases, size_t n)
{
    for (size_t i = 0; i < n; i++)
        check(&cases[i]);
}
#define RUN(cases) run(cases, sizeof cases / sizeof cases[0])

static void test_lexical_errors(void **state)
{
    (void)state;
    static const err_case_t cases[] = {
        {"from S select a where b eq \"abc", 27, "unterminated string", 0},
        {"from S select `count($time) from", 14, "unterminated `name`", 0},
        {"from S select ``", 14, "empty `` name", 0},
        {"", 0, "empty query", 0},
        {" ,, \n", 0, "empty query", 0},
    };
    RUN(cases);
    /* A NUL byte inside the text. */
    query_t *q;
    err_t e;
    assert_int_equal(query_parse("select a\0b", 10, NULL, &q, &e), -1);
    assert_int_equal(e.offset, 8);
    assert_non_null(strstr(e.msg, "NUL byte"));
    /* Also inside a string (found by the fuzzer: it cut the AST's C strings). */
    assert_int_equal(query_parse("select \"a\0b\"", 12, NULL, &q, &e), -1);
    assert_int_equal(e.offset, 9);
    assert_non_null(strstr(e.msg, "NUL byte"));
}

/* The options after logformat NAME (parser/lfopts.c, parser/logpattern.c):
 * each bad one named, the caret on the word or the byte of the pattern. */
static void test_logformat_option_errors(void **state)
{
    (void)state;
    static const err_case_t cases[] = {
        {"select a logformat csv delimiter \";;\"", 33, "a delimiter is one byte", 0},
        {"select a logformat csv delimiter \"\"", 33, "a delimiter is one byte", 0},
        {"select a logformat csv delimiter \"\\\"\"", 33, "cannot be a quote or a line end", 0},
        {"select a logformat json delimiter \";\"", 34, "logformat json takes no delimiter", 0},
        {"select a logformat csv delimiter", 32, "delimiter needs a \"quoted\" value", 0},
        {"select a logformat csv delimter \";\"", 23, "did you mean delimiter?", 0},
        {"select a logformat csv delimiter \";\" delimiter \",\"", 37, "delimiter given twice", 0},
        {"select a logformat csv timeformat \"%Y\" delimiter \";\" timeformat \"%Y\"", 53,
         "timeformat given twice", 0},
        {"select a logformat csv timeformat \"%Y %Q\"", 38, "unknown conversion %Q", 0},
        {"select a logformat csv timeformat \"%Y %\"", 38, "lone %", 0},
        {"select a logformat csv timeformat \"abc\"", 34, "timeformat has no conversion", 0},
        {"select a logformat csv timeformat x", 34, "timeformat needs a \"quoted\" layout", 0},
        {"select a logformat csv multiline \"(\"", 35, "invalid regex in multiline", ERR_PATTERN},
        {"select $status logformat pattern", 32, "logformat pattern needs the pattern", 0},
        {"select $status logformat pattern status", 33, "as a \"quoted string\"", 0},
        {"select $status logformat pattern \"%h%l\"", 36, "two fields need text between them", 0},
        {"select $status logformat pattern \"%h %L\"", 37, "unknown or unsupported Apache directive", 0},
        {"select $status logformat pattern \"%h %{X}t\"", 37, "%{format}t is not supported", 0},
        {"select $status logformat pattern \"%h ${a\"", 37, "${ without its closing }", 0},
        {"select $status logformat pattern \"a $ b\"", 36, "a $ must start a variable name", 0},
        {"select $status logformat pattern \"plain\"", 34, "the pattern names no field", 0},
        {"select $status logformat pattern \"%h %\"", 37, "a % at the end", 0},
        {"select $statu logformat pattern \"$remote_addr $status\"", 7, "did you mean $status?", 0},
    };
    run(cases, sizeof cases / sizeof cases[0]);
}

static void test_clause_errors(void **state)
{
    (void)state;
    static const err_case_t cases[] = {
        /* unknown clause word, with a suggestion when it is a typo */
        {"selct count($line) from S", 0, "unknown clause word 'selct'; did you mean select?", 0},
        {"count($line) from S", 0, "unknown clause word 'count'", 0},
        {"from S groupby x select a", 7, "unknown clause word 'groupby'; did you mean group?", 0},
        {"from S select a limit 10 20", 25, "unknown clause word '20' (limit takes a single number)", 0},
        {"from STATS foo select a", 11, "unknown clause word 'foo' (from takes a single table name)", 0},
        {"select a outfile my file.csv", 20, "unknown clause word 'file.csv' (outfile takes a single file name", 0},
        {"select a logformat csv json", 23, "unknown logformat option 'json'", 0},
        {"from S select a wher x > 1", 16, "did you mean where?", 0},
        /* empty select, missing select */
        {"select from S", 6, "empty select", 0},
        {"from S select", 13, "empty select", 0},
        {"from S", 6, "no select clause", 0},
        {"from S where a > 1", 18, "no select clause", 0},
        /* missing values */
        {"from S select a limit", 21, "missing number of rows after limit", 0},
        {"from S select a limit outfile x", 21, "missing number of rows after limit", 0},
        {"from S select a interval", 24, "missing number of seconds after interval", 0},
        {"from S select a outfile", 23, "missing file name after outfile", 0},
        {"from S select a outfile append", 30, "missing file name after outfile append", 0},
        {"from S select a logformat", 25, "missing log format name after logformat", 0},
        {"from select a", 4, "missing table name after from", 0},
        {"from S select a group by", 24, "group by needs at least one field", 0},
        {"from S select a order by", 24, "order by needs a selected field", 0},
        {"from S select a rorder", 22, "rorder by needs a selected field", 0},
        {"from S select a set", 19, "set needs at least one assignment", 0},
        /* bad values */
        {"from S select a limit ten", 22, "limit expects a whole number of rows, got 'ten'", 0},
        {"from S select a limit 1.5", 22, "limit expects a whole number", 0},
        {"from S select a interval 2.5", 25, "interval expects a whole number of seconds", 0},
        {"from S select a interval \"5\"", 25, "interval expects a whole number", 0},
        {"from S select a logformat jsn", 26, "unknown log format 'jsn'; did you mean json?", 0},
        {"from S select a logformat CSV", 26, "unknown log format 'CSV'", 0},
        {"from S select a outfile \"\"", 24, "empty file name", 0},
        {"from \"\" select a", 5, "empty table name", 0},
    };
    RUN(cases);
}

static void test_select_errors(void **state)
{
    (void)state;
    static const err_case_t cases[] = {
        {"select cnt($line) from S", 7, "unknown aggregate or function 'cnt'; did you mean count?", 0},
        {"from S select avrg(x)", 14, "did you mean avg?", 0},
        {"from S select frobnicate(x)", 14, "unknown aggregate or function 'frobnicate'", 0},
        {"from S select COUNT($line)", 14, "are lower case; did you mean count?", 0},
        {"from S select count()", 14, "count takes 1 argument, got 0: count(field)", 0},
        {"from S select count(a b)", 14, "count takes 1 argument, got 2", 0},
        {"from S select quantile(a)", 14, "quantile takes 2 arguments", 0},
        {"from S select quantile(a, 1.5)", 26, "quantile needs a fraction from 0 to 1", 0},
        {"from S select quantile(a, -0.5)", 26, "quantile needs a fraction from 0 to 1", 0},
        {"from S select quantile(a, x)", 26, "quantile needs a fraction", 0},
        {"from S select p101(a)", 14, "unknown aggregate or function 'p101'", 0},
        {"from S select p100.1(a)", 14, "unknown aggregate or function 'p100.1'", 0},
        {"from S select count(distinct a b)", 14, "count takes 1 argument, got 3: count(field) (or count(distinct field))", 0},
        {"from S select count(`distinct` a)", 14, "count takes 1 argument, got 2", 0},
        {"from S select top(a)", 14, "top takes 2 arguments, got 1: top(field, 10)", 0},
        {"from S select top(a, 0)", 21, "top needs a whole number of values from 1 to 1000", 0},
        {"from S select top(a, 1001)", 21, "top needs a whole number of values from 1 to 1000", 0},
        {"from S select top(a, 2.5)", 21, "top needs a whole number", 0},
        {"from S select top(a, b)", 21, "top needs a whole number", 0},
        {"from S select count(sum(x))", 20, "aggregate sum() can only be a select item", 0},
        {"from S select md5sum(count(x))", 21, "aggregate count() can only be a select item", 0},
        {"from S select a group by count(a)", 25, "aggregate count() can only be a select item", 0},
        {"from S select count($line) order by count($time)", 36,
         "order by count($time): the column must be in the select clause (selected: count($line))", 0},
        {"from S select a, b rorder by c", 29, "rorder by c: the column must be in the select clause (selected: a, b)", 0},
        {"from S select (a b)", 17, "unexpected 'b' in select clause", 0},
        {"from S select a)", 15, "unmatched ')'", 0},
        {"from S select count($line", 19, "unclosed '(' (missing ')' before the end of the query)", 0},
        {"from S select count($line limit 3", 19, "unclosed '(' (missing ')' before limit)", 0},
        {"from S select md5sum(maskdigits(x) limit 3", 20, "unclosed '('", 0},
        {"from S select a ==", 16, "unexpected '==' in select clause", 0},
    };
    RUN(cases);
}

static void test_variable_errors(void **state)
{
    (void)state;
    static const err_case_t cases[] = {
        /* the fork's warning, now an error (dtail-behaviour.md §2.9) */
        {"from STATS select $service", 18,
         "unknown variable $service for log format \"default\"; did you mean bareword service?", 0},
        {"from STATS select avg($gorutines)", 22, "did you mean $goroutines?", 0},
        {"from STATS select count($line) group by $hostnme", 40, "did you mean $hostname?", 0},
        {"select $time", 7, "unknown variable $time for log format \"generic\", which provides only", 0},
        {"select count($line) where $x eq \"1\" logformat json", 26, "unknown variable $x for log format \"json\"", 0},
        {"from S select a where $m eq \"x\" set $m = maskdigits($time)", 22,
         "$m is assigned by set, which runs after where", 0},
        {"from S select $b set $a = $b, $b = $time", 26, "$b is used before set assigns it", 0},
    };
    RUN(cases);
}

static void test_where_errors(void **state)
{
    (void)state;
    static const err_case_t cases[] = {
        {"from S select a where b ~ c", 24, "unknown operator '~' in where clause", 0},
        {"from S select a where b = c", 24, "unknown operator '=' in where clause", 0},
        {"from S select a where b = c", 24, "did you mean ==?", 0},
        {"from S select a where b is c", 24, "unknown operator 'is'", 0},
        {"from S select a where b >= \"3\"", 27, "numeric comparison '>=' against the quoted string \"3\"", 0},
        {"from S select a where \"x\" == 3", 22, "numeric comparison '==' against the quoted string", 0},
        {"from S select a where b >", 25, "incomplete where condition before the end of the query", 0},
        {"from S select a where b > limit 3", 26, "incomplete where condition before limit", 0},
        {"from S select a where b", 23, "incomplete where condition", 0},
        {"from S select a where b eq x and", 32, "incomplete where condition", 0},
    };
    RUN(cases);
}

static void test_set_errors(void **state)
{
    (void)state;
    static const err_case_t cases[] = {
        {"from S select a set x = 1", 20, "set assigns to a $variable: 'x' is not one", 0},
        {"from S select a set `$x` = 1", 20, "set assigns to a $variable", 0},
        {"from S select a set $x == 1", 23, "unknown operator '==' in set clause; expected '=' (set assigns with a single =)", 0},
        {"from S select a set $x eq 1", 23, "unknown operator 'eq' in set clause", 0},
        {"from S select a set $x =", 24, "incomplete set assignment", 0},
        {"from S select $x set $x = sha1($time)", 26, "unknown aggregate or function 'sha1'", 0},
        {"from S select $x set $x = count($time)", 26, "aggregate count() can only be a select item, not part of set", 0},
        {"from S select a where count(x) > 1", 22, "aggregate count() can only be a select item, not part of where", 0},
        {"from S select $x set $x = md5sum(a, b)", 26, "md5sum takes 1 argument, got 2", 0},
    };
    RUN(cases);
}

static void test_function_errors(void **state)
{
    (void)state;
    static const err_case_t cases[] = {
        {"from S select bucket($time)", 14, "bucket takes 2 arguments, got 1: bucket($time, 5m)", 0},
        {"from S select bucket($time, 5x)", 28, "bucket width '5x' is not a duration", 0},
        {"from S select bucket($time, 0)", 28, "bucket width '0' is not a duration", 0},
        {"from S select bucket($time, \"5m\")", 28, "is not a duration", 0},
        {"select json(m), count($line)", 14, "json() needs a path after it", 0},
        {"select count(m).x", 15, "a path such as .level only follows json(...)", 0},
        {"select json(m).a..b", 14, "has an empty step", 0},
        {"from S select count($line) group by $hostname fill", 46,
         "fill needs a bucket(...) among the group by keys", 0},
        {"from S select count($line) group by a, b FILL", 41,
         "fill needs a bucket(...) among the group by keys", 0},
        {"select regex($line)", 7, "regex takes up to 3 arguments, got 1", 0},
        {"select regex($line, x)", 20, "the pattern of regex() must be a \"quoted\" string", 0},
        /* the offset points into the pattern: pcre2 reports the end */
        {"select regex($line, \"took ([0-9]+ms\")", 35, "invalid regex in regex()", ERR_PATTERN},
        {"select regex($line, \"a(b)\", 2)", 28, "regex() group 2 does not exist: the pattern has 1 capture group", 0},
        {"select regex($line, \"a(b)\", x)", 28, "the group of regex() must be a whole number", 0},
    };
    RUN(cases);
}

/* The caret line: exact rendering. */
static void assert_rendered(const char *query, const char *want)
{
    query_t *q;
    err_t e;
    assert_int_equal(query_parse(query, strlen(query), NULL, &q, &e), -1);
    char buf[4096];
    size_t need = query_error_format(query, strlen(query), &e, buf, sizeof buf);
    assert_int_equal(need, strlen(want));
    assert_string_equal(buf, want);
}

static void test_caret_rendering(void **state)
{
    (void)state;
    assert_rendered("select cnt($line) from STATS",
                    "unknown aggregate or function 'cnt'; did you mean count? (at byte 7)\n"
                    "select cnt($line) from STATS\n"
                    "       ^");
    assert_rendered("from S select a limit",
                    "missing number of rows after limit (at byte 21)\n"
                    "from S select a limit\n"
                    "                     ^");
    /* Multi-line queries: only the offending line, caret in its column. */
    assert_rendered("from S\nselect a\nwhere b ~ c",
                    "unknown operator '~' in where clause (expected == != < <= > >= eq ne "
                    "contains ncontains lacks hasprefix nhasprefix hassuffix nhassuffix "
                    "matches nmatches in) (at byte 24)\n"
                    "where b ~ c\n"
                    "        ^");
    /* Tabs keep their width; UTF-8 characters count as one column. */
    assert_rendered("from S\tselect \xc3\xa9t\xc3\xa9, $nope",
                    "unknown variable $nope for log format \"default\"; did you mean bareword "
                    "nope? (at byte 21)\n"
                    "from S\tselect \xc3\xa9t\xc3\xa9, $nope\n"
                    "      \t            ^");
}

static void test_caret_long_line_and_small_buffer(void **state)
{
    (void)state;
    char query[600];
    int n = snprintf(query, sizeof query, "from S select ");
    for (int i = 0; i < 40; i++)
        n += snprintf(query + n, sizeof query - (size_t)n, "f%02d, ", i);
    snprintf(query + n, sizeof query - (size_t)n, "bad( x)");
    query_t *q;
    err_t e;
    assert_int_equal(query_parse(query, strlen(query), NULL, &q, &e), -1);
    char buf[1024];
    query_error_format(query, strlen(query), &e, buf, sizeof buf);
    /* A window around the offset, marked with "...", caret under "bad". */
    char *l2 = strchr(buf, '\n') + 1;
    char *l3 = strchr(l2, '\n') + 1;
    assert_memory_equal(l2, "...", 3);
    size_t col = strlen(l3) - 1;
    assert_memory_equal(l2 + col, "bad(", 4);

    /* Truncation to a small buffer, like snprintf. */
    char small[8];
    size_t need = query_error_format(query, strlen(query), &e, small, sizeof small);
    assert_true(need > sizeof small);
    assert_int_equal(strlen(small), 7);

    /* An error without offset renders the message only. */
    err_t plain;
    err_set(&plain, ERR_QUERY, "boom");
    assert_int_equal(query_error_format("x", 1, &plain, buf, sizeof buf), 4);
    assert_string_equal(buf, "boom");
}

static void test_first_error_wins(void **state)
{
    (void)state;
    /* Two problems: the first in the text is reported. */
    static const err_case_t cases[] = {
        {"from S select a where b ~ c limit x", 24, "unknown operator '~'", 0},
        {"selct a limit x", 0, "unknown clause word", 0},
    };
    RUN(cases);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lexical_errors),
        cmocka_unit_test(test_clause_errors),
        cmocka_unit_test(test_logformat_option_errors),
        cmocka_unit_test(test_select_errors),
        cmocka_unit_test(test_variable_errors),
        cmocka_unit_test(test_where_errors),
        cmocka_unit_test(test_set_errors),
        cmocka_unit_test(test_function_errors),
        cmocka_unit_test(test_caret_rendering),
        cmocka_unit_test(test_caret_long_line_and_small_buffer),
        cmocka_unit_test(test_first_error_wins),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
