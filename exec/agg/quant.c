/* quant.c: exact quantiles of few values, a sketch of many. */
#include "exec/agg/quant.h"

#include "exec/agg/obj.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "wire/aggregate.h"

quant_t *quant_new(void)
{
    return calloc(1, sizeof(quant_t));
}

void quant_free(quant_t *q)
{
    if (!q)
        return;
    free(q->vals);
    sketch_free(q->sk);
    sketch_free(q->pre);
    free(q);
}

static size_t sketch_heap(const sketch_t *sk)
{
    return sizeof *sk + ((size_t)sk->pos.n + sk->neg.n) * sizeof(uint64_t);
}

size_t quant_bytes(const quant_t *q)
{
    return sizeof *q + (size_t)q->cap * sizeof *q->vals + (q->sk ? sketch_heap(q->sk) : 0) +
           (q->pre ? sketch_heap(q->pre) : 0);
}

/* Adds n values to sk. -1 when out of memory. */
static int sketch_add_all(sketch_t *sk, const double *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (sketch_add(sk, v[i]) < 0)
            return -1;
    return 0;
}

/* A new sketch of q's values (what pre holds, when there is one). */
static sketch_t *sketch_of(const quant_t *q)
{
    sketch_t *sk = sketch_new();
    if (sk && (q->pre ? sketch_merge(sk, q->pre) : sketch_add_all(sk, q->vals, q->n)) < 0) {
        sketch_free(sk);
        return NULL;
    }
    return sk;
}

int quant_sketch(quant_t *q)
{
    if (q->sk)
        return 0;
    sketch_t *sk = q->pre;
    if (!sk && !(sk = sketch_of(q)))
        return -1;
    q->pre = NULL;
    free(q->vals);
    q->vals = NULL;
    q->n = q->cap = 0;
    q->sorted = false;
    q->sk = sk;
    return 0;
}

/* Room for n values in all (n <= QUANT_EXACT_MAX). */
static int reserve(quant_t *q, uint32_t n)
{
    if (n <= q->cap)
        return 0;
    uint32_t cap = q->cap ? q->cap : 4;
    while (cap < n)
        cap *= 2;
    if (cap > QUANT_EXACT_MAX)
        cap = QUANT_EXACT_MAX;
    double *v = realloc(q->vals, (size_t)cap * sizeof *v);
    if (!v)
        return -1;
    q->vals = v;
    q->cap = cap;
    return 0;
}

int quant_add_slow(quant_t *q, double v)
{
    if (q->sk)
        return sketch_add(q->sk, v);
    if (q->n == QUANT_EXACT_MAX) {
        if (quant_sketch(q) < 0)
            return -1;
        return sketch_add(q->sk, v);
    }
    if (reserve(q, q->n + 1) < 0)
        return -1;
    q->vals[q->n++] = v;
    q->sorted = false;
    if (q->pre)
        return sketch_add(q->pre, v);
    if (q->n > QUANT_PRE_AT && !(q->pre = sketch_of(q)))
        return -1;
    return 0;
}

/* into's pre, when either side has one, for the union of the values
 * (from's values already appended to into's). */
static int pre_union(quant_t *into, const quant_t *from)
{
    if (!into->pre && !from->pre)
        return 0;
    if (into->pre)   /* from's values were appended: add them */
        return from->pre ? sketch_merge(into->pre, from->pre)
                         : sketch_add_all(into->pre, into->vals + into->n - from->n, from->n);
    sketch_t *sk = sketch_new();
    if (!sk || sketch_merge(sk, from->pre) < 0 ||
        sketch_add_all(sk, into->vals, into->n - from->n) < 0) {
        sketch_free(sk);
        return -1;
    }
    into->pre = sk;
    return 0;
}

int quant_merge(quant_t *into, const quant_t *from)
{
    if (!into->sk && !from->sk && (size_t)into->n + from->n <= QUANT_EXACT_MAX) {
        if (reserve(into, into->n + from->n) < 0)
            return -1;
        if (from->n)
            memcpy(into->vals + into->n, from->vals, (size_t)from->n * sizeof *from->vals);
        into->n += from->n;
        into->sorted = into->sorted && from->n == 0;
        return pre_union(into, from);
    }
    if (!into->sk && quant_sketch(into) < 0)
        return -1;
    if (from->sk || from->pre)
        return sketch_merge(into->sk, from->sk ? from->sk : from->pre);
    return sketch_add_all(into->sk, from->vals, from->n);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double quant_cont(const double *v, size_t n, double qq)
{
    /* DuckDB's quantile_cont (Interpolator<false>, InterpolateOperator on
     * doubles): RN = (n - 1) * q, the values at floor and ceil,
     * lo * (1 - d) + hi * d with d = RN - floor; the same floating-point
     * operations, so the same bits (and +Inf for {1, inf}, -Inf for
     * {-inf, 1}, NaN for {-inf, inf}). */
    double rn = (double)(n - 1) * qq;
    double frn = floor(rn), crn = ceil(rn);
    if (frn == crn)
        return v[(size_t)frn];
    double lo = v[(size_t)frn], hi = v[(size_t)crn], d = rn - frn;
    return lo * (1.0 - d) + hi * d;
}

double quant_value(quant_t *q, double qq)
{
    if (q->sk) {
        /* The sketch's extremes are exact: p0 and p100 are too. */
        if (qq <= 0)
            return q->sk->min;
        if (qq >= 1)
            return q->sk->max;
        return sketch_quantile(q->sk, qq);
    }
    if (q->n == 0)
        return 0;
    if (!q->sorted) {
        qsort(q->vals, q->n, sizeof *q->vals, cmp_double);
        q->sorted = true;
    }
    return quant_cont(q->vals, q->n, qq);
}

void quant_encode(const quant_t *q, wire_buf_t *w)
{
    if (!q->sk) {
        wire_quant_put_values(w, q->vals, q->n);
        return;
    }
    wire_quant_put_sketch_form(w);
    size_t n = sketch_encoded_size(q->sk);
    unsigned char *at = wire_buf_reserve(w, n);
    if (at)
        w->len += sketch_encode(q->sk, at);
}

int quant_merge_encoded(quant_t *q, wire_le_reader_t *r, size_t len, err_t *e)
{
    size_t at = r->pos;
    wire_le_reader_t sr = {r->p, r->pos + len, r->pos, r->what};
    wire_quant_t wq;
    if (wire_quant_get(&sr, &wq, QUANT_EXACT_MAX, e) < 0)
        return -1;
    r->pos = sr.pos;
    if (wq.form == WIRE_QUANT_SKETCH) {
        if (!q->sk && quant_sketch(q) < 0)
            return err_set(e, ERR_NOMEM, "out of memory merging a quantile state");
        if (sketch_merge_wire(q->sk, &wq.sk, e) < 0)
            return e->code == ERR_INPUT ? wire_le_fail(r, at, e, "%s", e->msg) : -1;
        return 0;
    }
    if (!q->sk && (size_t)q->n + wq.n > QUANT_EXACT_MAX && quant_sketch(q) < 0)
        return err_set(e, ERR_NOMEM, "out of memory merging a quantile state");
    if (!q->sk && reserve(q, q->n + wq.n) < 0)
        return err_set(e, ERR_NOMEM, "out of memory merging a quantile state");
    for (uint32_t i = 0; i < wq.n; i++) {
        double v = wire_quant_value(&wq, i);
        sketch_t *sk = q->sk ? q->sk : q->pre;
        if (!q->sk)
            q->vals[q->n++] = v;
        if (sk && sketch_add(sk, v) < 0)
            return err_set(e, ERR_NOMEM, "out of memory merging a quantile state");
    }
    q->sorted = q->sorted && wq.n == 0;
    return 0;
}

/* As a table's state object (exec/agg/obj.h). */
AGG_OBJ_OPS(quant)
