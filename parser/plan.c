/* parser/plan.c: semantic analysis, from AST to logical plan (plan.h).
 *
 * Clauses are checked in the order exec/ runs them, so that visibility is
 * right: where (before set: it cannot see set variables), set (each
 * assignment sees the earlier ones), then select, group by and order by
 * (which see everything). Names are resolved by resolve.c. */
#include "parser/plan.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "parser/plan_int.h"
#include "query.h"

const char *plan_agg_name(enum plan_agg agg)
{
    static const char *const names[] = {
        "last", "count", "sum", "min", "max", "avg", "len", "percentage",
        "percentile", "quantile", "count_distinct", "top", "expr",
    };
    return (unsigned)agg < sizeof names / sizeof names[0] ? names[agg] : "?";
}

const char *plan_func_name(enum plan_func fn)
{
    static const char *const names[] = { "md5sum", "maskdigits", "bucket", "regex", "json" };
    return (unsigned)fn < sizeof names / sizeof names[0] ? names[fn] : "?";
}

const char *plan_op_name(enum plan_op op)
{
    static const char *const names[] = {
        "==", "!=", "<", "<=", ">", ">=", "eq", "ne", "contains", "ncontains",
        "hasprefix", "nhasprefix", "hassuffix", "nhassuffix", "matches", "nmatches",
        "in", "not in", "and", "or", "not",
    };
    return (unsigned)op < sizeof names / sizeof names[0] ? names[op] : "?";
}

static int plan_logformat(resolve_ctx_t *rc, plan_t *p, const ast_query_t *q,
                          const char *default_fmt)
{
    const ast_clause_t *lf = q->slot[AST_LOGFORMAT];
    if (lf) {
        const ast_expr_t *w = lf->word;
        p->logformat = logformat_find(w->text);
        p->logformat_given = true;
        if (!p->logformat) {
            const char *names[32];
            char known[256] = "";
            size_t n = 0, kl = 0;
            for (; logformat_all[n] && n < 31; n++) {
                names[n] = logformat_all[n]->name;
                kl += (size_t)snprintf(known + kl, kl < sizeof known ? sizeof known - kl : 0,
                                       "%s%s", n ? " " : "", names[n]);
            }
            names[n] = NULL;
            const char *s = resolve_suggest(w->text, names);
            return parse_error(rc->pc, ERR_QUERY, w->off,
                               "unknown log format '%s'%s%s%s (known: %s)", w->text,
                               s ? "; did you mean " : "", s ? s : "", s ? "?" : "", known);
        }
        rc->fmt = p->logformat;
        if (plan_lfopts(rc, p, lf) < 0)
            return -1;
    } else if (!q->slot[AST_FROM]) {
        /* DTail: without from and logformat, lines get the generic parser. */
        p->logformat = logformat_find("generic");
    } else {
        p->logformat = logformat_find(default_fmt ? default_fmt : "default");
        if (!p->logformat)
            return parse_error(rc->pc, ERR_QUERY, 0,
                               "unknown default log format '%s'", default_fmt);
    }
    rc->fmt = p->logformat;
    return 0;
}

static int plan_from(resolve_ctx_t *rc, plan_t *p, const ast_query_t *q)
{
    const ast_clause_t *c = q->slot[AST_FROM];
    if (!c) {
        /* DTail: `logformat csv` without from reads every line. */
        if (p->logformat_given && strcmp(p->logformat->name, "csv") == 0)
            p->table = ".";
        return 0;
    }
    const ast_expr_t *w = c->word;
    if (w->text_len == 0)
        return parse_error(rc->pc, ERR_QUERY, w->off, "empty table name after from");
    char *t = arena_strndup(rc->pc->arena, w->text, w->text_len);
    if (!t)
        return parse_nomem(rc->pc);
    for (char *s = t; *s; s++)
        if (*s >= 'a' && *s <= 'z')
            *s = (char)(*s - 32);
    p->table = t;
    return 0;
}

static int plan_where(resolve_ctx_t *rc, plan_t *p, const ast_query_t *q, strbuf_t *sb)
{
    rc->set_visible = false;
    return plan_conds(rc, p, q->slot[AST_WHERE], false, sb, &p->where, &p->n_where);
}

static int plan_set(resolve_ctx_t *rc, plan_t *p, const ast_query_t *q)
{
    const ast_clause_t *c = q->slot[AST_SET];
    rc->set_visible = true;
    if (!c)
        return 0;
    rc->vars.hint = c->list->n;
    plan_assign_t *a = arena_alloc(rc->pc->arena, c->list->n * sizeof *a);
    if (!a)
        return parse_nomem(rc->pc);
    size_t i = 0;
    for (const ast_expr_t *e = c->list->head; e; e = e->next, i++) {
        a[i].var = e->lhs->text;
        a[i].offset = e->lhs->off;
        a[i].rhs = resolve_value(rc, e->rhs, RESOLVE_SET);
        if (!a[i].rhs || resolve_vars_put(rc, &rc->vars, e->lhs->text, (int)i))
            return -1;
    }
    p->set = a;
    p->n_set = i;
    return 0;
}

/* `group by bucket($time, 5m) fill`: the last key a bareword fill after
 * other keys. Alone (`group by fill`) it is a field, as in DTail. */
static const ast_expr_t *group_fill_word(const ast_list_t *l)
{
    const ast_expr_t *last = l->tail;
    if (l->n < 2 || !last || last->kind != AST_FIELD || last->quote ||
        strcasecmp(last->text, "fill") != 0)
        return NULL;
    return last;
}

static bool group_has_bucket(const ast_list_t *l)
{
    for (const ast_expr_t *e = l->head; e; e = e->next)
        if (e->kind == AST_CALL && strcasecmp(e->text, "bucket") == 0)
            return true;
    return false;
}

static int plan_group(resolve_ctx_t *rc, plan_t *p, const ast_query_t *q,
                      strbuf_t *sb, const resolve_vars_t *names)
{
    const ast_clause_t *c = q->slot[AST_GROUP];
    if (!c)
        return 0;
    size_t n = c->list->n;
    const ast_expr_t *fill = group_fill_word(c->list);
    if (fill) {
        if (!group_has_bucket(c->list))
            return parse_error(rc->pc, ERR_QUERY, fill->off,
                               "fill needs a bucket(...) among the group by keys (a field "
                               "named fill: write `fill`)");
        p->fill = true;
        p->fill_offset = fill->off;
        parse_note_ext(rc->pc, fill->off, "fill");   /* a Go dserver would group by it */
        n--;
    }
    const plan_value_t **g = arena_alloc(rc->pc->arena, n * sizeof *g);
    const char **gn = arena_alloc(rc->pc->arena, n * sizeof *gn);
    if (!g || !gn)
        return parse_nomem(rc->pc);
    size_t i = 0;
    for (const ast_expr_t *e = c->list->head; e && e != fill; e = e->next, i++) {
        g[i] = resolve_field_named(rc, e);
        plan_warn_misspelt(rc, e, "group by");
        gn[i] = g[i] ? plan_column_name(rc, sb, e) : NULL;
        if (!gn[i])
            return -1;
        int k = resolve_vars_get(names, gn[i]);
        if (k >= 0)
            ((plan_select_t *)p->select)[k].group_key = true;
    }
    p->group_by = g;
    p->group_names = gn;
    p->n_group_by = i;
    return 0;
}

static int plan_order(resolve_ctx_t *rc, plan_t *p, const ast_query_t *q,
                      strbuf_t *sb, const resolve_vars_t *names)
{
    const ast_clause_t *c = q->slot[AST_ORDER];
    p->order_index = -1;
    if (!c)
        return 0;
    const ast_expr_t *e = c->list->head;
    const char *name = plan_column_name(rc, sb, e);
    if (!name)
        return -1;
    int k = resolve_vars_get(names, name);
    if (k < 0) {
        /* List what could have been meant. */
        strbuf_t cols;
        sb_init(&cols);
        for (size_t i = 0; i < p->n_columns && cols.len < 400; i++)
            sb_printf(&cols, "%s%s", i ? ", " : "", p->select[i].name);
        parse_error(rc->pc, ERR_QUERY, e->off,
                    "%s by %s: the column must be in the select clause (selected: %s)",
                    c->kw == TK_RORDER ? "rorder" : "order", name,
                    cols.p ? cols.p : "");
        sb_free(&cols);
        return -1;
    }
    p->order_index = k;
    p->order_ascending = c->kw == TK_RORDER;
    return 0;
}

/* A whole number, optionally signed; *out saturates at +-LLONG_MAX/10. */
static bool whole_number(const ast_expr_t *e, long long *out)
{
    if (e->kind != AST_NUMBER)
        return false;
    const char *s = e->text;
    bool neg = *s == '-';
    if (*s == '-' || *s == '+')
        s++;
    if (!*s || strspn(s, "0123456789") != strlen(s))
        return false;
    long long v = 0;
    for (; *s; s++)
        v = v < LLONG_MAX / 100 ? v * 10 + (*s - '0') : LLONG_MAX / 10;
    *out = neg ? -v : v;
    return true;
}

static int plan_numbers(resolve_ctx_t *rc, plan_t *p, const ast_query_t *q)
{
    p->interval = 5;
    p->limit = -1;
    const ast_clause_t *c = q->slot[AST_INTERVAL];
    if (c) {
        long long v;
        const ast_expr_t *w = c->word;
        if (!whole_number(w, &v)) {
            v = w->kind == AST_FIELD && !w->quote ? resolve_duration(w->text, w->text_len)
                                                  : -1;
            if (v <= 0)
                return parse_error(rc->pc, ERR_QUERY, w->off,
                                   "interval expects a whole number of seconds "
                                   "(or a duration such as 30s or 1m), got '%s'", w->text);
        }
        if (v > INT_MAX)
            return parse_error(rc->pc, ERR_QUERY, w->off, "interval %s is too large",
                               w->text);
        p->interval = v <= 0 ? 1 : (int)v;   /* DTail: N <= 0 means 1 s */
        p->interval_given = true;
    }
    c = q->slot[AST_LIMIT];
    if (c) {
        long long v;
        if (!whole_number(c->word, &v))
            return parse_error(rc->pc, ERR_QUERY, c->word->off,
                               "limit expects a whole number of rows, got '%s'",
                               c->word->text);
        p->limit = v < 0 ? -1 : v;          /* DTail: negative means no limit */
        p->limit_given = true;
    }
    return 0;
}

static bool ends_with_ci(const char *s, size_t n, const char *suffix)
{
    size_t m = strlen(suffix);
    if (n < m)
        return false;
    for (size_t i = 0; i < m; i++) {
        char c = s[n - m + i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c + 32);
        if (c != suffix[i])
            return false;
    }
    return true;
}

enum plan_outfile_format plan_outfile_format_of(const char *name, size_t len)
{
    return ends_with_ci(name, len, ".sqlite") || ends_with_ci(name, len, ".sqlite3") ||
                   ends_with_ci(name, len, ".db")
               ? PLAN_OUT_SQLITE
               : PLAN_OUT_CSV;
}

static int plan_outfile(resolve_ctx_t *rc, plan_t *p, const ast_query_t *q)
{
    const ast_clause_t *c = q->slot[AST_OUTFILE];
    if (!c)
        return 0;
    const ast_expr_t *w = c->word;
    if (w->text_len == 0)
        return parse_error(rc->pc, ERR_QUERY, w->off, "empty file name after outfile");
    p->outfile = w->text;
    p->outfile_append = c->append;
    p->outfile_format = plan_outfile_format_of(w->text, w->text_len);
    return 0;
}

static int plan_warnings(parse_ctx_t *pc, plan_t *p)
{
    if (!pc->n_warn)
        return 0;
    plan_warning_t *w = arena_alloc(pc->arena, pc->n_warn * sizeof *w);
    if (!w)
        return parse_nomem(pc);
    size_t i = 0;
    for (const parse_warn_t *x = pc->warn_head; x; x = x->next, i++) {
        w[i].offset = x->off;
        w[i].msg = x->msg;
    }
    p->warnings = w;
    p->n_warnings = i;
    return 0;
}

int plan_build(parse_ctx_t *pc, const ast_query_t *q, const char *default_fmt,
               plan_t *p)
{
    memset(p, 0, sizeof *p);
    resolve_ctx_t rc;
    memset(&rc, 0, sizeof rc);
    rc.pc = pc;
    rc.set_list = q->slot[AST_SET] ? q->slot[AST_SET]->list : NULL;
    resolve_vars_t names;
    memset(&names, 0, sizeof names);
    strbuf_t sb;
    sb_init(&sb);
    int rc_ = -1;
    if (plan_logformat(&rc, p, q, default_fmt) == 0 && plan_from(&rc, p, q) == 0 &&
        plan_where(&rc, p, q, &sb) == 0 && plan_set(&rc, p, q) == 0 &&
        plan_select(&rc, p, q, &sb, &names) == 0 &&
        plan_group(&rc, p, q, &sb, &names) == 0 &&
        plan_conds(&rc, p, q->slot[AST_HAVING], true, &sb, &p->having, &p->n_having) == 0 &&
        plan_order(&rc, p, q, &sb, &names) == 0 && plan_numbers(&rc, p, q) == 0 &&
        plan_outfile(&rc, p, q) == 0 && plan_warnings(pc, p) == 0)
        rc_ = 0;
    p->ext = pc->ext;
    p->ext_offset = pc->ext_off;
    if (sb.oom)
        rc_ = parse_nomem(pc);
    sb_free(&sb);
    return rc_;
}
