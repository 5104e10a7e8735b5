/* post.c: arithmetic columns and having over a merged group (post.h). */
#include "exec/agg/post.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>

#include "exec/agg/compare.h"
#include "exec/agg/number.h"

struct agg_post_re {
    const plan_cond_t *cond;    /* the matches it is for */
    pcre2_code *re;
    pcre2_match_data *md;
};

/* A value after aggregation: none (an empty cell), or a number and the
 * text the cell shows, made only when a string operator asks (pv_text). */
typedef struct pv {
    int have;                   /* 0: none */
    int is_num;                 /* num holds a number */
    double num;
    sv_t text;                  /* a literal's or last()'s text; .p NULL:
                                   the number's cell */
    const agg_spec_t *spec;     /* an item's: its spec and state, and */
    const unsigned char *st;
    const result_col_totals_t *ct; /* ... its column's totals */
} pv_t;

#define PV_TEXT_MAX 400   /* a cell of a number ("%f" of any double) */

/* The text v shows as a cell, into buf (PV_TEXT_MAX bytes) if it must be
 * made. */
static sv_t pv_text(const pv_t *v, char *buf)
{
    if (v->text.p)
        return v->text;
    int n = v->spec ? result_format_cell(buf, PV_TEXT_MAX, v->spec, v->st, v->ct)
                    : result_format_real(buf, PV_TEXT_MAX, v->num);
    return (sv_t){buf, n > 0 ? (uint32_t)n : 0};
}

int agg_post_needed(const plan_t *plan)
{
    if (plan->n_having)
        return 1;
    for (size_t i = 0; i < plan->n_columns; i++)
        if (plan->select[i].agg == PLAN_AGG_EXPR)
            return 1;
    return 0;
}

static size_t count_re(const plan_cond_t *c)
{
    size_t n = c->regex != NULL;
    for (size_t i = 0; i < c->n_kids; i++)
        n += count_re(c->kids[i]);
    return n;
}

static int compile_re(agg_post_t *p, const plan_cond_t *c, err_t *e)
{
    for (size_t i = 0; i < c->n_kids; i++)
        if (compile_re(p, c->kids[i], e) < 0)
            return -1;
    if (!c->regex)
        return 0;
    agg_post_re_t *r = &p->re[p->n_re++];
    int ec;
    PCRE2_SIZE eo;
    r->cond = c;
    r->re = pcre2_compile((PCRE2_SPTR)c->regex, PCRE2_ZERO_TERMINATED, 0, &ec, &eo, NULL);
    r->md = r->re ? pcre2_match_data_create_from_pattern(r->re, NULL) : NULL;
    if (!r->md)
        return err_set(e, ERR_QUERY, "regex pattern '%s' does not compile", c->regex);
    return 0;
}

int agg_post_init(agg_post_t *p, const plan_t *plan, err_t *e)
{
    memset(p, 0, sizeof *p);
    p->plan = plan;
    size_t n = 0;
    for (size_t i = 0; i < plan->n_having; i++)
        n += count_re(&plan->having[i]);
    if (n && !(p->re = calloc(n, sizeof *p->re)))
        return err_set(e, ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < plan->n_having; i++)
        if (compile_re(p, &plan->having[i], e) < 0) {
            agg_post_free(p);
            return -1;
        }
    return 0;
}

void agg_post_free(agg_post_t *p)
{
    for (size_t i = 0; i < p->n_re; i++) {
        pcre2_match_data_free(p->re[i].md);
        pcre2_code_free(p->re[i].re);
    }
    free(p->re);
    memset(p, 0, sizeof *p);
}

/* The value of item k of group g (a column or an item only arithmetic and
 * having read). */
static void item_value(const agg_table_t *t, size_t g, size_t k, const result_col_totals_t *ct,
                       pv_t *v)
{
    const agg_spec_t *spec = &t->specs[k];
    const unsigned char *st = agg_table_state(t, g, k);
    if (spec->agg == PLAN_AGG_LAST) {
        const agg_last_t *l = (const agg_last_t *)(const void *)st;
        v->have = l->seq != 0;
        v->text = (sv_t){l->p ? l->p : "", l->len};
        v->is_num = v->have && num_parse(l->p, l->len, &v->num);
        return;
    }
    if (agg_state_no_number(spec, st))
        return;
    v->have = v->is_num = 1;
    v->num = result_item_number(spec, st, &ct[k]);
    v->spec = spec;
    v->st = st;
    v->ct = &ct[k];
}

static void value_eval(agg_post_t *p, const agg_table_t *t, size_t g,
                       const result_col_totals_t *ct, const plan_value_t *x, pv_t *v);

static void arith_eval(agg_post_t *p, const agg_table_t *t, size_t g,
                       const result_col_totals_t *ct, const plan_value_t *x, pv_t *v)
{
    pv_t a, b;
    value_eval(p, t, g, ct, x->args[0], &a);
    value_eval(p, t, g, ct, x->args[1], &b);
    if (!a.is_num || !b.is_num)
        return;
    switch (x->arith) {
    case '+': v->num = a.num + b.num; break;
    case '-': v->num = a.num - b.num; break;
    case '*': v->num = a.num * b.num; break;
    default:
        if (b.num == 0) {
            p->n_divzero++;
            return;
        }
        v->num = a.num / b.num;
        break;
    }
    v->have = v->is_num = 1;
}

static void value_eval(agg_post_t *p, const agg_table_t *t, size_t g,
                       const result_col_totals_t *ct, const plan_value_t *x, pv_t *v)
{
    memset(v, 0, sizeof *v);
    switch (x->kind) {
    case PLAN_V_ITEM:
        item_value(t, g, (size_t)x->item, ct, v);
        return;
    case PLAN_V_ARITH:
        arith_eval(p, t, g, ct, x, v);
        return;
    case PLAN_V_NUMBER:
        v->is_num = 1;
        v->num = x->number;
        /* fall through */
    default:   /* a literal */
        v->have = 1;
        v->text = (sv_t){x->text, (uint32_t)x->len};
        return;
    }
}

static pcre2_match_data *match_data(const agg_post_t *p, const plan_cond_t *c, pcre2_code **re)
{
    for (size_t i = 0; i < p->n_re; i++)
        if (p->re[i].cond == c) {
            *re = p->re[i].re;
            return p->re[i].md;
        }
    return NULL;
}

/* A comparison, matches or in: the text of a number is its cell's. */
static uint8_t leaf_eval(agg_post_t *p, const agg_table_t *t, size_t g,
                         const result_col_totals_t *ct, const plan_cond_t *c)
{
    pv_t a, b;
    char abuf[PV_TEXT_MAX], bbuf[PV_TEXT_MAX];
    value_eval(p, t, g, ct, c->lhs, &a);
    if (!a.have)
        return TV_UNKNOWN;
    if (c->op == PLAN_OP_IN || c->op == PLAN_OP_NOT_IN)
        return cmp_in_test(c, pv_text(&a, abuf));
    if (c->regex) {
        pcre2_code *re = NULL;
        pcre2_match_data *md = match_data(p, c, &re);
        sv_t s = pv_text(&a, abuf);
        int m = md && pcre2_match(re, (PCRE2_SPTR)s.p, s.len, 0, 0, md, NULL) >= 0;
        return m == (c->op == PLAN_OP_MATCHES) ? TV_TRUE : TV_FALSE;
    }
    value_eval(p, t, g, ct, c->rhs, &b);
    if (!b.have)
        return TV_UNKNOWN;
    if (c->numeric)
        return !a.is_num || !b.is_num ? TV_UNKNOWN
               : cmp_num_test(c->op, a.num, b.num) ? TV_TRUE : TV_FALSE;
    return cmp_str_test(c->op, pv_text(&a, abuf), pv_text(&b, bbuf)) ? TV_TRUE : TV_FALSE;
}

static uint8_t cond_eval(agg_post_t *p, const agg_table_t *t, size_t g,
                         const result_col_totals_t *ct, const plan_cond_t *c)
{
    switch (c->op) {
    case PLAN_OP_AND: case PLAN_OP_OR: {
        const int is_or = c->op == PLAN_OP_OR;
        uint8_t v = is_or ? TV_FALSE : TV_TRUE;
        for (size_t i = 0; i < c->n_kids && v != (is_or ? TV_TRUE : TV_FALSE); i++) {
            uint8_t k = cond_eval(p, t, g, ct, c->kids[i]);
            v = is_or ? (k > v ? k : v) : (k < v ? k : v);
        }
        return v;
    }
    case PLAN_OP_NOT:
        return (uint8_t)(TV_TRUE - cond_eval(p, t, g, ct, c->kids[0]));
    default:
        break;
    }
    return leaf_eval(p, t, g, ct, c);
}

int agg_post_group(agg_post_t *p, agg_table_t *t, size_t g, const result_col_totals_t *ct)
{
    const plan_t *plan = p->plan;
    for (size_t i = 0; i < plan->n_having; i++)
        if (cond_eval(p, t, g, ct, &plan->having[i]) != TV_TRUE)
            return 0;
    for (size_t i = 0; i < plan->n_columns; i++) {
        if (plan->select[i].agg != PLAN_AGG_EXPR)
            continue;
        pv_t v;
        value_eval(p, t, g, ct, plan->select[i].value, &v);
        agg_sum_t s = {v.is_num ? v.num : 0, v.is_num ? 1 : 0};
        memcpy(t->states + g * t->state_size + t->specs[i].off, &s, sizeof s);
    }
    return 1;
}
