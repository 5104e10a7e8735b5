/* table.c: open-addressing group table, per-aggregate update loops,
 * merge and serialization. */
#include "exec/agg/table.h"

#include "base/bigmem.h"
#include "base/grow.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec/agg/distinct.h"
#include "exec/agg/number.h"
#include "exec/agg/obj.h"
#include "exec/agg/quant.h"
#include "exec/agg/sketch.h"
#include "exec/agg/topk.h"
#include "wire/aggregate.h"

static size_t state_bytes(enum plan_agg agg)
{
    switch (agg) {
    case PLAN_AGG_COUNT: return sizeof(uint64_t);
    case PLAN_AGG_MIN: case PLAN_AGG_MAX: return sizeof(double);
    case PLAN_AGG_LAST: case PLAN_AGG_LEN: return sizeof(agg_last_t);
    case PLAN_AGG_QUANTILE: return sizeof(quant_t *);
    case PLAN_AGG_COUNT_DISTINCT: return sizeof(distinct_t *);
    case PLAN_AGG_TOP: return sizeof(topk_t *);
    default: return sizeof(agg_sum_t);
    }
}

int agg_table_init(agg_table_t *t, const agg_spec_t *specs, size_t n_specs, err_t *e)
{
    memset(t, 0, sizeof *t);
    t->specs = calloc(n_specs ? n_specs : 1, sizeof *t->specs);
    t->slots = bigmem_resize(NULL, 0, 64 * sizeof *t->slots, 1);
    /* Allocated from the start, so an empty key still points somewhere. */
    t->keys_cap = 4096;
    t->keys = bigmem_resize(NULL, 0, t->keys_cap, 0);
    if (!t->specs || !t->slots || !t->keys) {
        agg_table_free(t);
        return err_set(e, ERR_NOMEM, "out of memory for the group table");
    }
    t->mask = 63;
    t->n_specs = n_specs;
    size_t off = 0;
    for (size_t i = 0; i < n_specs; i++) {
        t->specs[i] = specs[i];
        t->specs[i].off = (uint32_t)off;
        off += (state_bytes(specs[i].agg) + 7) & ~(size_t)7;
    }
    t->state_size = off ? off : 8;
    return 0;
}

static void free_states(agg_table_t *t)
{
    for (size_t s = 0; s < t->n_specs; s++) {
        enum plan_agg agg = t->specs[s].agg;
        if (agg != PLAN_AGG_LAST && agg != PLAN_AGG_LEN && !agg_spec_may_approx(&t->specs[s]))
            continue;
        for (size_t g = 0; g < t->n_groups; g++) {
            unsigned char *st = t->states + g * t->state_size + t->specs[s].off;
            const agg_obj_ops_t *ops = agg_obj_ops(agg);
            void *ptr;
            memcpy(&ptr, st, sizeof ptr);
            if (ops)
                ops->release(ptr);
            else
                free(((agg_last_t *)(void *)st)->p);
        }
    }
}

void agg_table_free(agg_table_t *t)
{
    free_states(t);
    free(t->specs);
    bigmem_free(t->slots, (t->mask + 1) * sizeof *t->slots);
    bigmem_free(t->groups, t->cap_groups * sizeof *t->groups);
    bigmem_free(t->states, t->cap_states * t->state_size);
    bigmem_free(t->keys, t->keys_cap);
    memset(t, 0, sizeof *t);
}

void agg_table_clear(agg_table_t *t)
{
    free_states(t);
    memset(t->slots, 0, (t->mask + 1) * sizeof *t->slots);
    t->n_groups = 0;
    t->keys_len = 0;
    t->heap_bytes = 0;
}

/* A slot holds the hash's upper half beside the group index, so probing
 * skips other groups without touching their records. */
static inline uint64_t slot_of(uint64_t hash, size_t g)
{
    return (hash & 0xffffffff00000000ull) | ((uint64_t)g + 1);
}

/* The bytes a group takes in the larger of its two arrays: what bounds
 * their capacity. */
static size_t group_bytes(const agg_table_t *t)
{
    return t->state_size > sizeof *t->groups ? t->state_size : sizeof *t->groups;
}

/* Room for cap groups: their records and states. */
static int resize_groups(agg_table_t *t, size_t cap)
{
    agg_group_t *groups = bigmem_resize(t->groups, t->cap_groups * sizeof *groups,
                                        cap * sizeof *groups, 0);
    if (!groups)
        return -1;
    t->groups = groups;
    t->cap_groups = cap;
    unsigned char *states = bigmem_resize(t->states, t->cap_states * t->state_size,
                                          cap * t->state_size, 0);
    if (!states)
        return -1;
    t->states = states;
    t->cap_states = cap;
    return 0;
}

/* Lookups run this many groups ahead of their prefetched slots. */
#define PREFETCH_GROUPS 12

static int grow_slots(agg_table_t *t)
{
    size_t n = (t->mask + 1) * 2;
    uint64_t *slots = bigmem_resize(NULL, 0, n * sizeof *slots, 1);
    if (!slots)
        return -1;
    for (size_t g = 0; g < t->n_groups; g++) {
        if (g + PREFETCH_GROUPS < t->n_groups)
            __builtin_prefetch(&slots[t->groups[g + PREFETCH_GROUPS].hash & (n - 1)], 1);
        size_t i = t->groups[g].hash & (n - 1);
        while (slots[i])
            i = (i + 1) & (n - 1);
        slots[i] = slot_of(t->groups[g].hash, g);
    }
    bigmem_free(t->slots, (t->mask + 1) * sizeof *t->slots);
    t->slots = slots;
    t->mask = n - 1;
    return 0;
}

static void init_state(agg_table_t *t, unsigned char *rec)
{
    memset(rec, 0, t->state_size);
    for (size_t s = 0; s < t->n_specs; s++) {
        enum plan_agg agg = t->specs[s].agg;
        if (agg == PLAN_AGG_MIN || agg == PLAN_AGG_MAX) {
            double none = NAN;
            memcpy(rec + t->specs[s].off, &none, sizeof none);
        } else if (agg == PLAN_AGG_SUM || agg == PLAN_AGG_AVG || agg == PLAN_AGG_PERCENTAGE ||
                   agg == PLAN_AGG_PERCENTILE) {
            /* -0 is the sum of nothing that adds every value exactly, as
             * DTail's sum does starting from its first value: a sum of
             * -0 alone stays -0 (with +0 it would be 0). */
            double none = -0.0;
            memcpy(rec + t->specs[s].off, &none, sizeof none);
        }
    }
}

/* A new group at slot i whose key is the bytes of a and then of b. */
static long group_new(agg_table_t *t, const char *a, size_t al, const char *b, size_t bl,
                      uint64_t hash, size_t i)
{
    size_t len = al + bl;
    if (t->n_groups >= t->cap_groups || t->n_groups >= t->cap_states) {
        /* One doubling of cap_groups, also when only the states lag
         * behind it after a failed resize. */
        size_t cap = grow_capacity(t->cap_groups, t->cap_groups + 1, group_bytes(t), 64);
        if (!cap || resize_groups(t, cap) < 0)
            goto nomem;
    }
    if (t->keys_len + len > t->keys_cap) {
        size_t cap = grow_capacity(t->keys_cap, t->keys_len + len, 1, 4096);
        char *keys = cap ? bigmem_resize(t->keys, t->keys_cap, cap, 0) : NULL;
        if (!keys)
            goto nomem;
        t->keys = keys;
        t->keys_cap = cap;
    }
    /* The key is copied before the group exists: the bytes may come from
     * a mapped file, and a fault there (a truncation, exec/mapscan.c)
     * must leave the table as it was, not holding a group without state. */
    memcpy(t->keys + t->keys_len, a, al);
    if (bl)
        memcpy(t->keys + t->keys_len + al, b, bl);
    size_t g = t->n_groups++;
    t->groups[g] = (agg_group_t){hash, (uint32_t)t->keys_len, (uint32_t)len};
    t->keys_len += len;
    init_state(t, t->states + g * t->state_size);
    t->slots[i] = slot_of(hash, g);
    if (t->n_groups * 2 > t->mask + 1 && grow_slots(t) < 0)
        goto nomem;
    return (long)g;
nomem:
    t->failed = 1;
    return -1;
}

long agg_table_group_new(agg_table_t *t, const char *key, size_t len, uint64_t hash, size_t i)
{
    return group_new(t, key, len, NULL, 0, hash, i);
}

long agg_table_group_new_one(agg_table_t *t, const char *p, uint32_t len, uint64_t hash,
                             size_t i)
{
    unsigned char prefix[4];
    wire_le32_store(prefix, len);
    return group_new(t, (const char *)prefix, 4, p, len, hash, i);
}

static void last_set(agg_table_t *t, agg_last_t *l, const char *p, uint32_t len, uint64_t seq)
{
    if (seq < l->seq)
        return;
    if (len > l->cap || !l->p) {
        uint32_t cap = len < 16 ? 16 : len;
        char *np = realloc(l->p, cap);
        if (!np) {
            t->failed = 1;
            return;
        }
        t->heap_bytes += cap - l->cap;
        l->p = np;
        l->cap = cap;
    }
    if (len)
        memcpy(l->p, p, len);
    l->len = len;
    l->seq = seq;
}

/* The state object at st (exec/agg/obj.h), made when there is none yet
 * (NULL when out of memory). */
static void *obj_at(agg_table_t *t, unsigned char *st, const agg_obj_ops_t *ops)
{
    void *o;
    memcpy(&o, st, sizeof o);
    if (!o && (o = ops->make())) {
        memcpy(st, &o, sizeof o);
        t->heap_bytes += ops->bytes(o);
    }
    return o;
}

/* Folds a number into a quantile state, its growth counted. */
static inline void quant_fold(agg_table_t *t, unsigned char *st, double v)
{
    quant_t *q = obj_at(t, st, &quant_ops);
    if (!q) {
        t->failed = 1;
        return;
    }
    if (q->n < q->cap && !q->pre) {   /* the common case: one store */
        q->vals[q->n++] = v;
        q->sorted = false;
        return;
    }
    size_t before = quant_bytes(q);
    if (quant_add_slow(q, v) < 0)
        t->failed = 1;
    t->heap_bytes += quant_bytes(q) - before;
}

#define STATE(g, T) ((T *)(void *)(t->states + (size_t)(g) * t->state_size + off))

void agg_table_count(agg_table_t *t, size_t spec, const uint32_t *gid, size_t n)
{
    const uint32_t off = t->specs[spec].off;
    for (size_t i = 0; i < n; i++)
        *STATE(gid[i], uint64_t) += 1;
}

/* Folds the number v into the state st of a numeric aggregate. Called
 * with agg a constant, so each loop below gets its own straight code. */
static inline void fold_number(agg_table_t *t, enum plan_agg agg, unsigned char *st, double v)
{
    switch (agg) {
    case PLAN_AGG_MIN: case PLAN_AGG_MAX: {
        double m;
        memcpy(&m, st, sizeof m);
        if (isnan(m) || (agg == PLAN_AGG_MIN ? v < m : v > m))
            memcpy(st, &v, sizeof v);
        break;
    }
    case PLAN_AGG_QUANTILE:
        quant_fold(t, st, v);
        break;
    default: {   /* sum avg percentage percentile */
        agg_sum_t *s = (agg_sum_t *)(void *)st;
        s->sum += v;
        s->n++;
        break;
    }
    }
}

/* The numeric aggregate agg over text values: parsed and folded in one
 * pass. Returns the present values that are no number. */
static inline size_t fold_values(agg_table_t *t, uint32_t off, enum plan_agg agg,
                                 const uint32_t *gid, const sv_t *val, size_t n)
{
    size_t bad = 0;
    double v;
    for (size_t i = 0; i < n; i++) {
        if (val[i].len == SV_MISSING)
            continue;
        if (num_parse(val[i].p, val[i].len, &v))
            fold_number(t, agg, STATE(gid[i], unsigned char), v);
        else
            bad++;
    }
    return bad;
}

/* The same over values parsed already (agg_table_parse_numbers). */
static inline size_t fold_parsed(agg_table_t *t, uint32_t off, enum plan_agg agg,
                                 const uint32_t *gid, const agg_numbers_t *nums, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (nums->kind[i] == AGG_NUM_NUMBER)
            fold_number(t, agg, STATE(gid[i], unsigned char), nums->v[i]);
    return nums->n_bad;
}

bool agg_is_numeric(enum plan_agg agg)
{
    switch (agg) {
    case PLAN_AGG_SUM: case PLAN_AGG_AVG: case PLAN_AGG_PERCENTAGE: case PLAN_AGG_PERCENTILE:
    case PLAN_AGG_MIN: case PLAN_AGG_MAX: case PLAN_AGG_QUANTILE:
        return true;
    default:
        return false;
    }
}

void agg_table_parse_numbers(agg_numbers_t *nums, const sv_t *val, size_t n)
{
    nums->n_bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (val[i].len == SV_MISSING) {
            nums->kind[i] = AGG_NUM_MISSING;
        } else if (num_parse(val[i].p, val[i].len, &nums->v[i])) {
            nums->kind[i] = AGG_NUM_NUMBER;
        } else {
            nums->kind[i] = AGG_NUM_BAD;
            nums->n_bad++;
        }
    }
}

size_t agg_table_update_numbers(agg_table_t *t, size_t spec, const uint32_t *gid,
                                const agg_numbers_t *nums, size_t n)
{
    const uint32_t off = t->specs[spec].off;
    switch (t->specs[spec].agg) {
    case PLAN_AGG_MIN:
        return fold_parsed(t, off, PLAN_AGG_MIN, gid, nums, n);
    case PLAN_AGG_MAX:
        return fold_parsed(t, off, PLAN_AGG_MAX, gid, nums, n);
    case PLAN_AGG_QUANTILE:
        return fold_parsed(t, off, PLAN_AGG_QUANTILE, gid, nums, n);
    default:
        return fold_parsed(t, off, PLAN_AGG_SUM, gid, nums, n);
    }
}

size_t agg_table_update(agg_table_t *t, size_t spec, const uint32_t *gid, const sv_t *val,
                        const uint64_t *seq, size_t n)
{
    const uint32_t off = t->specs[spec].off;
    size_t bad = 0;     /* present values that are no number */
    switch (t->specs[spec].agg) {
    case PLAN_AGG_COUNT:
        for (size_t i = 0; i < n; i++)
            *STATE(gid[i], uint64_t) += val[i].len != SV_MISSING;
        break;
    case PLAN_AGG_SUM: case PLAN_AGG_AVG: case PLAN_AGG_PERCENTAGE: case PLAN_AGG_PERCENTILE:
        bad = fold_values(t, off, PLAN_AGG_SUM, gid, val, n);
        break;
    case PLAN_AGG_MIN:
        bad = fold_values(t, off, PLAN_AGG_MIN, gid, val, n);
        break;
    case PLAN_AGG_MAX:
        bad = fold_values(t, off, PLAN_AGG_MAX, gid, val, n);
        break;
    case PLAN_AGG_QUANTILE:
        bad = fold_values(t, off, PLAN_AGG_QUANTILE, gid, val, n);
        break;
    case PLAN_AGG_LAST: case PLAN_AGG_LEN:
        for (size_t i = 0; i < n; i++)
            if (val[i].len != SV_MISSING)
                last_set(t, STATE(gid[i], agg_last_t), val[i].p, val[i].len, seq[i]);
        break;
    case PLAN_AGG_COUNT_DISTINCT:
        for (size_t i = 0; i < n; i++) {
            if (val[i].len == SV_MISSING)
                continue;
            distinct_t *d = obj_at(t, STATE(gid[i], unsigned char), &distinct_ops);
            size_t before = d ? distinct_bytes(d) : 0;
            if (!d || distinct_add(d, distinct_hash(val[i].p, val[i].len)) < 0)
                t->failed = 1;
            if (d)
                t->heap_bytes += distinct_bytes(d) - before;
        }
        break;
    case PLAN_AGG_TOP:
        for (size_t i = 0; i < n; i++) {
            if (val[i].len == SV_MISSING)
                continue;
            topk_t *k = obj_at(t, STATE(gid[i], unsigned char), &topk_ops);
            size_t before = k ? topk_bytes(k) : 0;
            if (!k || topk_add(k, val[i].p, val[i].len) < 0)
                t->failed = 1;
            if (k)
                t->heap_bytes += topk_bytes(k) - before;
        }
        break;
    case PLAN_AGG_EXPR:   /* computed after the merge (exec/agg/post.h) */
        break;
    }
    return bad;
}

/* Folds one item's state `src` into `dst` (both of spec s). */
static int merge_state(agg_table_t *t, size_t s, unsigned char *dst, const unsigned char *src)
{
    switch (t->specs[s].agg) {
    case PLAN_AGG_COUNT: {
        uint64_t a, b;
        memcpy(&a, dst, 8);
        memcpy(&b, src, 8);
        a += b;
        memcpy(dst, &a, 8);
        break;
    }
    case PLAN_AGG_MIN: case PLAN_AGG_MAX: {
        double a, b;
        memcpy(&a, dst, 8);
        memcpy(&b, src, 8);
        int take = !isnan(b) && (isnan(a) || (t->specs[s].agg == PLAN_AGG_MIN ? b < a : b > a));
        if (take)
            memcpy(dst, &b, 8);
        break;
    }
    case PLAN_AGG_LAST: case PLAN_AGG_LEN: {
        const agg_last_t *b = (const agg_last_t *)(const void *)src;
        if (b->seq)
            last_set(t, (agg_last_t *)(void *)dst, b->p, b->len, b->seq);
        break;
    }
    case PLAN_AGG_QUANTILE: case PLAN_AGG_COUNT_DISTINCT: case PLAN_AGG_TOP: {
        const agg_obj_ops_t *ops = agg_obj_ops(t->specs[s].agg);
        const void *b;
        memcpy(&b, src, sizeof b);
        void *a = b ? obj_at(t, dst, ops) : NULL;
        if (!b)
            break;
        if (!a)
            return -1;
        size_t before = ops->bytes(a);
        int rc = ops->merge(a, b);
        t->heap_bytes += ops->bytes(a) - before;
        return rc;
    }
    default: {
        agg_sum_t a, b;
        memcpy(&a, dst, sizeof a);
        memcpy(&b, src, sizeof b);
        a.sum += b.sum;
        a.n += b.n;
        memcpy(dst, &a, sizeof a);
        break;
    }
    }
    return 0;
}

/* Makes room for n more groups at once, so a large merge neither rehashes
 * nor reallocates group by group. */
static int reserve_groups(agg_table_t *t, size_t n)
{
    size_t want = t->n_groups + n;
    while (want * 2 > t->mask + 1)
        if (grow_slots(t) < 0)
            return -1;
    return want > t->cap_groups || want > t->cap_states ? resize_groups(t, want) : 0;
}

int agg_table_merge(agg_table_t *into, const agg_table_t *from)
{
    if (from->n_groups > 64 && reserve_groups(into, from->n_groups) < 0) {
        into->failed = 1;
        return -1;
    }
    for (size_t g = 0; g < from->n_groups; g++) {
        if (g + PREFETCH_GROUPS < from->n_groups)
            agg_table_prefetch(into, from->groups[g + PREFETCH_GROUPS].hash);
        const agg_group_t *fg = &from->groups[g];
        long d = agg_table_group(into, from->keys + fg->key_off, fg->key_len, fg->hash);
        if (d < 0)
            return -1;
        for (size_t s = 0; s < into->n_specs; s++) {
            unsigned char *dst = into->states + (size_t)d * into->state_size + into->specs[s].off;
            if (merge_state(into, s, dst, agg_table_state(from, g, s)) < 0)
                return -1;
        }
    }
    return into->failed ? -1 : 0;
}

/* ---- serialization: the layout is wire/aggregate.h's ------------------ */

void agg_bytes_put(agg_bytes_t *w, const void *v, size_t n)
{
    wire_put_bytes(w, v, n);
}

void agg_group_encode(const agg_table_t *t, size_t g, agg_bytes_t *w)
{
    for (size_t s = 0; s < t->n_specs; s++) {
        const unsigned char *st = agg_table_state(t, g, s);
        switch (t->specs[s].agg) {
        case PLAN_AGG_COUNT: {
            uint64_t c;
            memcpy(&c, st, 8);
            wire_put_le64(w, c);
            break;
        }
        case PLAN_AGG_MIN: case PLAN_AGG_MAX: {
            double m;
            memcpy(&m, st, 8);
            wire_put_lef64(w, m);
            break;
        }
        case PLAN_AGG_LAST: case PLAN_AGG_LEN: {
            const agg_last_t *l = (const agg_last_t *)(const void *)st;
            wire_agg_put_last(w, l->seq, l->p, l->len);
            break;
        }
        case PLAN_AGG_QUANTILE: case PLAN_AGG_COUNT_DISTINCT: case PLAN_AGG_TOP: {
            const void *ptr;
            memcpy(&ptr, st, sizeof ptr);
            size_t at = wire_agg_state_begin(w);
            if (ptr)
                agg_obj_ops(t->specs[s].agg)->encode(ptr, w);
            wire_agg_state_end(w, at);
            break;
        }
        default: {
            agg_sum_t a;
            memcpy(&a, st, sizeof a);
            wire_agg_put_sum(w, a.sum, a.n);
            break;
        }
        }
    }
}

unsigned char *agg_table_serialize_part(const agg_table_t *t, size_t from, size_t max_bytes,
                                        size_t *next, size_t *len)
{
    agg_bytes_t w = {0};
    wire_agg_spec_t *specs = calloc(t->n_specs ? t->n_specs : 1, sizeof *specs);
    if (!specs)
        return NULL;
    uint8_t version = WIRE_AGG_VERSION_V2;
    for (size_t s = 0; s < t->n_specs; s++) {
        specs[s] = (wire_agg_spec_t){(uint8_t)t->specs[s].agg, agg_spec_param(&t->specs[s])};
        if (agg_spec_may_approx(&t->specs[s]))
            version = WIRE_AGG_VERSION;
    }
    size_t count_at = wire_agg_put_header(&w, version, specs, t->n_specs);
    free(specs);
    size_t g = from;
    for (; g < t->n_groups && !w.failed; g++) {
        size_t before = w.len;
        wire_agg_put_key(&w, agg_table_key(t, g), t->groups[g].key_len);
        agg_group_encode(t, g, &w);
        if (w.len > max_bytes && g > from) {
            w.len = before;   /* this group starts the next part */
            break;
        }
    }
    if (w.failed) {
        free(w.p);
        return NULL;
    }
    wire_agg_set_groups(&w, count_at, g - from);
    *next = g;
    *len = w.len;
    return w.p;
}

unsigned char *agg_table_serialize(const agg_table_t *t, size_t *len)
{
    size_t next;
    return agg_table_serialize_part(t, 0, SIZE_MAX, &next, len);
}

int agg_serialized_join(agg_bytes_t *whole, const unsigned char *part, size_t len, err_t *e)
{
    return wire_agg_join(whole, part, len, e);
}

/* Folds the quantile sketch state at r (a byte string, version 2) into
 * *dst. */
static int merge_encoded_sketch(agg_table_t *t, unsigned char *dst, wire_le_reader_t *r, err_t *e)
{
    const unsigned char *p;
    uint32_t n;
    if (wire_le_get_str(r, &p, &n, "quantile state", e) < 0)
        return -1;
    if (n == 0)
        return 0;   /* no sketch: no number was folded */
    size_t at = (size_t)(p - r->p);
    /* The sketch read in place, so that errors name offsets in the payload. */
    wire_le_reader_t sr = {r->p, at + n, at, r->what};
    wire_sketch_t ws;
    if (wire_sketch_get(&sr, &ws, e) < 0)
        return -1;
    quant_t *a = obj_at(t, dst, &quant_ops);
    if (!a)
        return err_set(e, ERR_NOMEM, "out of memory merging a partial aggregate");
    size_t before = quant_bytes(a);
    int rc = quant_sketch(a);   /* what is merged is a sketch */
    if (rc < 0) {
        t->heap_bytes += quant_bytes(a) - before;
        return err_set(e, ERR_NOMEM, "out of memory merging a partial aggregate");
    }
    rc = sketch_merge_wire(a->sk, &ws, e);
    t->heap_bytes += quant_bytes(a) - before;
    if (rc < 0 && e->code == ERR_INPUT)
        return wire_le_fail(r, at, e, "%s", e->msg);
    return rc;
}

/* Folds a state of version 3 (a byte string: quantile, count_distinct or
 * top) at r into *dst. */
static int merge_encoded_v3(agg_table_t *t, size_t s, unsigned char *dst, wire_le_reader_t *r,
                            err_t *e)
{
    const unsigned char *p;
    uint32_t n;
    if (wire_le_get_str(r, &p, &n, "aggregate state", e) < 0)
        return -1;
    if (n == 0)
        return 0;   /* nothing was folded */
    r->pos -= n;    /* the state is read in place, for offsets in errors */
    const agg_obj_ops_t *ops = agg_obj_ops(t->specs[s].agg);
    void *obj = obj_at(t, dst, ops);
    if (!obj)
        return err_set(e, ERR_NOMEM, "out of memory merging a partial aggregate");
    size_t before = ops->bytes(obj);
    int rc = ops->merge_encoded(obj, r, n, e);
    t->heap_bytes += ops->bytes(obj) - before;
    return rc;
}

/* Folds the states of one group record at r (of that version) into
 * group d. */
static int merge_group_states(agg_table_t *t, size_t d, wire_le_reader_t *r, uint8_t version,
                              err_t *e)
{
    for (size_t s = 0; s < t->n_specs; s++) {
        unsigned char *dst = t->states + d * t->state_size + t->specs[s].off;
        unsigned char src[sizeof(agg_sum_t)];   /* the largest fixed-size state */
        switch (t->specs[s].agg) {
        case PLAN_AGG_COUNT: {
            uint64_t c;
            if (wire_le_get_u64(r, &c, "count state", e) < 0)
                return -1;
            memcpy(src, &c, 8);
            merge_state(t, s, dst, src);
            break;
        }
        case PLAN_AGG_MIN: case PLAN_AGG_MAX: {
            double m;
            if (wire_le_get_f64(r, &m, "min/max state", e) < 0)
                return -1;
            memcpy(src, &m, 8);
            merge_state(t, s, dst, src);
            break;
        }
        case PLAN_AGG_LAST: case PLAN_AGG_LEN: {
            agg_last_t l = {0};
            const char *v;
            if (wire_agg_get_last(r, &l.seq, &v, &l.len, e) < 0)
                return -1;
            if (l.seq)
                last_set(t, (agg_last_t *)(void *)dst, v, l.len, l.seq);
            break;
        }
        case PLAN_AGG_QUANTILE:
            if ((version < WIRE_AGG_VERSION ? merge_encoded_sketch(t, dst, r, e)
                                            : merge_encoded_v3(t, s, dst, r, e)) < 0)
                return -1;
            break;
        case PLAN_AGG_COUNT_DISTINCT: case PLAN_AGG_TOP:
            if (merge_encoded_v3(t, s, dst, r, e) < 0)
                return -1;
            break;
        default: {
            agg_sum_t a;
            if (wire_agg_get_sum(r, &a.sum, &a.n, e) < 0)
                return -1;
            memcpy(src, &a, sizeof a);
            merge_state(t, s, dst, src);
            break;
        }
        }
    }
    return 0;
}

int agg_table_merge_serialized(agg_table_t *t, const unsigned char *buf, size_t len, err_t *e)
{
    wire_le_reader_t r = wire_le_reader(buf, len, WIRE_AGG_WHAT);
    uint32_t n_specs;
    uint8_t version;
    if (wire_agg_get_header(&r, &version, &n_specs, e) < 0)
        return -1;
    if (n_specs != t->n_specs)
        return wire_le_fail(&r, r.pos - 4, e, "%u select items, expected %zu", n_specs,
                            t->n_specs);
    for (size_t s = 0; s < t->n_specs; s++) {
        wire_agg_spec_t sp;
        size_t at = r.pos;
        if (wire_agg_get_spec(&r, &sp, e) < 0)
            return -1;
        if (sp.kind != (uint8_t)t->specs[s].agg ||
            ((sp.kind == PLAN_AGG_QUANTILE || sp.kind == PLAN_AGG_TOP) &&
             sp.quantile != agg_spec_param(&t->specs[s])))
            return wire_le_fail(&r, at, e, "select item %zu differs", s + 1);
        /* the kinds of version 3 (an arithmetic item is a sum-shaped
         * state, readable in 2) */
        if (version < WIRE_AGG_VERSION &&
            (sp.kind == PLAN_AGG_COUNT_DISTINCT || sp.kind == PLAN_AGG_TOP))
            return wire_le_fail(&r, at, e, "select item %zu: kind %u needs version %d, the "
                                "table is of version %u", s + 1, sp.kind, WIRE_AGG_VERSION,
                                version);
    }
    uint64_t n_groups;
    if (wire_agg_get_groups(&r, &n_groups, e) < 0)
        return -1;
    for (uint64_t g = 0; g < n_groups; g++) {
        const char *key;
        uint32_t kl;
        if (wire_agg_get_key(&r, &key, &kl, e) < 0)
            return -1;
        long d = agg_table_group(t, key, kl, agg_key_hash(key, kl));
        if (d < 0)
            return err_set(e, ERR_NOMEM, "out of memory merging a partial aggregate");
        if (merge_group_states(t, (size_t)d, &r, version, e) < 0)
            return -1;
    }
    if (wire_le_left(&r))
        return wire_le_fail(&r, r.pos, e, "%zu trailing bytes", wire_le_left(&r));
    return 0;
}

long agg_group_merge_encoded(agg_table_t *t, size_t d, const unsigned char *p, size_t len,
                             err_t *e)
{
    wire_le_reader_t r = wire_le_reader(p, len, WIRE_AGG_WHAT);
    return merge_group_states(t, d, &r, WIRE_AGG_VERSION, e) < 0 ? -1 : (long)r.pos;
}

double agg_state_number(const agg_spec_t *spec, const unsigned char *st)
{
    double v;
    switch (spec->agg) {
    case PLAN_AGG_COUNT: {
        uint64_t c;
        memcpy(&c, st, 8);
        return (double)c;
    }
    case PLAN_AGG_MIN: case PLAN_AGG_MAX:
        memcpy(&v, st, 8);
        return isnan(v) ? 0 : v;
    case PLAN_AGG_LAST: {
        const agg_last_t *l = (const agg_last_t *)(const void *)st;
        return l->seq && num_parse(l->p, l->len, &v) ? v : 0;
    }
    case PLAN_AGG_LEN:
        return (double)((const agg_last_t *)(const void *)st)->len;
    case PLAN_AGG_QUANTILE: {
        quant_t *q;
        memcpy(&q, st, sizeof q);
        return q ? quant_value(q, spec->quantile) : 0;
    }
    case PLAN_AGG_COUNT_DISTINCT: {
        const distinct_t *d;
        memcpy(&d, st, sizeof d);
        return d ? (double)distinct_count(d) : 0;
    }
    case PLAN_AGG_TOP:
        return 0;
    case PLAN_AGG_AVG: {
        agg_sum_t s;
        memcpy(&s, st, sizeof s);
        return s.n ? s.sum / (double)s.n : 0;
    }
    default: {
        agg_sum_t s;
        memcpy(&s, st, sizeof s);
        return s.n ? s.sum : 0;
    }
    }
}

bool agg_state_no_number(const agg_spec_t *spec, const unsigned char *st)
{
    switch (spec->agg) {
    case PLAN_AGG_COUNT: case PLAN_AGG_LAST: case PLAN_AGG_LEN: case PLAN_AGG_COUNT_DISTINCT:
    case PLAN_AGG_TOP:
        return false;
    case PLAN_AGG_MIN: case PLAN_AGG_MAX: {
        double v;
        memcpy(&v, st, 8);
        return isnan(v);    /* NaN is "none yet": no value is NaN (num_parse) */
    }
    case PLAN_AGG_QUANTILE: {
        const quant_t *q;
        memcpy(&q, st, sizeof q);
        return !q;
    }
    default: {
        agg_sum_t s;
        memcpy(&s, st, sizeof s);
        return s.n == 0;
    }
    }
}

int agg_state_text(const agg_spec_t *spec, const unsigned char *st, const char **p,
                   uint32_t *len)
{
    *p = "";
    *len = 0;
    if (spec->agg != PLAN_AGG_LAST)
        return 0;
    const agg_last_t *l = (const agg_last_t *)(const void *)st;
    if (!l->seq)
        return 0;
    *p = l->p;
    *len = l->len;
    double v;
    return l->len && !num_parse(l->p, l->len, &v);
}

bool agg_state_approx(const agg_spec_t *spec, const unsigned char *st)
{
    const void *ptr;
    if (!agg_spec_may_approx(spec))
        return false;
    memcpy(&ptr, st, sizeof ptr);
    if (!ptr)
        return false;
    switch (spec->agg) {
    case PLAN_AGG_QUANTILE: {
        const quant_t *q = ptr;
        /* p0 and p100 of a sketch are its exact extremes */
        return !quant_exact(q) && spec->quantile > 0 && spec->quantile < 1;
    }
    case PLAN_AGG_COUNT_DISTINCT:
        return !distinct_exact(ptr);
    default:
        return !topk_exact(ptr);
    }
}
