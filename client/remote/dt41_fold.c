/* dt41_fold.c: see dt41_fold.h. */
#include "client/remote/dt41_fold.h"

#include <stdlib.h>
#include <string.h>

void dt41_fold_init(dt41_fold_t *f, const plan_t *plan, agg_table_t *table)
{
    memset(f, 0, sizeof *f);
    f->plan = plan;
    f->table = table;
}

void dt41_fold_free(dt41_fold_t *f)
{
    free(f->key);
    f->key = NULL;
    f->key_cap = 0;
}

/* Our key of Go's group text: per group-by item its length and bytes. */
static int build_key(dt41_fold_t *f, const dt41_str_t *group, size_t *len)
{
    size_t parts = f->plan->n_group_by;
    size_t need = group->n + 4 * (parts ? parts : 1);
    if (need > f->key_cap) {
        unsigned char *k = realloc(f->key, need);
        if (!k)
            return -1;
        f->key = k;
        f->key_cap = need;
    }
    size_t n = 0;
    const char *p = group->p, *end = group->p + group->n;
    for (size_t i = 0; i < parts; i++) {
        const char *comma = i + 1 < parts ? memchr(p, ',', (size_t)(end - p)) : NULL;
        const char *stop = comma ? comma : end;
        wire_le32_store(f->key + n, (uint32_t)(stop - p));
        memcpy(f->key + n + 4, p, (size_t)(stop - p));
        n += 4 + (size_t)(stop - p);
        p = comma ? comma + 1 : end;
    }
    *len = n;
    return 0;
}

/* The field named name: its first occurrence (the number), or with last
 * its last (len() sends the string after the length). */
static const dt41_field_t *field(const dt41_agg_t *a, const char *name, int last)
{
    size_t k = strlen(name);
    const dt41_field_t *hit = NULL;
    for (size_t i = 0; i < a->nfields; i++) {
        const dt41_field_t *fd = &a->fields[i];
        if (fd->type == DT41_FIELD_BARE || fd->key.n != k || memcmp(fd->key.p, name, k) != 0)
            continue;
        hit = fd;
        if (!last)
            break;
    }
    return hit;
}

/* Select item s came: the field it aggregates was in a parsed line. */
static void mark_seen(dt41_fold_t *f, size_t s)
{
    const plan_value_t *v = f->plan->select[s].value;
    if (!f->report || !v || v->kind != PLAN_V_FIELD || v->src != PLAN_SRC_DYNAMIC)
        return;
    long k = field_report_find(f->report, v->text);
    if (k >= 0)
        f->report->seen[k] = 1;
}

int dt41_fold(dt41_fold_t *f, const dt41_agg_t *a, err_t *e)
{
    agg_table_t *t = f->table;
    size_t klen;
    if (build_key(f, &a->group, &klen) < 0)
        return err_set(e, ERR_NOMEM, "out of memory folding a DTail 4.1 result");
    const char *key = (const char *)f->key;
    long g = agg_table_group(t, key, klen, agg_key_hash(key, klen));
    if (g < 0)
        return err_set(e, ERR_NOMEM, "out of memory folding a DTail 4.1 result");
    uint32_t gid = (uint32_t)g;
    uint64_t seq = ++f->seq;
    for (size_t s = 0; s < t->n_specs; s++) {
        enum plan_agg agg = t->specs[s].agg;
        const char *name = f->plan->select[s].name;
        int text = agg == PLAN_AGG_LAST || agg == PLAN_AGG_LEN;
        const dt41_field_t *fd = field(a, name, text);
        if (!fd)
            continue;
        mark_seen(f, s);
        unsigned char *st = t->states + (size_t)g * t->state_size + t->specs[s].off;
        switch (agg) {
        case PLAN_AGG_COUNT: {
            uint64_t c;
            memcpy(&c, st, sizeof c);
            c += fd->type == DT41_FIELD_FLOAT && fd->f > 0 ? (uint64_t)fd->f : 0;
            memcpy(st, &c, sizeof c);
            break;
        }
        case PLAN_AGG_SUM: case PLAN_AGG_AVG: case PLAN_AGG_PERCENTAGE: case PLAN_AGG_PERCENTILE: {
            if (fd->type != DT41_FIELD_FLOAT)
                break;
            agg_sum_t sum;
            memcpy(&sum, st, sizeof sum);
            sum.sum += fd->f;
            sum.n += a->samples > 0 ? (uint64_t)a->samples : 1;
            memcpy(st, &sum, sizeof sum);
            break;
        }
        case PLAN_AGG_MIN: case PLAN_AGG_MAX: case PLAN_AGG_LAST: case PLAN_AGG_LEN: {
            sv_t v = {fd->s.p, (uint32_t)fd->s.n};
            agg_table_update(t, s, &gid, &v, &seq, 1);
            break;
        }
        case PLAN_AGG_QUANTILE:   /* DTail has none: a Go dserver refuses the query */
        case PLAN_AGG_COUNT_DISTINCT: case PLAN_AGG_TOP:   /* refused before (dt41.c) */
        case PLAN_AGG_EXPR:       /* computed after the merge; never sent to Go */
            break;
        }
    }
    if (f->report && a->samples > 0)
        f->report->lines_parsed += (uint64_t)a->samples;
    if (t->failed)
        return err_set(e, ERR_NOMEM, "out of memory folding a DTail 4.1 result");
    return 0;
}
