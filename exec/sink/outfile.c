/* outfile.c: outfile dispatch by format. */
#include "exec/sink/outfile.h"

#include "exec/sink/sqlite_out.h"

int outfile_write(const plan_t *plan, const result_t *r, const outfile_info_t *info, err_t *e)
{
    if (!plan->outfile)
        return err_set(e, ERR_USAGE, "the query has no outfile");
    if (plan->outfile_format == PLAN_OUT_SQLITE)
        return sqlite_out_write(plan, plan->outfile, plan->outfile_append, r, info, e);
    return result_write_csv(r, plan->outfile, plan->outfile_append, info->query, e);
}
