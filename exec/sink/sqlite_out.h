/* sqlite_out.h: a query's result as a table in an SQLite file.
 *
 * Schema (docs/sqlite-export.md):
 *   "<TABLE>"     run_id INTEGER, run_time TEXT, then one column per select
 *                 item, named as DTail prints it ("count($line)"), typed
 *                 INTEGER (count, len), REAL (other numeric aggregates) or
 *                 TEXT (last value, bare fields). TABLE is `from TABLE`, or
 *                 "result" without one.
 *   queries       one row per run: run_id, the result table, query text,
 *                 start/end time, files and servers (JSON arrays), rows,
 *                 groups, line counts, bytes read, partial (an input or
 *                 server failed) and failures (JSON array of what failed).
 *   query_inputs  one row per input of a run, per (server, file) for a
 *                 remote run: run_id, seq, server (NULL = read on this
 *                 machine), file, status, bytes_read, lines_read, error.
 * A file written before partial/failures and status/bytes_read/
 * lines_read/error gets those columns added by its next append.
 *
 * Every call is one run with the next run id of the file (1 for a new
 * file), written in one transaction through one reused prepared statement.
 * A new file (not append, or append to a file that does not exist yet) is
 * built under a temporary name beside the resolved target (outpath.h) and
 * renamed over it only when complete; append to an existing file is one SQLite
 * transaction in place. Either way a failure leaves the path as it was and
 * no temporary file. An existing table whose columns differ from the
 * query's is an error naming the file, the table and both column lists,
 * and the file is not modified.
 *
 * A follow/interval runner calls sqlite_out_write once per interval with
 * append set: each call adds exactly that interval's rows under a new run
 * id, so results accumulate as a time series. */
#ifndef DTAIL_EXEC_SINK_SQLITE_OUT_H
#define DTAIL_EXEC_SINK_SQLITE_OUT_H

#include "base/err.h"
#include "exec/sink/outfile.h"
#include "exec/sink/result.h"
#include "parser/plan.h"

/* Column types by aggregate kind. */
enum sqlite_col_type { SQLITE_COL_TEXT = 0, SQLITE_COL_INTEGER, SQLITE_COL_REAL };
enum sqlite_col_type sqlite_out_col_type(enum plan_agg agg);
/* Whether an item of kind agg gets a "<name>_approx" column (quantile,
 * count_distinct, top: 1 where the value is an estimate, else 0). */
static inline int sqlite_out_may_approx(enum plan_agg agg)
{
    return agg == PLAN_AGG_QUANTILE || agg == PLAN_AGG_COUNT_DISTINCT || agg == PLAN_AGG_TOP;
}

/* Writes (append: adds) r as one run into the SQLite file at path. */
int sqlite_out_write(const plan_t *plan, const char *path, int append, const result_t *r,
                     const outfile_info_t *info, err_t *e);

#endif
