/* session_dt41_agg.c: a map's group tables as DTail 4.1 AGGREGATE
 * messages (docs/protocol-dt41.md), one per group, as the Go dserver
 * serializes its aggregate sets (mapr/aggregateset.go): the float values
 * first, then the strings, each under the select item's name; avg,
 * percentage and percentile go as their sums (the Go client divides by
 * the samples, or over all groups), len as its length and then its
 * string, under the same key twice. An item that aggregated nothing is
 * not sent, nor a group of which nothing aggregated. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec/sink/result.h"
#include "server/session_int.h"

void dt41_aggout_init(dt41_aggout_t *o, const char *host, const plan_t *plan)
{
    memset(o, 0, sizeof *o);
    o->host = host;
    o->plan = plan;
    dt41_agg_init(&o->msg);
}

void dt41_aggout_free(dt41_aggout_t *o)
{
    dt41_agg_free(&o->msg);
    free(o->key);
    o->key = NULL;
}

/* The state of item s of group g; last() and len() from o->latest when
 * there is one, the same group's there. */
static const unsigned char *item_state(const dt41_aggout_t *o, const agg_table_t *t, size_t g,
                                       size_t s, long latest_g)
{
    enum plan_agg agg = t->specs[s].agg;
    if (latest_g >= 0 && (agg == PLAN_AGG_LAST || agg == PLAN_AGG_LEN))
        return agg_table_state(o->latest, (size_t)latest_g, s);
    return agg_table_state(t, g, s);
}

/* What an item adds to the set's float values, and how many lines it
 * aggregated (-1: it does not count them). 0 when it has no float value. */
static int item_float(const agg_spec_t *spec, const unsigned char *st, double *v, long long *lines)
{
    *lines = -1;
    switch (spec->agg) {
    case PLAN_AGG_COUNT: {
        uint64_t c;
        memcpy(&c, st, sizeof c);
        *v = (double)c;
        *lines = (long long)c;
        return c > 0;
    }
    case PLAN_AGG_SUM: case PLAN_AGG_AVG: case PLAN_AGG_PERCENTAGE: case PLAN_AGG_PERCENTILE: {
        agg_sum_t sum;
        memcpy(&sum, st, sizeof sum);
        *v = sum.sum;
        *lines = (long long)sum.n;
        return sum.n > 0;
    }
    case PLAN_AGG_MIN: case PLAN_AGG_MAX:
        memcpy(v, st, sizeof *v);
        return !isnan(*v);   /* NaN is "none yet" */
    case PLAN_AGG_LEN: {
        const agg_last_t *l = (const agg_last_t *)(const void *)st;
        *v = (double)l->len;
        return l->seq > 0;
    }
    case PLAN_AGG_LAST: case PLAN_AGG_QUANTILE:   /* no quantiles in DTail */
    case PLAN_AGG_COUNT_DISTINCT: case PLAN_AGG_TOP:   /* nor these (put_map_table says so) */
    case PLAN_AGG_EXPR:                           /* not in a 4.1 client's query */
        return 0;
    }
    return 0;
}

/* The group in o->latest with t's group g's key, or -1. */
static long latest_group(const dt41_aggout_t *o, const agg_table_t *t, size_t g)
{
    if (!o->latest)
        return -1;
    const agg_group_t *gr = &t->groups[g];
    size_t slot;
    return agg_table_find(o->latest, 0, agg_table_key(t, g), gr->key_len, gr->hash, &slot);
}

/* The group key's text into o->key. */
static int group_key(dt41_aggout_t *o, const agg_table_t *t, size_t g, size_t *len)
{
    size_t need = (size_t)t->groups[g].key_len + 1;
    if (need > o->key_cap) {
        char *k = realloc(o->key, need);
        if (!k)
            return -1;
        o->key = k;
        o->key_cap = need;
    }
    result_group_key(t, g, o->key, len);
    return 0;
}

int dt41_aggout_put(dt41_aggout_t *o, wire_buf_t *b, const agg_table_t *t, size_t g)
{
    dt41_agg_t *a = &o->msg;
    const plan_t *plan = o->plan;
    long lg = latest_group(o, t, g);
    dt41_agg_clear(a);
    /* Go's Samples: the lines of which an item aggregated; here the most
     * any one item counted (the same when their fields come together). */
    long long samples = 0;
    for (size_t s = 0; s < t->n_specs; s++) {
        double v;
        long long lines;
        const char *name = plan->select[s].name;
        if (item_float(&t->specs[s], item_state(o, t, g, s, lg), &v, &lines) &&
            dt41_agg_add_float(a, name, strlen(name), v) < 0)
            return -1;
        if (lines > samples)
            samples = lines;
    }
    for (size_t s = 0; s < t->n_specs; s++) {
        enum plan_agg agg = t->specs[s].agg;
        if (agg != PLAN_AGG_LAST && agg != PLAN_AGG_LEN)
            continue;
        const agg_last_t *l = (const agg_last_t *)(const void *)item_state(o, t, g, s, lg);
        const char *name = plan->select[s].name;
        if (l->seq && dt41_agg_add_string(a, name, strlen(name), l->len ? l->p : "", l->len) < 0)
            return -1;
    }
    if (a->nfields == 0)
        return 0;
    size_t klen;
    if (group_key(o, t, g, &klen) < 0)
        return -1;
    a->host = (dt41_str_t){o->host, strlen(o->host)};
    a->group = (dt41_str_t){o->key, klen};
    a->samples = samples > 0 ? samples : 1;
    dt41_put_aggregate(b, a);
    return b->failed ? -1 : 1;
}
