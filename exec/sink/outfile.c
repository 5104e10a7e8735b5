/* outfile.c: outfile dispatch by format. */
#include "exec/sink/outfile.h"

#include "exec/sink/outpath.h"
#include "exec/sink/sqlite_out.h"

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
