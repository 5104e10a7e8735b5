/* result.h: the final (or interim) result of a mapreduce plan as rows of
 * rendered cells, and its sinks: DTail's terminal table and CSV files.
 *
 * Rows are ordered as DTail orders them: by group key, then (stable) by the
 * order-by column, descending for `order by`, ascending for `rorder by`.
 * percentage() and percentile() are computed over all groups before the
 * limit applies. */
#ifndef DTAIL_EXEC_SINK_RESULT_H
#define DTAIL_EXEC_SINK_RESULT_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "base/outbuf.h"
#include "base/palette.h"
#include "exec/agg/table.h"
#include "exec/sink/outpath.h"
#include "parser/plan.h"

typedef struct result {
    size_t n_cols;          /* columns (plan.n_columns) */
    size_t n_rows;          /* rows kept (after limit) */
    size_t n_groups;        /* groups before the limit (after having) */
    uint64_t n_divzero;     /* divisions by zero in arithmetic columns and
                               having, over those groups (empty cells) */
    const char **headers;   /* column names (borrowed from the plan) */
    char **cells;           /* n_rows * n_cols NUL-terminated strings */
    char *text;             /* storage behind cells */
    unsigned char *approx;  /* n_rows * n_cols: 1 where the cell is an
                               estimate (agg_state_approx); NULL when no
                               cell is */
} result_t;

/* What percentage() and percentile() of a column need from all groups. */
typedef struct result_col_totals {
    double sum;             /* percentage: sum over groups */
    double *sorted;         /* percentile: sorted group sums */
    size_t n;               /* groups */
    size_t cap;             /* sorted's allocation */
} result_col_totals_t;

/* Totals are gathered group by group (result_build walks a table, a
 * spilled result its merge), then finished once: */
/* Whether any of the n select items needs totals. */
int result_needs_totals(const agg_spec_t *specs, size_t n);
/* Adds group g of t to ct (one entry per select item); -1 out of memory. */
int result_totals_add(result_col_totals_t *ct, const agg_table_t *t, size_t g);
/* Sorts what percentile() ranks in; call after the last add. */
void result_totals_finish(result_col_totals_t *ct, size_t n);
/* Frees ct (n entries) and what it holds. */
void result_totals_free(result_col_totals_t *ct, size_t n);

/* Rendered rows being collected: cell texts back to back, each
 * NUL-terminated, and their offsets. Zero-initialise. */
typedef struct result_rows {
    char *text;             /* cell texts */
    size_t len, cap;        /* used, allocated */
    size_t *offs;           /* offset of each cell in text */
    size_t n_cells, cap_cells; /* used, allocated */
    size_t n_rows;          /* complete rows */
    unsigned char *approx;  /* per cell: an estimate (cap_cells of them) */
    int any_approx;         /* a cell since the last take is an estimate */
} result_rows_t;

/* Room for one cell of up to need bytes at the end (the caller fills it
 * and adds its length plus one to rb->len); NULL when out of memory. */
char *result_rows_cell(result_rows_t *rb, size_t need);
/* Renders group g of t as a row of plan's columns, with the columns'
 * totals; -1 out of memory. */
int result_rows_add(result_rows_t *rb, const plan_t *plan, const agg_table_t *t, size_t g,
                    const result_col_totals_t *ct);
/* Moves the rows into r (headers from the plan, n_groups as given) and
 * empties rb, which keeps its cell offsets' allocation for more rows
 * (result_rows_free releases it); -1 with e set when out of memory. */
int result_rows_take(result_rows_t *rb, const plan_t *plan, size_t n_groups, result_t *r,
                     err_t *e);
void result_rows_free(result_rows_t *rb);

/* One cell as result_build renders it: state st of select item spec, with
 * the column's totals (needed for percentage and percentile only). buf has
 * at least result_cell_need(spec, st) bytes. Returns the text length. */
int result_format_cell(char *buf, size_t cap, const agg_spec_t *spec, const unsigned char *st,
                       const result_col_totals_t *ct);
size_t result_cell_need(const agg_spec_t *spec, const unsigned char *st);
/* A number as a cell shows it: "%f", and +Inf, -Inf and NaN as DTail. */
int result_format_real(char *buf, size_t cap, double v);
/* The number a cell of a numeric item shows (percentage and percentile
 * from the column's totals). */
double result_item_number(const agg_spec_t *spec, const unsigned char *st,
                          const result_col_totals_t *ct);

/* The display key of group g of t: its length-prefixed parts joined by
 * ',' (DTail's group key), into out, which has room for the key's length
 * plus one; *len is its length. Returns out. */
char *result_group_key(const agg_table_t *t, size_t g, char *out, size_t *len);

/* Adds, per column, the rows of r whose cell is an estimate to rows[]
 * (n_cols entries). */
void result_approx_add(const result_t *r, size_t *rows);
/* The note a result with estimates prints ("approximate result: p99(x)
 * is approximate in 3 rows (more than 10000 values: ...)"), from the
 * counts result_approx_add gathered; at most cap bytes. Returns its
 * length, 0 when no row is approximate. */
int result_approx_text(const plan_t *plan, const size_t *rows, char *buf, size_t cap);

/* limit < 0: all rows. The plan's arithmetic columns and having are
 * applied here (exec/agg/post.h), to every group: t's arithmetic states
 * are (re)computed, t is otherwise left as it is. */
int result_build(const plan_t *plan, const agg_table_t *t, long long limit, result_t *r, err_t *e);
void result_free(result_t *r);
static inline const char *result_cell(const result_t *r, size_t row, size_t col)
{
    return r->cells[row * r->n_cols + col];
}

/* DTail's table: cells " %*s " right-aligned, joined by '|', a dashed line
 * under the header. With color, painted as DTail paints it by default:
 * white on blue, the header bold (the order-by column underlined, group-by
 * columns reversed), delimiters and the rule dim. sort_col is the order-by
 * column or -1; group_key[c] marks group-by columns (may be NULL). */
void result_render_table(const result_t *r, outbuf_t *out, const palette_t *color, int sort_col,
                         const unsigned char *group_key);
/* The result as CSV text (the header first when header is set), quoted as
 * result_write_csv quotes it. */
void result_render_csv(const result_t *r, outbuf_t *out, int header);
/* The forms a result takes on stdout (dmap and dtail --query's --output,
 * the REPL's .mode; result_text.c). The table is DTail's; the others are
 * for the next program in a pipe and show every row. */
enum result_form {
    RESULT_FORM_TABLE = 0,  /* result_render_table */
    RESULT_FORM_CSV,        /* result_render_csv */
    RESULT_FORM_TSV,        /* result_render_tsv */
    RESULT_FORM_JSON,       /* result_render_json */
};
/* "table", "csv", "tsv", "json" into *form: 0, or -1 for another name. */
int result_form_parse(const char *name, enum result_form *form);
const char *result_form_name(enum result_form form);
/* Whether the form writes a header line (csv, tsv). */
int result_form_has_header(enum result_form form);
/* Tab-separated values: the header (when header is set), then a line per
 * row; in every field a backslash, tab, newline and CR are written as \\,
 * \t, \n and \r, so a field never holds the separators. */
void result_render_tsv(const result_t *r, outbuf_t *out, int header);
/* JSON lines: an object per row, {"header":value,...} in select order.
 * count() and len() are integers, the other aggregates numbers (the
 * digits the table shows), non-finite ones the strings "+Inf", "-Inf" and
 * "NaN"; values (last(), bare fields) strings; an empty cell is null.
 * Strings are escaped as JSON requires, control bytes, DEL and the C1
 * controls as \u00XX; a byte that is not valid UTF-8 becomes U+FFFD. */
void result_render_json(const result_t *r, const plan_t *plan, outbuf_t *out);
/* r in form (header: csv and tsv start with the header line); the table
 * plain (color and the query line are table_print.h's). */
void result_render_form(const result_t *r, const plan_t *plan, enum result_form form,
                        outbuf_t *out, int header);

/* Writes the result as CSV to the outfile path (exec/sink/outpath.h says
 * what happens to links and to what is not a regular file). Not append:
 * PATH.query (the query text, beside the resolved target) and PATH, each
 * through a temporary beside it and a rename. Append: rows added to PATH,
 * the header only when PATH is new or empty. "-": the header and rows to
 * stdout, with or without append. Values are quoted only when they contain
 * a comma, a quote or a line break. A failure leaves no temporary and no
 * new PATH.query. */
int result_write_csv(const result_t *r, const char *path, int append, const char *query,
                     err_t *e);

/* The same CSV written piece by piece (a spilled result streams its rows
 * in chunks): open, put every chunk in order (the header goes before the
 * first when result_write_csv would write it), close. close with keep = 0
 * discards the write: nothing is renamed into place, no temporary stays.
 * query is written to PATH.query when not appending (ignored otherwise). */
typedef struct result_csv {
    int fd;                     /* the file being written, -1 when closed */
    outbuf_t out;               /* buffered output */
    int append;                 /* rows added to the target itself */
    int to_stdout;              /* outfile "-" */
    int header;                 /* the next put writes the header */
    outpath_t dest;             /* the outfile */
    outpath_t qdest;            /* its PATH.query (not append) */
    char tmp[OUTPATH_MAX];      /* the rows' temporary, "" when none */
    char qtmp[OUTPATH_MAX];     /* the query's temporary, "" when none */
} result_csv_t;
int result_csv_open(result_csv_t *w, const char *path, int append, const char *query, err_t *e);
void result_csv_put(result_csv_t *w, const result_t *r);
int result_csv_close(result_csv_t *w, int keep, err_t *e);
/* Resolves dest's PATH.query into q (beside the resolved target). */
int result_csv_query_path(const outpath_t *dest, outpath_t *q, err_t *e);

#endif
