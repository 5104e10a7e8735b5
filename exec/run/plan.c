/* plan.c: see plan.h. */
#include "exec/run/plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "exec/extract/logzone.h"

static int filter_init(exec_plan_t *p, const exec_request_t *rq, size_t max_line_len, err_t *e)
{
    /* cat selects every line; a map's filter is its from TABLE, in the
     * map scan. */
    int selects = rq->kind == EXEC_GREP || rq->kind == EXEC_TAIL;
    const char *pattern = selects && rq->regex ? rq->regex : "";
    if (matcher_init_opts(&p->m, pattern, (rq->flags & EXEC_REQ_ICASE) ? MATCHER_CASELESS : 0,
                          e) < 0)
        return -1;
    unsigned long long before = rq->before > LINESCAN_CONTEXT_MAX ? LINESCAN_CONTEXT_MAX : rq->before;
    unsigned long long after = rq->after > LINESCAN_CONTEXT_MAX ? LINESCAN_CONTEXT_MAX : rq->after;
    p->lo = (linescan_opts_t){
        .matcher = &p->m,
        .invert = (rq->flags & EXEC_REQ_INVERT) != 0,
        .before = linescan_context((long long)before),
        .after = linescan_context((long long)after),
        .max = rq->max,
        .max_line_len = max_line_len,
    };
    return 0;
}

/* Multi-line records: the start pattern compiled once (pcre2 JIT, or a
 * literal search), for the filter stage and the query stage alike. */
static int records_init_plan(exec_plan_t *p, const char *pattern, err_t *e)
{
    if (!pattern || !*pattern)
        return 0;
    if (matcher_init(&p->start, pattern, e) < 0)
        return -1;
    p->has_start = 1;
    p->lo.record_start = &p->start;
    p->mo.record_start = &p->start;
    return 0;
}

static int query_init(exec_plan_t *p, const exec_request_t *rq, const exec_env_t *env, err_t *e)
{
    if (query_parse(rq->query, strlen(rq->query),
                    &(query_opts_t){.default_logformat = env->default_logformat}, &p->query,
                    e) < 0) {
        /* A bad regex() or matches pattern is the query's error, shown with
         * the query and a caret (its offset is into the query). */
        if (e->code == ERR_PATTERN)
            e->code = ERR_QUERY;
        return -1;
    }
    p->map = query_plan(p->query);
    if (rq->timezone) {
        p->time_zone = malloc(sizeof *p->time_zone);
        if (!p->time_zone)
            return err_set(e, ERR_NOMEM, "out of memory reading the time zone");
        if (logzone_load(p->time_zone, rq->timezone, e) < 0)
            return -1;
        p->zoned = *p->map;
        p->zoned.time_zone = p->time_zone;
        p->map = &p->zoned;
    }
    mapscan_local_zone(p->zone.tz, sizeof p->zone.tz, p->zone.tzoff, sizeof p->zone.tzoff);
    /* A follow run keeps the request's deadline itself. */
    long long timeout_s = rq->kind == EXEC_TAIL ? 0 : rq->timeout_s;
    p->mo = (map_opts_t){
        .plan = p->map,
        .max_line_len = env->max_line_len,
        .env = {.hostname = env->host, .timezone = p->zone.tz, .timeoffset = p->zone.tzoff},
        .n_threads = env->n_threads > 0 ? env->n_threads : 1,
        .cancel = env->cancel,
        .deadline_ms = timeout_s > 0 ? clock_now_ms() + timeout_s * 1000LL : 0,
        .memory_limit = env->memory_limit,
    };
    return 0;
}

int exec_plan_init(exec_plan_t *p, const exec_request_t *rq, const exec_env_t *env, err_t *e)
{
    memset(p, 0, sizeof *p);
    p->kind = rq->kind;
    if (filter_init(p, rq, env->max_line_len, e) < 0)
        return -1;
    int wants_query = rq->kind == EXEC_MAP || (rq->kind == EXEC_TAIL && rq->query && *rq->query);
    if (wants_query && query_init(p, rq, env, e) < 0) {
        exec_plan_free(p);
        return -1;
    }
    /* Records: the request's pattern (--multiline), else the query's
     * `logformat NAME multiline "RE"`; the two differing is an error, as
     * neither could be said to win. */
    const char *start = rq->multiline && *rq->multiline ? rq->multiline : NULL;
    const char *in_query = p->map ? p->map->lf_multiline : NULL;
    if (start && in_query && strcmp(start, in_query) != 0) {
        long at = p->map->lf_multiline_offset;
        exec_plan_free(p);
        return err_set_at(e, ERR_QUERY, at,
                          "the query's multiline pattern differs from --multiline's");
    }
    if (records_init_plan(p, start ? start : in_query, e) < 0) {
        exec_plan_free(p);
        return -1;
    }
    return 0;
}

void exec_plan_free(exec_plan_t *p)
{
    matcher_free(&p->m);
    if (p->has_start)
        matcher_free(&p->start);
    p->has_start = 0;
    query_free(p->query);
    p->query = NULL;
    p->map = NULL;
    free(p->time_zone);
    p->time_zone = NULL;
}

void exec_plan_retarget(exec_plan_t *p, const plan_t *map)
{
    if (p->time_zone) {
        p->zoned = *map;
        p->zoned.time_zone = p->time_zone;
        map = &p->zoned;
    }
    p->map = map;
    p->mo.plan = map;
}

void exec_plan_error(const exec_request_t *rq, const err_t *e, char *buf, size_t cap)
{
    if (e->code == ERR_QUERY && rq->query)
        query_error_format(rq->query, strlen(rq->query), e, buf, cap);
    else
        snprintf(buf, cap, "%s", e->msg);
}
