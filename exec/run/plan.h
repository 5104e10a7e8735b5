/* plan.h: the one plan type every run of a request reads with.
 *
 * A plan is the pipeline a request's lines go through, built once from
 * the request and the place it runs in (exec_plan_init), the same
 * serverless and in dserver:
 *
 *   filter  the pattern with its context and max (cat: every line)
 *   query   the mapreduce stage: where/set, extract, aggregate
 *
 * cat and grep are the plans without a query stage; a map or a
 * `tail --query` has one, and its own filter (the from TABLE literal)
 * lives in the map scan it makes. The runners (exec/run/runner.h,
 * exec/follow_plan.h) take a plan, inputs and a sink. */
#ifndef DTAIL_EXEC_RUN_PLAN_H
#define DTAIL_EXEC_RUN_PLAN_H

#include "exec/linescan.h"
#include "exec/mapscan.h"
#include "exec/run/request.h"
#include "parser/parser.h"

/* The strings $timezone and $timeoffset point to. */
typedef struct exec_zone {
    char tz[64];
    char tzoff[32];
} exec_zone_t;

typedef struct exec_plan {
    enum exec_kind kind;
    /* The filter stage: the pattern, compiled once per run. */
    matcher_t m;
    matcher_t start;                 /* multi-line records' start pattern */
    int has_start;                   /* ... the request has one */
    linescan_opts_t lo;              /* lo.matcher is &m, lo.record_start &start */
    /* The query stage; NULL for cat/grep. */
    query_t *query;                  /* parsed from the request's query */
    const plan_t *map;               /* query_plan(query) */
    exec_zone_t zone;
    struct logzone *time_zone;       /* rq->timezone read (exec/extract/logzone.h),
                                        NULL: UTC */
    plan_t zoned;                    /* map with time_zone, when there is one */
    map_opts_t mo;                   /* mo.plan is map; mo.env points into zone */
} exec_plan_t;

/* The plan of request rq run in env. It points into itself: do not copy
 * it. A map's deadline starts now (a follow run keeps its own: a TAIL
 * plan has none). Fails with ERR_PATTERN for an invalid pattern, or
 * with ERR_QUERY for an invalid query, a bad regex in it included
 * (e->offset into rq->query: exec_plan_error formats it), leaving
 * nothing to free. */
int exec_plan_init(exec_plan_t *p, const exec_request_t *rq, const exec_env_t *env, err_t *e);
void exec_plan_free(exec_plan_t *p);

/* The query stage runs map instead of its own plan: a copy of it with
 * another outfile (the REPL's .output), living as long as p. */
void exec_plan_retarget(exec_plan_t *p, const plan_t *map);

/* The message of e from exec_plan_init for rq: an invalid query with the
 * query and a caret under the place, anything else as it is. */
void exec_plan_error(const exec_request_t *rq, const err_t *e, char *buf, size_t cap);

#endif
