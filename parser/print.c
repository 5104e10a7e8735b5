/* parser/print.c: the canonical printer and the plan explainer. */
#include "parser/print.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "query.h"

void sb_init(strbuf_t *sb)
{
    sb->p = NULL;
    sb->len = sb->cap = 0;
    sb->oom = false;
}

static bool sb_reserve(strbuf_t *sb, size_t extra)
{
    if (sb->oom)
        return false;
    if (GROW_ARRAY(sb->p, sb->cap, sb->len + extra + 1, 256) < 0) {
        sb->oom = true;
        return false;
    }
    return true;
}

void sb_put(strbuf_t *sb, const char *s, size_t n)
{
    if (!sb_reserve(sb, n))
        return;
    memcpy(sb->p + sb->len, s, n);
    sb->len += n;
    sb->p[sb->len] = '\0';
}

void sb_puts(strbuf_t *sb, const char *s)
{
    sb_put(sb, s, strlen(s));
}

void sb_printf(strbuf_t *sb, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        sb_put(sb, small, (size_t)n);
        return;
    }
    if (!sb_reserve(sb, (size_t)n))
        return;
    va_start(ap, fmt);
    vsnprintf(sb->p + sb->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
}

void sb_free(strbuf_t *sb)
{
    free(sb->p);
    sb_init(sb);
}

char *sb_to_arena(const strbuf_t *sb, arena_t *a)
{
    if (sb->oom)
        return NULL;
    return arena_strndup(a, sb->p ? sb->p : "", sb->len);
}

/* ------------------------------------------------------------- printer */

/* A string's text between its quotes, escaped so that it reads back the
 * same: \" and the control bytes always, a backslash only where it would
 * start an escape (so a regex's \d stays \d). */
static void print_string(strbuf_t *sb, const char *s, size_t n)
{
    sb_put(sb, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        unsigned char next = i + 1 < n ? (unsigned char)s[i + 1] : 0;
        /* A backslash before what prints as an escape, or a byte that
         * would make one with it, is escaped itself. */
        bool escape_next = !next || strchr("\"\\tnx", next) || next < 0x20 || next == 0x7f;
        if (c == '"')
            sb_put(sb, "\\\"", 2);
        else if (c == '\\' && escape_next)
            sb_put(sb, "\\\\", 2);
        else if (c == '\t')
            sb_put(sb, "\\t", 2);
        else if (c == '\n')
            sb_put(sb, "\\n", 2);
        else if (c < 0x20 || c == 0x7f)
            sb_printf(sb, "\\x%02x", c);
        else
            sb_put(sb, s + i, 1);
    }
    sb_put(sb, "\"", 1);
}

/* Binding strength of a condition: or 1, and 2, anything else 3. */
static int cond_prec(const ast_expr_t *e)
{
    if (e->kind != AST_BOOL)
        return 3;
    return e->op == TK_OR ? 1 : e->op == TK_AND ? 2 : 3;
}

/* e in parentheses when it binds less than `need` (or as much, on the
 * right of a left-associative operator), so the tree reads back as it is. */
static void print_operand(strbuf_t *sb, const ast_expr_t *e, bool compact, int prec, int need)
{
    if (prec < need) {
        sb_put(sb, "(", 1);
        print_expr(sb, e, compact);
        sb_put(sb, ")", 1);
    } else {
        print_expr(sb, e, compact);
    }
}

static int arith_prec_of(const ast_expr_t *e)
{
    return e->kind == AST_ARITH ? ast_arith_prec(e->op) : 3;
}

void print_expr(strbuf_t *sb, const ast_expr_t *e, bool compact)
{
    switch (e->kind) {
    case AST_FIELD:
        if (e->quote)
            sb_put(sb, "`", 1);
        sb_put(sb, e->text, e->text_len);
        if (e->quote)
            sb_put(sb, "`", 1);
        break;
    case AST_STRING:
        print_string(sb, e->text, e->text_len);
        break;
    case AST_NUMBER:
        sb_put(sb, e->text, e->text_len);
        break;
    case AST_CALL:
        sb_put(sb, e->text, e->text_len);
        sb_put(sb, "(", 1);
        for (const ast_expr_t *a = e->args->head; a; a = a->next) {
            if (a != e->args->head)
                sb_puts(sb, compact ? "," : ", ");
            print_expr(sb, a, compact);
        }
        sb_put(sb, ")", 1);
        if (e->path) {
            sb_put(sb, ".", 1);
            sb_puts(sb, e->path);
        }
        break;
    case AST_ARITH: {
        int p = ast_arith_prec(e->op);
        print_operand(sb, e->lhs, compact, arith_prec_of(e->lhs), p);
        sb_puts(sb, compact ? "" : " ");
        sb_puts(sb, query_token_name(e->op));
        sb_puts(sb, compact ? "" : " ");
        print_operand(sb, e->rhs, compact, arith_prec_of(e->rhs), p + 1);
        break;
    }
    case AST_BOOL: {
        int p = cond_prec(e);
        if (e->op == TK_NOT) {
            sb_puts(sb, "not ");
            print_operand(sb, e->lhs, compact, cond_prec(e->lhs), 3);
            break;
        }
        /* A chain of and or or (one node): an or inside an and needs its
         * parentheses, nothing else does. */
        for (const ast_expr_t *a = e->args->head; a; a = a->next) {
            if (a != e->args->head)
                sb_puts(sb, e->op == TK_OR ? " or " : " and ");
            print_operand(sb, a, compact, cond_prec(a), p);
        }
        break;
    }
    case AST_COND:
        print_expr(sb, e->lhs, compact);
        sb_put(sb, " ", 1);
        if (e->op == TK_IN) {
            sb_puts(sb, e->negated ? "not in (" : "in (");
            for (const ast_expr_t *a = e->args->head; a; a = a->next) {
                if (a != e->args->head)
                    sb_puts(sb, ", ");
                print_expr(sb, a, compact);
            }
            sb_put(sb, ")", 1);
            break;
        }
        sb_puts(sb, query_token_name(e->op));
        sb_put(sb, " ", 1);
        print_expr(sb, e->rhs, compact);
        break;
    }
}

void print_column_name(strbuf_t *sb, const ast_expr_t *e)
{
    if (e->kind == AST_CALL || e->kind == AST_ARITH)
        print_expr(sb, e, true);
    else
        sb_put(sb, e->text, e->text_len);
}

static void print_list(strbuf_t *sb, const ast_list_t *l, const char *sep)
{
    for (const ast_expr_t *e = l->head; e; e = e->next) {
        if (e != l->head)
            sb_puts(sb, sep);
        print_expr(sb, e, false);
    }
}

void ast_print(strbuf_t *sb, const ast_query_t *q)
{
    bool first = true;
    for (int s = 0; s < AST_NSLOT; s++) {
        const ast_clause_t *c = q->slot[s];
        if (!c || (s == AST_WHERE && c->list->n == 0))
            continue;
        if (!first)
            sb_put(sb, " ", 1);
        first = false;
        switch (s) {
        case AST_SELECT:
            sb_puts(sb, "select ");
            print_list(sb, c->list, ", ");
            break;
        case AST_WHERE: case AST_HAVING:
            sb_puts(sb, s == AST_WHERE ? "where " : "having ");
            for (const ast_expr_t *e = c->list->head; e; e = e->next) {
                if (e != c->list->head)
                    sb_puts(sb, " and ");
                /* One of several conditions joined by and: an or in it
                 * needs its parentheses. */
                print_operand(sb, e, false, cond_prec(e), c->list->n > 1 ? 2 : 1);
            }
            break;
        case AST_SET:
            sb_puts(sb, "set ");
            print_list(sb, c->list, ", ");
            break;
        case AST_GROUP:
            sb_puts(sb, "group by ");
            print_list(sb, c->list, ", ");
            break;
        case AST_ORDER:
            /* Words after the field are ignored (as DTail does): drop them. */
            sb_puts(sb, c->kw == TK_RORDER ? "rorder by " : "order by ");
            print_expr(sb, c->list->head, false);
            break;
        case AST_OUTFILE:
            sb_puts(sb, c->append ? "outfile append " : "outfile ");
            print_expr(sb, c->word, false);
            break;
        default:
            sb_puts(sb, query_token_name(c->kw));
            sb_put(sb, " ", 1);
            print_expr(sb, c->word, false);
            for (const ast_expr_t *o = c->opts ? c->opts->head : NULL; o; o = o->next) {
                sb_put(sb, " ", 1);
                print_expr(sb, o, false);
            }
            break;
        }
    }
}

/* ------------------------------------------------------------ explain */

static const char *src_name(enum plan_field_src s)
{
    switch (s) {
    case PLAN_SRC_COMMON: return "common";
    case PLAN_SRC_FORMAT: return "format";
    case PLAN_SRC_DYNAMIC: return "dynamic";
    default: return "set";
    }
}

static void explain_value(strbuf_t *sb, const plan_value_t *v)
{
    switch (v->kind) {
    case PLAN_V_FIELD:
        sb_printf(sb, "field[%s", src_name(v->src));
        if (v->src == PLAN_SRC_SET)
            sb_printf(sb, " #%d", v->set_index);
        if (v->or_literal)
            sb_puts(sb, " or-literal");
        sb_puts(sb, "](");
        sb_put(sb, v->text, v->len);
        sb_puts(sb, ")");
        break;
    case PLAN_V_STRING:
        sb_puts(sb, "string(\"");
        sb_put(sb, v->text, v->len);
        sb_puts(sb, "\")");
        break;
    case PLAN_V_NUMBER:
        sb_printf(sb, "number(%.17g)", v->number);
        break;
    case PLAN_V_ITEM:
        sb_printf(sb, "item#%d", v->item);
        break;
    case PLAN_V_ARITH:
        sb_printf(sb, "(");
        explain_value(sb, v->args[0]);
        sb_printf(sb, " %c ", v->arith);
        explain_value(sb, v->args[1]);
        sb_puts(sb, ")");
        break;
    case PLAN_V_CALL:
        sb_puts(sb, plan_func_name(v->func));
        if (v->func == PLAN_FN_BUCKET)
            sb_printf(sb, "[%llds]", (long long)v->bucket_seconds);
        if (v->func == PLAN_FN_REGEX)
            sb_printf(sb, "[group %d]", v->regex_group);
        sb_puts(sb, "(");
        for (size_t i = 0; i < v->nargs; i++) {
            if (i)
                sb_puts(sb, ", ");
            explain_value(sb, v->args[i]);
        }
        sb_puts(sb, ")");
        break;
    }
}

static void explain_cond(strbuf_t *sb, const plan_cond_t *c)
{
    if (c->n_kids) {
        sb_printf(sb, "%s(", plan_op_name(c->op));
        for (size_t i = 0; i < c->n_kids; i++) {
            if (i)
                sb_puts(sb, ", ");
            explain_cond(sb, c->kids[i]);
        }
        sb_puts(sb, ")");
        return;
    }
    explain_value(sb, c->lhs);
    sb_printf(sb, " %s%s ", plan_op_name(c->op), c->numeric ? "(numeric)" : "");
    if (c->op == PLAN_OP_IN || c->op == PLAN_OP_NOT_IN) {
        sb_puts(sb, "[");
        for (size_t i = 0; i < c->n_list; i++) {
            if (i)
                sb_puts(sb, ", ");
            explain_value(sb, c->list[i]);
        }
        sb_puts(sb, "]");
        return;
    }
    explain_value(sb, c->rhs);
}

void plan_explain(strbuf_t *sb, const plan_t *p)
{
    for (size_t i = 0; i < p->n_select; i++) {
        const plan_select_t *s = &p->select[i];
        sb_printf(sb, "select %zu: %s", i, plan_agg_name(s->agg));
        if (s->agg == PLAN_AGG_QUANTILE)
            sb_printf(sb, "[%.17g]", s->quantile);
        if (s->agg == PLAN_AGG_TOP)
            sb_printf(sb, "[%u]", s->top_k);
        sb_puts(sb, " ");
        explain_value(sb, s->value);
        sb_printf(sb, " as \"%s\"%s%s\n", s->name, s->group_key ? " group-key" : "",
                  i >= p->n_columns ? " hidden" : "");
    }
    sb_printf(sb, "from: %s\n", p->table ? p->table : "(none)");
    sb_printf(sb, "logformat: %s%s\n", p->logformat->name,
              p->logformat_given ? "" : " (implied)");
    if (p->lf_delimiter)
        sb_printf(sb, "  delimiter: 0x%02x\n", (unsigned char)p->lf_delimiter);
    if (p->lf_pattern)
        sb_printf(sb, "  pattern: %s\n", p->lf_pattern);
    if (p->lf_timeformat)
        sb_printf(sb, "  timeformat: %s\n", p->lf_timeformat);
    if (p->lf_multiline)
        sb_printf(sb, "  multiline: %s\n", p->lf_multiline);
    for (size_t i = 0; i < p->n_where; i++) {
        sb_printf(sb, "where %zu: ", i);
        explain_cond(sb, &p->where[i]);
        sb_puts(sb, "\n");
    }
    for (size_t i = 0; i < p->n_set; i++) {
        sb_printf(sb, "set %zu: %s = ", i, p->set[i].var);
        explain_value(sb, p->set[i].rhs);
        sb_puts(sb, "\n");
    }
    for (size_t i = 0; i < p->n_group_by; i++) {
        sb_printf(sb, "group %zu: ", i);
        explain_value(sb, p->group_by[i]);
        sb_printf(sb, " as \"%s\"\n", p->group_names[i]);
    }
    for (size_t i = 0; i < p->n_having; i++) {
        sb_printf(sb, "having %zu: ", i);
        explain_cond(sb, &p->having[i]);
        sb_puts(sb, "\n");
    }
    if (p->order_index >= 0)
        sb_printf(sb, "order: column %d %s\n", p->order_index,
                  p->order_ascending ? "ascending" : "descending");
    sb_printf(sb, "limit: %lld%s\n", p->limit, p->limit_given ? "" : " (default)");
    sb_printf(sb, "interval: %d%s\n", p->interval, p->interval_given ? "" : " (default)");
    if (p->outfile)
        sb_printf(sb, "outfile: %s %s%s\n", p->outfile,
                  p->outfile_format == PLAN_OUT_SQLITE ? "sqlite" : "csv",
                  p->outfile_append ? " append" : "");
}
