/* eval.h: per-batch evaluation of a query plan's expressions.
 *
 * The plan's value trees are compiled once into nodes with resolved
 * extractor columns; a batch of lines is then evaluated column-wise: each
 * node yields a column of string views indexed by the batch row, computed
 * only for the rows still selected. where narrows the row list, set fills
 * the set-variable columns, the group key and the select values feed the
 * aggregate table. Strings made by functions live in a scratch area that is
 * reset per batch. */
#ifndef DTAIL_EXEC_AGG_EVAL_H
#define DTAIL_EXEC_AGG_EVAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "exec/agg/table.h"
#include "exec/extract/extract.h"
#include "exec/extract/logtime.h"
#include "parser/plan.h"

#define EVAL_BATCH 1024   /* lines per batch */
#define EVAL_TIME_EXAMPLES 3      /* values kept that were no timestamp */
#define EVAL_TIME_EXAMPLE_LEN 72  /* bytes of each, NUL included */

typedef struct ev_node ev_node_t;
typedef struct ev_scratch ev_scratch_t;

typedef struct eval {
    const plan_t *plan;         /* borrowed */
    const char **fields;        /* distinct field names the extractor fills */
    size_t n_fields;            /* count */
    sv_t **cols;                /* extractor columns, EVAL_BATCH rows each */
    uint8_t status[EVAL_BATCH]; /* extractor status per row */
    ev_node_t **select;         /* compiled select values (NULL: an
                                   arithmetic column, computed after the merge) */
    bool *count_rows;           /* per select item: a count of every row
                                   (count($line)), no values needed */
    uint64_t *nonnum;           /* per select item: values a numeric
                                   aggregate skipped as no number */
    bool *shares_numbers;       /* per select item: a numeric aggregate of a
                                   value another numeric item reads too
                                   (avg(x), sum(x)): read as numbers once */
    const ev_node_t *numbers_of;/* the value `numbers` holds this batch */
    agg_numbers_t numbers;      /* its rows as numbers */
    ev_node_t **where_lhs;      /* compiled where operands (DTail's comparisons) */
    ev_node_t **where_rhs;
    struct ev_cond **where_tree;/* per where condition: the compiled or, not,
                                   in or matches (cond.c), NULL for a
                                   comparison */
    uint64_t n_divzero;         /* divisions by zero per line (missing values) */
    ev_node_t **set;            /* compiled set right-hand sides */
    const sv_t **set_cols;      /* current batch's set-variable columns */
    ev_node_t **group;          /* compiled group-by parts */
    ev_node_t *nodes;           /* every compiled node (owned) */
    size_t n_nodes, cap_nodes;
    ev_scratch_t *scratch;      /* function results of the current batch */
    char *key;                  /* group keys of the current batch, back to back */
    size_t key_cap;             /* its allocation */
    uint32_t key_off[EVAL_BATCH];  /* each selected row's key in key */
    uint32_t key_len[EVAL_BATCH];  /* its length */
    uint64_t key_hash[EVAL_BATCH]; /* its hash */
    uint32_t gid[EVAL_BATCH];   /* group of each selected row (compacted) */
    sv_t vals[EVAL_BATCH];      /* gathered values (compacted) */
    uint64_t seqs[EVAL_BATCH];  /* gathered row positions (compacted) */
    /* bucket() of values that are no timestamp (exec/extract/logtime.h) */
    logtime_ctx_t tctx;         /* now and the local offset, for a year or
                                   zone a timestamp does not write */
    uint64_t n_badtime;         /* lines with such a value, since init */
    uint8_t badtime[EVAL_BATCH];/* this batch's rows counted already */
    bool badtime_any;           /* some row of badtime is set */
    char badtime_ex[EVAL_TIME_EXAMPLES][EVAL_TIME_EXAMPLE_LEN]; /* the
                                   first such values (control bytes as ?) */
} eval_t;

/* Compiles plan for one thread. The field names for the extractor are
 * ev->fields after this call. */
int eval_init(eval_t *ev, const plan_t *plan, err_t *e);
void eval_free(eval_t *ev);

/* Runs where, set, group and select over rows (batch row indices of lines
 * the extractor accepted), folding into table. seq[r] orders batch row r in
 * the input. rows is modified (narrowed by where). Returns the rows that
 * passed where. */
size_t eval_batch(eval_t *ev, agg_table_t *table, uint32_t *rows, size_t n_rows,
                  const uint64_t *seq);

/* Agg specs for the plan's select items (n = plan->n_select). */
void eval_specs(const plan_t *plan, agg_spec_t *out);

#endif
