/* topk.h: the state of top(f, k): the most frequent values with their
 * counts.
 *
 * Every distinct value is counted exactly while a group has at most
 * TOP_EXACT_MAX of them. Past that the state becomes a Misra-Gries
 * summary (mergeable as in Agarwal et al., "Mergeable summaries", 2012):
 * when it holds more than TOP_EXACT_MAX counters, the (TOP_KEEP+1)-th
 * largest count c is taken from every counter, counters at 0 are
 * dropped, and c is added to the state's error. A count is then at most
 * `error` below the true count, error <= N / (TOP_KEEP + 1) for N values
 * folded, and every value more frequent than that is still held. Merging
 * adds the counters (and errors) and reduces alike; below the bound the
 * merge of any split is the state of the whole, exactly. */
#ifndef DTAIL_EXEC_AGG_TOPK_H
#define DTAIL_EXEC_AGG_TOPK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/err.h"
#include "wire/codec.h"

#define TOP_EXACT_MAX 20000   /* distinct values a group counts exactly */
#define TOP_KEEP 10000        /* counters a reduction keeps at most */

typedef struct top_entry {
    uint64_t count;        /* the value's count (a lower bound past the bound) */
    uint64_t hash;         /* agg_hash of the value */
    uint32_t off, len;     /* the value's bytes in topk_t.bytes */
} top_entry_t;

typedef struct topk {
    top_entry_t *ent;      /* n counters */
    uint32_t n, cap;       /* used, allocated */
    uint32_t *slots;       /* open addressing: counter index + 1; 0 empty */
    uint32_t n_slots;      /* a power of two, at least twice n */
    char *bytes;           /* the values' bytes, back to back */
    size_t len, bytes_cap; /* used, allocated */
    uint32_t max_len;      /* no value held is longer (for the cell's size) */
    uint64_t total;        /* values folded */
    uint64_t error;        /* the most a count is below the true one; 0: exact */
} topk_t;

topk_t *topk_new(void);
void topk_free(topk_t *t);
/* Heap bytes t holds (the table's memory accounting; per row: inline). */
static inline size_t topk_bytes(const topk_t *t)
{
    return sizeof *t + (size_t)t->cap * sizeof *t->ent + (size_t)t->n_slots * sizeof *t->slots +
           t->bytes_cap;
}
static inline bool topk_exact(const topk_t *t)
{
    return t->error == 0;
}

/* Folds one value. -1 when out of memory. */
int topk_add(topk_t *t, const char *p, uint32_t len);
int topk_merge(topk_t *into, const topk_t *from);

/* The cell: the k most frequent values as "value:count" joined by ",",
 * most frequent first, ties in byte order of the values; '\', ',' and ':'
 * in a value are written as "\\", "\," and "\:". need: room for what
 * topk_render writes, its NUL included. */
size_t topk_render_need(const topk_t *t, uint32_t k);
/* Returns the length; buf has topk_render_need bytes. -1 when out of
 * memory (the order is computed in a scratch array). */
int topk_render(const topk_t *t, uint32_t k, char *buf, size_t cap);

/* docs/protocol.md, "top". */
void topk_encode(const topk_t *t, wire_buf_t *w);
int topk_merge_encoded(topk_t *t, wire_le_reader_t *r, size_t len, err_t *e);

#endif
