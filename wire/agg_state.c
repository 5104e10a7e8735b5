/* agg_state.c: the AGGREGATE states of version 3, little-endian: a
 * quantile's values or sketch, count_distinct's hashes or HyperLogLog
 * registers, top's counted values (wire/aggregate.h). */
#include "wire/aggregate.h"

#include <math.h>
#include <string.h>

size_t wire_agg_state_begin(wire_buf_t *w)
{
    size_t at = w->len;
    wire_put_le32(w, 0);
    return at;
}

void wire_agg_state_end(wire_buf_t *w, size_t at)
{
    if (!w->failed && at + 4 <= w->len)
        wire_le32_store(w->p + at, (uint32_t)(w->len - at - 4));
}

/* ---- quantile ---------------------------------------------------------- */

void wire_quant_put_values(wire_buf_t *w, const double *v, uint32_t n)
{
    wire_put_u8(w, WIRE_QUANT_VALUES);
    wire_put_le32(w, n);
    unsigned char *at = wire_buf_reserve(w, (size_t)n * 8);
    if (!at)
        return;
    for (uint32_t i = 0; i < n; i++)
        wire_lef64_store(at + (size_t)i * 8, v[i]);
    w->len += (size_t)n * 8;
}

void wire_quant_put_sketch_form(wire_buf_t *w)
{
    wire_put_u8(w, WIRE_QUANT_SKETCH);
}

int wire_quant_get(wire_le_reader_t *r, wire_quant_t *q, uint32_t max_values, err_t *e)
{
    memset(q, 0, sizeof *q);
    size_t at = r->pos;
    if (wire_le_get_u8(r, &q->form, "quantile state's form", e) < 0)
        return -1;
    if (q->form == WIRE_QUANT_SKETCH)
        return wire_sketch_get(r, &q->sk, e);
    if (q->form != WIRE_QUANT_VALUES)
        return wire_le_fail(r, at, e, "quantile state of unknown form %u", q->form);
    at = r->pos;
    if (wire_le_get_u32(r, &q->n, "quantile state's value count", e) < 0)
        return -1;
    if (q->n == 0 || q->n > max_values)
        return wire_le_fail(r, at, e, "quantile state of %u values (1 to %u)", q->n, max_values);
    if (q->n != wire_le_left(r) / 8 || wire_le_left(r) % 8)
        return wire_le_fail(r, at, e, "quantile state of %u values in %zu bytes", q->n,
                            wire_le_left(r));
    if (wire_le_get_bytes(r, &q->le, (size_t)q->n * 8, "quantile state's values", e) < 0)
        return -1;
    for (uint32_t i = 0; i < q->n; i++)
        if (isnan(wire_quant_value(q, i)))
            return wire_le_fail(r, at + 4 + (size_t)i * 8, e, "quantile state holds NaN");
    return 0;
}

/* ---- count_distinct ---------------------------------------------------- */

void wire_distinct_put_hashes(wire_buf_t *w, const uint64_t *h, size_t n_slots, uint32_t n)
{
    wire_put_u8(w, WIRE_DISTINCT_HASHES);
    wire_put_le32(w, n);
    unsigned char *at = wire_buf_reserve(w, (size_t)n * 8);
    if (!at)
        return;
    size_t k = 0;
    for (size_t i = 0; i < n_slots && k < n; i++)
        if (h[i])
            wire_le64_store(at + 8 * k++, h[i]);
    w->len += (size_t)n * 8;
}

void wire_distinct_put_hll(wire_buf_t *w, uint8_t p, const uint8_t *regs)
{
    wire_put_u8(w, WIRE_DISTINCT_HLL);
    wire_put_u8(w, p);
    wire_put_bytes(w, regs, (size_t)1 << p);
}

int wire_distinct_get(wire_le_reader_t *r, wire_distinct_t *d, uint32_t max_hashes,
                      uint8_t p_want, uint8_t reg_max, err_t *e)
{
    memset(d, 0, sizeof *d);
    size_t at = r->pos;
    if (wire_le_get_u8(r, &d->form, "distinct state's form", e) < 0)
        return -1;
    if (d->form == WIRE_DISTINCT_HASHES) {
        at = r->pos;
        if (wire_le_get_u32(r, &d->n, "distinct state's hash count", e) < 0)
            return -1;
        if (d->n == 0 || d->n > max_hashes)
            return wire_le_fail(r, at, e, "distinct state of %u hashes (1 to %u)", d->n,
                                max_hashes);
        if (d->n != wire_le_left(r) / 8 || wire_le_left(r) % 8)
            return wire_le_fail(r, at, e, "distinct state of %u hashes in %zu bytes", d->n,
                                wire_le_left(r));
        if (wire_le_get_bytes(r, &d->le, (size_t)d->n * 8, "distinct state's hashes", e) < 0)
            return -1;
        for (uint32_t i = 0; i < d->n; i++)
            if (!wire_distinct_hash(d, i))
                return wire_le_fail(r, at + 4 + (size_t)i * 8, e, "distinct state hash 0");
        return 0;
    }
    if (d->form != WIRE_DISTINCT_HLL)
        return wire_le_fail(r, at, e, "distinct state of unknown form %u", d->form);
    at = r->pos;
    if (wire_le_get_u8(r, &d->p, "HyperLogLog precision", e) < 0)
        return -1;
    if (d->p != p_want)
        return wire_le_fail(r, at, e, "HyperLogLog of precision %u (this build uses %u)", d->p,
                            p_want);
    size_t m = (size_t)1 << d->p;
    if (wire_le_left(r) != m)
        return wire_le_fail(r, at, e, "HyperLogLog of %zu registers in %zu bytes", m,
                            wire_le_left(r));
    const unsigned char *regs;
    if (wire_le_get_bytes(r, &regs, m, "HyperLogLog registers", e) < 0)
        return -1;
    for (size_t i = 0; i < m; i++)
        if (regs[i] > reg_max)
            return wire_le_fail(r, at + 1 + i, e, "HyperLogLog register %u (at most %u)",
                                regs[i], reg_max);
    d->regs = regs;
    return 0;
}

/* ---- top --------------------------------------------------------------- */

void wire_top_put_head(wire_buf_t *w, uint64_t total, uint64_t error, uint32_t n)
{
    wire_put_le64(w, total);
    wire_put_le64(w, error);
    wire_put_le32(w, n);
}

void wire_top_put_entry(wire_buf_t *w, uint64_t count, const void *p, uint32_t len)
{
    wire_put_le64(w, count);
    wire_put_lestr(w, p, len);
}

int wire_top_get_head(wire_le_reader_t *r, uint64_t *total, uint64_t *error, uint32_t *n,
                      uint32_t max_entries, err_t *e)
{
    if (wire_le_get_u64(r, total, "top state's total", e) < 0 ||
        wire_le_get_u64(r, error, "top state's error", e) < 0)
        return -1;
    size_t at = r->pos;
    if (wire_le_get_u32(r, n, "top state's entry count", e) < 0)
        return -1;
    /* Each entry takes 12 bytes at least. */
    if (*n == 0 || *n > max_entries || *n > wire_le_left(r) / 12)
        return wire_le_fail(r, at, e, "top state of %u entries (1 to %u) in %zu bytes", *n,
                            max_entries, wire_le_left(r));
    return 0;
}

int wire_top_get_entry(wire_le_reader_t *r, uint64_t *count, const char **p, uint32_t *len,
                       err_t *e)
{
    size_t at = r->pos;
    const unsigned char *v;
    if (wire_le_get_u64(r, count, "top entry's count", e) < 0 ||
        wire_le_get_str(r, &v, len, "top entry's value", e) < 0)
        return -1;
    if (*count == 0)
        return wire_le_fail(r, at, e, "top entry with count 0");
    *p = (const char *)v;
    return 0;
}
