/* test_repl.c: the REPL's logic that needs no terminal: dot commands,
 * multi-line assembly, completion candidates (and that the words offered
 * are the parser's), the schema of a sample, the memory inputs, and the
 * csv/json terminal forms. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "client/serverless/map_run.h"
#include "client/repl/cmd.h"
#include "client/repl/complete.h"
#include "client/repl/data.h"
#include "client/repl/lines.h"
#include "client/repl/schema.h"
#include "parser/parser.h"

/* ---- dot commands ---------------------------------------------------- */

static void test_cmd_parse(void **state)
{
    (void)state;
    repl_cmd_t c;
    err_t e;
    assert_int_equal(repl_cmd_parse("  .help", &c, &e), 0);
    assert_int_equal(c.kind, REPL_CMD_HELP);
    assert_int_equal(repl_cmd_parse(".format json", &c, &e), 0);
    assert_int_equal(c.kind, REPL_CMD_MODE);
    assert_int_equal(c.form, RESULT_FORM_JSON);
    assert_int_equal(repl_cmd_parse(".format csv", &c, &e), 0);
    assert_int_equal(c.form, RESULT_FORM_CSV);
    assert_int_equal(repl_cmd_parse(".mode tsv", &c, &e), 0);
    assert_int_equal(c.kind, REPL_CMD_MODE);
    assert_int_equal(c.form, RESULT_FORM_TSV);
    assert_int_equal(repl_cmd_parse(".mode table", &c, &e), 0);
    assert_int_equal(c.form, RESULT_FORM_TABLE);
    assert_int_equal(repl_cmd_parse(".read \"my queries.sql\"", &c, &e), 0);
    assert_int_equal(c.kind, REPL_CMD_READ);
    assert_string_equal(c.arg, "my queries.sql");
    assert_int_equal(repl_cmd_parse(".timer on", &c, &e), 0);
    assert_int_equal(c.on, 1);
    assert_int_equal(repl_cmd_parse(".timer off", &c, &e), 0);
    assert_int_equal(c.on, 0);
    assert_int_equal(repl_cmd_parse(".output /tmp/a.sqlite", &c, &e), 0);
    assert_int_equal(c.kind, REPL_CMD_OUTPUT);
    assert_string_equal(c.arg, "/tmp/a.sqlite");
    assert_int_equal(c.append, 0);
    assert_int_equal(repl_cmd_parse(".output append \"my file.csv\"", &c, &e), 0);
    assert_string_equal(c.arg, "my file.csv");
    assert_int_equal(c.append, 1);
    assert_int_equal(repl_cmd_parse(".output", &c, &e), 0);
    assert_string_equal(c.arg, "");
    assert_int_equal(repl_cmd_parse(".schema json", &c, &e), 0);
    assert_int_equal(c.kind, REPL_CMD_SCHEMA);
    assert_string_equal(c.arg, "json");
    assert_int_equal(repl_cmd_parse(".exit", &c, &e), 0);
    assert_int_equal(c.kind, REPL_CMD_QUIT);
    assert_int_equal(repl_cmd_parse(".files", &c, &e), 0);
    assert_int_equal(c.kind, REPL_CMD_FILES);
}

static void test_cmd_errors(void **state)
{
    (void)state;
    repl_cmd_t c;
    err_t e;
    assert_int_equal(repl_cmd_parse(".fromat json", &c, &e), -1);
    assert_non_null(strstr(e.msg, "unknown command .fromat"));
    assert_int_equal(repl_cmd_parse(".format xml", &c, &e), -1);
    assert_non_null(strstr(e.msg, "'xml'"));
    assert_int_equal(repl_cmd_parse(".format", &c, &e), -1);
    assert_non_null(strstr(e.msg, "usage: .mode table|csv|tsv|json"));
    assert_int_equal(repl_cmd_parse(".mode xml", &c, &e), -1);
    assert_non_null(strstr(e.msg, ".mode: unknown mode 'xml'"));
    assert_int_equal(repl_cmd_parse(".read", &c, &e), -1);
    assert_non_null(strstr(e.msg, "usage: .read FILE"));
    assert_int_equal(repl_cmd_parse(".read a b", &c, &e), -1);
    assert_int_equal(repl_cmd_parse(".timer maybe", &c, &e), -1);
    assert_int_equal(repl_cmd_parse(".output append", &c, &e), -1);
    assert_int_equal(repl_cmd_parse(".output a b", &c, &e), -1);
    assert_int_equal(repl_cmd_parse(".output \"unclosed", &c, &e), -1);
    assert_int_equal(repl_cmd_parse(".quit now", &c, &e), -1);
    assert_int_equal(repl_cmd_parse(".help a b c d e", &c, &e), -1);
}

/* ---- multi-line input ------------------------------------------------ */

static void test_lines(void **state)
{
    (void)state;
    repl_lines_t q;
    repl_lines_init(&q);
    assert_int_equal(repl_lines_add(&q, "   "), REPL_LINE_NOTHING);
    assert_int_equal(repl_lines_add(&q, "from STATS"), REPL_LINE_MORE);
    assert_int_equal(repl_lines_add(&q, "  select count($line)  "), REPL_LINE_MORE);
    assert_int_equal(repl_lines_add(&q, "group by $hostname ;; "), REPL_LINE_QUERY);
    assert_string_equal(q.text, "from STATS\nselect count($line)\ngroup by $hostname");
    char *h = repl_lines_history(&q);
    assert_string_equal(h, "from STATS select count($line) group by $hostname;");
    free(h);
    repl_lines_clear(&q);
    /* An empty line ends a query too. */
    assert_int_equal(repl_lines_add(&q, "select count($line)"), REPL_LINE_MORE);
    assert_int_equal(repl_lines_add(&q, ""), REPL_LINE_QUERY);
    assert_string_equal(q.text, "select count($line)");
    repl_lines_clear(&q);
    /* A dot command is one line, only at the start of a query. */
    assert_int_equal(repl_lines_add(&q, " .format csv"), REPL_LINE_COMMAND);
    assert_string_equal(q.text, ".format csv");
    repl_lines_clear(&q);
    assert_int_equal(repl_lines_add(&q, "select count($line)"), REPL_LINE_MORE);
    assert_int_equal(repl_lines_add(&q, ".5;"), REPL_LINE_QUERY);
    assert_string_equal(q.text, "select count($line)\n.5");
    repl_lines_clear(&q);
    assert_int_equal(q.n_lines, 0);
    repl_lines_free(&q);
}

/* ---- completion -------------------------------------------------------- */

static int has(const repl_cands_t *c, const char *s)
{
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->items[i], s))
            return 1;
    return 0;
}

static const char *const fields[] = {"$line", "$time", "$goroutines", "lifetimeConnections",
                                     "currentConnections"};

static int complete(const char *line, repl_cands_t *c, size_t *ws)
{
    repl_cands_free(c);
    return repl_complete(line, strlen(line), fields, 5, c, ws);
}

static void test_complete(void **state)
{
    (void)state;
    repl_cands_t c;
    repl_cands_init(&c);
    size_t ws;
    assert_int_equal(complete("fro", &c, &ws), 1);
    assert_string_equal(c.items[0], "from");
    assert_int_equal(ws, 0);
    assert_int_equal(complete("SEL", &c, &ws), 1);   /* keywords in any case */
    assert_string_equal(c.items[0], "select");
    assert_int_equal(complete("select cou", &c, &ws), 1);
    assert_string_equal(c.items[0], "count(");
    assert_int_equal(ws, 7);
    assert_int_equal(complete("select count($go", &c, &ws), 1);
    assert_string_equal(c.items[0], "$goroutines");
    assert_int_equal(ws, 13);
    assert_int_equal(complete("select max(life", &c, &ws), 1);
    assert_string_equal(c.items[0], "lifetimeConnections");
    assert_true(complete("select p", &c, &ws) > 2);
    assert_true(has(&c, "percentage(") && has(&c, "percentile(") && has(&c, "p95("));
    assert_int_equal(repl_cands_common(&c), 1);
    /* $ words are variables only, with the common ones. */
    assert_true(complete("select $", &c, &ws) >= 3);
    assert_true(has(&c, "$hostname") && has(&c, "$time") && !has(&c, "select"));
    /* After logformat, the formats. */
    assert_int_equal(complete("select $line logformat j", &c, &ws), 1);
    assert_string_equal(c.items[0], "json");
    assert_true(complete("select $line logformat ", &c, &ws) >= 5);
    assert_true(has(&c, "generickv") && has(&c, "csv"));
    /* Dot commands and their arguments. */
    assert_int_equal(complete(".sch", &c, &ws), 1);
    assert_string_equal(c.items[0], ".schema");
    assert_int_equal(complete(".format j", &c, &ws), 1);
    assert_string_equal(c.items[0], "json");
    assert_int_equal(complete(".timer o", &c, &ws), 2);
    assert_int_equal(complete(".e", &c, &ws), 1);
    assert_int_equal(complete("select zzz", &c, &ws), 0);
    /* In the middle of a line: the word before the cursor. */
    repl_cands_free(&c);
    assert_int_equal(repl_complete("fro STATS", 3, fields, 5, &c, &ws), 1);
    assert_string_equal(c.items[0], "from");
    repl_cands_free(&c);
}

static void test_complete_logformat(void **state)
{
    (void)state;
    char buf[64];
    assert_null(repl_complete_logformat("select $line", buf, sizeof buf));
    assert_string_equal(repl_complete_logformat("select a LOGFORMAT json where", buf, sizeof buf),
                        "json");
    assert_string_equal(repl_complete_logformat("logformat csv\nlogformat generickv", buf,
                                                sizeof buf), "generickv");
    assert_null(repl_complete_logformat("select mylogformat x", buf, sizeof buf));
}

/* Every word completion offers is one the parser takes. */
static void test_words_are_the_parsers(void **state)
{
    (void)state;
    for (size_t i = 0; repl_functions[i]; i++) {
        char q[256];
        const char *arg = !strcmp(repl_functions[i], "quantile(") ? "$line, 0.5"
                        : !strcmp(repl_functions[i], "top(")      ? "$line, 5"
                        : !strcmp(repl_functions[i], "bucket(")   ? "$line, 5m"
                        : !strcmp(repl_functions[i], "regex(")    ? "$line, \"a\""
                                                                  : "$line";
        snprintf(q, sizeof q, "select %s%s)", repl_functions[i], arg);
        query_t *pq;
        err_t e;
        if (query_parse(q, strlen(q), NULL, &pq, &e) != 0)
            fail_msg("function %s: %s", repl_functions[i], e.msg);
        query_free(pq);
    }
    /* Keywords: misspelt, the parser suggests a keyword; as written, it is
     * never reported as an unknown clause word. */
    for (size_t i = 0; repl_keywords[i]; i++) {
        char q[256];
        snprintf(q, sizeof q, "select a %s", repl_keywords[i]);
        query_t *pq;
        err_t e;
        if (query_parse(q, strlen(q), NULL, &pq, &e) == 0)
            query_free(pq);
        else if (strstr(e.msg, "unknown clause word"))
            fail_msg("keyword %s: %s", repl_keywords[i], e.msg);
    }
}

/* ---- schema ------------------------------------------------------------ */

static const extract_env_t env = {"host1", "UTC", "0"};

static const char *sample_of(const repl_schema_t *s, const char *name)
{
    for (size_t i = 0; i < s->n; i++)
        if (!strcmp(s->fields[i].name, name))
            return s->fields[i].sample ? s->fields[i].sample : "(none)";
    return NULL;
}

static void test_schema_default(void **state)
{
    (void)state;
    const char *text =
        "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|currentConnections=0|lifetimeConnections=1\n"
        "INFO|1002-071144|1|stats.go:56|8|14|7|0.21|471h0m22s|MAPREDUCE:STATS|currentConnections=2|extra=x\n"
        "junk line\n";
    assert_ptr_equal(repl_schema_guess(text, strlen(text)), logformat_find("default"));
    repl_schema_t s;
    err_t e;
    assert_int_equal(repl_schema_build(&s, logformat_find("default"), text, strlen(text), &env, &e), 0);
    assert_int_equal(s.n_lines, 3);
    assert_int_equal(s.n_parsed, 2);
    assert_string_equal(sample_of(&s, "$hostname"), "host1");
    assert_string_equal(sample_of(&s, "$time"), "1002-071143");
    assert_string_equal(sample_of(&s, "$goroutines"), "13");
    assert_string_equal(sample_of(&s, "currentConnections"), "0");
    assert_string_equal(sample_of(&s, "lifetimeConnections"), "1");
    assert_string_equal(sample_of(&s, "extra"), "x");
    repl_schema_free(&s);
}

static void test_schema_json_csv_kv(void **state)
{
    (void)state;
    repl_schema_t s;
    err_t e;
    const char *json = "{\"level\":\"info\",\"req\":{\"ms\":12,\"path\":\"/a\"}}\n{\"level\":\"warn\",\"other\":true}\n";
    assert_ptr_equal(repl_schema_guess(json, strlen(json)), logformat_find("json"));
    assert_int_equal(repl_schema_build(&s, logformat_find("json"), json, strlen(json), &env, &e), 0);
    assert_string_equal(sample_of(&s, "level"), "info");
    assert_string_equal(sample_of(&s, "req.ms"), "12");
    assert_string_equal(sample_of(&s, "req.path"), "/a");
    assert_non_null(sample_of(&s, "other"));
    repl_schema_free(&s);

    const char *csv = "name,\"count\",$time\nweb,3,1002-071143\n";
    assert_int_equal(repl_schema_build(&s, logformat_find("csv"), csv, strlen(csv), &env, &e), 0);
    assert_string_equal(sample_of(&s, "name"), "web");
    assert_string_equal(sample_of(&s, "count"), "3");
    assert_string_equal(sample_of(&s, "$time"), "1002-071143");
    repl_schema_free(&s);

    const char *kv = "a=1|b=two|bad\na=3|c=4";
    assert_ptr_equal(repl_schema_guess(kv, strlen(kv)), logformat_find("generickv"));
    assert_int_equal(repl_schema_build(&s, logformat_find("generickv"), kv, strlen(kv), &env, &e), 0);
    assert_string_equal(sample_of(&s, "b"), "two");
    assert_null(sample_of(&s, "c"));   /* the cut last line is not looked at */
    repl_schema_free(&s);

    assert_ptr_equal(repl_schema_guess("plain text\n", 11), logformat_find("generic"));
    assert_int_equal(repl_schema_build(&s, logformat_find("generic"), "", 0, &env, &e), 0);
    assert_string_equal(sample_of(&s, "$line"), "(none)");
    repl_schema_free(&s);
}

/* ---- memory inputs ------------------------------------------------------ */

static void test_data_budget(void **state)
{
    (void)state;
    char dir[] = "/tmp/test_repl.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char a[64], b[64];
    snprintf(a, sizeof a, "%s/a.log", dir);
    snprintf(b, sizeof b, "%s/b.log", dir);
    FILE *f = fopen(a, "w");
    for (int i = 0; i < 100; i++)
        fprintf(f, "line %d\n", i);
    fclose(f);
    f = fopen(b, "w");
    for (int i = 0; i < 1000; i++)
        fprintf(f, "other line %d\n", i);
    fclose(f);
    target_t t[3] = {{a, "a.log"}, {b, "b.log"}, {"/nonexistent/x", "x"}};
    repl_data_t d;
    client_run_t run = {"test", 0};
    err_t e;
    /* a fits in 2000 bytes, b does not. */
    assert_int_equal(repl_data_load(&d, t, 3, 2000, &run, &e), 0);
    assert_int_equal(run.status, 1);   /* the missing file was reported */
    assert_true(d.mem_fds[0] >= 0);
    assert_int_equal(d.mem_fds[1], -1);
    assert_int_equal(d.mem_fds[2], -1);
    assert_int_equal(d.bytes[0], 790);
    assert_true(d.sample_len == 790 && !memcmp(d.sample, "line 0\n", 7));
    char buf[8];
    assert_int_equal(pread(d.mem_fds[0], buf, 7, 0), 7);
    assert_memory_equal(buf, "line 0\n", 7);
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    repl_data_describe(&d, m);
    fclose(m);
    assert_non_null(strstr(text, "a.log\t0.8 KiB, in memory"));
    assert_non_null(strstr(text, "b.log\t14.5 KiB, re-scanned"));
    free(text);
    repl_data_free(&d);
    unlink(a);
    unlink(b);
    rmdir(dir);
}

/* ---- csv and json on the terminal -------------------------------------- */

static void test_show_text(void **state)
{
    (void)state;
    const char *qt = "select count($line), last($line), avg($line)";
    query_t *q;
    err_t e;
    assert_int_equal(query_parse(qt, strlen(qt), NULL, &q, &e), 0);
    const char *headers[] = {"count($line)", "last($line)", "avg($line)"};
    char *cells[] = {"3", "a,\"b\"", "1.500000", "10", "caf\xc3\xa9", "x"};
    result_t r = {.n_cols = 3, .n_rows = 2, .n_groups = 2, .headers = headers, .cells = cells};
    outbuf_t out;
    assert_int_equal(outbuf_init_mem(&out, 64, &e), 0);
    result_render_form(&r, query_plan(q), RESULT_FORM_CSV, &out, 1);
    outbuf_putc(&out, '\0');
    assert_string_equal(out.data, "count($line),last($line),avg($line)\n3,\"a,\"\"b\"\"\",1.500000\n"
                                  "10,caf\xc3\xa9,x\n");
    outbuf_reset(&out);
    result_render_form(&r, query_plan(q), RESULT_FORM_JSON, &out, 1);
    outbuf_putc(&out, '\0');
    assert_string_equal(out.data,
                        "{\"count($line)\":3,\"last($line)\":\"a,\\\"b\\\"\",\"avg($line)\":1.500000}\n"
                        "{\"count($line)\":10,\"last($line)\":\"caf\xc3\xa9\",\"avg($line)\":\"x\"}\n");
    outbuf_free(&out);
    query_free(q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cmd_parse),
        cmocka_unit_test(test_cmd_errors),
        cmocka_unit_test(test_lines),
        cmocka_unit_test(test_complete),
        cmocka_unit_test(test_complete_logformat),
        cmocka_unit_test(test_words_are_the_parsers),
        cmocka_unit_test(test_schema_default),
        cmocka_unit_test(test_schema_json_csv_kv),
        cmocka_unit_test(test_data_budget),
        cmocka_unit_test(test_show_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
