/* topk.c: exact value counts, then a Misra-Gries summary. */
#include "exec/agg/topk.h"

#include "exec/agg/obj.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/bytes.h"
#include "base/grow.h"
#include "base/numfmt.h"
#include "exec/agg/table.h"
#include "wire/aggregate.h"

topk_t *topk_new(void)
{
    return calloc(1, sizeof(topk_t));
}

void topk_free(topk_t *t)
{
    if (!t)
        return;
    free(t->ent);
    free(t->slots);
    free(t->bytes);
    free(t);
}

static void slots_fill(topk_t *t)
{
    memset(t->slots, 0, (size_t)t->n_slots * sizeof *t->slots);
    uint32_t mask = t->n_slots - 1;
    for (uint32_t i = 0; i < t->n; i++) {
        uint32_t s = (uint32_t)t->ent[i].hash & mask;
        while (t->slots[s])
            s = (s + 1) & mask;
        t->slots[s] = i + 1;
    }
}

static int slots_grow(topk_t *t)
{
    uint32_t n = t->n_slots ? t->n_slots * 2 : 16;
    uint32_t *s = malloc((size_t)n * sizeof *s);
    if (!s)
        return -1;
    free(t->slots);
    t->slots = s;
    t->n_slots = n;
    slots_fill(t);
    return 0;
}

/* Adds count to the value's counter, made when new. */
static int add_count(topk_t *t, const char *p, uint32_t len, uint64_t hash, uint64_t count)
{
    if ((t->n + 1) * 2 > t->n_slots && slots_grow(t) < 0)
        return -1;
    uint32_t mask = t->n_slots - 1, s = (uint32_t)hash & mask;
    for (uint32_t i; (i = t->slots[s]); s = (s + 1) & mask) {
        top_entry_t *en = &t->ent[i - 1];
        if (en->hash == hash && en->len == len && bytes_equal(t->bytes + en->off, p, len)) {
            en->count += count;
            return 0;
        }
    }
    size_t cap_e = t->cap;
    if (GROW_ARRAY(t->ent, cap_e, (size_t)t->n + 1, 16) < 0 ||
        GROW_ARRAY(t->bytes, t->bytes_cap, t->len + len, 256) < 0) {
        t->cap = (uint32_t)cap_e;
        return -1;
    }
    t->cap = (uint32_t)cap_e;
    if (len)
        memcpy(t->bytes + t->len, p, len);
    t->ent[t->n] = (top_entry_t){count, hash, (uint32_t)t->len, len};
    t->len += len;
    if (len > t->max_len)
        t->max_len = len;
    t->slots[s] = ++t->n;
    return 0;
}

static int cmp_count_desc(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x < y) - (x > y);
}

/* Past TOP_EXACT_MAX counters: takes the (TOP_KEEP+1)-th largest count
 * from every counter and drops those at 0; the values' bytes are
 * compacted. */
static int reduce(topk_t *t)
{
    if (t->n <= TOP_EXACT_MAX)
        return 0;
    uint64_t *c = malloc((size_t)t->n * sizeof *c);
    char *bytes = malloc(t->len ? t->len : 1);
    if (!c || !bytes) {
        free(c);
        free(bytes);
        return -1;
    }
    for (uint32_t i = 0; i < t->n; i++)
        c[i] = t->ent[i].count;
    qsort(c, t->n, sizeof *c, cmp_count_desc);
    uint64_t cut = c[TOP_KEEP];
    free(c);
    uint32_t k = 0;
    size_t len = 0;
    t->max_len = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        top_entry_t en = t->ent[i];
        if (en.count <= cut)
            continue;
        memcpy(bytes + len, t->bytes + en.off, en.len);
        en.off = (uint32_t)len;
        en.count -= cut;
        len += en.len;
        if (en.len > t->max_len)
            t->max_len = en.len;
        t->ent[k++] = en;
    }
    free(t->bytes);
    t->bytes = bytes;
    t->bytes_cap = t->len ? t->len : 1;
    t->len = len;
    t->n = k;
    t->error += cut;
    slots_fill(t);
    return 0;
}

int topk_add(topk_t *t, const char *p, uint32_t len)
{
    if (add_count(t, p, len, agg_hash(p, len), 1) < 0)
        return -1;
    t->total++;
    return t->n > TOP_EXACT_MAX ? reduce(t) : 0;
}

int topk_merge(topk_t *into, const topk_t *from)
{
    for (uint32_t i = 0; i < from->n; i++) {
        const top_entry_t *en = &from->ent[i];
        if (add_count(into, from->bytes + en->off, en->len, en->hash, en->count) < 0)
            return -1;
    }
    into->total += from->total;
    into->error += from->error;
    return reduce(into);
}

/* A counter as the cell orders them: count descending, then the value's
 * bytes. */
typedef struct sort_item {
    uint64_t count;
    const char *p;
    uint32_t len;
} sort_item_t;

static int cmp_item(const void *a, const void *b)
{
    const sort_item_t *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = n ? memcmp(x->p, y->p, n) : 0;
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

size_t topk_render_need(const topk_t *t, uint32_t k)
{
    size_t shown = t->n < k ? t->n : k;
    /* each: the value escaped (2 bytes a byte at most), ':', the count, ',' */
    return shown * (2 * (size_t)t->max_len + 22) + 1;
}

int topk_render(const topk_t *t, uint32_t k, char *buf, size_t cap)
{
    sort_item_t *it = malloc((t->n ? t->n : 1) * sizeof *it);
    if (!it)
        return -1;
    for (uint32_t i = 0; i < t->n; i++)
        it[i] = (sort_item_t){t->ent[i].count, t->bytes + t->ent[i].off, t->ent[i].len};
    qsort(it, t->n, sizeof *it, cmp_item);
    size_t o = 0;
    uint32_t shown = t->n < k ? t->n : k;
    for (uint32_t j = 0; j < shown && o + 1 < cap; j++) {
        const sort_item_t *en = &it[j];
        if (j)
            buf[o++] = ',';
        const char *v = en->p;
        for (uint32_t b = 0; b < en->len; b++) {
            if (v[b] == '\\' || v[b] == ',' || v[b] == ':')
                buf[o++] = '\\';
            buf[o++] = v[b];
        }
        buf[o++] = ':';
        o += (size_t)numfmt_u64(buf + o, cap - o, en->count);
    }
    buf[o] = '\0';
    free(it);
    return (int)o;
}

void topk_encode(const topk_t *t, wire_buf_t *w)
{
    wire_top_put_head(w, t->total, t->error, t->n);
    for (uint32_t i = 0; i < t->n; i++)
        wire_top_put_entry(w, t->ent[i].count, t->bytes + t->ent[i].off, t->ent[i].len);
}

int topk_merge_encoded(topk_t *t, wire_le_reader_t *r, size_t len, err_t *e)
{
    wire_le_reader_t sr = {r->p, r->pos + len, r->pos, r->what};
    uint64_t total, error;
    uint32_t n;
    if (wire_top_get_head(&sr, &total, &error, &n, TOP_EXACT_MAX, e) < 0)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t count;
        const char *p;
        uint32_t vl;
        if (wire_top_get_entry(&sr, &count, &p, &vl, e) < 0)
            return -1;
        if (add_count(t, p, vl, agg_hash(p, vl), count) < 0)
            return err_set(e, ERR_NOMEM, "out of memory merging a top state");
    }
    if (wire_le_left(&sr))
        return wire_le_fail(&sr, sr.pos, e, "%zu bytes after the top state", wire_le_left(&sr));
    r->pos = sr.pos;
    t->total += total;
    t->error += error;
    if (reduce(t) < 0)
        return err_set(e, ERR_NOMEM, "out of memory merging a top state");
    return 0;
}

/* As a table's state object (exec/agg/obj.h). */
AGG_OBJ_OPS(topk)
