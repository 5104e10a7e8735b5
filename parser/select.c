/* parser/select.c: the select items of a plan.
 *
 * Each column of the result is an item: an aggregate of a field or
 * function (count($line), quantile(x, 0.9)), a plain field or function
 * (its last value), or arithmetic (sum(bytes)/1024), which is computed
 * per group after the final merge. The aggregates and fields that
 * arithmetic and having read are items too: the column of that name when
 * the query selects it, else an item of their own after the columns
 * (plan.n_columns <= plan.n_select), which is aggregated and merged like
 * a column but never shown. */
#include <stdlib.h>
#include <string.h>

#include "parser/plan_int.h"
#include "parser/print.h"
#include "parser/resolve.h"
#include "query.h"

const char *plan_column_name(resolve_ctx_t *rc, strbuf_t *sb, const ast_expr_t *e)
{
    sb->len = 0;
    if (sb->p)
        sb->p[0] = '\0';
    print_column_name(sb, e);
    const char *s = sb_to_arena(sb, rc->pc->arena);
    if (!s)
        parse_nomem(rc->pc);
    return s;
}

/* One select item: agg(field), quantile(field, q), pNN(field), a function,
 * a plain field (last), or arithmetic (its tree is resolved once every
 * column exists: select_exprs). */
static int select_item(resolve_ctx_t *rc, plan_select_t *s, const ast_expr_t *e)
{
    s->offset = e->off;
    s->agg = PLAN_AGG_LAST;
    if (e->kind == AST_ARITH) {
        s->agg = PLAN_AGG_EXPR;
        return 0;
    }
    double q = 0;
    const resolve_fn_t *fn = e->kind == AST_CALL ? resolve_fn_find(e->text, &q) : NULL;
    if (fn && fn->aggregate) {
        const ast_expr_t *arg = resolve_agg_args(rc, fn, q, e, s);
        if (!arg)
            return -1;
        s->value = resolve_field_named(rc, arg);
    } else {
        s->value = resolve_field_named(rc, e);
    }
    return s->value ? 0 : -1;
}

/* A bareword item that is a near miss of a clause keyword (`select a wher
 * x > 1` selects a, wher and x...) is legal but almost certainly a typo. */
void plan_warn_misspelt(resolve_ctx_t *rc, const ast_expr_t *e, const char *in)
{
    if (e->kind != AST_FIELD || e->quote || e->text_len < 4 || e->text_len > 12)
        return;
    char low[16];
    for (size_t i = 0; i <= e->text_len; i++) {
        char c = e->text[i];
        low[i] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
    }
    const char *kw = resolve_suggest(low, query_clause_words);
    if (kw)
        parse_warn(rc->pc, e->off, "'%s' in %s looks like a misspelt %s", e->text, in, kw);
}

/* ---- the items arithmetic and having read ------------------------------ */

/* Values after aggregation that e can name (an upper bound of the items
 * its arithmetic or conditions add). */
static size_t operands_of(const ast_expr_t *e)
{
    if (!e)
        return 0;
    size_t n = 0;
    switch (e->kind) {
    case AST_ARITH:
        return operands_of(e->lhs) + operands_of(e->rhs);
    case AST_BOOL:
        if (e->op == TK_NOT)
            return operands_of(e->lhs);
        for (const ast_expr_t *a = e->args->head; a; a = a->next)
            n += operands_of(a);
        return n;
    case AST_COND:
        return operands_of(e->lhs) + (e->op == TK_IN ? 0 : operands_of(e->rhs));
    case AST_STRING: case AST_NUMBER:
        return 0;
    default:
        return 1;
    }
}

typedef struct items {
    plan_t *p;                  /* the plan being built */
    plan_select_t *sel;         /* p->select, writable */
    size_t cap;                 /* items sel has room for */
    strbuf_t *sb;               /* scratch for names */
} items_t;

/* The item that e (an aggregate call, or a field or function: its last
 * value) names: a column of the same name and aggregate, else a new item
 * after the columns. */
static plan_value_t *item_value(resolve_ctx_t *rc, const ast_expr_t *e, void *arg)
{
    items_t *it = arg;
    if (e->kind == AST_ARITH)
        return resolve_arith(rc, e, RESOLVE_SELECT, item_value, arg);
    if (e->kind == AST_STRING || e->kind == AST_NUMBER)
        return resolve_value(rc, e, RESOLVE_WHERE);   /* a literal */
    plan_select_t want;
    memset(&want, 0, sizeof want);
    if (select_item(rc, &want, e) < 0)
        return NULL;
    want.name = plan_column_name(rc, it->sb, e);
    if (!want.name)
        return NULL;
    size_t k = 0;
    for (; k < it->p->n_select; k++) {
        const plan_select_t *s = &it->sel[k];
        if (s->agg == want.agg && s->quantile == want.quantile && s->top_k == want.top_k &&
            strcmp(s->name, want.name) == 0)
            break;
    }
    if (k == it->p->n_select) {
        if (k == it->cap) {   /* never: operands_of counted every operand */
            parse_error(rc->pc, ERR_QUERY, e->off, "too many operands");
            return NULL;
        }
        it->sel[k] = want;
        it->p->n_select++;
    }
    plan_value_t *v = resolve_value_new(rc, PLAN_V_ITEM, e);
    if (v)
        v->item = (int)k;
    return v;
}

plan_value_t *plan_post_value(resolve_ctx_t *rc, plan_t *p, const ast_expr_t *e, strbuf_t *sb)
{
    items_t it = {.p = p, .sel = (plan_select_t *)p->select, .cap = rc->select_cap, .sb = sb};
    return item_value(rc, e, &it);
}

/* ---- select ------------------------------------------------------------ */

int plan_select(resolve_ctx_t *rc, plan_t *p, const ast_query_t *q, strbuf_t *sb,
                resolve_vars_t *names)
{
    const ast_clause_t *c = q->slot[AST_SELECT];
    if (!c)
        return parse_error(rc->pc, ERR_QUERY, (uint32_t)rc->pc->n,
                           "the query has no select clause (e.g. select count($line))");
    names->hint = c->list->n;
    size_t cap = c->list->n;
    for (const ast_expr_t *e = c->list->head; e; e = e->next)
        cap += e->kind == AST_ARITH ? operands_of(e) : 0;
    if (q->slot[AST_HAVING])
        for (const ast_expr_t *e = q->slot[AST_HAVING]->list->head; e; e = e->next)
            cap += operands_of(e);
    plan_select_t *sel = arena_alloc(rc->pc->arena, cap * sizeof *sel);
    if (!sel)
        return parse_nomem(rc->pc);
    size_t i = 0;
    for (const ast_expr_t *e = c->list->head; e; e = e->next, i++) {
        memset(&sel[i], 0, sizeof sel[i]);
        if (select_item(rc, &sel[i], e))
            return -1;
        plan_warn_misspelt(rc, e, "select");
        sel[i].name = plan_column_name(rc, sb, e);
        if (!sel[i].name)
            return -1;
        if (resolve_vars_get(names, sel[i].name) >= 0) {
            parse_warn(rc->pc, e->off, "column %s is selected twice", sel[i].name);
        } else if (resolve_vars_put(rc, names, sel[i].name, (int)i)) {
            return -1;
        }
    }
    p->select = sel;
    p->n_select = p->n_columns = i;
    rc->select_cap = cap;
    /* Arithmetic columns, now that every column can be an operand. */
    i = 0;
    for (const ast_expr_t *e = c->list->head; e; e = e->next, i++) {
        if (sel[i].agg != PLAN_AGG_EXPR)
            continue;
        sel[i].value = plan_post_value(rc, p, e, sb);
        if (!sel[i].value)
            return -1;
    }
    return 0;
}
