/* outfile.c: outfile dispatch by format. */
#include "exec/sink/outfile.h"

#include "exec/sink/outpath.h"
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
