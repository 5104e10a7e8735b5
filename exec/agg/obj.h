/* obj.h: the aggregate states that are objects of their own (a quantile's
 * values or sketch, a distinct count's set or HyperLogLog, top's
 * counters): a group's record holds a pointer to one, NULL until a value
 * is folded. The table frees, merges, encodes and decodes them through
 * these operations; each folds values through its own inline path. */
#ifndef DTAIL_EXEC_AGG_OBJ_H
#define DTAIL_EXEC_AGG_OBJ_H

#include <stddef.h>

#include "base/err.h"
#include "parser/plan.h"
#include "wire/codec.h"

typedef struct agg_obj_ops {
    void *(*make)(void);                       /* NULL when out of memory */
    void (*release)(void *obj);
    size_t (*bytes)(const void *obj);          /* heap held, for accounting */
    int (*merge)(void *into, const void *from);/* -1 when out of memory */
    void (*encode)(const void *obj, wire_buf_t *w);
    /* folds an encoded state of len bytes at r; ERR_INPUT when malformed */
    int (*merge_encoded)(void *obj, wire_le_reader_t *r, size_t len, err_t *e);
} agg_obj_ops_t;

extern const agg_obj_ops_t quant_ops, distinct_ops, topk_ops;

/* Defines MOD_ops from MOD_new, MOD_free, MOD_bytes, MOD_merge,
 * MOD_encode and MOD_merge_encoded (in MOD.c, after them). */
#define AGG_OBJ_OPS(MOD)                                                              \
    static void *MOD##_obj_make(void) { return MOD##_new(); }                         \
    static void MOD##_obj_release(void *o) { MOD##_free(o); }                         \
    static size_t MOD##_obj_bytes(const void *o) { return MOD##_bytes(o); }           \
    static int MOD##_obj_merge(void *a, const void *b) { return MOD##_merge(a, b); }  \
    static void MOD##_obj_encode(const void *o, wire_buf_t *w) { MOD##_encode(o, w); } \
    static int MOD##_obj_merge_encoded(void *o, wire_le_reader_t *r, size_t len, err_t *e) \
    {                                                                                 \
        return MOD##_merge_encoded(o, r, len, e);                                     \
    }                                                                                 \
    const agg_obj_ops_t MOD##_ops = {MOD##_obj_make, MOD##_obj_release, MOD##_obj_bytes, \
                                     MOD##_obj_merge, MOD##_obj_encode,                 \
                                     MOD##_obj_merge_encoded};

/* The operations of kind agg, or NULL when its state is no object. */
static inline const agg_obj_ops_t *agg_obj_ops(enum plan_agg agg)
{
    switch (agg) {
    case PLAN_AGG_QUANTILE: return &quant_ops;
    case PLAN_AGG_COUNT_DISTINCT: return &distinct_ops;
    case PLAN_AGG_TOP: return &topk_ops;
    default: return NULL;
    }
}

#endif
