/* extract_plan.c: see extract_plan.h. */
#include "exec/extract/extract_plan.h"

extract_opts_t extract_opts_of_plan(const plan_t *p)
{
    return (extract_opts_t){
        .delimiter = p->lf_delimiter,
        .pattern = p->lf_pattern,
        .timeformat = p->lf_timeformat,
        .zone = p->time_zone,
    };
}

extractor_t *extractor_for_plan(const plan_t *p, const char *const *fields, size_t n_fields,
                                const extract_env_t *env, err_t *e)
{
    extract_opts_t o = extract_opts_of_plan(p);
    return extractor_new_opts(p->logformat->name, fields, n_fields, env, &o, e);
}
