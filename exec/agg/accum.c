/* accum.c: combining partials within a memory budget. */
#include "exec/agg/accum.h"

#include <string.h>

int agg_accum_init(agg_accum_t *a, const agg_spec_t *specs, size_t n_specs, size_t budget,
                   err_t *e)
{
    memset(a, 0, sizeof *a);
    a->budget = budget;
    return agg_table_init(&a->table, specs, n_specs, e);
}

void agg_accum_free(agg_accum_t *a)
{
    agg_table_free(&a->table);
    spill_close(a->spill);
    a->spill = NULL;
}

size_t agg_accum_table_bytes(const agg_table_t *t)
{
    /* a group's record, its state, two slots (the load factor) and its key */
    return t->n_groups * (sizeof *t->groups + t->state_size + 2 * sizeof *t->slots) +
           t->keys_len + t->heap_bytes;
}

/* The table as one run of the spill, then an empty table with small
 * arrays again. */
static int spill_table(agg_accum_t *a, err_t *e)
{
    if (!a->spill && !(a->spill = spill_open(a->table.specs, a->table.n_specs, e)))
        return -1;
    if (spill_write(a->spill, &a->table, e) < 0)
        return -1;
    agg_table_t fresh;
    if (agg_table_init(&fresh, a->table.specs, a->table.n_specs, e) < 0)
        return -1;
    agg_table_free(&a->table);
    a->table = fresh;
    return 0;
}

static int check(agg_accum_t *a, err_t *e)
{
    if (a->table.failed)
        return err_set(e, ERR_NOMEM, "out of memory merging results");
    if (a->budget && agg_accum_table_bytes(&a->table) > a->budget)
        return spill_table(a, e);
    return 0;
}

int agg_accum_add_table(agg_accum_t *a, const agg_table_t *t, err_t *e)
{
    if (agg_table_merge(&a->table, t) < 0)
        return err_set(e, ERR_NOMEM, "out of memory merging results");
    return check(a, e);
}

int agg_accum_add_serialized(agg_accum_t *a, const unsigned char *p, size_t len, err_t *e)
{
    if (agg_table_merge_serialized(&a->table, p, len, e) < 0)
        return -1;
    return check(a, e);
}

int agg_accum_drain_into(agg_accum_t *dst, agg_accum_t *src, err_t *e)
{
    int rc = 0;
    if (src->spill) {
        if (src->table.n_groups && spill_write(src->spill, &src->table, e) < 0)
            return -1;
        agg_table_clear(&src->table);
        agg_table_t key;
        if (agg_table_init(&key, src->table.specs, src->table.n_specs, e) < 0)
            return -1;
        spill_iter_t *it = spill_iter_open(src->spill, e);
        int got = it ? 1 : -1;
        while (it && (got = spill_iter_next(it, &key, e)) > 0)
            if (agg_accum_add_table(dst, &key, e) < 0) {
                got = -1;
                break;
            }
        spill_iter_close(it);
        agg_table_free(&key);
        rc = got < 0 ? -1 : 0;
        spill_close(src->spill);
        src->spill = NULL;
    } else {
        rc = agg_accum_add_table(dst, &src->table, e);
    }
    agg_table_clear(&src->table);
    return rc;
}

int agg_accum_finish(agg_accum_t *a, err_t *e)
{
    if (!a->spill)
        return 0;
    if (a->table.n_groups && spill_write(a->spill, &a->table, e) < 0)
        return -1;
    agg_table_clear(&a->table);
    return 0;
}
