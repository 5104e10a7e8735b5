/* test_sqlite_out.c: the SQLite export on real files, read back through
 * SQLite: column types and names (odd characters, duplicates), table
 * naming, the queries table, appends with run ids, schema mismatches and
 * failing writes that must leave the path as it was and no temporary file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec/sink/outfile.h"
#include "exec/sink/sqlite_out.h"
#include "parser/parser.h"
#include "tests/support/tmpdir.h"

static char dir[64];
static char path[4200];

static int setup(void **state)
{
    (void)state;
    if (tmpdir_make(dir, sizeof dir, "test_sqlite_out") < 0)
        return -1;
    snprintf(path, sizeof path, "%s/out.sqlite", dir);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    return tmpdir_remove(dir);
}

static int dir_entries(void)
{
    return tmpdir_count(dir);
}

static query_t *parse(const char *text)
{
    query_t *q = NULL;
    err_t e;
    if (query_parse(text, strlen(text), NULL, &q, &e) != 0)
        fail_msg("query %s: %s", text, e.msg);
    return q;
}

/* A result of n_rows rows whose cells are given row-major. */
static result_t make_result(const plan_t *plan, const char *const *cells, size_t n_rows)
{
    result_t r = {.n_cols = plan->n_select, .n_rows = n_rows, .n_groups = n_rows};
    r.headers = calloc(plan->n_select, sizeof *r.headers);
    r.cells = calloc(n_rows * plan->n_select + 1, sizeof *r.cells);
    for (size_t c = 0; c < plan->n_select; c++)
        r.headers[c] = plan->select[c].name;
    for (size_t i = 0; i < n_rows * plan->n_select; i++)
        r.cells[i] = (char *)cells[i];
    return r;
}

static void drop_result(result_t *r)
{
    free(r->headers);
    free(r->cells);
}

static const outfile_input_t FILES[] = {
    {.file = "/var/log/a.log", .bytes = 4000, .lines = 90},
    {.file = "/var/log/b,c.log", .bytes = 96, .lines = 10}};

static int write_plan(const plan_t *plan, int append, const char *const *cells, size_t n_rows,
                      err_t *e)
{
    map_stats_t st = {.lines_read = 100, .lines_parsed = 90, .lines_unparsed = 10,
                      .lines_selected = 80, .bytes_read = 4096};
    outfile_info_t info = {.query = "the query text", .start = {1700000000, 123000000},
                           .end = {1700000001, 456000000}, .inputs = FILES, .n_inputs = 2,
                           .stats = &st};
    result_t r = make_result(plan, cells, n_rows);
    err_clear(e);
    int rc = sqlite_out_write(plan, path, append, &r, &info, e);
    drop_result(&r);
    return rc;
}

/* First column of the first row of sql against the output file, as text
 * (NULL prints as "NULL"); rows joined by '\n', columns by '|'. */
static char *sql1(const char *sql)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
        fail_msg("%s: %s", sql, sqlite3_errmsg(db));
    sqlite3_str *s = sqlite3_str_new(NULL);
    int rows = 0;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (rows++)
            sqlite3_str_appendall(s, "\n");
        for (int c = 0; c < sqlite3_column_count(st); c++) {
            const char *v = (const char *)sqlite3_column_text(st, c);
            sqlite3_str_appendf(s, "%s%s", c ? "|" : "", v ? v : "NULL");
        }
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    char *out = strdup(sqlite3_str_value(s) ? sqlite3_str_value(s) : "");
    sqlite3_free(sqlite3_str_finish(s));
    return out;
}

static void expect_sql(const char *sql, const char *want)
{
    char *got = sql1(sql);
    if (strcmp(got, want) != 0)
        fail_msg("%s\n got: %s\nwant: %s", sql, got, want);
    free(got);
}

static void test_types_and_queries_row(void **state)
{
    (void)state;
    query_t *q = parse("from STATS select count($line),avg($goroutines),last($time),len($time),"
                       "max($goroutines),$hostname group by $hostname outfile x.sqlite");
    static const char *const cells[] = {
        "597", "11.628141", "1002-071949", "11.000000", "17.000000", "host,1",
        "3", "0.500000", "", "0.000000", "-2.000000", "h\"2"};
    err_t e;
    assert_int_equal(write_plan(query_plan(q), 0, cells, 2, &e), 0);
    expect_sql("SELECT name, type FROM pragma_table_info('STATS')",
               "run_id|INTEGER\nrun_time|TEXT\ncount($line)|INTEGER\navg($goroutines)|REAL\n"
               "last($time)|TEXT\nlen($time)|INTEGER\nmax($goroutines)|REAL\n$hostname|TEXT");
    expect_sql("SELECT run_id, run_time, typeof(\"count($line)\"), \"count($line)\", "
               "typeof(\"avg($goroutines)\"), printf('%f', \"avg($goroutines)\"), "
               "typeof(\"last($time)\"), \"last($time)\", typeof(\"len($time)\"), \"len($time)\", "
               "\"max($goroutines)\", \"$hostname\" FROM STATS ORDER BY rowid",
               "1|2023-11-14T22:13:21.456Z|integer|597|real|11.628141|text|1002-071949|integer|11|"
               "17.0|host,1\n"
               "1|2023-11-14T22:13:21.456Z|integer|3|real|0.500000|text||integer|0|-2.0|h\"2");
    expect_sql("SELECT run_id, result_table, query, start_time, end_time, files, servers, rows, "
               "groups, lines_read, lines_parsed, lines_unparsed, lines_selected, bytes_read, "
               "partial, failures FROM queries",
               "1|STATS|the query text|2023-11-14T22:13:20.123Z|2023-11-14T22:13:21.456Z|"
               "[\"/var/log/a.log\",\"/var/log/b,c.log\"]|[]|2|2|100|90|10|80|4096|0|[]");
    expect_sql("SELECT run_id, seq, server, file, status, bytes_read, lines_read, error "
               "FROM query_inputs ORDER BY seq",
               "1|1|NULL|/var/log/a.log|ok|4000|90|NULL\n1|2|NULL|/var/log/b,c.log|ok|96|10|NULL");
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644);
    assert_int_equal(dir_entries(), 1);   /* no temporary file left */
    query_free(q);
}

static void test_odd_names(void **state)
{
    (void)state;
    query_t *q = parse("select count($line),count($line),last($line) outfile x.sqlite");
    plan_t p = *query_plan(q);
    plan_select_t sel[3] = {p.select[0], p.select[1], p.select[2]};
    sel[2].name = "we\"ird `name` [x]; DROP TABLE queries; --";
    p.select = sel;
    static const char *const cells[] = {"1", "2", "v"};
    err_t e;
    assert_int_equal(write_plan(&p, 0, cells, 1, &e), 0);
    expect_sql("SELECT name FROM pragma_table_info('result')",
               "run_id\nrun_time\ncount($line)\ncount($line)_2\n"
               "we\"ird `name` [x]; DROP TABLE queries; --");
    expect_sql("SELECT \"count($line)_2\", \"we\"\"ird `name` [x]; DROP TABLE queries; --\" "
               "FROM result", "2|v");

    /* Names that collide with the run columns, in any case. */
    sel[0].name = "RUN_ID";
    sel[1].name = "run_time";
    assert_int_equal(write_plan(&p, 0, cells, 1, &e), 0);
    expect_sql("SELECT group_concat(name, ',') FROM pragma_table_info('result')",
               "run_id,run_time,RUN_ID_2,run_time_2,we\"ird `name` [x]; DROP TABLE queries; --");
    query_free(q);
}

static void test_table_names(void **state)
{
    (void)state;
    static const char *const cells[] = {"7"};
    static const struct { const char *table; const char *want; } cases[] = {
        {NULL, "result"}, {".", "result"}, {"", "result"}, {"QUERIES", "result_QUERIES"},
        {"query_inputs", "result_query_inputs"}, {"SQLITE_MASTER", "result_SQLITE_MASTER"},
        {"MY \"T\"", "MY \"T\""}, {"STATS", "STATS"}};
    query_t *q = parse("select count($line) outfile x.sqlite");
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        plan_t p = *query_plan(q);
        p.table = cases[i].table;
        err_t e;
        if (write_plan(&p, 0, cells, 1, &e) != 0)
            fail_msg("table %s: %s", cases[i].table ? cases[i].table : "NULL", e.msg);
        expect_sql("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN "
                   "('queries', 'query_inputs')", cases[i].want);
        expect_sql("SELECT result_table FROM queries", cases[i].want);
    }
    query_free(q);
}

static void test_append_run_ids(void **state)
{
    (void)state;
    query_t *q = parse("from STATS select count($line),$hostname group by $hostname "
                       "outfile append x.sqlite");
    static const char *const run1[] = {"1", "a", "2", "b"};
    static const char *const run2[] = {"3", "a"};
    static const char *const run3[] = {"4", "a", "5", "b", "6", "c"};
    err_t e;
    /* The first append creates the file. */
    assert_int_equal(write_plan(query_plan(q), 1, run1, 2, &e), 0);
    assert_int_equal(write_plan(query_plan(q), 1, run2, 1, &e), 0);
    assert_int_equal(write_plan(query_plan(q), 1, run3, 3, &e), 0);
    expect_sql("SELECT run_id, count(*), group_concat(\"count($line)\" || \"$hostname\", ' ') "
               "FROM STATS GROUP BY run_id ORDER BY run_id",
               "1|2|1a 2b\n2|1|3a\n3|3|4a 5b 6c");
    expect_sql("SELECT run_id, rows FROM queries ORDER BY run_id", "1|2\n2|1\n3|3");
    expect_sql("SELECT count(*) FROM query_inputs", "6");
    assert_int_equal(dir_entries(), 1);

    /* Without append the file is replaced: one run again. */
    assert_int_equal(write_plan(query_plan(q), 0, run2, 1, &e), 0);
    expect_sql("SELECT run_id, \"count($line)\" FROM STATS", "1|3");
    expect_sql("SELECT count(*) FROM queries", "1");
    query_free(q);
}

static char *slurp(const char *p, size_t *len)
{
    FILE *f = fopen(p, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    rewind(f);
    char *b = malloc(*len + 1);
    assert_int_equal(fread(b, 1, *len, f), *len);
    b[*len] = '\0';
    fclose(f);
    return b;
}

static void expect_unchanged(const char *before, size_t before_len)
{
    size_t len;
    char *now = slurp(path, &len);
    assert_int_equal(len, before_len);
    assert_memory_equal(now, before, len);
    free(now);
}

static void test_schema_mismatch(void **state)
{
    (void)state;
    query_t *a = parse("from STATS select count($line),$hostname group by $hostname outfile x.db");
    query_t *b = parse("from STATS select $hostname,count($line) group by $hostname outfile x.db");
    query_t *c = parse("from STATS select sum($line),$hostname group by $hostname outfile x.db");
    static const char *const cells[] = {"1", "a"};
    err_t e;
    assert_int_equal(write_plan(query_plan(a), 0, cells, 1, &e), 0);
    size_t len;
    char *before = slurp(path, &len);
    assert_int_equal(write_plan(query_plan(b), 1, cells, 1, &e), -1);
    assert_non_null(strstr(e.msg, path));
    assert_non_null(strstr(e.msg, "table \"STATS\""));
    assert_non_null(strstr(e.msg, "(\"run_id\" INTEGER, \"run_time\" TEXT, \"count($line)\" "
                                  "INTEGER, \"$hostname\" TEXT)"));
    assert_non_null(strstr(e.msg, "\"$hostname\" TEXT, \"count($line)\" INTEGER)"));
    expect_unchanged(before, len);
    /* Same names, another type. */
    assert_int_equal(write_plan(query_plan(c), 1, cells, 1, &e), -1);
    assert_non_null(strstr(e.msg, "schema mismatch"));
    expect_unchanged(before, len);
    assert_int_equal(dir_entries(), 1);
    /* Another table in the same file is fine. */
    plan_t p = *query_plan(b);
    p.table = "OTHER";
    assert_int_equal(write_plan(&p, 1, cells, 1, &e), 0);
    expect_sql("SELECT run_id, result_table FROM queries", "1|STATS\n2|OTHER");
    free(before);
    query_free(a);
    query_free(b);
    query_free(c);
}

static void test_not_a_database(void **state)
{
    (void)state;
    FILE *f = fopen(path, "w");
    fputs("count,host\n1,a\n", f);
    fclose(f);
    query_t *q = parse("select count($line) outfile append x.sqlite");
    static const char *const cells[] = {"1"};
    err_t e;
    assert_int_equal(write_plan(query_plan(q), 1, cells, 1, &e), -1);
    assert_non_null(strstr(e.msg, path));
    assert_non_null(strstr(e.msg, "not an SQLite database"));
    expect_unchanged("count,host\n1,a\n", 15);
    assert_int_equal(dir_entries(), 1);
    query_free(q);
}

/* A result big enough to hit a 256 KiB file size limit mid-write. */
static int write_big(const plan_t *plan, int append, err_t *e)
{
    size_t n = 20000;
    const char **cells = calloc(n * 2, sizeof *cells);
    for (size_t i = 0; i < n; i++) {
        cells[2 * i] = "12345";
        cells[2 * i + 1] = "a fairly long host name to fill pages quickly";
    }
    int rc = write_plan(plan, append, cells, n, e);
    free(cells);
    return rc;
}

static void test_failed_write_leaves_nothing(void **state)
{
    (void)state;
    query_t *q = parse("select count($line),$hostname group by $hostname outfile x.sqlite");
    struct rlimit old, lim = {256 * 1024, 256 * 1024};
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim.rlim_max = old.rlim_max;
    void (*prev)(int) = signal(SIGXFSZ, SIG_IGN);   /* a write fails with EFBIG instead */
    err_t e;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    int rc_new = write_big(query_plan(q), 0, &e);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    assert_int_equal(rc_new, -1);
    assert_non_null(strstr(e.msg, path));
    assert_int_equal(dir_entries(), 0);   /* neither the file nor a temporary one */

    /* Over an existing file: replace and append both fail and keep it. */
    static const char *const cells[] = {"1", "a"};
    assert_int_equal(write_plan(query_plan(q), 0, cells, 1, &e), 0);
    size_t len;
    char *before = slurp(path, &len);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    int rc_replace = write_big(query_plan(q), 0, &e);
    int rc_append = write_big(query_plan(q), 1, &e);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, prev);
    assert_int_equal(rc_replace, -1);
    assert_int_equal(rc_append, -1);
    expect_unchanged(before, len);
    assert_int_equal(dir_entries(), 1);
    expect_sql("SELECT count(*) FROM queries", "1");
    free(before);
    query_free(q);
}

static void test_missing_directory(void **state)
{
    (void)state;
    query_t *q = parse("select count($line) outfile x.sqlite");
    static const char *const cells[] = {"1"};
    char saved[sizeof path];
    memcpy(saved, path, sizeof path);
    snprintf(path, sizeof path, "%s/no/such/dir/x.sqlite", dir);
    err_t e;
    assert_int_equal(write_plan(query_plan(q), 0, cells, 1, &e), -1);
    assert_non_null(strstr(e.msg, path));
    assert_int_equal(write_plan(query_plan(q), 1, cells, 1, &e), -1);
    memcpy(path, saved, sizeof path);
    assert_int_equal(dir_entries(), 0);
    query_free(q);
}

/* Servers: every server of the run and those the inputs name, once each,
 * sorted; the query_inputs rows name their server. */
static void test_servers(void **state)
{
    (void)state;
    query_t *q = parse("select count($line) outfile x.sqlite");
    static const char *const cells[] = {"1"};
    static const char *const servers[] = {"web\"2", "db\\1"};
    outfile_input_t in[] = {{.server = "web1", .file = "/var/log/a.log", .bytes = -1, .lines = -1},
                            {.server = "web1", .file = "/var/log/b,c.log", .bytes = -1, .lines = -1}};
    outfile_info_t info = {.query = "q", .inputs = in, .n_inputs = 2, .servers = servers,
                           .n_servers = 2};
    result_t r = make_result(query_plan(q), cells, 1);
    err_t e;
    assert_int_equal(sqlite_out_write(query_plan(q), path, 0, &r, &info, &e), 0);
    expect_sql("SELECT servers, json_array_length(servers) FROM queries",
               "[\"db\\\\1\",\"web\\\"2\",\"web1\"]|3");
    expect_sql("SELECT group_concat(server || ':' || file, ' ') FROM query_inputs",
               "web1:/var/log/a.log web1:/var/log/b,c.log");
    /* Counts unknown: NULL, and so are the run's sums. */
    expect_sql("SELECT count(*), bytes_read IS NULL, lines_read IS NULL FROM query_inputs",
               "2|1|1");
    expect_sql("SELECT bytes_read IS NULL, lines_read IS NULL, partial FROM queries", "1|1|0");
    /* A server and no files (a remote run that names no paths). */
    info.n_inputs = 0;
    info.n_servers = 1;
    assert_int_equal(sqlite_out_write(query_plan(q), path, 0, &r, &info, &e), 0);
    expect_sql("SELECT files, servers FROM queries", "[]|[\"web\\\"2\"]");
    drop_result(&r);
    query_free(q);
}

/* A run with failed inputs is partial: the failures are listed, each
 * input has its status; without the scan's counts, the run's bytes and
 * lines are the sums of its inputs'. */
static void test_partial(void **state)
{
    (void)state;
    query_t *q = parse("select count($line) outfile x.sqlite");
    static const char *const cells[] = {"1"};
    outfile_input_t in[] = {
        {.server = "a:22", .file = "x.log", .bytes = 100, .lines = 4},
        {.server = "a:22", .file = "gone.log", .status = OUTFILE_INPUT_NOT_FOUND,
         .error = "No such file", .bytes = -1, .lines = -1},
        {.server = "b:22", .file = "x.log", .status = OUTFILE_INPUT_SERVER_FAILED,
         .error = "cannot connect", .bytes = -1, .lines = -1}};
    outfile_info_t info = {.query = "q", .inputs = in, .n_inputs = 3};
    assert_true(outfile_info_partial(&info));
    char text[512];
    outfile_partial_text(&info, text, sizeof text);
    assert_string_equal(text, "partial result: 2 of 3 inputs failed: gone.log on a:22: not found: "
                              "No such file; x.log on b:22: server failed: cannot connect");
    outfile_partial_text(&info, text, 20);
    assert_string_equal(text, "partial result: ...");
    result_t r = make_result(query_plan(q), cells, 1);
    err_t e;
    assert_int_equal(sqlite_out_write(query_plan(q), path, 0, &r, &info, &e), 0);
    expect_sql("SELECT partial, failures, bytes_read, lines_read FROM queries",
               "1|[\"gone.log on a:22: not found: No such file\","
               "\"x.log on b:22: server failed: cannot connect\"]|100|4");
    expect_sql("SELECT group_concat(status || '/' || coalesce(error, '-'), ' ') FROM query_inputs",
               "ok/- not found/No such file server failed/cannot connect");
    /* Clean: not partial, no failures; partial set by the caller alone. */
    info.n_inputs = 1;
    assert_false(outfile_info_partial(&info));
    assert_int_equal(sqlite_out_write(query_plan(q), path, 0, &r, &info, &e), 0);
    expect_sql("SELECT partial, failures FROM queries", "0|[]");
    info.partial = 1;
    assert_true(outfile_info_partial(&info));
    assert_int_equal(sqlite_out_write(query_plan(q), path, 0, &r, &info, &e), 0);
    expect_sql("SELECT partial, failures FROM queries", "1|[]");
    drop_result(&r);
    query_free(q);
}

/* A file written before the accounting columns: an append adds them (old
 * rows keep NULL counts and partial 0) and records the new run fully. */
static void test_append_to_first_layout(void **state)
{
    (void)state;
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db,
        "CREATE TABLE queries (run_id INTEGER PRIMARY KEY, result_table TEXT NOT NULL, "
        "query TEXT NOT NULL, start_time TEXT NOT NULL, end_time TEXT NOT NULL, files TEXT NOT NULL, "
        "servers TEXT NOT NULL, rows INTEGER NOT NULL, groups INTEGER NOT NULL, lines_read INTEGER, "
        "lines_parsed INTEGER, lines_unparsed INTEGER, lines_selected INTEGER, bytes_read INTEGER);"
        "CREATE TABLE query_inputs (run_id INTEGER NOT NULL REFERENCES queries(run_id), "
        "seq INTEGER NOT NULL, server TEXT, file TEXT NOT NULL, PRIMARY KEY (run_id, seq));"
        "CREATE TABLE result (run_id INTEGER NOT NULL, run_time TEXT NOT NULL, "
        "\"count($line)\" INTEGER);"
        "INSERT INTO queries VALUES (1, 'result', 'q', 't0', 't1', '[\"old.log\"]', '[]', 1, 1, "
        "5, 5, 0, 5, 50);"
        "INSERT INTO query_inputs VALUES (1, 1, NULL, 'old.log');"
        "INSERT INTO result VALUES (1, 't1', 5);", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    query_t *q = parse("select count($line) outfile append x.sqlite");
    static const char *const cells[] = {"7"};
    result_t r = make_result(query_plan(q), cells, 1);
    outfile_input_t in[] = {{.file = "new.log", .bytes = 70, .lines = 7}};
    outfile_info_t info = {.query = "q", .inputs = in, .n_inputs = 1};
    err_t e;
    assert_int_equal(sqlite_out_write(query_plan(q), path, 1, &r, &info, &e), 0);
    expect_sql("SELECT run_id, partial, failures IS NULL, bytes_read FROM queries ORDER BY run_id",
               "1|0|1|50\n2|0|0|70");
    expect_sql("SELECT run_id, file, status, bytes_read IS NULL FROM query_inputs ORDER BY run_id",
               "1|old.log|ok|1\n2|new.log|ok|0");
    /* And a file whose bookkeeping is neither layout is refused. */
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "ALTER TABLE query_inputs ADD COLUMN other TEXT", NULL, NULL,
                                  NULL), SQLITE_OK);
    sqlite3_close(db);
    assert_int_equal(sqlite_out_write(query_plan(q), path, 1, &r, &info, &e), -1);
    assert_non_null(strstr(e.msg, "schema mismatch: table \"query_inputs\""));
    expect_sql("SELECT count(*) FROM queries", "2");
    drop_result(&r);
    query_free(q);
}

/* outfile_write picks the writer by the plan's format. */
static void test_dispatch(void **state)
{
    (void)state;
    static const char *const cells[] = {"1", "a,b"};
    char text[4400];
    snprintf(text, sizeof text, "select count($line),$hostname group by $hostname outfile %s/o.csv",
             dir);
    query_t *q = parse(text);
    outfile_info_t info = {.query = text};
    result_t r = make_result(query_plan(q), cells, 1);
    err_t e;
    assert_int_equal(outfile_write(query_plan(q), &r, &info, &e), 0);
    snprintf(text, sizeof text, "%s/o.csv", dir);
    size_t len;
    char *csv = slurp(text, &len);
    assert_string_equal(csv, "count($line),$hostname\n1,\"a,b\"\n");
    free(csv);
    query_free(q);
    snprintf(text, sizeof text, "select count($line),$hostname group by $hostname outfile %s",
             path);
    q = parse(text);
    assert_int_equal(query_plan(q)->outfile_format, PLAN_OUT_SQLITE);
    assert_int_equal(outfile_write(query_plan(q), &r, &info, &e), 0);
    expect_sql("SELECT \"$hostname\", files, lines_read FROM result, queries", "a,b|[]|NULL");
    drop_result(&r);
    query_free(q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_types_and_queries_row, setup, teardown),
        cmocka_unit_test_setup_teardown(test_odd_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_table_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_append_run_ids, setup, teardown),
        cmocka_unit_test_setup_teardown(test_schema_mismatch, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_a_database, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_write_leaves_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_directory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_servers, setup, teardown),
        cmocka_unit_test_setup_teardown(test_partial, setup, teardown),
        cmocka_unit_test_setup_teardown(test_append_to_first_layout, setup, teardown),
        cmocka_unit_test_setup_teardown(test_dispatch, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
