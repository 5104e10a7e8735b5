/* sqlite_out.c: result tables, the queries table, atomic new files and
 * in-place appends (schema in sqlite_out.h). */
#include "exec/sink/sqlite_out.h"

#include "base/grow.h"
#include "exec/sink/outpath.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RUN_COLS 2   /* run_id, run_time lead every result table */

/* The two bookkeeping tables, column by column in order: an append checks
 * the names, and a file written before the accounting columns (the
 * first *_V1 of them) gets the rest added in its append's transaction. */
static const char *const QUERIES_COLS[] = {
    "run_id", "result_table", "query", "start_time", "end_time", "files", "servers",
    "rows", "groups", "lines_read", "lines_parsed", "lines_unparsed", "lines_selected",
    "bytes_read", "partial", "failures"};
static const char *const QUERIES_DECLS[] = {
    "INTEGER PRIMARY KEY", "TEXT NOT NULL", "TEXT NOT NULL", "TEXT NOT NULL", "TEXT NOT NULL",
    "TEXT NOT NULL", "TEXT NOT NULL", "INTEGER NOT NULL", "INTEGER NOT NULL", "INTEGER",
    "INTEGER", "INTEGER", "INTEGER", "INTEGER", "INTEGER NOT NULL DEFAULT 0", "TEXT"};
#define QUERIES_V1 14
static const char *const INPUTS_COLS[] = {"run_id", "seq", "server", "file", "status",
                                          "bytes_read", "lines_read", "error"};
static const char *const INPUTS_DECLS[] = {
    "INTEGER NOT NULL REFERENCES queries(run_id)", "INTEGER NOT NULL", "TEXT", "TEXT NOT NULL",
    "TEXT NOT NULL DEFAULT 'ok'", "INTEGER", "INTEGER", "TEXT"};
#define INPUTS_V1 4
#define N_QUERIES_COLS (sizeof QUERIES_COLS / sizeof *QUERIES_COLS)
#define N_INPUTS_COLS (sizeof INPUTS_COLS / sizeof *INPUTS_COLS)

static const char *const TYPE_NAMES[] = {"TEXT", "INTEGER", "REAL"};

enum sqlite_col_type sqlite_out_col_type(enum plan_agg agg)
{
    switch (agg) {
    case PLAN_AGG_COUNT:
    case PLAN_AGG_LEN:
    case PLAN_AGG_COUNT_DISTINCT:
        return SQLITE_COL_INTEGER;
    case PLAN_AGG_LAST:
    case PLAN_AGG_TOP:
        return SQLITE_COL_TEXT;
    default:
        return SQLITE_COL_REAL;
    }
}

/* The result table's name and columns for one plan. */
typedef struct schema {
    char *table;                    /* sqlite3_malloc'd */
    size_t n_cols;                  /* RUN_COLS + select items + their flags */
    char **names;                   /* sqlite3_malloc'd each */
    enum sqlite_col_type *types;
    size_t *item;                   /* past RUN_COLS: the select item shown */
    unsigned char *flag;            /* ... 1: its "<name>_approx" flag (0/1) */
} schema_t;

static void schema_free(schema_t *s)
{
    for (size_t i = 0; s->names && i < s->n_cols; i++)
        sqlite3_free(s->names[i]);
    free(s->names);
    free(s->types);
    free(s->item);
    free(s->flag);
    sqlite3_free(s->table);
    memset(s, 0, sizeof *s);
}

static int name_taken(char *const *names, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (sqlite3_stricmp(names[i], name) == 0)
            return 1;
    return 0;
}

/* SQLite compares identifiers without case: a select item whose name
 * another column already has (or run_id / run_time) gets "_2", "_3"... */
static char *unique_name(char *const *names, size_t n, const char *name)
{
    char *u = sqlite3_mprintf("%s", name);
    for (int k = 2; u && name_taken(names, n, u); k++) {
        sqlite3_free(u);
        u = sqlite3_mprintf("%s_%d", name, k);
    }
    return u;
}

static int schema_build(const plan_t *plan, schema_t *s, err_t *e)
{
    memset(s, 0, sizeof *s);
    s->n_cols = RUN_COLS + plan->n_columns;
    for (size_t i = 0; i < plan->n_columns; i++)
        s->n_cols += sqlite_out_may_approx(plan->select[i].agg);
    s->names = calloc(s->n_cols, sizeof *s->names);
    s->types = calloc(s->n_cols, sizeof *s->types);
    s->item = calloc(s->n_cols, sizeof *s->item);
    s->flag = calloc(s->n_cols, sizeof *s->flag);
    if (!s->names || !s->types || !s->item || !s->flag)
        goto nomem;
    s->names[0] = sqlite3_mprintf("run_id");
    s->types[0] = SQLITE_COL_INTEGER;
    s->names[1] = sqlite3_mprintf("run_time");
    s->types[1] = SQLITE_COL_TEXT;
    for (size_t i = 0, c = RUN_COLS; i < plan->n_columns; i++) {
        s->item[c] = i;
        s->names[c] = unique_name(s->names, c, plan->select[i].name);
        s->types[c] = sqlite_out_col_type(plan->select[i].agg);
        if (!s->names[c++])
            goto nomem;
        if (!sqlite_out_may_approx(plan->select[i].agg))
            continue;
        /* whether the cell beside it is an estimate (docs/sqlite-export.md) */
        char *flag = sqlite3_mprintf("%s_approx", plan->select[i].name);
        s->item[c] = i;
        s->flag[c] = 1;
        s->names[c] = flag ? unique_name(s->names, c, flag) : NULL;
        s->types[c] = SQLITE_COL_INTEGER;
        sqlite3_free(flag);
        if (!s->names[c++])
            goto nomem;
    }
    /* "." is the csv format's table without from; the bookkeeping tables'
     * names and SQLite's own prefix are not available to results. */
    const char *t = plan->table && plan->table[0] && strcmp(plan->table, ".") != 0
                        ? plan->table : "result";
    if (sqlite3_stricmp(t, "queries") == 0 || sqlite3_stricmp(t, "query_inputs") == 0 ||
        sqlite3_strnicmp(t, "sqlite_", 7) == 0)
        s->table = sqlite3_mprintf("result_%s", t);
    else
        s->table = sqlite3_mprintf("%s", t);
    if (!s->names[0] || !s->names[1] || !s->table)
        goto nomem;
    return 0;
nomem:
    schema_free(s);
    return err_set(e, ERR_NOMEM, "out of memory preparing the SQLite schema");
}

/* One open output database and what went wrong in it. */
typedef struct out_db {
    sqlite3 *db;
    const char *path;               /* the outfile, for messages */
    err_t *e;
} out_db_t;

static int db_fail(out_db_t *o, const char *what)
{
    if (o->db && (sqlite3_extended_errcode(o->db) & 0xff) == SQLITE_NOTADB)
        return err_set(o->e, ERR_IO, "outfile %s: not an SQLite database; the file was left "
                                     "unchanged", o->path);
    return err_set(o->e, ERR_IO, "outfile %s: %s: %s", o->path, what,
                   o->db ? sqlite3_errmsg(o->db) : "cannot open");
}

static int db_exec(out_db_t *o, const char *sql, const char *what)
{
    if (sqlite3_exec(o->db, sql, NULL, NULL, NULL) != SQLITE_OK)
        return db_fail(o, what);
    return 0;
}

/* Runs the statement built in q (sqlite3_str of o->db) and frees it. */
static int db_exec_built(out_db_t *o, sqlite3_str *q, const char *what)
{
    char *sql = sqlite3_str_finish(q);
    if (!sql)
        return err_set(o->e, ERR_NOMEM, "outfile %s: out of memory", o->path);
    int rc = db_exec(o, sql, what);
    sqlite3_free(sql);
    return rc;
}

static void free_columns(char **names, char **types, int n)
{
    for (int i = 0; i < n; i++) {
        sqlite3_free(names[i]);
        sqlite3_free(types[i]);
    }
    free(names);
    free(types);
}

/* Names and declared types of table `name`'s columns (free_columns);
 * 0 columns when the table does not exist. Returns the count or -1. */
static int table_columns(out_db_t *o, const char *name, char ***names, char ***types)
{
    sqlite3_stmt *st = NULL;
    /* The table-valued pragma takes the name as a bound value. */
    if (sqlite3_prepare_v2(o->db, "SELECT name, type FROM pragma_table_info(?1) ORDER BY cid",
                           -1, &st, NULL) != SQLITE_OK)
        return db_fail(o, "reading the schema");
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int n = 0, rc;
    size_t cap_names = 0, cap_types = 0;
    *names = NULL;
    *types = NULL;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (GROW_ARRAY(*names, cap_names, (size_t)n + 1, 16) < 0 ||
            GROW_ARRAY(*types, cap_types, (size_t)n + 1, 16) < 0) {
            rc = SQLITE_NOMEM;
            break;
        }
        (*names)[n] = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(st, 0));
        (*types)[n] = sqlite3_mprintf("%s", (const char *)sqlite3_column_text(st, 1));
        n++;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        free_columns(*names, *types, n);
        return db_fail(o, "reading the schema");
    }
    return n;
}

static char *describe(char *const *names, char *const *types, size_t n)
{
    sqlite3_str *s = sqlite3_str_new(NULL);
    for (size_t i = 0; i < n; i++)
        sqlite3_str_appendf(s, "%s\"%w\"%s%s", i ? ", " : "", names[i] ? names[i] : "?",
                            types ? " " : "", types && types[i] ? types[i] : "");
    return sqlite3_str_finish(s);
}

/* Checks that table `name` has exactly the wanted columns (or does not
 * exist: *exists = 0); want_types NULL compares names only. A difference
 * is an error naming both lists. */
static int check_table(out_db_t *o, const char *name, char *const *want, char *const *want_types,
                       size_t n_want, int *exists)
{
    char **have = NULL, **have_types = NULL;
    int n = table_columns(o, name, &have, &have_types);
    if (n < 0)
        return -1;
    *exists = n > 0;
    int same = n == 0 || (size_t)n == n_want;
    for (size_t i = 0; same && n > 0 && i < n_want; i++)
        same = have[i] && have_types[i] && strcmp(have[i], want[i]) == 0 &&
               (!want_types || sqlite3_stricmp(have_types[i], want_types[i]) == 0);
    if (!same) {
        char *h = describe(have, have_types, (size_t)n);
        char *w = describe(want, want_types, n_want);
        err_set(o->e, ERR_IO,
                "outfile %s: schema mismatch: table \"%s\" has columns (%s) but this query "
                "writes (%s); the file was left unchanged (write to a new file, or drop the "
                "table)", o->path, name, h ? h : "?", w ? w : "?");
        sqlite3_free(h);
        sqlite3_free(w);
    }
    free_columns(have, have_types, n);
    return same ? 0 : -1;
}

static int create_result_table(out_db_t *o, const schema_t *s)
{
    sqlite3_str *q = sqlite3_str_new(o->db);
    sqlite3_str_appendf(q, "CREATE TABLE \"%w\" (", s->table);
    for (size_t i = 0; i < s->n_cols; i++)
        sqlite3_str_appendf(q, "%s\"%w\" %s%s", i ? ", " : "", s->names[i],
                            TYPE_NAMES[s->types[i]], i < RUN_COLS ? " NOT NULL" : "");
    sqlite3_str_appendall(q, ")");
    return db_exec_built(o, q, "creating the result table");
}

/* One bookkeeping table as this build writes it: created when missing;
 * one of the first layout (its first n_v1 columns exactly) gets the later
 * columns added; any other layout is a mismatch. Without apply it only
 * checks, so that a mismatch is found before anything is changed. */
static int prepare_bookkeeping(out_db_t *o, const char *name, const char *const *cols,
                               const char *const *decls, size_t n, size_t n_v1,
                               const char *constraint, int apply)
{
    char **have = NULL, **have_types = NULL;
    int n_have = table_columns(o, name, &have, &have_types);
    if (n_have < 0)
        return -1;
    int v1 = (size_t)n_have == n_v1;
    for (size_t i = 0; v1 && i < n_v1; i++)
        v1 = have[i] && strcmp(have[i], cols[i]) == 0;
    free_columns(have, have_types, n_have);
    if (!v1 && n_have > 0) {
        int exists;
        return check_table(o, name, (char *const *)cols, NULL, n, &exists);
    }
    if (!apply || (size_t)n_have == n)
        return 0;
    sqlite3_str *q = sqlite3_str_new(o->db);
    if (n_have == 0) {
        sqlite3_str_appendf(q, "CREATE TABLE %s (", name);
        for (size_t i = 0; i < n; i++)
            sqlite3_str_appendf(q, "%s%s %s", i ? ", " : "", cols[i], decls[i]);
        sqlite3_str_appendf(q, "%s)", constraint);
    } else {
        for (size_t i = n_v1; i < n; i++)
            sqlite3_str_appendf(q, "ALTER TABLE %s ADD COLUMN %s %s;", name, cols[i], decls[i]);
    }
    return db_exec_built(o, q, "preparing the bookkeeping tables");
}

/* Makes the file ready for a run: bookkeeping tables and the result table
 * exist with the expected columns. Nothing is written on a mismatch. */
static int prepare_schema(out_db_t *o, const schema_t *s)
{
    int exists;
    char **want_types = calloc(s->n_cols, sizeof *want_types);
    if (!want_types)
        return err_set(o->e, ERR_NOMEM, "outfile %s: out of memory", o->path);
    for (size_t i = 0; i < s->n_cols; i++)
        want_types[i] = (char *)TYPE_NAMES[s->types[i]];
    /* Every check before the first change: a mismatch changes nothing. */
    int rc = check_table(o, s->table, s->names, want_types, s->n_cols, &exists);
    free(want_types);
    for (int apply = 0; apply < 2 && rc == 0; apply++)
        rc = prepare_bookkeeping(o, "queries", QUERIES_COLS, QUERIES_DECLS, N_QUERIES_COLS,
                                 QUERIES_V1, "", apply) < 0 ||
             prepare_bookkeeping(o, "query_inputs", INPUTS_COLS, INPUTS_DECLS, N_INPUTS_COLS,
                                 INPUTS_V1, ", PRIMARY KEY (run_id, seq)", apply) < 0 ? -1 : 0;
    if (rc < 0)
        return -1;
    return exists ? 0 : create_result_table(o, s);
}

/* ISO 8601 UTC with milliseconds: SQLite's date functions read it. */
static void iso_time(struct timespec ts, char *buf, size_t cap)
{
    struct tm tm;
    time_t sec = ts.tv_sec;
    gmtime_r(&sec, &tm);
    size_t n = strftime(buf, cap, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(buf + n, cap - n, ".%03ldZ", ts.tv_nsec / 1000000);
}

/* Binds one rendered cell as its column's type. Cells are what the CSV
 * writer prints, so both files hold the same values; an empty cell of a
 * numeric column is an aggregate without any number: NULL. */
static void bind_cell(sqlite3_stmt *st, int idx, const char *cell, enum sqlite_col_type type)
{
    char *end;
    if (type != SQLITE_COL_TEXT && !cell[0]) {
        sqlite3_bind_null(st, idx);
        return;
    }
    if (type == SQLITE_COL_INTEGER && cell[0]) {
        errno = 0;
        long long v = strtoll(cell, &end, 10);
        if (*end == '\0' && errno == 0) {
            sqlite3_bind_int64(st, idx, v);
            return;
        }
    }
    if (type != SQLITE_COL_TEXT && cell[0]) {
        errno = 0;
        double d = strtod(cell, &end);
        if (*end == '\0' && errno == 0) {
            if (type == SQLITE_COL_INTEGER && fabs(d) < 9.2e18)   /* len() renders "%f" */
                sqlite3_bind_int64(st, idx, (sqlite3_int64)llround(d));
            else
                sqlite3_bind_double(st, idx, d);
            return;
        }
    }
    sqlite3_bind_text(st, idx, cell, -1, SQLITE_STATIC);
}

static int insert_rows(out_db_t *o, const schema_t *s, const result_t *r, sqlite3_int64 run_id,
                       const char *run_time)
{
    sqlite3_str *q = sqlite3_str_new(o->db);
    sqlite3_str_appendf(q, "INSERT INTO \"%w\" VALUES (?1", s->table);
    for (size_t i = 1; i < s->n_cols; i++)
        sqlite3_str_appendf(q, ", ?%d", (int)i + 1);
    sqlite3_str_appendall(q, ")");
    char *sql = sqlite3_str_finish(q);
    sqlite3_stmt *st = NULL;
    if (!sql || sqlite3_prepare_v2(o->db, sql, -1, &st, NULL) != SQLITE_OK) {
        sqlite3_free(sql);
        return db_fail(o, "preparing the insert");
    }
    sqlite3_free(sql);
    int rc = SQLITE_DONE;
    for (size_t row = 0; row < r->n_rows && rc == SQLITE_DONE; row++) {
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_text(st, 2, run_time, -1, SQLITE_STATIC);
        for (size_t k = RUN_COLS; k < s->n_cols; k++) {
            size_t c = s->item[k];
            if (c >= r->n_cols)
                sqlite3_bind_null(st, (int)k + 1);
            else if (s->flag[k])
                sqlite3_bind_int(st, (int)k + 1, r->approx && r->approx[row * r->n_cols + c]);
            else
                bind_cell(st, (int)k + 1, result_cell(r, row, c), s->types[k]);
        }
        rc = sqlite3_step(st);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : db_fail(o, "inserting rows");
}

static void bind_count(sqlite3_stmt *st, int idx, const map_stats_t *ms, unsigned long long v)
{
    if (ms)
        sqlite3_bind_int64(st, idx, (sqlite3_int64)v);
    else
        sqlite3_bind_null(st, idx);
}

/* A JSON array of n strings (sqlite3_malloc'd), for json_each(). */
static char *json_strings(const char *const *v, size_t n)
{
    sqlite3_str *s = sqlite3_str_new(NULL);
    sqlite3_str_appendall(s, "[");
    for (size_t i = 0; i < n; i++) {
        sqlite3_str_appendall(s, i ? ",\"" : "\"");
        for (const unsigned char *p = (const unsigned char *)v[i]; *p; p++) {
            if (*p == '"' || *p == '\\')
                sqlite3_str_appendf(s, "\\%c", *p);
            else if (*p < 0x20)
                sqlite3_str_appendf(s, "\\u%04x", *p);
            else
                sqlite3_str_appendchar(s, 1, (char)*p);
        }
        sqlite3_str_appendall(s, "\"");
    }
    sqlite3_str_appendall(s, "]");
    return sqlite3_str_finish(s);
}

static void bind_known(sqlite3_stmt *st, int idx, long long v)
{
    if (v >= 0)
        sqlite3_bind_int64(st, idx, v);
    else
        sqlite3_bind_null(st, idx);
}

static int insert_inputs(out_db_t *o, const outfile_info_t *info, sqlite3_int64 run_id)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(o->db, "INSERT INTO query_inputs VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                           -1, &st, NULL) != SQLITE_OK)
        return db_fail(o, "preparing the inputs insert");
    int rc = SQLITE_DONE;
    for (size_t i = 0; i < info->n_inputs && rc == SQLITE_DONE; i++) {
        const outfile_input_t *in = &info->inputs[i];
        sqlite3_bind_int64(st, 1, run_id);
        sqlite3_bind_int64(st, 2, (sqlite3_int64)i + 1);
        sqlite3_bind_text(st, 3, in->server, -1, SQLITE_STATIC);  /* NULL: here */
        sqlite3_bind_text(st, 4, in->file, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, outfile_input_status_name(in->status), -1, SQLITE_STATIC);
        bind_known(st, 6, in->bytes);
        bind_known(st, 7, in->lines);
        sqlite3_bind_text(st, 8, in->status == OUTFILE_INPUT_OK ? NULL : in->error, -1,
                          SQLITE_STATIC);
        rc = sqlite3_step(st);
        sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : db_fail(o, "recording the inputs");
}

static int insert_query(out_db_t *o, const schema_t *s, const result_t *r,
                        const outfile_info_t *info, sqlite3_int64 run_id)
{
    if (insert_inputs(o, info, run_id) < 0)
        return -1;
    /* files, servers, failures, and without the scan's counts the bytes
     * and lines read, are computed from this run's query_inputs rows. */
    static const char sql[] =
        "INSERT INTO queries VALUES (?1, ?2, ?3, ?4, ?5, "
        "(SELECT json_group_array(file) FROM "
        "  (SELECT file FROM query_inputs WHERE run_id = ?1 ORDER BY seq)), "
        "(SELECT json_group_array(server) FROM (SELECT server FROM query_inputs "
        "  WHERE run_id = ?1 AND server IS NOT NULL "
        "  UNION SELECT value FROM json_each(?13) ORDER BY 1)), "
        "?6, ?7, "
        "coalesce(?8, (SELECT sum(lines_read) FROM query_inputs WHERE run_id = ?1)), ?9, ?10, ?11, "
        "coalesce(?12, (SELECT sum(bytes_read) FROM query_inputs WHERE run_id = ?1)), "
        "?14 OR EXISTS (SELECT 1 FROM query_inputs WHERE run_id = ?1 AND status != 'ok'), "
        "(SELECT json_group_array(file || coalesce(' on ' || server, '') || ': ' || status || "
        "    coalesce(': ' || error, '')) FROM "
        "  (SELECT server, file, status, error FROM query_inputs "
        "   WHERE run_id = ?1 AND status != 'ok' ORDER BY seq)))";
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(o->db, sql, -1, &st, NULL) != SQLITE_OK)
        return db_fail(o, "preparing the queries insert");
    char t0[40], t1[40];
    iso_time(info->start, t0, sizeof t0);
    iso_time(info->end, t1, sizeof t1);
    const map_stats_t *ms = info->stats;
    sqlite3_bind_int64(st, 1, run_id);
    sqlite3_bind_text(st, 2, s->table, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, info->query ? info->query : "", -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 4, t0, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 5, t1, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 6, (sqlite3_int64)r->n_rows);
    sqlite3_bind_int64(st, 7, (sqlite3_int64)r->n_groups);
    bind_count(st, 8, ms, ms ? ms->lines_read : 0);
    bind_count(st, 9, ms, ms ? ms->lines_parsed : 0);
    bind_count(st, 10, ms, ms ? ms->lines_unparsed : 0);
    bind_count(st, 11, ms, ms ? ms->lines_selected : 0);
    bind_count(st, 12, ms, ms ? ms->bytes_read : 0);
    sqlite3_bind_int(st, 14, info->partial != 0);
    char *servers = json_strings(info->servers, info->n_servers);
    if (!servers) {
        sqlite3_finalize(st);
        return err_set(o->e, ERR_NOMEM, "outfile %s: out of memory", o->path);
    }
    sqlite3_bind_text(st, 13, servers, -1, sqlite3_free);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : db_fail(o, "recording the query");
}

static int next_run_id(out_db_t *o, sqlite3_int64 *id)
{
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(o->db, "SELECT coalesce(max(run_id), 0) + 1 FROM queries", -1, &st,
                           NULL) != SQLITE_OK)
        return db_fail(o, "reading the last run id");
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW)
        *id = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return rc == SQLITE_ROW ? 0 : db_fail(o, "reading the last run id");
}

/* One run inside an open transaction. */
static int write_run(out_db_t *o, const schema_t *s, const result_t *r, const outfile_info_t *info)
{
    sqlite3_int64 run_id = 0;
    char run_time[40];
    iso_time(info->end, run_time, sizeof run_time);
    if (prepare_schema(o, s) < 0 || next_run_id(o, &run_id) < 0 ||
        insert_query(o, s, r, info, run_id) < 0 || insert_rows(o, s, r, run_id, run_time) < 0)
        return -1;
    return 0;
}

static int open_db(out_db_t *o, const char *file, int flags)
{
    /* One thread uses the connection: without its mutex every bind and
     * step is cheaper (about 10 % of a 1M-row export). */
    if (sqlite3_open_v2(file, &o->db, flags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        db_fail(o, "cannot open");
        sqlite3_close(o->db);
        o->db = NULL;
        return -1;
    }
    sqlite3_extended_result_codes(o->db, 1);
    sqlite3_busy_timeout(o->db, 10000);   /* another appender holds the file */
    return 0;
}

/* Appends one run to an existing file, in one SQLite transaction. */
static int append_in_place(const char *path, const char *target, const schema_t *s,
                           const result_t *r, const outfile_info_t *info, err_t *e)
{
    out_db_t o = {NULL, path, e};
    if (open_db(&o, target, SQLITE_OPEN_READWRITE) < 0)
        return -1;
    int rc = db_exec(&o, "BEGIN IMMEDIATE", "cannot lock the file");
    if (rc == 0 && write_run(&o, s, r, info) == 0)
        rc = db_exec(&o, "COMMIT", "commit failed");
    else
        rc = -1;
    if (rc < 0 && !sqlite3_get_autocommit(o.db))
        sqlite3_exec(o.db, "ROLLBACK", NULL, NULL, NULL);
    if (sqlite3_close(o.db) != SQLITE_OK && rc == 0)
        rc = db_fail(&o, "close failed");
    return rc;
}

static int sync_file(const char *file)
{
    int fd = open(file, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    close(fd);
    return rc;
}

/* Builds a new file beside the target and renames it over the target
 * when complete. */
static int write_new(const outpath_t *dest, const schema_t *s, const result_t *r,
                     const outfile_info_t *info, err_t *e)
{
    char tmp[OUTPATH_MAX];
    int fd = outpath_temp(dest, tmp, sizeof tmp, e);
    if (fd < 0)
        return -1;
    close(fd);
    const char *path = dest->given;
    out_db_t o = {NULL, path, e};
    /* The file is private until the rename: no journal, no syncs inside
     * SQLite; one fsync before the rename makes the result durable. */
    int rc = open_db(&o, tmp, SQLITE_OPEN_READWRITE);
    if (rc == 0)
        rc = db_exec(&o, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; "
                         "PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-65536; BEGIN",
                     "setting up");
    if (rc == 0)
        rc = write_run(&o, s, r, info);
    if (rc == 0)
        rc = db_exec(&o, "COMMIT", "commit failed");
    if (o.db && sqlite3_close(o.db) != SQLITE_OK && rc == 0)
        rc = db_fail(&o, "close failed");
    if (rc == 0 && sync_file(tmp) < 0)
        rc = err_set(e, ERR_IO, "outfile %s: cannot sync %s: %s", path, tmp, strerror(errno));
    if (rc < 0) {
        unlink(tmp);
        return -1;
    }
    return outpath_commit(dest, tmp, e);
}

int sqlite_out_write(const plan_t *plan, const char *path, int append, const result_t *r,
                     const outfile_info_t *info, err_t *e)
{
    outpath_t dest;
    if (outpath_resolve(&dest, path, path, e) < 0)
        return -1;
    schema_t s;
    if (schema_build(plan, &s, e) < 0)
        return -1;
    int rc;
    if (append && dest.exists)
        rc = append_in_place(path, dest.target, &s, r, info, e);
    else
        rc = write_new(&dest, &s, r, info, e);
    schema_free(&s);
    return rc;
}
