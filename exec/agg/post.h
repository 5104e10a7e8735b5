/* post.h: after the final merge, per group: arithmetic columns and having.
 *
 * A query's arithmetic columns (sum(bytes)/1024) and its having clause
 * read the group's aggregates, which merge exactly across threads, files
 * and servers; so they are computed only once those are final, on the
 * merged result, in the one place every result is rendered from
 * (result_build, spill_result.h): serverless, merged from dservers and
 * spilled alike. An arithmetic column's state (sum-shaped: the value and
 * 1, or 0 for an empty cell) is set here and is what the renderer, order
 * by and the exports read; the scan and the wire carry it as zeros.
 *
 * Numbers are IEEE doubles. An operand without a number (an empty
 * aggregate, a last() value that is no number) makes the result empty; so
 * does a division by zero, which is counted. having is true, false or
 * unknown as where is (exec/agg/compare.h): only a true one keeps the
 * group. percentage() and percentile() are over all groups, before having
 * as before the limit. */
#ifndef DTAIL_EXEC_AGG_POST_H
#define DTAIL_EXEC_AGG_POST_H

#include <stdint.h>

#include "base/err.h"
#include "exec/agg/table.h"
#include "exec/sink/result.h"
#include "parser/plan.h"

typedef struct agg_post_re agg_post_re_t;

typedef struct agg_post {
    const plan_t *plan;         /* borrowed */
    agg_post_re_t *re;          /* having's compiled matches patterns */
    size_t n_re;
    uint64_t n_divzero;         /* divisions by zero so far */
} agg_post_t;

/* Whether plan has arithmetic columns or having. */
int agg_post_needed(const plan_t *plan);
int agg_post_init(agg_post_t *p, const plan_t *plan, err_t *e);
void agg_post_free(agg_post_t *p);
/* Computes the arithmetic columns of group g of t (its other states are
 * only read) with the columns' totals ct, and returns whether the group
 * passes having (1; always without having). */
int agg_post_group(agg_post_t *p, agg_table_t *t, size_t g, const result_col_totals_t *ct);

#endif
