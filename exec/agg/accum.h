/* accum.h: a result being combined from partials, within a memory budget.
 *
 * Partials (tables, serialized parts from a server, another accumulator)
 * fold into one group table; when the groups it holds pass the budget the
 * table is written to a spill as one run (exec/agg/spill.h) and starts
 * empty again, its arrays given back. At the end (agg_accum_finish) the
 * whole result is either the table (nothing spilled) or the spill, whose
 * runs merge key by key as exec/agg/spill_result.h renders them; either
 * way the result is the same. This is what the client's merge of many
 * servers' results uses, so it is bounded like a serverless map. */
#ifndef DTAIL_EXEC_AGG_ACCUM_H
#define DTAIL_EXEC_AGG_ACCUM_H

#include <stddef.h>

#include "base/err.h"
#include "exec/agg/spill.h"
#include "exec/agg/table.h"

typedef struct agg_accum {
    agg_table_t table;           /* the groups in memory */
    spill_t *spill;              /* the runs written; NULL until the first */
    size_t budget;               /* bytes the table's groups may hold; 0: no bound */
} agg_accum_t;

int agg_accum_init(agg_accum_t *a, const agg_spec_t *specs, size_t n_specs, size_t budget,
                   err_t *e);
void agg_accum_free(agg_accum_t *a);
/* What the table's groups hold (not what its arrays have reserved: a
 * table that spilled starts over small). */
size_t agg_accum_table_bytes(const agg_table_t *t);

/* Folds a table, or a serialized partial (AGGREGATE part), into a. */
int agg_accum_add_table(agg_accum_t *a, const agg_table_t *t, err_t *e);
int agg_accum_add_serialized(agg_accum_t *a, const unsigned char *p, size_t len, err_t *e);
/* Folds everything src holds into dst and empties src (its spill, if
 * any, is read key by key: memory stays within both budgets). */
int agg_accum_drain_into(agg_accum_t *dst, agg_accum_t *src, err_t *e);

/* After the last partial: a spilled accumulator writes its table as the
 * last run, so that the spill holds the whole result. */
int agg_accum_finish(agg_accum_t *a, err_t *e);
/* Whether the result is in the spill (after agg_accum_finish). */
static inline int agg_accum_spilled(const agg_accum_t *a) { return a->spill != NULL; }

#endif
