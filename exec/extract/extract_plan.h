/* extract_plan.h: the extractor of a query's plan: its log format with the
 * options the query gave after `logformat NAME` (delimiter, pattern,
 * timeformat), so that every caller that runs a plan reads lines the same
 * way. */
#ifndef DTAIL_EXEC_EXTRACT_PLAN_H
#define DTAIL_EXEC_EXTRACT_PLAN_H

#include "exec/extract/extract.h"
#include "parser/plan.h"

/* The options of plan p's log format. */
extract_opts_t extract_opts_of_plan(const plan_t *p);

/* extractor_new_opts for plan p's format and options. */
extractor_t *extractor_for_plan(const plan_t *p, const char *const *fields, size_t n_fields,
                                const extract_env_t *env, err_t *e);

#endif
