/* parser/cond.c: the conditions of where and having, from AST to plan.
 *
 * A clause is a list of conditions that must all hold (DTail's implicit
 * and); each is a comparison, a matches or in test, or an and, or, not of
 * conditions (a chain of one operator is one node with every operand, as
 * ast.c builds it: a or b or c is one or of three). where's operands are
 * values per line, having's values after aggregation (select.c). */
#include <stdlib.h>
#include <string.h>

#include "parser/plan_int.h"
#include "query.h"

typedef struct conds {
    resolve_ctx_t *rc;
    plan_t *p;
    bool having;                /* values after aggregation */
    strbuf_t *sb;               /* scratch for names */
} conds_t;

static enum plan_op op_of(int tk)
{
    switch (tk) {
    case TK_EQ: return PLAN_OP_EQ;
    case TK_NE: return PLAN_OP_NE;
    case TK_LT: return PLAN_OP_LT;
    case TK_LE: return PLAN_OP_LE;
    case TK_GT: return PLAN_OP_GT;
    case TK_GE: return PLAN_OP_GE;
    case TK_EQS: return PLAN_OP_STR_EQ;
    case TK_NES: return PLAN_OP_STR_NE;
    case TK_CONTAINS: return PLAN_OP_CONTAINS;
    case TK_NCONTAINS: case TK_LACKS: return PLAN_OP_NCONTAINS;
    case TK_HASPREFIX: return PLAN_OP_HASPREFIX;
    case TK_NHASPREFIX: return PLAN_OP_NHASPREFIX;
    case TK_HASSUFFIX: return PLAN_OP_HASSUFFIX;
    case TK_MATCHES: return PLAN_OP_MATCHES;
    case TK_NMATCHES: return PLAN_OP_NMATCHES;
    default: return PLAN_OP_NHASSUFFIX;
    }
}

static plan_value_t *operand(conds_t *cs, const ast_expr_t *e)
{
    if (cs->having)
        return plan_post_value(cs->rc, cs->p, e, cs->sb);
    return resolve_value(cs->rc, e, RESOLVE_WHERE);
}

static int cond_build(conds_t *cs, const ast_expr_t *e, plan_cond_t *c);

/* and, or (a chain: one node of every operand) or not. */
static int bool_build(conds_t *cs, const ast_expr_t *e, plan_cond_t *c)
{
    arena_t *a = cs->rc->pc->arena;
    size_t n = e->op == TK_NOT ? 1 : e->args->n;
    plan_cond_t *kids = arena_alloc(a, n * sizeof *kids);
    const plan_cond_t **refs = arena_alloc(a, n * sizeof *refs);
    if (!kids || !refs)
        return parse_nomem(cs->rc->pc);
    c->op = e->op == TK_NOT ? PLAN_OP_NOT : e->op == TK_OR ? PLAN_OP_OR : PLAN_OP_AND;
    c->offset = e->op_off;
    const ast_expr_t *k = e->op == TK_NOT ? e->lhs : e->args->head;
    for (size_t i = 0; i < n; i++, k = k->next) {
        if (cond_build(cs, k, &kids[i]) < 0)
            return -1;
        refs[i] = &kids[i];
    }
    c->kids = refs;
    c->n_kids = n;
    return 0;
}

static int in_build(conds_t *cs, const ast_expr_t *e, plan_cond_t *c)
{
    c->op = e->negated ? PLAN_OP_NOT_IN : PLAN_OP_IN;
    const plan_value_t **list = arena_alloc(cs->rc->pc->arena, e->args->n * sizeof *list);
    if (!list)
        return parse_nomem(cs->rc->pc);
    size_t i = 0;
    for (const ast_expr_t *v = e->args->head; v; v = v->next, i++)
        if (!(list[i] = resolve_value(cs->rc, v, RESOLVE_WHERE)))   /* literals */
            return -1;
    c->list = list;
    c->n_list = i;
    return 0;
}

static int cond_build(conds_t *cs, const ast_expr_t *e, plan_cond_t *c)
{
    memset(c, 0, sizeof *c);
    if (e->kind == AST_BOOL)
        return bool_build(cs, e, c);
    c->offset = e->op_off;
    c->lhs = operand(cs, e->lhs);
    if (!c->lhs)
        return -1;
    if (e->op == TK_IN)
        return in_build(cs, e, c);
    c->op = op_of(e->op);
    c->numeric = ast_op_is_numeric(e->op);
    if (c->op == PLAN_OP_MATCHES || c->op == PLAN_OP_NMATCHES) {
        uint32_t ncap;
        if (resolve_pattern(cs->rc, e->rhs, e->op == TK_MATCHES ? "matches" : "nmatches",
                            &ncap) < 0)
            return -1;
        c->regex = e->rhs->text;
    }
    c->rhs = operand(cs, e->rhs);
    return c->rhs ? 0 : -1;
}

int plan_conds(resolve_ctx_t *rc, plan_t *p, const ast_clause_t *c, bool having, strbuf_t *sb,
               const plan_cond_t **out, size_t *n)
{
    if (!c || c->list->n == 0)
        return 0;
    plan_cond_t *w = arena_alloc(rc->pc->arena, c->list->n * sizeof *w);
    if (!w)
        return parse_nomem(rc->pc);
    conds_t cs = {.rc = rc, .p = p, .having = having, .sb = sb};
    size_t i = 0;
    for (const ast_expr_t *e = c->list->head; e; e = e->next, i++)
        if (cond_build(&cs, e, &w[i]) < 0)
            return -1;
    *out = w;
    *n = i;
    return 0;
}
