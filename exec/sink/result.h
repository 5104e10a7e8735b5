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

#endif
