/* cond.c: the where conditions beyond DTail's comparisons (or, not, in,
 * matches, and the and inside them), over a batch.
 *
 * Batch-oriented, as the rest of the where stage: each node of the
 * condition fills a truth vector (false, unknown, true; compare.h) for
 * the rows it is given, and a node hands its operands only the rows still
 * undecided (an and stops asking once a row is false, an or once it is
 * true), as selection vectors. Values are the columns of eval.c's nodes,
 * computed only for those rows. A condition made only of DTail's
 * comparisons never comes here: eval.c's loop runs it, as before. */
#include <stdlib.h>
#include <string.h>

#include "exec/agg/compare.h"
#include "exec/agg/eval_int.h"
#include "exec/agg/number.h"

struct ev_cond {
    const plan_cond_t *pc;      /* what it tests */
    long lhs_id, rhs_id;        /* leaves: operand nodes (-1: none) */
    ev_node_t *lhs, *rhs;       /* ... once bound */
    pcre2_code *re;             /* matches: the pattern */
    pcre2_match_data *md;       /* ... its match data (this thread's) */
    ev_cond_t **kids;           /* and, or, not: the operands */
    size_t n_kids;
    uint8_t tv[EVAL_BATCH];     /* truth value per batch row */
    uint32_t sub[EVAL_BATCH];   /* rows an operand is asked about */
};

ev_cond_t *ev_cond_new(eval_t *ev, const plan_cond_t *c, err_t *e)
{
    ev_cond_t *n = calloc(1, sizeof *n);
    if (!n) {
        err_set(e, ERR_NOMEM, "out of memory compiling the query");
        return NULL;
    }
    n->pc = c;
    n->lhs_id = n->rhs_id = -1;
    if (c->n_kids) {
        n->kids = calloc(c->n_kids, sizeof *n->kids);
        if (!n->kids) {
            err_set(e, ERR_NOMEM, "out of memory compiling the query");
            ev_cond_free(n);
            return NULL;
        }
        n->n_kids = c->n_kids;
        for (size_t i = 0; i < c->n_kids; i++)
            if (!(n->kids[i] = ev_cond_new(ev, c->kids[i], e))) {
                ev_cond_free(n);
                return NULL;
            }
        return n;
    }
    if ((n->lhs_id = eval_compile(ev, c->lhs, e)) < 0 ||
        (c->rhs && (n->rhs_id = eval_compile(ev, c->rhs, e)) < 0)) {
        ev_cond_free(n);
        return NULL;
    }
    if (c->regex) {
        int ec;
        PCRE2_SIZE eo;
        n->re = pcre2_compile((PCRE2_SPTR)c->regex, PCRE2_ZERO_TERMINATED, 0, &ec, &eo, NULL);
        if (n->re) {
            pcre2_jit_compile(n->re, PCRE2_JIT_COMPLETE);
            n->md = pcre2_match_data_create_from_pattern(n->re, NULL);
        }
        if (!n->re || !n->md) {
            err_set(e, ERR_QUERY, "regex pattern '%s' does not compile", c->regex);
            ev_cond_free(n);
            return NULL;
        }
    }
    return n;
}

void ev_cond_bind(eval_t *ev, ev_cond_t *c)
{
    for (size_t i = 0; i < c->n_kids; i++)
        ev_cond_bind(ev, c->kids[i]);
    c->lhs = c->lhs_id >= 0 ? &ev->nodes[c->lhs_id] : NULL;
    c->rhs = c->rhs_id >= 0 ? &ev->nodes[c->rhs_id] : NULL;
}

void ev_cond_free(ev_cond_t *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n_kids; i++)
        ev_cond_free(c->kids[i]);
    free(c->kids);
    pcre2_match_data_free(c->md);
    pcre2_code_free(c->re);
    free(c);
}

/* A comparison, matches or in: tv for rows. */
static void leaf_eval(eval_t *ev, ev_cond_t *c, const uint32_t *rows, size_t nr)
{
    const plan_cond_t *pc = c->pc;
    const sv_t *l = eval_node(ev, c->lhs, rows, nr);
    const sv_t *r = c->rhs ? eval_node(ev, c->rhs, rows, nr) : NULL;
    for (size_t i = 0; i < nr; i++) {
        uint32_t row = rows[i];
        sv_t a = l[row];
        uint8_t t = TV_UNKNOWN;
        if (a.len == SV_MISSING) {
            c->tv[row] = t;
            continue;
        }
        if (pc->op == PLAN_OP_IN || pc->op == PLAN_OP_NOT_IN) {
            t = cmp_in_test(pc, a);
        } else if (c->re) {
            int m = pcre2_match(c->re, (PCRE2_SPTR)a.p, a.len, 0, 0, c->md, NULL) >= 0;
            t = m == (pc->op == PLAN_OP_MATCHES) ? TV_TRUE : TV_FALSE;
        } else if (r[row].len == SV_MISSING) {
            t = TV_UNKNOWN;
        } else if (pc->numeric) {
            double x, y;
            if (num_parse(a.p, a.len, &x) && num_parse(r[row].p, r[row].len, &y))
                t = cmp_num_test(pc->op, x, y) ? TV_TRUE : TV_FALSE;
        } else {
            t = cmp_str_test(pc->op, a, r[row]) ? TV_TRUE : TV_FALSE;
        }
        c->tv[row] = t;
    }
}

static void cond_eval(eval_t *ev, ev_cond_t *c, const uint32_t *rows, size_t nr);

/* and (the minimum) or or (the maximum) of the operands: each is asked
 * only about the rows the ones before left undecided. */
static void chain_eval(eval_t *ev, ev_cond_t *c, const uint32_t *rows, size_t nr)
{
    const int is_or = c->pc->op == PLAN_OP_OR;
    const uint8_t decided = is_or ? TV_TRUE : TV_FALSE;
    ev_cond_t *k0 = c->kids[0];
    cond_eval(ev, k0, rows, nr);
    for (size_t i = 0; i < nr; i++)
        c->tv[rows[i]] = k0->tv[rows[i]];
    for (size_t k = 1; k < c->n_kids; k++) {
        size_t ns = 0;
        for (size_t i = 0; i < nr; i++) {
            c->sub[ns] = rows[i];
            ns += c->tv[rows[i]] != decided;
        }
        if (!ns)
            return;
        ev_cond_t *kid = c->kids[k];
        cond_eval(ev, kid, c->sub, ns);
        for (size_t i = 0; i < ns; i++) {
            uint32_t row = c->sub[i];
            uint8_t a = c->tv[row], b = kid->tv[row];
            c->tv[row] = is_or ? (a > b ? a : b) : (a < b ? a : b);
        }
    }
}

static void cond_eval(eval_t *ev, ev_cond_t *c, const uint32_t *rows, size_t nr)
{
    switch (c->pc->op) {
    case PLAN_OP_AND: case PLAN_OP_OR:
        chain_eval(ev, c, rows, nr);
        return;
    case PLAN_OP_NOT:
        cond_eval(ev, c->kids[0], rows, nr);
        for (size_t i = 0; i < nr; i++)
            c->tv[rows[i]] = (uint8_t)(TV_TRUE - c->kids[0]->tv[rows[i]]);
        return;
    default:
        leaf_eval(ev, c, rows, nr);
        return;
    }
}

size_t ev_cond_filter(eval_t *ev, ev_cond_t *c, uint32_t *rows, size_t nr)
{
    cond_eval(ev, c, rows, nr);
    size_t k = 0;
    for (size_t i = 0; i < nr; i++) {
        uint32_t row = rows[i];
        rows[k] = row;
        k += c->tv[row] == TV_TRUE;
    }
    return k;
}
