/* aggregate.h: the layout of an AGGREGATE payload, a serialized partial
 * group table (docs/protocol.md, "Layout of AGGREGATE"), little-endian
 * through wire/codec.h.
 *
 *   header   "DTAG", u8 version, u32 spec count, per spec u8 kind and
 *            f64 quantile, u64 group count
 *   groups   per group: the key as a byte string, then one state per spec
 *
 * This file knows the shapes of the states (count, extreme, sum, last,
 * sketch); which aggregate has which shape, and what a state means, is
 * the engine's (exec/agg/table.c). Spill files store groups in the same
 * record form. */
#ifndef DTAIL_WIRE_AGGREGATE_H
#define DTAIL_WIRE_AGGREGATE_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "wire/codec.h"

#define WIRE_AGG_MAGIC "DTAG"
/* 2: the byte order is little-endian by definition. 1 was the host's
 * order, which was little-endian on every host we ran on, so 1 is read
 * as 2 (the bytes are the same). 3: a quantile state says whether it
 * holds the values or a sketch, and the kinds count_distinct and top
 * exist. A table is written as version 2 when none of its specs is a
 * quantile, count_distinct or top (its bytes are the same in both), so a
 * peer that reads 2 still reads the tables of the queries it knows. */
#define WIRE_AGG_VERSION 3
#define WIRE_AGG_VERSION_MIN 1
#define WIRE_AGG_VERSION_V2 2   /* the version a table without those kinds is written as */
#define WIRE_AGG_WHAT "partial aggregate"   /* names the payload in errors */

typedef struct wire_agg_spec {
    uint8_t kind;           /* the aggregate (enum plan_agg's value) */
    double quantile;        /* its q for a quantile; written for every kind */
} wire_agg_spec_t;

/* Writes the header (of version `version`) with a group count of 0;
 * returns where the count is, for wire_agg_set_groups once it is known. */
size_t wire_agg_put_header(wire_buf_t *w, uint8_t version, const wire_agg_spec_t *specs,
                           size_t n_specs);
void wire_agg_set_groups(wire_buf_t *w, size_t count_at, uint64_t n_groups);

/* Reads magic, version and spec count; the specs follow (wire_agg_get_spec
 * each), then the group count. *version: 2 for a table of version 1. */
int wire_agg_get_header(wire_le_reader_t *r, uint8_t *version, uint32_t *n_specs, err_t *e);
int wire_agg_get_spec(wire_le_reader_t *r, wire_agg_spec_t *s, err_t *e);
int wire_agg_get_groups(wire_le_reader_t *r, uint64_t *n_groups, err_t *e);

/* Appends the groups of payload `part` to *whole (empty, or payloads of
 * the same header), so that whole reads as its parts would, one after
 * the other. Errors name what was wrong. */
int wire_agg_join(wire_buf_t *whole, const unsigned char *part, size_t len, err_t *e);

/* A group record: its key, then its states. */
void wire_agg_put_key(wire_buf_t *w, const void *key, uint32_t len);
int wire_agg_get_key(wire_le_reader_t *r, const char **key, uint32_t *len, err_t *e);

/* The shapes of states. count: u64. extreme (min, max): f64, NaN for none.
 * sum (sum, avg, percentage, percentile): f64 sum, u64 values summed.
 * last (last, len): u64 seq (0: no value), u32 length, and the value's
 * bytes only when seq is not 0. sketch (quantile): a byte string of a
 * sketch (below), empty for none. */
void wire_agg_put_sum(wire_buf_t *w, double sum, uint64_t n);
int wire_agg_get_sum(wire_le_reader_t *r, double *sum, uint64_t *n, err_t *e);
void wire_agg_put_last(wire_buf_t *w, uint64_t seq, const void *p, uint32_t len);
/* *p points into the payload; *len is 0 when seq is. */
int wire_agg_get_last(wire_le_reader_t *r, uint64_t *seq, const char **p, uint32_t *len, err_t *e);

/* A DDSketch: u64 total, u64 zero, f64 min, f64 max, then the positive
 * and the negative store, each i32 bucket offset, u32 bucket count and
 * that many u64 counts; then, only when either is not 0, u64 count of
 * +inf and u64 count of -inf. */
typedef struct wire_sketch_store {
    int32_t offset;             /* bucket index of the first count */
    uint32_t n;                 /* counts */
    const uint64_t *counts;     /* writing: the n counts */
    const unsigned char *le;    /* reading: the n counts as they lie, 8 bytes each */
} wire_sketch_store_t;

typedef struct wire_sketch {
    uint64_t total, zero, inf, ninf;
    double min, max;
    wire_sketch_store_t pos, neg;
} wire_sketch_t;

size_t wire_sketch_size(const wire_sketch_t *s);
/* Writes the wire_sketch_size(s) bytes of s at out; returns them. */
size_t wire_sketch_store(const wire_sketch_t *s, unsigned char *out);
/* Reads a sketch that takes all of r (a sketch state's byte string). */
int wire_sketch_get(wire_le_reader_t *r, wire_sketch_t *s, err_t *e);
static inline uint64_t wire_sketch_count(const wire_sketch_store_t *st, uint32_t i)
{
    return wire_le64_load(st->le + (size_t)i * 8);
}

/* ---- the states of version 3 (wire/agg_state.c) ------------------------
 * Each is a byte string (u32 length, then the bytes; 0 bytes: nothing was
 * folded), written between wire_agg_state_begin and wire_agg_state_end. */
size_t wire_agg_state_begin(wire_buf_t *w);
void wire_agg_state_end(wire_buf_t *w, size_t at);

/* quantile: u8 form, then form 1 (the values): u32 n, n f64; form 2: a
 * sketch (above) to the end of the state. Version 2's quantile state is a
 * sketch without the form byte. */
enum { WIRE_QUANT_VALUES = 1, WIRE_QUANT_SKETCH = 2 };
void wire_quant_put_values(wire_buf_t *w, const double *v, uint32_t n);
/* The form byte of a sketch; the sketch's bytes follow. */
void wire_quant_put_sketch_form(wire_buf_t *w);
typedef struct wire_quant {
    uint8_t form;               /* WIRE_QUANT_VALUES or WIRE_QUANT_SKETCH */
    uint32_t n;                 /* values */
    const unsigned char *le;    /* the n values as they lie, 8 bytes each */
    wire_sketch_t sk;           /* the sketch */
} wire_quant_t;
/* Reads a quantile state that takes all of r; at most max_values values. */
int wire_quant_get(wire_le_reader_t *r, wire_quant_t *q, uint32_t max_values, err_t *e);
static inline double wire_quant_value(const wire_quant_t *q, uint32_t i)
{
    return wire_lef64_load(q->le + (size_t)i * 8);
}

/* count_distinct: u8 form, then form 1 (the values' hashes): u32 n, n u64
 * distinct hashes; form 2 (HyperLogLog): u8 precision p, 2^p u8
 * registers. */
enum { WIRE_DISTINCT_HASHES = 1, WIRE_DISTINCT_HLL = 2 };
void wire_distinct_put_hashes(wire_buf_t *w, const uint64_t *h, size_t n_slots, uint32_t n);
void wire_distinct_put_hll(wire_buf_t *w, uint8_t p, const uint8_t *regs);
typedef struct wire_distinct {
    uint8_t form;               /* WIRE_DISTINCT_HASHES or WIRE_DISTINCT_HLL */
    uint32_t n;                 /* hashes */
    const unsigned char *le;    /* the n hashes, 8 bytes each */
    uint8_t p;                  /* HLL precision */
    const uint8_t *regs;        /* its 2^p registers */
} wire_distinct_t;
/* Reads a count_distinct state that takes all of r: at most max_hashes
 * hashes, precision p_want, registers at most reg_max. */
int wire_distinct_get(wire_le_reader_t *r, wire_distinct_t *d, uint32_t max_hashes,
                      uint8_t p_want, uint8_t reg_max, err_t *e);
static inline uint64_t wire_distinct_hash(const wire_distinct_t *d, uint32_t i)
{
    return wire_le64_load(d->le + (size_t)i * 8);
}

/* top: u64 values folded, u64 error (the most a count may be below the
 * true one; 0: exact), u32 n, then n entries: u64 count, byte string
 * value. */
void wire_top_put_head(wire_buf_t *w, uint64_t total, uint64_t error, uint32_t n);
void wire_top_put_entry(wire_buf_t *w, uint64_t count, const void *p, uint32_t len);
int wire_top_get_head(wire_le_reader_t *r, uint64_t *total, uint64_t *error, uint32_t *n,
                      uint32_t max_entries, err_t *e);
int wire_top_get_entry(wire_le_reader_t *r, uint64_t *count, const char **p, uint32_t *len,
                       err_t *e);

#endif
