/* fill.h: `group by bucket($time, 5m) fill` — the empty buckets between a
 * result's first and last, so that a time series has no holes
 * (docs/query-language.md, "fill").
 *
 * Filling runs once, on the final table where the result is made (the
 * serverless run's, or the client's merge of every server's), before
 * order, limit and the sinks: serverless and through any number of
 * servers give the same rows. A filled group's count is 0 and every other
 * aggregate has no value (an empty cell, NULL in SQLite); a select item
 * that is a group key shows its part of the key. With other keys beside
 * the bucket, every combination of them that occurs gets every bucket.
 * Groups whose bucket is empty (an unparsable time) are kept as they are
 * and take no part in the range. */
#ifndef DTAIL_EXEC_AGG_FILL_H
#define DTAIL_EXEC_AGG_FILL_H

#include <stddef.h>

#include "base/err.h"
#include "exec/agg/table.h"
#include "parser/plan.h"

/* Rows a fill may add: beyond it the query is refused, naming the range. */
#define AGG_FILL_MAX_ROWS ((size_t)1000000)

/* Adds plan's empty buckets to t (nothing when the plan has no fill).
 * Returns the groups added, or -1 with e set: too many rows
 * (AGG_FILL_MAX_ROWS), out of memory. */
long agg_fill(const plan_t *plan, agg_table_t *t, err_t *e);

#endif
