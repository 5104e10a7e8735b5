/* table.h: the group-by hash table and the aggregate states of its groups.
 *
 * Groups are found by their key bytes (open addressing over a power-of-two
 * slot array). Each group owns one fixed-size state record holding every
 * select item's state side by side; updates run one select item at a time
 * over a whole batch of rows (a tight loop per aggregate kind, no switch per
 * row). Tables merge with the same code whether the partial came from
 * another thread, another file or another server; serialized partials are
 * the unit dserver sends, laid out by wire/aggregate.h. */
#ifndef DTAIL_EXEC_AGG_TABLE_H
#define DTAIL_EXEC_AGG_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/bytes.h"
#include "base/err.h"
#include "exec/extract/extract.h"
#include "parser/plan.h"
#include "wire/codec.h"

#define AGG_NUMBERS_BATCH 1024   /* rows of an agg_numbers_t: eval's batch */

typedef struct agg_spec {
    enum plan_agg agg;      /* how values fold */
    double quantile;        /* PLAN_AGG_QUANTILE: q in [0, 1] */
    uint32_t off;           /* offset of the state in a group's record */
    bool null_empty;        /* a numeric item that folded no number renders
                               as an empty cell (SQL's NULL), not 0; set
                               before rendering, never serialized */
    uint32_t top_k;         /* PLAN_AGG_TOP: values shown */
} agg_spec_t;

/* State of last() and len(): the value of the row with the highest seq. */
typedef struct agg_last {
    char *p;                /* owned copy of the value */
    uint32_t len;           /* bytes */
    uint32_t cap;           /* bytes allocated */
    uint64_t seq;           /* input position of that row; 0 = none yet */
} agg_last_t;

typedef struct agg_group {
    uint64_t hash;          /* of the key bytes */
    uint32_t key_off;       /* key bytes in the table's key store */
    uint32_t key_len;       /* their length */
} agg_group_t;

typedef struct agg_table {
    agg_spec_t *specs;      /* one per select item */
    size_t n_specs;         /* count */
    size_t state_size;      /* bytes per group record */
    uint64_t *slots;        /* hash tag << 32 | (group index + 1); 0 = empty */
    size_t mask;            /* slot count - 1 */
    agg_group_t *groups;    /* n_groups, in creation order */
    size_t n_groups;        /* groups used */
    size_t cap_groups;      /* group records allocated */
    unsigned char *states;  /* cap_states * state_size */
    size_t cap_states;      /* state records allocated (== cap_groups unless
                               an allocation failed between the two) */
    char *keys;             /* concatenated key bytes */
    size_t keys_len;        /* bytes used */
    size_t keys_cap;        /* bytes allocated */
    int failed;             /* an allocation failed; results are incomplete */
    size_t heap_bytes;      /* held by last()/len() copies, quantiles' values
                               and sketches, distinct sets and top counters
                               (what agg_table_bytes adds to the arrays) */
} agg_table_t;

/* Specs are copied and their offsets assigned. */
int agg_table_init(agg_table_t *t, const agg_spec_t *specs, size_t n_specs, err_t *e);
void agg_table_free(agg_table_t *t);
/* Drops every group, keeping the allocations. */
void agg_table_clear(agg_table_t *t);

static inline uint64_t agg_hash(const char *p, size_t len)
{
    /* 8 bytes at a time with a multiply-xorshift mix; the tail is read with
     * one overlapping load (or two 4-byte loads for short keys) instead of
     * a variable-length copy. */
    uint64_t h = 0x9e3779b97f4a7c15ull ^ (len * 0xff51afd7ed558ccdull);
    uint64_t w;
    if (len >= 8) {
        const char *end = p + len;
        while (end - p > 8) {
            memcpy(&w, p, 8);
            h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
            h ^= h >> 31;
            p += 8;
        }
        memcpy(&w, end - 8, 8);
    } else if (len >= 4) {
        uint32_t a, b;
        memcpy(&a, p, 4);
        memcpy(&b, p + len - 4, 4);
        w = (uint64_t)a << 32 | b;
    } else {
        w = 0;
        for (size_t i = 0; i < len; i++)
            w = w << 8 | (unsigned char)p[i];
    }
    h = (h ^ w) * 0x94d049bb133111ebull;
    h ^= h >> 29;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 32;
    return h;
}
/* The hash of a group key: its parts, each a 4-byte length (little-endian,
 * as the key goes on the wire) and the bytes.
 * A key of one part is hashed over that part's bytes alone, so a lookup
 * can hash a value where it lies, without building the key (a key of
 * several parts is longer than its first part's length says). */
static inline uint64_t agg_key_hash(const char *key, size_t len)
{
    if (len >= 4) {
        if (wire_le32_load((const unsigned char *)key) == len - 4)
            return agg_hash(key + 4, len - 4);
    }
    return agg_hash(key, len);
}

/* Whether the slots fit in the first-level cache (8 KiB), where fetching
 * them ahead of a lookup gains nothing. */
static inline int agg_table_small(const agg_table_t *t)
{
    return t->mask < 1024;
}

/* Hints that the group of this hash is looked up soon. */
static inline void agg_table_prefetch(const agg_table_t *t, uint64_t hash)
{
    __builtin_prefetch(&t->slots[hash & t->mask]);
}
/* agg_table_group for a key that is not in the table yet; slot is the
 * empty slot its probe ended at. */
long agg_table_group_new(agg_table_t *t, const char *key, size_t len, uint64_t hash, size_t slot);

/* The probe both lookups share: the group whose stored key is `skip`
 * bytes and then [p, p+len), or -1 with *slot the empty slot where it
 * goes. */
static inline long agg_table_find(const agg_table_t *t, size_t skip, const char *p, size_t len,
                                  uint64_t hash, size_t *slot)
{
    size_t i = hash & t->mask;
    const uint64_t tag = hash & 0xffffffff00000000ull;
    for (;;) {
        uint64_t s = t->slots[i];
        if (!s) {
            *slot = i;
            return -1;
        }
        if ((s & 0xffffffff00000000ull) == tag) {
            size_t gi = (uint32_t)s - 1;
            const agg_group_t *g = &t->groups[gi];
            if (g->hash == hash && g->key_len == skip + len &&
                bytes_equal(t->keys + g->key_off + skip, p, len))
                return (long)gi;
        }
        i = (i + 1) & t->mask;
    }
}

/* Index of the group with this key, created if new; -1 when out of memory.
 * Inline: it runs once per selected row. */
static inline long agg_table_group(agg_table_t *t, const char *key, size_t len, uint64_t hash)
{
    size_t slot;
    long g = agg_table_find(t, 0, key, len, hash, &slot);
    return g >= 0 ? g : agg_table_group_new(t, key, len, hash, slot);
}

/* agg_table_group_one for a key that is not in the table yet. */
long agg_table_group_new_one(agg_table_t *t, const char *p, uint32_t len, uint64_t hash,
                             size_t slot);

/* agg_table_group for the key of one part, [p, p+len), hashed by
 * agg_hash(p, len): found without building the key (its 4-byte length,
 * the same in every one-part key of that length, is skipped). */
static inline long agg_table_group_one(agg_table_t *t, const char *p, uint32_t len, uint64_t hash)
{
    size_t slot;
    long g = agg_table_find(t, 4, p, len, hash, &slot);
    return g >= 0 ? g : agg_table_group_new_one(t, p, len, hash, slot);
}

/* Folds val[i] of row i into group gid[i] for select item `spec`, rows
 * 0..n-1. A missing value (len SV_MISSING) is skipped; numeric aggregates
 * skip non-numeric values. seq[i] orders rows for last()/len(); NULL for
 * the other aggregates, which do not read it. Returns the values a numeric
 * aggregate skipped as no number (0 for count, last and len). */
size_t agg_table_update(agg_table_t *t, size_t spec, const uint32_t *gid, const sv_t *val,
                      const uint64_t *seq, size_t n);

/* A batch's values of one column read as numbers once, for several
 * numeric aggregates of it (avg(x) and sum(x) in one query). */
enum agg_num_kind { AGG_NUM_MISSING, AGG_NUM_NUMBER, AGG_NUM_BAD };
typedef struct agg_numbers {
    double v[AGG_NUMBERS_BATCH];
    uint8_t kind[AGG_NUMBERS_BATCH];   /* enum agg_num_kind */
    size_t n_bad;                      /* rows of kind AGG_NUM_BAD */
} agg_numbers_t;

/* sum avg percentage percentile min max quantile: the kinds that read
 * their values as numbers. */
bool agg_is_numeric(enum plan_agg agg);
/* Reads val[0..n-1] (n <= AGG_NUMBERS_BATCH) as numbers. */
void agg_table_parse_numbers(agg_numbers_t *nums, const sv_t *val, size_t n);
/* agg_table_update of a numeric aggregate from numbers read already:
 * the same states and the same count of values that are no number. */
size_t agg_table_update_numbers(agg_table_t *t, size_t spec, const uint32_t *gid,
                                const agg_numbers_t *nums, size_t n);

/* agg_table_update of a count for rows that all have a value. */
void agg_table_count(agg_table_t *t, size_t spec, const uint32_t *gid, size_t n);

/* Folds every group of `from` into `into` (same specs). */
int agg_table_merge(agg_table_t *into, const agg_table_t *from);

/* Serialized partial: returns a malloc'd buffer and its length, or NULL. */
unsigned char *agg_table_serialize(const agg_table_t *t, size_t *len);
/* agg_table_serialize of the groups from `from` on, as many as fit in
 * max_bytes (at least one): a partial of its own, merged like any other.
 * *next is the first group left out (n_groups when none is). A table sent
 * in such parts stays under a frame size limit. */
unsigned char *agg_table_serialize_part(const agg_table_t *t, size_t from, size_t max_bytes,
                                        size_t *next, size_t *len);
/* Folds a serialized partial into t. Malformed input (wrong version, specs
 * that differ, truncated data) is an error naming what was wrong. */
int agg_table_merge_serialized(agg_table_t *t, const unsigned char *buf, size_t len, err_t *e);

/* Bytes the table holds: its arrays plus the states' own allocations. Cheap
 * (no walk over groups): the spill check calls it once per batch. */
static inline size_t agg_table_bytes(const agg_table_t *t)
{
    return (t->mask + 1) * sizeof *t->slots + t->cap_groups * sizeof *t->groups +
           t->cap_states * t->state_size + t->keys_cap + t->heap_bytes;
}

/* A growable byte buffer for encoded states: wire's (wire/frame.h). */
typedef wire_buf_t agg_bytes_t;
/* Appends n bytes (sets failed when out of memory). */
void agg_bytes_put(agg_bytes_t *w, const void *v, size_t n);

/* Appends the groups of serialized partial `part` to *whole (empty, or
 * parts of the same select items), so that whole merges as its parts
 * would, one after the other: a table sent in parts put together again.
 * Errors name what was wrong. */
int agg_serialized_join(agg_bytes_t *whole, const unsigned char *part, size_t len, err_t *e);

/* Appends the states of group g, encoded as agg_table_serialize writes
 * them (spill stores groups one by one in this form). Sets out->failed
 * when out of memory. */
void agg_group_encode(const agg_table_t *t, size_t g, agg_bytes_t *out);
/* Folds states encoded by agg_group_encode (p, len bytes) into group d.
 * Returns the bytes read, or -1 with e set for malformed input. */
long agg_group_merge_encoded(agg_table_t *t, size_t d, const unsigned char *p, size_t len,
                             err_t *e);

/* Accessors for rendering. */
static inline const unsigned char *agg_table_state(const agg_table_t *t, size_t g, size_t spec)
{
    return t->states + g * t->state_size + t->specs[spec].off;
}
static inline const char *agg_table_key(const agg_table_t *t, size_t g)
{
    return t->keys + t->groups[g].key_off;
}

/* The numeric value an item renders as, for sorting and percentage:
 * count, sum, min, max, avg, len, quantile; last parsed as a number (0 if
 * not numeric). percentage/percentile return the group sum. */
double agg_state_number(const agg_spec_t *spec, const unsigned char *state);
/* Whether a numeric item (sum avg min max percentage percentile quantile)
 * folded no number into this state; false for count, last and len. */
bool agg_state_no_number(const agg_spec_t *spec, const unsigned char *state);
/* Whether the item's value is an estimate: a quantile past
 * QUANT_EXACT_MAX values (a sketch), a distinct count past
 * DISTINCT_EXACT_MAX (HyperLogLog), a top past TOP_EXACT_MAX (Misra-Gries). */
bool agg_state_approx(const agg_spec_t *spec, const unsigned char *state);
/* The spec's parameter as the wire carries it: q of a quantile, k of a
 * top, 0 for the others. */
static inline double agg_spec_param(const agg_spec_t *spec)
{
    return spec->agg == PLAN_AGG_TOP ? (double)spec->top_k : spec->quantile;
}
/* Whether the item can be an estimate at all (quantile, count_distinct, top). */
static inline bool agg_spec_may_approx(const agg_spec_t *spec)
{
    return spec->agg == PLAN_AGG_QUANTILE || spec->agg == PLAN_AGG_COUNT_DISTINCT ||
           spec->agg == PLAN_AGG_TOP;
}
/* The order value of a last() state when it is text: a value that is no
 * number. Returns 1 with [*p, *p+*len) the value; 0 for a number, an
 * empty or no value, or another aggregate (*p "" and *len 0 when there is
 * no value). A column
 * orders as text when any of its cells is text (docs/query-language.md). */
int agg_state_text(const agg_spec_t *spec, const unsigned char *state, const char **p,
                   uint32_t *len);
/* State layouts, for rendering. */
typedef struct agg_sum { double sum; uint64_t n; } agg_sum_t;  /* sum avg percentage percentile */

#endif
