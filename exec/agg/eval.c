/* eval.c: compiled expression nodes, where/set/group/select over batches. */
#include "exec/agg/eval.h"

#include <md5.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/grow.h"
#include "base/numfmt_short.h"
#include "exec/agg/compare.h"
#include "exec/agg/bucket_memo.h"
#include "exec/agg/eval_int.h"
#include "exec/extract/jsonpath.h"
#include "exec/agg/number.h"
#include "exec/extract/logtime.h"
#include "wire/codec.h"

/* Scratch: linked blocks, reused batch after batch; pointers stay valid
 * until the next reset. */
typedef struct ev_block {
    struct ev_block *next;      /* next block */
    size_t cap, used;           /* bytes */
    char data[];
} ev_block_t;

struct ev_scratch {
    ev_block_t *head;           /* first block */
    ev_block_t *cur;            /* block being filled */
};

static char *scratch_alloc(ev_scratch_t *s, size_t n)
{
    while (s->cur && s->cur->used + n > s->cur->cap)
        s->cur = s->cur->next;
    if (!s->cur) {
        size_t cap = n > 65536 ? n : 65536;
        ev_block_t *b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->cap = cap;
        b->used = 0;
        b->next = s->head;
        s->head = b;
        s->cur = b;
    }
    char *p = s->cur->data + s->cur->used;
    s->cur->used += n;
    return p;
}

static void scratch_reset(ev_scratch_t *s)
{
    for (ev_block_t *b = s->head; b; b = b->next)
        b->used = 0;
    s->cur = s->head;
}

static int field_index(eval_t *ev, const char *name)
{
    for (size_t i = 0; i < ev->n_fields; i++)
        if (strcmp(ev->fields[i], name) == 0)
            return (int)i;
    const char **f = realloc(ev->fields, (ev->n_fields + 1) * sizeof *f);
    if (!f)
        return -1;
    ev->fields = f;
    ev->fields[ev->n_fields] = name;
    return (int)ev->n_fields++;
}

static long new_node(eval_t *ev, enum ev_kind kind)
{
    if (GROW_ARRAY(ev->nodes, ev->cap_nodes, ev->n_nodes + 1, 16) < 0)
        return -1;
    ev_node_t *n = &ev->nodes[ev->n_nodes];
    memset(n, 0, sizeof *n);
    n->kind = kind;
    return (long)ev->n_nodes++;
}

/* Compiles v; returns its node index or -1. Nodes refer to each other by
 * index because the node array may move while compiling. */
long eval_compile(eval_t *ev, const plan_value_t *v, err_t *e)
{
    long id;
    switch (v->kind) {
    case PLAN_V_ARITH: {
        long a = eval_compile(ev, v->args[0], e);
        long b = a < 0 ? -1 : eval_compile(ev, v->args[1], e);
        if (b < 0)
            return -1;
        id = new_node(ev, EV_ARITH);
        if (id >= 0) {
            ev->nodes[id].arg = (size_t)a;
            ev->nodes[id].arg2 = (size_t)b;
            ev->nodes[id].arith = v->arith;
        }
        break;
    }
    case PLAN_V_ITEM:   /* a value after aggregation: never per line */
        return err_set(e, ERR_QUERY, "a value after aggregation in a per-line expression");
    case PLAN_V_FIELD:
        if (v->src == PLAN_SRC_SET) {
            id = new_node(ev, EV_SETCOL);
            if (id >= 0)
                ev->nodes[id].col = v->set_index;
        } else {
            id = new_node(ev, v->or_literal ? EV_OR_LITERAL : EV_COL);
            if (id >= 0) {
                ev->nodes[id].col = field_index(ev, v->text);
                ev->nodes[id].konst = (sv_t){v->text, (uint32_t)v->len};
                if (ev->nodes[id].col < 0)
                    id = -1;
            }
        }
        break;
    case PLAN_V_STRING:
    case PLAN_V_NUMBER:
        id = new_node(ev, EV_CONST);
        if (id >= 0) {
            ev->nodes[id].konst = (sv_t){v->text, (uint32_t)v->len};
            ev->nodes[id].is_number = num_parse(v->text, v->len, &ev->nodes[id].number);
        }
        break;
    default: {
        static const enum ev_kind kinds[] = {
            [PLAN_FN_MD5SUM] = EV_MD5, [PLAN_FN_MASKDIGITS] = EV_MASK,
            [PLAN_FN_BUCKET] = EV_BUCKET, [PLAN_FN_REGEX] = EV_REGEX,
            [PLAN_FN_JSON] = EV_JSON,
        };
        long arg = v->nargs ? eval_compile(ev, v->args[0], e) : -1;
        if (arg < 0)
            return -1;
        id = new_node(ev, kinds[v->func]);
        if (id < 0)
            break;
        ev_node_t *n = &ev->nodes[id];
        n->arg = (size_t)arg;
        n->bucket_seconds = v->bucket_seconds;
        if (v->func == PLAN_FN_JSON)
            n->path = v->regex;
        if (v->func == PLAN_FN_REGEX) {
            int ec;
            PCRE2_SIZE eo;
            n->re = pcre2_compile((PCRE2_SPTR)v->regex, PCRE2_ZERO_TERMINATED, 0, &ec, &eo, NULL);
            if (!n->re)
                return err_set(e, ERR_QUERY, "regex pattern '%s' does not compile", v->regex);
            pcre2_jit_compile(n->re, PCRE2_JIT_COMPLETE);
            n->md = pcre2_match_data_create_from_pattern(n->re, NULL);
            n->group = v->regex_group;
            if (!n->md)
                id = -1;
        }
        break;
    }
    }
    if (id < 0 && e->code == ERR_NONE)
        err_set(e, ERR_NOMEM, "out of memory compiling the query");
    return id;
}

void eval_specs(const plan_t *plan, agg_spec_t *out)
{
    for (size_t i = 0; i < plan->n_select; i++)
        out[i] = (agg_spec_t){.agg = plan->select[i].agg, .quantile = plan->select[i].quantile,
                              .top_k = plan->select[i].top_k};
}

static ev_node_t **resolve_ids(eval_t *ev, long *ids, size_t n)
{
    ev_node_t **p = calloc(n ? n : 1, sizeof *p);
    if (p)
        for (size_t i = 0; i < n; i++)
            p[i] = ids[i] >= 0 ? &ev->nodes[ids[i]] : NULL;
    return p;
}

/* Whether two compiled values are the same column of every row: the one
 * node, or the extractor column both name. */
static bool same_value(const ev_node_t *a, const ev_node_t *b)
{
    if (!a || !b)
        return false;
    return a == b || (a->kind == EV_COL && b->kind == EV_COL && a->col == b->col);
}

int eval_init(eval_t *ev, const plan_t *plan, err_t *e)
{
    memset(ev, 0, sizeof *ev);
    ev->plan = plan;
    ev->tctx = logtime_ctx_local();
    ev->tctx.layout = plan->lf_timeformat;   /* bucket() reads times as $time does */
    ev->tctx.out = plan->time_zone;          /* and writes them in --timezone's zone */
    size_t n_ids = plan->n_select + 2 * plan->n_where + plan->n_set + plan->n_group_by;
    long *ids = calloc(n_ids ? n_ids : 1, sizeof *ids);
    if (!ids)
        return err_set(e, ERR_NOMEM, "out of memory");
    size_t k = 0;
    int rc = 0;
    ev->where_tree = calloc(plan->n_where ? plan->n_where : 1, sizeof *ev->where_tree);
    if (!ev->where_tree)
        rc = err_set(e, ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < plan->n_select && rc == 0; i++, k++) {
        ids[k] = -1;   /* an arithmetic column is computed after the merge */
        if (plan->select[i].agg != PLAN_AGG_EXPR &&
            (ids[k] = eval_compile(ev, plan->select[i].value, e)) < 0)
            rc = -1;
    }
    for (size_t i = 0; i < plan->n_where && rc == 0; i++) {
        if (!plan_cond_is_simple(&plan->where[i])) {
            ids[k] = ids[k + 1] = -1;
            k += 2;
            rc = (ev->where_tree[i] = ev_cond_new(ev, &plan->where[i], e)) ? 0 : -1;
            continue;
        }
        rc = (ids[k++] = eval_compile(ev, plan->where[i].lhs, e)) < 0 ? -1 : 0;
        if (rc == 0)
            rc = (ids[k++] = eval_compile(ev, plan->where[i].rhs, e)) < 0 ? -1 : 0;
    }
    for (size_t i = 0; i < plan->n_set && rc == 0; i++)
        rc = (ids[k++] = eval_compile(ev, plan->set[i].rhs, e)) < 0 ? -1 : 0;
    for (size_t i = 0; i < plan->n_group_by && rc == 0; i++)
        rc = (ids[k++] = eval_compile(ev, plan->group_by[i], e)) < 0 ? -1 : 0;
    if (rc < 0) {
        free(ids);
        eval_free(ev);
        return -1;
    }
    /* Node addresses are final now. */
    k = 0;
    ev->select = resolve_ids(ev, ids + k, plan->n_select);
    k += plan->n_select;
    ev->where_lhs = calloc(plan->n_where ? plan->n_where : 1, sizeof *ev->where_lhs);
    ev->where_rhs = calloc(plan->n_where ? plan->n_where : 1, sizeof *ev->where_rhs);
    for (size_t i = 0; ev->where_lhs && ev->where_rhs && i < plan->n_where; i++) {
        if (ev->where_tree[i]) {
            ev_cond_bind(ev, ev->where_tree[i]);
            k += 2;
            continue;
        }
        ev->where_lhs[i] = &ev->nodes[ids[k++]];
        ev->where_rhs[i] = &ev->nodes[ids[k++]];
    }
    ev->set = resolve_ids(ev, ids + k, plan->n_set);
    k += plan->n_set;
    ev->group = resolve_ids(ev, ids + k, plan->n_group_by);
    free(ids);
    /* count($line): every parsed line has a $line (a format's own key of
     * that name overrides it with a value, never with nothing), so its
     * rows are counted without gathering values. */
    ev->count_rows = calloc(plan->n_select ? plan->n_select : 1, sizeof *ev->count_rows);
    ev->nonnum = calloc(plan->n_select ? plan->n_select : 1, sizeof *ev->nonnum);
    for (size_t i = 0; ev->count_rows && ev->select && i < plan->n_select; i++)
        ev->count_rows[i] = plan->select[i].agg == PLAN_AGG_COUNT && ev->select[i] &&
                            ev->select[i]->kind == EV_COL &&
                            strcmp(ev->fields[ev->select[i]->col], "$line") == 0;
    ev->shares_numbers = calloc(plan->n_select ? plan->n_select : 1, sizeof *ev->shares_numbers);
    for (size_t i = 0; ev->shares_numbers && ev->select && i < plan->n_select; i++)
        for (size_t j = 0; j < plan->n_select; j++)
            if (j != i && same_value(ev->select[i], ev->select[j]) &&
                agg_is_numeric(plan->select[i].agg) && agg_is_numeric(plan->select[j].agg))
                ev->shares_numbers[i] = true;
    ev->set_cols = calloc(plan->n_set ? plan->n_set : 1, sizeof *ev->set_cols);
    ev->cols = calloc(ev->n_fields ? ev->n_fields : 1, sizeof *ev->cols);
    ev->scratch = calloc(1, sizeof *ev->scratch);
    ev->key_cap = 4096;
    ev->key = malloc(ev->key_cap);
    int ok = ev->select && ev->count_rows && ev->nonnum && ev->shares_numbers && ev->where_lhs && ev->where_rhs && ev->set &&
             ev->group && ev->set_cols && ev->cols && ev->scratch && ev->key;
    for (size_t i = 0; ok && i < ev->n_fields; i++)
        ok = (ev->cols[i] = malloc(EVAL_BATCH * sizeof(sv_t))) != NULL;
    for (size_t i = 0; ok && i < ev->n_nodes; i++) {
        ev_node_t *n = &ev->nodes[i];
        if (n->kind == EV_COL || n->kind == EV_SETCOL)
            continue;
        ok = (n->out = malloc(EVAL_BATCH * sizeof(sv_t))) != NULL;
        if (ok && n->kind == EV_CONST)
            for (size_t r = 0; r < EVAL_BATCH; r++)
                n->out[r] = n->konst;
    }
    if (!ok) {
        eval_free(ev);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    return 0;
}

void eval_free(eval_t *ev)
{
    for (size_t i = 0; i < ev->n_nodes; i++) {
        free(ev->nodes[i].out);
        pcre2_match_data_free(ev->nodes[i].md);
        pcre2_code_free(ev->nodes[i].re);
    }
    free(ev->nodes);
    for (size_t i = 0; ev->cols && i < ev->n_fields; i++)
        free(ev->cols[i]);
    free(ev->cols);
    free(ev->fields);
    free(ev->select);
    free(ev->count_rows);
    free(ev->nonnum);
    free(ev->shares_numbers);
    free(ev->where_lhs);
    free(ev->where_rhs);
    for (size_t i = 0; ev->where_tree && ev->plan && i < ev->plan->n_where; i++)
        ev_cond_free(ev->where_tree[i]);
    free(ev->where_tree);
    free(ev->set);
    free(ev->set_cols);
    free(ev->group);
    if (ev->scratch) {
        ev_block_t *b = ev->scratch->head;
        while (b) {
            ev_block_t *next = b->next;
            free(b);
            b = next;
        }
        free(ev->scratch);
    }
    free(ev->key);
    memset(ev, 0, sizeof *ev);
}

/* ---- time buckets ------------------------------------------------------ */

/* Row r's bucket() argument x was no timestamp: counted once per line
 * (a query has bucket() in select and group by), the first values kept. */
static void bad_time(eval_t *ev, uint32_t r, sv_t x)
{
    if (ev->badtime[r])
        return;
    ev->badtime[r] = 1;
    ev->badtime_any = true;
    if (ev->n_badtime++ < EVAL_TIME_EXAMPLES) {
        char *o = ev->badtime_ex[ev->n_badtime - 1];
        snprintf(o, EVAL_TIME_EXAMPLE_LEN, "%.*s", x.len < 64 ? (int)x.len : 64, x.p);
        for (char *c = o; *c; c++)
            if ((unsigned char)*c < 0x20 || *c == 0x7f)
                *c = '?';
    }
}

/* ---- evaluation -------------------------------------------------------- */

/* v as the shortest text that reads back as the same double (Go's 'f' -1),
 * in the scratch area; missing when out of memory. A function of its own:
 * its buffer is not on the stack of each level of nested arithmetic. */
static __attribute__((noinline)) sv_t number_text(eval_t *ev, double v)
{
    char buf[NUMFMT_SHORT_MAX];
    int len = numfmt_shortest(buf, sizeof buf, v);
    char *o = len > 0 ? scratch_alloc(ev->scratch, (size_t)len) : NULL;
    if (!o)
        return (sv_t){NULL, SV_MISSING};
    memcpy(o, buf, (size_t)len);
    return (sv_t){o, (uint32_t)len};
}

/* a arith b, as text (number_text); a missing or non-numeric operand, or
 * a division by zero (counted), is a missing value. */
static void arith_eval(eval_t *ev, ev_node_t *n, const uint32_t *rows, size_t nr)
{
    const sv_t *a = eval_node(ev, &ev->nodes[n->arg], rows, nr);
    const sv_t *b = eval_node(ev, &ev->nodes[n->arg2], rows, nr);
    for (size_t i = 0; i < nr; i++) {
        uint32_t r = rows[i];
        double x, y, v;
        n->out[r] = (sv_t){NULL, SV_MISSING};
        if (a[r].len == SV_MISSING || b[r].len == SV_MISSING ||
            !num_parse(a[r].p, a[r].len, &x) || !num_parse(b[r].p, b[r].len, &y))
            continue;
        switch (n->arith) {
        case '+': v = x + y; break;
        case '-': v = x - y; break;
        case '*': v = x * y; break;
        default:
            if (y == 0) {
                ev->n_divzero++;
                continue;
            }
            v = x / y;
            break;
        }
        n->out[r] = number_text(ev, v);
    }
}

const sv_t *eval_node(eval_t *ev, ev_node_t *n, const uint32_t *rows, size_t nr)
{
    switch (n->kind) {
    case EV_ARITH:
        arith_eval(ev, n, rows, nr);
        return n->out;
    case EV_COL:
        return ev->cols[n->col];
    case EV_SETCOL:
        return ev->set_cols[n->col];
    case EV_CONST:
        return n->out;
    case EV_OR_LITERAL: {
        const sv_t *c = ev->cols[n->col];
        for (size_t i = 0; i < nr; i++) {
            uint32_t r = rows[i];
            n->out[r] = c[r].len == SV_MISSING ? n->konst : c[r];
        }
        return n->out;
    }
    default:
        break;
    }
    const sv_t *a = eval_node(ev, &ev->nodes[n->arg], rows, nr);
    for (size_t i = 0; i < nr; i++) {
        uint32_t r = rows[i];
        sv_t x = a[r];
        sv_t res = {NULL, SV_MISSING};
        if (x.len == SV_MISSING) {
            n->out[r] = res;
            continue;
        }
        switch (n->kind) {
        case EV_MD5: {
            uint8_t d[MD5_DIGEST_LENGTH];
            char *o = scratch_alloc(ev->scratch, 32);
            if (o) {
                MD5_CTX md5;
                MD5Init(&md5);
                MD5Update(&md5, (const uint8_t *)x.p, x.len);
                MD5Final(d, &md5);
                static const char hex[] = "0123456789abcdef";
                for (int k = 0; k < 16; k++) {
                    o[2 * k] = hex[d[k] >> 4];
                    o[2 * k + 1] = hex[d[k] & 15];
                }
                res = (sv_t){o, 32};
            }
            break;
        }
        case EV_MASK: {
            char *o = scratch_alloc(ev->scratch, x.len ? x.len : 1);
            if (o) {
                for (uint32_t k = 0; k < x.len; k++)
                    o[k] = x.p[k] >= '0' && x.p[k] <= '9' ? '.' : x.p[k];
                res = (sv_t){o, x.len};
            }
            break;
        }
        case EV_BUCKET: {
            uint8_t ml;
            const char *m = bucket_memo_get(&n->memo, n->bucket_seconds, x.p, x.len, &ml);
            char *o = scratch_alloc(ev->scratch, LOGTIME_MAX);
            if (m && o) {   /* a copy: the memo changes within the batch */
                memcpy(o, m, ml);
                res = (sv_t){o, ml};
                break;
            }
            logtime_t t;
            if (!logtime_parse(x.p, x.len, &ev->tctx, &t)) {
                bad_time(ev, r, x);
                break;
            }
            size_t bl = o ? logtime_write_bucket(&t, n->bucket_seconds, o) : 0;
            if (bl) {
                res = (sv_t){o, (uint32_t)bl};
                bucket_memo_put(&n->memo, x.p, x.len, &t, ev->tctx.layout != NULL, o, bl);
            } else if (o) {
                bad_time(ev, r, x);
            }
            break;
        }
        case EV_JSON: {
            const char *jv;
            uint32_t jl;
            bool esc;
            if (!jsonpath_find(x.p, x.len, n->path, &jv, &jl, &esc))
                break;   /* no JSON, no such member, or null: missing */
            if (!esc) {
                res = (sv_t){jv, jl};
                break;
            }
            char *o = scratch_alloc(ev->scratch, jl ? jl : 1);
            if (o)
                res = (sv_t){o, jsonpath_unescape(jv, jl, o)};
            break;
        }
        case EV_REGEX: {
            int rc = pcre2_match(n->re, (PCRE2_SPTR)x.p, x.len, 0, 0, n->md, NULL);
            if (rc > 0) {
                int g = n->group;
                PCRE2_SIZE *ov = pcre2_get_ovector_pointer(n->md);
                if (g < rc && ov[2 * g] != PCRE2_UNSET)
                    res = (sv_t){x.p + ov[2 * g], (uint32_t)(ov[2 * g + 1] - ov[2 * g])};
            }
            break;
        }
        default:
            break;
        }
        n->out[r] = res;
    }
    return n->out;
}

static size_t where_filter(eval_t *ev, uint32_t *rows, size_t nr)
{
    for (size_t c = 0; c < ev->plan->n_where && nr; c++) {
        if (ev->where_tree[c]) {   /* or, not, in, matches: cond.c */
            nr = ev_cond_filter(ev, ev->where_tree[c], rows, nr);
            continue;
        }
        const plan_cond_t *cond = &ev->plan->where[c];
        ev_node_t *rn = ev->where_rhs[c];
        const sv_t *l = eval_node(ev, ev->where_lhs[c], rows, nr);
        const sv_t *r = eval_node(ev, rn, rows, nr);
        size_t k = 0;
        if (cond->numeric) {
            int rconst = rn->kind == EV_CONST && rn->is_number;
            for (size_t i = 0; i < nr; i++) {
                uint32_t row = rows[i];
                double a, b = rn->number;
                int keep = l[row].len != SV_MISSING && num_parse(l[row].p, l[row].len, &a) &&
                           (rconst || (r[row].len != SV_MISSING && num_parse(r[row].p, r[row].len, &b))) &&
                           cmp_num_test(cond->op, a, b);
                rows[k] = row;
                k += keep;
            }
        } else {
            for (size_t i = 0; i < nr; i++) {
                uint32_t row = rows[i];
                int keep = l[row].len != SV_MISSING && r[row].len != SV_MISSING &&
                           cmp_str_test(cond->op, l[row], r[row]);
                rows[k] = row;
                k += keep;
            }
        }
        nr = k;
    }
    return nr;
}

/* Group ids for rows: key parts as length-prefixed bytes (a missing value
 * is empty, as in DTail), so distinct part lists never collide. */
enum { PREFETCH_ROWS = 12 };    /* rows a group lookup's slot is fetched ahead */

/* assign_groups for a key of one part, the value col[rows[i]]: hashed and
 * looked up where it lies (agg_key_hash hashes a one-part key so), with no
 * key built unless the group is new. A large table gets the hashes first,
 * so that each lookup can fetch its slot a few rows ahead; a small one is
 * in cache, and each value is read once, in one pass. */
static int assign_groups_one(eval_t *ev, agg_table_t *t, const sv_t *col, const uint32_t *rows,
                             size_t nr)
{
    const int ahead = !agg_table_small(t);
    if (ahead) {
        for (size_t i = 0; i < nr; i++) {
            sv_t v = col[rows[i]];
            ev->key_hash[i] = agg_hash(v.p, v.len == SV_MISSING ? 0 : v.len);
        }
        for (size_t i = 0; i < nr && i < PREFETCH_ROWS; i++)
            agg_table_prefetch(t, ev->key_hash[i]);
    }
    for (size_t i = 0; i < nr; i++) {
        sv_t v = col[rows[i]];
        uint32_t len = v.len == SV_MISSING ? 0 : v.len;
        if (ahead && i + PREFETCH_ROWS < nr)
            agg_table_prefetch(t, ev->key_hash[i + PREFETCH_ROWS]);
        uint64_t hash = ahead ? ev->key_hash[i] : agg_hash(v.p, len);
        long g = agg_table_group_one(t, v.p, len, hash);
        if (g < 0)
            return -1;
        ev->gid[i] = (uint32_t)g;
    }
    return 0;
}

static int assign_groups(eval_t *ev, agg_table_t *t, const uint32_t *rows, size_t nr)
{
    size_t np = ev->plan->n_group_by;
    if (np == 0) {
        long g = agg_table_group(t, "", 0, agg_key_hash("", 0));
        if (g < 0)
            return -1;
        for (size_t i = 0; i < nr; i++)
            ev->gid[i] = (uint32_t)g;
        return 0;
    }
    const sv_t *parts[64];
    for (size_t p = 0; p < np && p < 64; p++)
        parts[p] = eval_node(ev, ev->group[p], rows, nr);
    if (np == 1)
        return assign_groups_one(ev, t, parts[0], rows, nr);
    /* First every key and its hash, then the lookups: knowing the hashes
     * ahead lets each lookup prefetch the slot a few rows on, so the cache
     * misses of a large table overlap instead of queueing one by one. */
    size_t len = 0;
    for (size_t i = 0; i < nr; i++) {
        uint32_t r = rows[i];
        size_t start = len;
        for (size_t p = 0; p < np && p < 64; p++) {
            sv_t v = parts[p][r];
            uint32_t vl = v.len == SV_MISSING ? 0 : v.len;
            if (len + 4 + vl > ev->key_cap) {
                /* Key offsets are 32-bit: the buffer stays below 4 GiB. */
                size_t cap = grow_capacity(ev->key_cap, len + 4 + vl, 1, 1);
                if (!cap || cap > UINT32_MAX)
                    return -1;
                char *k = realloc(ev->key, cap);
                if (!k)
                    return -1;
                ev->key = k;
                ev->key_cap = cap;
            }
            wire_le32_store((unsigned char *)ev->key + len, vl);
            bytes_copy(ev->key + len + 4, v.p, vl);
            len += 4 + vl;
        }
        ev->key_off[i] = (uint32_t)start;
        ev->key_len[i] = (uint32_t)(len - start);
    }
    /* Hashed in a pass of its own: a key read back right after its pieces
     * were stored would stall on store forwarding at every row. */
    for (size_t i = 0; i < nr; i++)
        ev->key_hash[i] = agg_key_hash(ev->key + ev->key_off[i], ev->key_len[i]);
    for (size_t i = 0; i < nr && i < PREFETCH_ROWS; i++)
        agg_table_prefetch(t, ev->key_hash[i]);
    for (size_t i = 0; i < nr; i++) {
        if (i + PREFETCH_ROWS < nr)
            agg_table_prefetch(t, ev->key_hash[i + PREFETCH_ROWS]);
        long g = agg_table_group(t, ev->key + ev->key_off[i], ev->key_len[i], ev->key_hash[i]);
        if (g < 0)
            return -1;
        ev->gid[i] = (uint32_t)g;
    }
    return 0;
}

_Static_assert(EVAL_BATCH <= AGG_NUMBERS_BATCH, "a batch's numbers fit agg_numbers_t");

size_t eval_batch(eval_t *ev, agg_table_t *table, uint32_t *rows, size_t nr, const uint64_t *seq)
{
    scratch_reset(ev->scratch);
    ev->numbers_of = NULL;
    if (ev->badtime_any) {
        memset(ev->badtime, 0, sizeof ev->badtime);
        ev->badtime_any = false;
    }
    nr = where_filter(ev, rows, nr);
    if (!nr)
        return 0;
    for (size_t s = 0; s < ev->plan->n_set; s++)
        ev->set_cols[s] = eval_node(ev, ev->set[s], rows, nr);
    if (assign_groups(ev, table, rows, nr) < 0)
        return nr;   /* table->failed is set; the caller reports it */
    /* Rows 0..nr-1 in order (every line of the batch taken, the common
     * case): columns are read as they are, not gathered. */
    const bool all_rows = rows[nr - 1] == nr - 1;
    bool have_seqs = false;
    for (size_t s = 0; s < ev->plan->n_select; s++) {
        if (!ev->select[s])   /* an arithmetic column: computed after the merge */
            continue;
        if (ev->count_rows[s]) {
            agg_table_count(table, s, ev->gid, nr);
            continue;
        }
        const sv_t *col = eval_node(ev, ev->select[s], rows, nr);
        const sv_t *vals = col;
        if (!all_rows) {
            for (size_t i = 0; i < nr; i++)
                ev->vals[i] = col[rows[i]];
            vals = ev->vals;
        }
        const uint64_t *seqs = NULL;
        enum plan_agg agg = ev->plan->select[s].agg;
        if (agg == PLAN_AGG_LAST || agg == PLAN_AGG_LEN) {   /* only these read seq */
            if (!have_seqs)
                for (size_t i = 0; i < nr; i++)
                    ev->seqs[i] = seq[rows[i]];
            have_seqs = true;
            seqs = ev->seqs;
        }
        if (ev->shares_numbers[s]) {
            if (!same_value(ev->numbers_of, ev->select[s])) {
                agg_table_parse_numbers(&ev->numbers, vals, nr);
                ev->numbers_of = ev->select[s];
            }
            ev->nonnum[s] += agg_table_update_numbers(table, s, ev->gid, &ev->numbers, nr);
            continue;
        }
        ev->nonnum[s] += agg_table_update(table, s, ev->gid, vals, seqs, nr);
    }
    return nr;
}
