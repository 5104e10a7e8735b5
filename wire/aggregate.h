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
 * as 2 (the bytes are the same). */
#define WIRE_AGG_VERSION 2
#define WIRE_AGG_VERSION_MIN 1
#define WIRE_AGG_WHAT "partial aggregate"   /* names the payload in errors */

typedef struct wire_agg_spec {
    uint8_t kind;           /* the aggregate (enum plan_agg's value) */
    double quantile;        /* its q for a quantile; written for every kind */
} wire_agg_spec_t;

/* Writes the header with a group count of 0; returns where the count is,
 * for wire_agg_set_groups once it is known. */
size_t wire_agg_put_header(wire_buf_t *w, const wire_agg_spec_t *specs, size_t n_specs);
void wire_agg_set_groups(wire_buf_t *w, size_t count_at, uint64_t n_groups);

/* Reads magic, version and spec count; the specs follow (wire_agg_get_spec
 * each), then the group count. */
int wire_agg_get_header(wire_le_reader_t *r, uint32_t *n_specs, err_t *e);
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

#endif
