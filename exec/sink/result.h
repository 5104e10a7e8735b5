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

#include "base/err.h"
#include "base/outbuf.h"
#include "exec/agg/table.h"
#include "parser/plan.h"

typedef struct result {
    size_t n_cols;          /* select items */
    size_t n_rows;          /* rows kept (after limit) */
    size_t n_groups;        /* groups before the limit */
    const char **headers;   /* column names (borrowed from the plan) */
    char **cells;           /* n_rows * n_cols NUL-terminated strings */
    char *text;             /* storage behind cells */
} result_t;

/* What percentage() and percentile() of a column need from all groups. */
typedef struct result_col_totals {
    double sum;             /* percentage: sum over groups */
    double *sorted;         /* percentile: sorted group sums */
    size_t n;               /* groups */
} result_col_totals_t;

/* One cell as result_build renders it: state st of select item spec, with
 * the column's totals (needed for percentage and percentile only). buf has
 * at least result_cell_need(spec, st) bytes. Returns the text length. */
int result_format_cell(char *buf, size_t cap, const agg_spec_t *spec, const unsigned char *st,
                       const result_col_totals_t *ct);
size_t result_cell_need(const agg_spec_t *spec, const unsigned char *st);

/* limit < 0: all rows. */
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
void result_render_table(const result_t *r, outbuf_t *out, int color, int sort_col,
                         const unsigned char *group_key);
/* The result as CSV text (the header first when header is set), quoted as
 * result_write_csv quotes it. */
void result_render_csv(const result_t *r, outbuf_t *out, int header);
/* Writes the result as CSV. Not append: PATH.query (the query text) and
 * PATH, each through a temporary name and a rename. Append: rows added to
 * PATH, the header only when PATH is new or empty. Values are quoted only
 * when they contain a comma, a quote or a line break. */
int result_write_csv(const result_t *r, const char *path, int append, const char *query,
                     err_t *e);

/* The same CSV written piece by piece (a spilled result streams its rows
 * in chunks): open, put every chunk in order (the header goes before the
 * first when result_write_csv would write it), close. close with keep = 0
 * discards a new file (nothing is renamed into place). Not append: the
 * caller writes PATH.query first with result_csv_write_query. */
typedef struct result_csv {
    int fd;                 /* the file being written, -1 when closed */
    outbuf_t out;           /* buffered output */
    int append;             /* rows added to path itself */
    int header;             /* the next put writes the header */
    char path[4200];        /* the destination */
    char tmp[4200];         /* path.tmp, renamed onto path by close */
} result_csv_t;
int result_csv_open(result_csv_t *w, const char *path, int append, err_t *e);
void result_csv_put(result_csv_t *w, const result_t *r);
int result_csv_close(result_csv_t *w, int keep, err_t *e);
int result_csv_write_query(const char *path, const char *query, err_t *e);

#endif
