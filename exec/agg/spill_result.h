/* spill_result.h: the result of a spilled run, from the merge of its runs.
 *
 * The same rows, cells and order as result_build over the whole table, with
 * memory bounded by the rows a chunk holds rather than by the groups:
 * - rows come from the merge in result order (key order), so without
 *   `order by` they stream, and `limit N` stops rendering after N (the
 *   remaining keys are only counted);
 * - with `order by` every row is rendered once into a table of the spill
 *   database and read back with SQLite's ORDER BY (an external sort; with
 *   `limit N` SQLite keeps only the best N);
 * - percentage() needs the sum over all groups and percentile() every
 *   group's sum, sorted: a first pass over the merge computes them (the
 *   sorted sums take 8 bytes per group: what stays bounded by the groups).
 */
#ifndef DTAIL_EXEC_AGG_SPILL_RESULT_H
#define DTAIL_EXEC_AGG_SPILL_RESULT_H

#include <stddef.h>

#include "base/err.h"
#include "exec/agg/spill.h"
#include "exec/sink/result.h"
#include "parser/plan.h"

/* Receives rows in order, chunk by chunk (r is freed after the call).
 * Returns 0, or -1 with e set to stop. */
typedef int (*spill_emit_fn)(const result_t *r, void *arg, err_t *e);

/* Calls emit with the result's rows (limit < 0: all), at most chunk_rows at
 * a time; at least once, so an empty result still has its headers. Each
 * chunk's n_groups counts the groups merged so far: the last one has them
 * all. */
int spill_result_each(const plan_t *plan, spill_t *sp, long long limit, size_t chunk_rows,
                      spill_emit_fn emit, void *arg, err_t *e);
/* The whole result at once, as result_build gives it (its rows are held in
 * memory: use it for a short table or an outfile that needs them all). */
int spill_result_build(const plan_t *plan, spill_t *sp, long long limit, result_t *r, err_t *e);

#endif
