/* sketch.h: a mergeable quantile sketch (DDSketch, relative accuracy 1 %).
 *
 * Values fall into logarithmic buckets; a quantile is read off the bucket
 * counts and is within 1 % of the true value (relative). Merging adds
 * bucket counts, so any split of the input, merged in any order, gives
 * exactly the sketch of the whole: the property partial aggregates from
 * threads, files and servers rely on. */
#ifndef DTAIL_EXEC_SKETCH_H
#define DTAIL_EXEC_SKETCH_H

#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "wire/aggregate.h"

#define SKETCH_ALPHA 0.01   /* relative accuracy */

typedef struct sketch_store {
    uint64_t *counts;    /* counts[i] for bucket offset + i */
    int32_t offset;      /* bucket index of counts[0] */
    uint32_t n;          /* buckets allocated */
} sketch_store_t;

typedef struct sketch {
    sketch_store_t pos;  /* buckets of values > 0 */
    sketch_store_t neg;  /* buckets of -values for values < 0 */
    uint64_t zero;       /* values that are 0 (or too small to bucket) */
    uint64_t inf, ninf;  /* +inf and -inf: no bucket holds them; they are
                            the two ends of the order */
    uint64_t total;      /* all values */
    double min, max;     /* exact extremes, to clamp estimates */
} sketch_t;

sketch_t *sketch_new(void);
void sketch_free(sketch_t *s);
/* Returns 0, or -1 when out of memory. NaN is ignored; an infinity is
 * counted at its end, so a quantile that falls on it is that infinity. */
int sketch_add(sketch_t *s, double v);
int sketch_merge(sketch_t *into, const sketch_t *from);
/* The q-quantile (0 < q < 1) estimate; 0 when empty. */
double sketch_quantile(const sketch_t *s, double q);

/* Serialization (laid out by wire/aggregate.h, little-endian): bytes
 * needed, then writing; reading back takes all len bytes and returns
 * them, or -1 for malformed input. The counts of infinities follow the
 * stores only when there are any, so a sketch of finite values encodes as
 * it always did (docs/protocol.md). */
size_t sketch_encoded_size(const sketch_t *s);
size_t sketch_encode(const sketch_t *s, unsigned char *out);
long sketch_decode(sketch_t *s, const unsigned char *in, size_t len);
/* Folds a sketch read by wire_sketch_get into s. A count in a bucket where
 * no value can fall is malformed (ERR_INPUT). */
int sketch_merge_wire(sketch_t *s, const wire_sketch_t *w, err_t *e);

#endif
