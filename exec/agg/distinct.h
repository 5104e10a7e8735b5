/* distinct.h: the state of count(distinct f): exact up to a bound of
 * distinct values, a HyperLogLog sketch beyond.
 *
 * Values are told apart by a 64-bit hash of their bytes (distinct_hash):
 * up to DISTINCT_EXACT_MAX distinct hashes are kept in a set and the count
 * is exact (unless two of those values share a hash: with 10000 values the
 * chance is below 3e-12). One more and the state becomes a HyperLogLog of
 * precision DISTINCT_HLL_P (16384 one-byte registers) holding every hash,
 * read with Ertl's improved estimator ("New cardinality estimation
 * algorithms for HyperLogLog sketches", 2017): a relative standard error
 * of 1.04 / sqrt(16384) = 0.81 %, over the whole range of counts. Merging
 * unites the sets while they fit and otherwise takes the registers'
 * maxima, so the state of any split of the input is the state of the
 * whole, whichever way it is merged. */
#ifndef DTAIL_EXEC_AGG_DISTINCT_H
#define DTAIL_EXEC_AGG_DISTINCT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "wire/codec.h"

#define DISTINCT_EXACT_MAX 10000   /* distinct values a group counts exactly */
#define DISTINCT_HLL_P 14          /* HyperLogLog precision: 2^14 registers */
#define DISTINCT_HLL_M (1u << DISTINCT_HLL_P)
#define DISTINCT_HLL_Q (64 - DISTINCT_HLL_P)   /* hash bits left for the rank */

typedef struct distinct {
    uint64_t *set;         /* open addressing of hashes (0: empty); NULL in HLL form */
    uint32_t n;            /* hashes in set */
    uint32_t cap;          /* slots (a power of two), n at most 3/4 of them */
    uint8_t *hll;          /* DISTINCT_HLL_M registers, past the bound */
} distinct_t;

distinct_t *distinct_new(void);
void distinct_free(distinct_t *d);
/* Heap bytes d holds (the table's memory accounting; per row: inline). */
static inline size_t distinct_bytes(const distinct_t *d)
{
    return sizeof *d + (size_t)d->cap * sizeof *d->set + (d->hll ? DISTINCT_HLL_M : 0);
}
static inline bool distinct_exact(const distinct_t *d)
{
    return d->hll == NULL;
}

/* The hash a value is counted by: never 0. */
uint64_t distinct_hash(const char *p, size_t len);
/* Folds one hash. -1 when out of memory. */
int distinct_add(distinct_t *d, uint64_t h);
int distinct_merge(distinct_t *into, const distinct_t *from);
/* The count: exact, or the HyperLogLog estimate rounded. */
uint64_t distinct_count(const distinct_t *d);

/* docs/protocol.md, "count_distinct". */
void distinct_encode(const distinct_t *d, wire_buf_t *w);
int distinct_merge_encoded(distinct_t *d, wire_le_reader_t *r, size_t len, err_t *e);

#endif
