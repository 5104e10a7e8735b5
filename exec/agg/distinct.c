/* distinct.c: a set of hashes, then a HyperLogLog. */
#include "exec/agg/distinct.h"

#include "exec/agg/obj.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec/agg/table.h"
#include "wire/aggregate.h"

distinct_t *distinct_new(void)
{
    return calloc(1, sizeof(distinct_t));
}

void distinct_free(distinct_t *d)
{
    if (!d)
        return;
    free(d->set);
    free(d->hll);
    free(d);
}

uint64_t distinct_hash(const char *p, size_t len)
{
    /* agg_hash, then MurmurHash3's finaliser, so that every bit the
     * registers use (the low 14 and the rank above them) is mixed. */
    uint64_t h = agg_hash(p, len);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return h ? h : 1;
}

static void hll_add(uint8_t *regs, uint64_t h)
{
    uint32_t idx = (uint32_t)(h & (DISTINCT_HLL_M - 1));
    uint64_t rest = (h >> DISTINCT_HLL_P) | (1ull << DISTINCT_HLL_Q);
    uint8_t rank = (uint8_t)(__builtin_ctzll(rest) + 1);
    if (rank > regs[idx])
        regs[idx] = rank;
}

/* The hashes so far into registers, which replace them. */
static int to_hll(distinct_t *d)
{
    uint8_t *regs = calloc(DISTINCT_HLL_M, 1);
    if (!regs)
        return -1;
    for (uint32_t i = 0; i < d->cap; i++)
        if (d->set[i])
            hll_add(regs, d->set[i]);
    free(d->set);
    d->set = NULL;
    d->n = d->cap = 0;
    d->hll = regs;
    return 0;
}

static int set_insert(uint64_t *set, uint32_t cap, uint64_t h)
{
    uint32_t i = (uint32_t)(h >> 32) & (cap - 1);
    while (set[i]) {
        if (set[i] == h)
            return 0;
        i = (i + 1) & (cap - 1);
    }
    set[i] = h;
    return 1;
}

static int set_grow(distinct_t *d)
{
    uint32_t cap = d->cap ? d->cap * 2 : 16;
    uint64_t *set = calloc(cap, sizeof *set);
    if (!set)
        return -1;
    for (uint32_t i = 0; i < d->cap; i++)
        if (d->set[i])
            set_insert(set, cap, d->set[i]);
    free(d->set);
    d->set = set;
    d->cap = cap;
    return 0;
}

int distinct_add(distinct_t *d, uint64_t h)
{
    if (d->hll) {
        hll_add(d->hll, h);
        return 0;
    }
    if ((d->n + 1) * 4 > d->cap * 3 && set_grow(d) < 0)   /* load at most 3/4 */
        return -1;
    if (!set_insert(d->set, d->cap, h))
        return 0;
    if (++d->n <= DISTINCT_EXACT_MAX)
        return 0;
    return to_hll(d);
}

int distinct_merge(distinct_t *into, const distinct_t *from)
{
    if (from->hll) {
        if (!into->hll && to_hll(into) < 0)
            return -1;
        for (uint32_t i = 0; i < DISTINCT_HLL_M; i++)
            if (from->hll[i] > into->hll[i])
                into->hll[i] = from->hll[i];
        return 0;
    }
    for (uint32_t i = 0; i < from->cap; i++)
        if (from->set[i] && distinct_add(into, from->set[i]) < 0)
            return -1;
    return 0;
}

/* Ertl's sigma and tau (the series of the improved estimator). */
static double hll_sigma(double x)
{
    if (x == 1.0)
        return INFINITY;
    double y = 1.0, z = x, zp;
    do {
        x *= x;
        zp = z;
        z += x * y;
        y += y;
    } while (zp != z);
    return z;
}

static double hll_tau(double x)
{
    if (x == 0.0 || x == 1.0)
        return 0.0;
    double y = 1.0, z = 1.0 - x, zp;
    do {
        x = sqrt(x);
        zp = z;
        y *= 0.5;
        z -= (1.0 - x) * (1.0 - x) * y;
    } while (zp != z);
    return z / 3.0;
}

uint64_t distinct_count(const distinct_t *d)
{
    if (!d->hll)
        return d->n;
    uint32_t hist[DISTINCT_HLL_Q + 2] = {0};
    for (uint32_t i = 0; i < DISTINCT_HLL_M; i++)
        hist[d->hll[i]]++;
    const double m = DISTINCT_HLL_M;
    double z = m * hll_tau((m - hist[DISTINCT_HLL_Q + 1]) / m);
    for (int k = DISTINCT_HLL_Q; k >= 1; k--) {
        z += hist[k];
        z *= 0.5;
    }
    z += m * hll_sigma(hist[0] / m);
    const double alpha_inf = 0.721347520444481703680;   /* 1 / (2 ln 2) */
    return (uint64_t)llround(alpha_inf * m * m / z);
}

void distinct_encode(const distinct_t *d, wire_buf_t *w)
{
    if (d->hll)
        wire_distinct_put_hll(w, DISTINCT_HLL_P, d->hll);
    else
        wire_distinct_put_hashes(w, d->set, d->cap, d->n);
}

int distinct_merge_encoded(distinct_t *d, wire_le_reader_t *r, size_t len, err_t *e)
{
    wire_le_reader_t sr = {r->p, r->pos + len, r->pos, r->what};
    wire_distinct_t wd;
    if (wire_distinct_get(&sr, &wd, DISTINCT_EXACT_MAX, DISTINCT_HLL_P, DISTINCT_HLL_Q + 1, e) < 0)
        return -1;
    r->pos = sr.pos;
    if (wd.form == WIRE_DISTINCT_HLL) {
        if (!d->hll && to_hll(d) < 0)
            return err_set(e, ERR_NOMEM, "out of memory merging a distinct count");
        for (uint32_t i = 0; i < DISTINCT_HLL_M; i++)
            if (wd.regs[i] > d->hll[i])
                d->hll[i] = wd.regs[i];
        return 0;
    }
    for (uint32_t i = 0; i < wd.n; i++)
        if (distinct_add(d, wire_distinct_hash(&wd, i)) < 0)
            return err_set(e, ERR_NOMEM, "out of memory merging a distinct count");
    return 0;
}

/* As a table's state object (exec/agg/obj.h). */
AGG_OBJ_OPS(distinct)
