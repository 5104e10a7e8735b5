/* test_result_text.c: a result as TSV and JSON lines (exec/sink/result_text.c):
 * the escaping of every field, the typing of JSON values by aggregate,
 * and the names of the forms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "exec/sink/result.h"
#include "parser/parser.h"

/* Renders cells (rows of n_cols) of the query's select items in form. */
static char *render(const char *qt, enum result_form form, const char **headers, char **cells,
                    size_t n_cols, size_t n_rows, outbuf_t *out)
{
    query_t *q;
    err_t e;
    assert_int_equal(query_parse(qt, strlen(qt), NULL, &q, &e), 0);
    assert_int_equal(query_plan(q)->n_select, n_cols);
    result_t r = {.n_cols = n_cols, .n_rows = n_rows, .n_groups = n_rows, .headers = headers,
                  .cells = cells};
    assert_int_equal(outbuf_init_mem(out, 64, &e), 0);
    result_render_form(&r, query_plan(q), form, out, 1);
    outbuf_putc(out, '\0');
    query_free(q);
    return out->data;
}

static void test_form_names(void **state)
{
    (void)state;
    enum result_form f;
    const char *names[] = {"table", "csv", "tsv", "json"};
    for (int i = 0; i < 4; i++) {
        assert_int_equal(result_form_parse(names[i], &f), 0);
        assert_int_equal(f, (enum result_form)i);
        assert_string_equal(result_form_name(f), names[i]);
    }
    assert_int_equal(result_form_parse("JSON", &f), -1);
    assert_int_equal(result_form_parse("xml", &f), -1);
    assert_int_equal(result_form_parse("", &f), -1);
    assert_int_equal(result_form_has_header(RESULT_FORM_CSV), 1);
    assert_int_equal(result_form_has_header(RESULT_FORM_TSV), 1);
    assert_int_equal(result_form_has_header(RESULT_FORM_JSON), 0);
    assert_int_equal(result_form_has_header(RESULT_FORM_TABLE), 0);
}

static void test_tsv_escapes(void **state)
{
    (void)state;
    const char *headers[] = {"a\tb", "last(x)"};
    char *cells[] = {"1", "tab\there", "2", "back\\slash\nnew\rcr", "3", ""};
    outbuf_t out;
    assert_string_equal(render("select count(x), last(x)", RESULT_FORM_TSV, headers, cells, 2, 3, &out),
                        "a\\tb\tlast(x)\n1\ttab\\there\n2\tback\\\\slash\\nnew\\rcr\n3\t\n");
    outbuf_free(&out);
}

static void test_json_types(void **state)
{
    (void)state;
    const char *headers[] = {"count(x)", "len(x)", "avg(x)", "sum(x)", "last(x)", "max(x)"};
    char *cells[] = {
        "3", "12.000000", "1.500000", "-0.250000", "a,\"b\"\\", "",
        "0", "", "", "+Inf", "", "NaN",
        "7", "2.000000", "12345678.000000", "-Inf", "0042", "1e5",
    };
    outbuf_t out;
    assert_string_equal(
        render("select count(x), len(x), avg(x), sum(x), last(x), max(x)", RESULT_FORM_JSON,
               headers, cells, 6, 3, &out),
        "{\"count(x)\":3,\"len(x)\":12,\"avg(x)\":1.500000,\"sum(x)\":-0.250000,"
        "\"last(x)\":\"a,\\\"b\\\"\\\\\",\"max(x)\":null}\n"
        "{\"count(x)\":0,\"len(x)\":null,\"avg(x)\":null,\"sum(x)\":\"+Inf\",\"last(x)\":null,"
        "\"max(x)\":\"NaN\"}\n"
        "{\"count(x)\":7,\"len(x)\":2,\"avg(x)\":12345678.000000,\"sum(x)\":\"-Inf\","
        "\"last(x)\":\"0042\",\"max(x)\":1e5}\n");
    outbuf_free(&out);
}

/* Controls, DEL and C1 as \u00XX; valid UTF-8 as it is; a byte that is
 * not UTF-8 (a stray continuation, a cut sequence, an overlong form, a
 * surrogate) as U+FFFD. */
static void test_json_strings(void **state)
{
    (void)state;
    const char *headers[] = {"last($line)"};
    char *cells[] = {
        "\x01\x1b[0m\t\n\r\x7f",
        "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xc2\x85",
        "\xff|\x80|\xc3|\xc0\xaf|\xed\xa0\x80|ok",
    };
    outbuf_t out;
    assert_string_equal(render("select last($line)", RESULT_FORM_JSON, headers, cells, 1, 3, &out),
                        "{\"last($line)\":\"\\u0001\\u001b[0m\\t\\n\\r\\u007f\"}\n"
                        "{\"last($line)\":\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \\u0085\"}\n"
                        "{\"last($line)\":\"\xef\xbf\xbd|\xef\xbf\xbd|\xef\xbf\xbd|"
                        "\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|ok\"}\n");
    outbuf_free(&out);
}

/* CSV (RFC 4180 quoting) through the same entry, and the header only
 * when asked for. */
static void test_csv_and_header(void **state)
{
    (void)state;
    const char *headers[] = {"count(x)", "last(x)"};
    char *cells[] = {"1", "a,b", "2", "say \"hi\"", "3", "cr\rlf\n"};
    outbuf_t out;
    assert_string_equal(render("select count(x), last(x)", RESULT_FORM_CSV, headers, cells, 2, 3, &out),
                        "count(x),last(x)\n1,\"a,b\"\n2,\"say \"\"hi\"\"\"\n3,\"cr\rlf\n\"\n");
    outbuf_free(&out);
    query_t *q;
    err_t e;
    const char *qt = "select count(x), last(x)";
    assert_int_equal(query_parse(qt, strlen(qt), NULL, &q, &e), 0);
    result_t r = {.n_cols = 2, .n_rows = 1, .n_groups = 1, .headers = headers, .cells = cells};
    assert_int_equal(outbuf_init_mem(&out, 64, &e), 0);
    result_render_form(&r, query_plan(q), RESULT_FORM_TSV, &out, 0);
    outbuf_putc(&out, '\0');
    assert_string_equal(out.data, "1\ta,b\n");
    outbuf_free(&out);
    query_free(q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_form_names),
        cmocka_unit_test(test_tsv_escapes),
        cmocka_unit_test(test_json_types),
        cmocka_unit_test(test_json_strings),
        cmocka_unit_test(test_csv_and_header),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
