/* quant.h: the state of a value quantile (p50, quantile(f, q)): exact
 * while a group holds few values, a sketch beyond.
 *
 * Up to QUANT_EXACT_MAX values are kept as they are and a quantile is
 * DuckDB's quantile_cont of them: the values sorted, position
 * q * (n - 1), linear interpolation between the two values around it
 * (p0 is the minimum, p100 the maximum). One value more and the state
 * becomes a DDSketch (exec/agg/sketch.h: within 1 % of the true value,
 * relative) of all of them. Merging keeps the values while the union fits
 * and otherwise sketches the union, so the state of any split of the
 * input, merged in any order, is the state of the whole: exact when the
 * whole has at most QUANT_EXACT_MAX values, the sketch of the whole
 * otherwise. */
#ifndef DTAIL_EXEC_AGG_QUANT_H
#define DTAIL_EXEC_AGG_QUANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "exec/agg/sketch.h"
#include "wire/codec.h"

#define QUANT_EXACT_MAX 10000   /* values a group keeps exactly, per item */
/* Past this many values a state also keeps the sketch of its values
 * (pre), folded as they come: the threads reading an input do it, so
 * that a merge past the bound (two threads' halves of a group, at the
 * end of the input, on one thread) costs no log() per value. */
#define QUANT_PRE_AT (QUANT_EXACT_MAX / 2)

typedef struct quant {
    double *vals;          /* the values while sk is NULL */
    uint32_t n;            /* values in vals */
    uint32_t cap;          /* vals allocated */
    bool sorted;           /* vals is sorted (quant_value sorts it) */
    sketch_t *sk;          /* the sketch of every value, past the bound */
    sketch_t *pre;         /* with vals: NULL, or the sketch of exactly
                              them (never sent, never shown) */
} quant_t;

quant_t *quant_new(void);
void quant_free(quant_t *q);
/* Heap bytes q holds (the table's memory accounting). */
size_t quant_bytes(const quant_t *q);
/* Whether the quantiles of q are exact (no sketch). */
static inline bool quant_exact(const quant_t *q)
{
    return q->sk == NULL;
}

int quant_add_slow(quant_t *q, double v);
/* Folds one number (not NaN). Returns 0, or -1 when out of memory. The
 * common case is one store. */
static inline int quant_add(quant_t *q, double v)
{
    if (q->n < q->cap && !q->pre) {
        q->vals[q->n++] = v;
        q->sorted = false;
        return 0;
    }
    return quant_add_slow(q, v);
}
/* Makes q a sketch of its values (nothing when it is one). -1 when out
 * of memory. */
int quant_sketch(quant_t *q);
/* Folds every value of from into into. -1 when out of memory. */
int quant_merge(quant_t *into, const quant_t *from);
/* The qq-quantile (0 <= qq <= 1); 0 when empty. Sorts q's values in place
 * the first time. */
double quant_value(quant_t *q, double qq);

/* The exact quantile_cont of n sorted values (n >= 1). */
double quant_cont(const double *sorted, size_t n, double qq);

/* The state's bytes (docs/protocol.md, "quantile"): u8 form, then for
 * form 1 (exact) u32 n and n f64 values, for form 2 the sketch. */
void quant_encode(const quant_t *q, wire_buf_t *w);
/* Folds an encoded state of len bytes (r positioned at it) into q.
 * Malformed input is ERR_INPUT. */
int quant_merge_encoded(quant_t *q, wire_le_reader_t *r, size_t len, err_t *e);

#endif
