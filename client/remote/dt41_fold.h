/* dt41_fold.h: a DTail 4.1 server's AGGREGATE messages folded into our
 * group table, so that a Go dserver's partial results merge with those of
 * our own servers (client/remote/map.c) by the same code.
 *
 * A Go dserver sends, per group, what it aggregated since it last sent
 * that group (wire/dt41.h, "AGGREGATE messages"): count, sum, min and max
 * as numbers, avg, percentage and percentile as their sums over the
 * message's samples, last as a string, len as its length and then its
 * string. Folding every message of a connection in order gives the
 * server's whole result so far, which is what our protocol's tables are.
 * Go joins the group-by values with ',', and so does our rendering: with
 * several group-by items the text is split at its first commas, one value
 * per item (the last takes the rest; a value holding a comma is as
 * ambiguous as it is in DTail). */
#ifndef DTAIL_CLIENT_REMOTE_DT41_FOLD_H
#define DTAIL_CLIENT_REMOTE_DT41_FOLD_H

#include <stdint.h>

#include "base/err.h"
#include "exec/agg/table.h"
#include "exec/fieldreport.h"
#include "parser/plan.h"
#include "wire/dt41.h"

typedef struct dt41_fold {
    const plan_t *plan;       /* the query the server runs */
    agg_table_t *table;       /* specs of plan (eval_specs) */
    field_report_t *report;   /* NULL, or the server's field report as
                                 the messages show it: a field is seen when
                                 an item of it came, the lines parsed are
                                 the samples (a Go dserver sends none) */
    uint64_t seq;             /* order of the messages, for last() */
    unsigned char *key;       /* the group key being built */
    size_t key_cap;
} dt41_fold_t;

void dt41_fold_init(dt41_fold_t *f, const plan_t *plan, agg_table_t *table);
void dt41_fold_free(dt41_fold_t *f);
/* Folds one parsed message (dt41_agg_parse) into f->table. An item with
 * no field in the message folds nothing, as in Go. -1 when out of memory. */
int dt41_fold(dt41_fold_t *f, const dt41_agg_t *a, err_t *e);

#endif
