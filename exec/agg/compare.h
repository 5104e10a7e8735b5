/* compare.h: the comparisons of where and having, and their three values.
 *
 * One definition for the where stage (per line, exec/agg/eval.c and
 * cond.c) and for having (per group, exec/agg/post.c). Inline: the where
 * stage calls them once per row. A condition is true, false or unknown (a
 * missing value, or no number in a numeric comparison); encoded so that
 * and is the minimum, or the maximum and not 2 - v. */
#ifndef DTAIL_EXEC_AGG_COMPARE_H
#define DTAIL_EXEC_AGG_COMPARE_H

#include <stdint.h>
#include <string.h>

#include "exec/extract/extract.h"
#include "parser/plan.h"

enum { TV_FALSE = 0, TV_UNKNOWN = 1, TV_TRUE = 2 };

/* A string operator (eq ... nhassuffix) over present values. */
static inline int cmp_str_test(enum plan_op op, sv_t a, sv_t b)
{
    switch (op) {
    case PLAN_OP_STR_EQ: return a.len == b.len && memcmp(a.p, b.p, a.len) == 0;
    case PLAN_OP_STR_NE: return !(a.len == b.len && memcmp(a.p, b.p, a.len) == 0);
    case PLAN_OP_CONTAINS: return b.len == 0 || (a.len >= b.len && memmem(a.p, a.len, b.p, b.len));
    case PLAN_OP_NCONTAINS: return !(b.len == 0 || (a.len >= b.len && memmem(a.p, a.len, b.p, b.len)));
    case PLAN_OP_HASPREFIX: return a.len >= b.len && memcmp(a.p, b.p, b.len) == 0;
    case PLAN_OP_NHASPREFIX: return !(a.len >= b.len && memcmp(a.p, b.p, b.len) == 0);
    case PLAN_OP_HASSUFFIX: return a.len >= b.len && memcmp(a.p + a.len - b.len, b.p, b.len) == 0;
    case PLAN_OP_NHASSUFFIX: return !(a.len >= b.len && memcmp(a.p + a.len - b.len, b.p, b.len) == 0);
    default: return 0;
    }
}

/* A numeric comparison (== ... >=). */
static inline int cmp_num_test(enum plan_op op, double a, double b)
{
    switch (op) {
    case PLAN_OP_EQ: return a == b;
    case PLAN_OP_NE: return a != b;
    case PLAN_OP_LT: return a < b;
    case PLAN_OP_LE: return a <= b;
    case PLAN_OP_GT: return a > b;
    case PLAN_OP_GE: return a >= b;
    default: return 0;
    }
}

/* [not] in over the literals of c: a present value equal to one of them. */
static inline uint8_t cmp_in_test(const plan_cond_t *c, sv_t a)
{
    for (size_t i = 0; i < c->n_list; i++) {
        const plan_value_t *v = c->list[i];
        if (v->len == a.len && memcmp(v->text, a.p, a.len) == 0)
            return c->op == PLAN_OP_IN ? TV_TRUE : TV_FALSE;
    }
    return c->op == PLAN_OP_IN ? TV_FALSE : TV_TRUE;
}

#endif
