/* outfile.c: outfile dispatch by format. */
#include "exec/sink/outfile.h"

#include "exec/sink/outpath.h"
#include "exec/agg/spill_result.h"
#include "exec/sink/sqlite_out.h"

#include <stdio.h>
#include <string.h>

int outfile_check(const plan_t *plan, err_t *e)
{
    if (!plan->outfile || outpath_is_stdout(plan->outfile))
        return 0;
    outpath_t dest, q;
    if (outpath_resolve(&dest, plan->outfile, plan->outfile, e) < 0)
        return -1;
    if (plan->outfile_format == PLAN_OUT_SQLITE || plan->outfile_append)
        return 0;
    return result_csv_query_path(&dest, &q, e);
}

int outfile_write(const plan_t *plan, const result_t *r, const outfile_info_t *info, err_t *e)
{
    if (!plan->outfile)
        return err_set(e, ERR_USAGE, "the query has no outfile");
    if (info->approx)
        result_approx_add(r, info->approx);
    if (plan->outfile_format == PLAN_OUT_SQLITE && !outpath_is_stdout(plan->outfile))
        return sqlite_out_write(plan, plan->outfile, plan->outfile_append, r, info, e);
    return result_write_csv(r, plan->outfile, plan->outfile_append, info->query, e);
}

const char *outfile_input_status_name(int status)
{
    static const char *const names[] = {"ok", "not found", "denied", "error", "server failed"};
    return status >= 0 && status <= OUTFILE_INPUT_SERVER_FAILED ? names[status] : "error";
}

int outfile_info_partial(const outfile_info_t *info)
{
    for (size_t i = 0; i < info->n_inputs; i++)
        if (info->inputs[i].status != OUTFILE_INPUT_OK)
            return 1;
    return info->partial;
}

void outfile_partial_text(const outfile_info_t *info, char *buf, size_t cap)
{
    size_t n_failed = 0;
    for (size_t i = 0; i < info->n_inputs; i++)
        n_failed += info->inputs[i].status != OUTFILE_INPUT_OK;
    int len = snprintf(buf, cap, "partial result: %zu of %zu inputs failed", n_failed,
                       info->n_inputs);
    const char *sep = ": ";
    for (size_t i = 0; i < info->n_inputs && len >= 0 && (size_t)len < cap; i++) {
        const outfile_input_t *in = &info->inputs[i];
        if (in->status == OUTFILE_INPUT_OK)
            continue;
        len += snprintf(buf + len, cap - (size_t)len, "%s%s%s%s: %s%s%s", sep, in->file,
                        in->server ? " on " : "", in->server ? in->server : "",
                        outfile_input_status_name(in->status), in->error ? ": " : "",
                        in->error ? in->error : "");
        sep = "; ";
    }
    if (len >= 0 && (size_t)len >= cap && cap > 4)
        memcpy(buf + cap - 4, "...", 4);
}

/* Rows of a spilled result on their way into a CSV outfile. */
typedef struct csv_stream {
    result_csv_t w;             /* the file */
    size_t n_groups;            /* groups merged so far */
    size_t *approx;             /* outfile_info_t.approx */
    uint64_t n_divzero;         /* divisions by zero so far */
} csv_stream_t;

static int csv_chunk(const result_t *r, void *arg, err_t *e)
{
    (void)e;
    csv_stream_t *cs = arg;
    result_csv_put(&cs->w, r);
    cs->n_groups = r->n_groups;
    if (cs->approx)
        result_approx_add(r, cs->approx);
    cs->n_divzero = r->n_divzero;
    return 0;
}

static int write_spilled_csv(const plan_t *plan, spill_t *sp, const outfile_info_t *info,
                             size_t *n_groups, uint64_t *n_divzero, err_t *e)
{
    csv_stream_t cs = {.n_groups = 0, .approx = info->approx};
    if (result_csv_open(&cs.w, plan->outfile, plan->outfile_append, info->query, e) < 0)
        return -1;
    int rc = spill_result_each(plan, sp, plan->limit_given ? plan->limit : -1, 65536, csv_chunk,
                               &cs, e);
    err_t ce;
    err_clear(&ce);
    if (result_csv_close(&cs.w, rc == 0, &ce) < 0 && rc == 0) {
        *e = ce;
        rc = -1;
    }
    *n_groups = cs.n_groups;
    if (n_divzero)
        *n_divzero = cs.n_divzero;
    return rc;
}

int outfile_write_merged(const plan_t *plan, const agg_table_t *t, spill_t *sp,
                         const outfile_info_t *info, size_t *n_groups, uint64_t *n_divzero,
                         err_t *e)
{
    if (sp && plan->outfile_format != PLAN_OUT_SQLITE)
        return write_spilled_csv(plan, sp, info, n_groups, n_divzero, e);
    long long limit = plan->limit_given ? plan->limit : -1;
    result_t r = {0};
    int rc = sp ? spill_result_build(plan, sp, limit, &r, e) : result_build(plan, t, limit, &r, e);
    *n_groups = r.n_groups;
    if (n_divzero)
        *n_divzero = r.n_divzero;
    if (rc == 0)
        rc = outfile_write(plan, &r, info, e);
    result_free(&r);
    return rc;
}
