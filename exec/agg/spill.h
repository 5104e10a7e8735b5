/* spill.h: group-by state beyond the memory budget, kept in a temporary
 * SQLite database.
 *
 * A table that outgrows its share of the budget is written out as one
 * *run*: its groups sorted in result order (the ','-joined display key,
 * then the raw key bytes), each row the key bytes and the group's states
 * as agg_group_encode writes them; then the caller clears the table. At the
 * end the runs are merged like the runs of an external sort: one cursor per
 * run, the smallest key next, the states of equal keys folded with the
 * table's own merge code. Memory is then bounded by one group per run, and
 * the groups come out in the order result rows take.
 *
 * The database is SQLite's private temporary database (opened with an
 * empty file name): a file in $SQLITE_TMPDIR or $TMPDIR (else /var/tmp,
 * /tmp) that SQLite unlinks as soon as it is opened, so nothing is left
 * behind whatever way the process ends. journal_mode=OFF, synchronous=OFF,
 * one transaction per run, the insert statement prepared once. */
#ifndef DTAIL_EXEC_AGG_SPILL_H
#define DTAIL_EXEC_AGG_SPILL_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "exec/agg/table.h"

typedef struct spill spill_t;
typedef struct sqlite3 sqlite3;

/* A store for groups of tables with these specs (copied). */
spill_t *spill_open(const agg_spec_t *specs, size_t n_specs, err_t *e);
void spill_close(spill_t *sp);

/* Writes every group of t as one run. Safe from several threads (runs are
 * written one at a time). The caller clears t afterwards. */
int spill_write(spill_t *sp, const agg_table_t *t, err_t *e);
/* Drops every run (the next interval starts empty). */
int spill_reset(spill_t *sp, err_t *e);
/* Runs written and group rows in them, since open or the last reset. */
size_t spill_n_runs(const spill_t *sp);
uint64_t spill_n_rows(const spill_t *sp);
/* Runs written since open, resets included. */
size_t spill_total_runs(const spill_t *sp);
/* The specs of the spilled tables. */
const agg_spec_t *spill_specs(const spill_t *sp, size_t *n_specs);
/* The same specs, to mark before rendering (agg_spec_t.null_empty). */
agg_spec_t *spill_specs_mut(spill_t *sp);
/* The database, for result building (ORDER BY over the merged rows). */
sqlite3 *spill_db(spill_t *sp);

/* The merge of every run, key by key in result order. */
typedef struct spill_iter spill_iter_t;
spill_iter_t *spill_iter_open(spill_t *sp, err_t *e);
/* The next key: acc (a table with the same specs) is cleared and holds
 * it, every run's states folded, as group 0; acc NULL skips the key
 * without folding (counting). Returns 1, 0 at the end, -1 with e set. */
int spill_iter_next(spill_iter_t *it, agg_table_t *acc, err_t *e);
void spill_iter_close(spill_iter_t *it);

/* Folds every run into into (interval snapshots: not bounded). */
int spill_merge_into(spill_t *sp, agg_table_t *into, err_t *e);

/* Result order of two raw group keys (length-prefixed parts): by the
 * ','-joined display key as result rows sort, then by the raw bytes, so
 * only equal keys compare equal. */
int spill_key_cmp(const char *a, size_t alen, const char *b, size_t blen);

#endif
