/* parser/ast.c: constructors for the syntax tree, called by the grammar.
 *
 * Checks that need only the shape of the query live here (an operator that
 * does not fit its clause, a quoted operand of a numeric comparison, an
 * empty select); checks that need names and log formats live in plan.c. */
#include "parser/ast.h"

#include <string.h>

#include "query.h"

static ast_expr_t *node_new(parse_ctx_t *ctx, enum ast_kind kind)
{
    ast_expr_t *e = arena_alloc(ctx->arena, sizeof *e);
    if (!e) {
        parse_nomem(ctx);
        return NULL;
    }
    e->kind = kind;
    return e;
}

/* Points the node's text at z[off..off+len) in the split copy of the query,
 * where the driver has already overwritten the byte after every token with
 * a NUL: no copy is made. */
static int node_text(parse_ctx_t *ctx, ast_expr_t *e, uint32_t off, uint32_t len)
{
    e->text = ctx->split + off;
    e->text_len = len;
    return 0;
}

ast_list_t *ast_list(parse_ctx_t *ctx, ast_list_t *list, ast_expr_t *e)
{
    if (parse_failed(ctx))
        return NULL;
    if (!list) {
        list = arena_alloc(ctx->arena, sizeof *list);
        if (!list) {
            parse_nomem(ctx);
            return NULL;
        }
    }
    if (e) {
        e->next = NULL;
        if (list->tail)
            list->tail->next = e;
        else
            list->head = e;
        list->tail = e;
        list->n++;
    }
    return list;
}

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
         : (c | 0x20) >= 'a' && (c | 0x20) <= 'f' ? (c | 0x20) - 'a' + 10 : -1;
}

/* Decodes the escapes of the "string" whose opening quote is at z[q], in
 * its place in the split copy (the text only shrinks): \" \\ \t \n \xNN.
 * Any other backslash stays, with the byte after it, so that a regex's \d
 * or \. reads as it did in DTail, which had no escapes. */
static int decode_string(parse_ctx_t *ctx, ast_expr_t *e, uint32_t q)
{
    const char *src = ctx->z + q + 1;
    char *out = ctx->split + q + 1;
    uint32_t n = e->text_len, k = 0;
    for (uint32_t i = 0; i < n; i++) {
        char c = src[i];
        if (c != '\\' || i + 1 >= n) {
            out[k++] = c;
            continue;
        }
        uint32_t at = q + 1 + i;
        switch (src[i + 1]) {
        case '"': case '\\':
            out[k++] = src[++i];
            break;
        case 't':
            out[k++] = '\t';
            i++;
            break;
        case 'n':
            out[k++] = '\n';
            i++;
            break;
        case 'x': {
            int hi = i + 2 < n ? hex_digit(src[i + 2]) : -1;
            int lo = i + 3 < n ? hex_digit(src[i + 3]) : -1;
            if (hi < 0 || lo < 0)
                return parse_error(ctx, ERR_QUERY, at,
                                   "\\x needs two hex digits (\\x22 is a double quote)");
            if (hi == 0 && lo == 0)
                return parse_error(ctx, ERR_QUERY, at, "a string cannot hold a NUL byte (\\x00)");
            out[k++] = (char)(hi * 16 + lo);
            i += 3;
            break;
        }
        default:
            out[k++] = c;   /* the next byte is copied as it is */
            continue;
        }
    }
    out[k] = '\0';
    e->text_len = k;
    return 0;
}

ast_expr_t *ast_term(parse_ctx_t *ctx, const token_t *tok)
{
    if (parse_failed(ctx))
        return NULL;
    ast_expr_t *e;
    int rc;
    switch (tok->type) {
    case TK_STRING:
        e = node_new(ctx, AST_STRING);
        rc = e ? node_text(ctx, e, tok->off + 1, tok->len - 2) : -1;
        if (rc == 0)
            rc = decode_string(ctx, e, tok->off);
        break;
    case TK_BQUOTED:
        e = node_new(ctx, AST_FIELD);
        if (e)
            e->quote = '`';
        rc = e ? node_text(ctx, e, tok->off + 1, tok->len - 2) : -1;
        break;
    case TK_NUMBER:
        e = node_new(ctx, AST_NUMBER);
        rc = e ? node_text(ctx, e, tok->off, tok->len) : -1;
        break;
    default: /* TK_ID, or a fallback word such as `by` used as a name */
        e = node_new(ctx, AST_FIELD);
        rc = e ? node_text(ctx, e, tok->off, tok->len) : -1;
        break;
    }
    if (rc)
        return NULL;
    e->off = tok->off;
    e->len = tok->len;
    return e;
}

ast_expr_t *ast_call(parse_ctx_t *ctx, const token_t *name, ast_list_t *args,
                     const token_t *rp)
{
    if (parse_failed(ctx))
        return NULL;
    ast_expr_t *e = node_new(ctx, AST_CALL);
    if (!e || node_text(ctx, e, name->off, name->len))
        return NULL;
    e->off = name->off;
    e->len = rp->off + rp->len - name->off;
    e->args = args ? args : ast_list(ctx, NULL, NULL);
    return e->args ? e : NULL;
}

bool ast_op_is_numeric(int op)
{
    return op == TK_EQ || op == TK_NE || op == TK_LT || op == TK_LE ||
           op == TK_GT || op == TK_GE;
}

bool ast_op_is_string(int op)
{
    switch (op) {
    case TK_EQS: case TK_NES: case TK_CONTAINS: case TK_NCONTAINS:
    case TK_LACKS: case TK_HASPREFIX: case TK_NHASPREFIX:
    case TK_HASSUFFIX: case TK_NHASSUFFIX:
        return true;
    default:
        return false;
    }
}

/* A where condition: the operator must be a comparison or string operator,
 * and a numeric comparison cannot take a quoted string (DTail: "Expected
 * bareword at 'where' clause's lValue"). */
static void check_where_cond(parse_ctx_t *ctx, const ast_expr_t *c)
{
    if (ast_op_is_numeric(c->op)) {
        const ast_expr_t *s = c->lhs->kind == AST_STRING ? c->lhs
                            : c->rhs->kind == AST_STRING ? c->rhs : NULL;
        if (s)
            parse_error(ctx, ERR_QUERY, s->off,
                        "numeric comparison '%s' against the quoted string \"%s\"; "
                        "use eq/ne for strings, or drop the quotes for a number",
                        c->text, s->text);
        return;
    }
    if (ast_op_is_string(c->op))
        return;
    const char *hint = "";
    if (strcmp(c->text, "=") == 0)
        hint = "; did you mean ==?";
    else if (strcmp(c->text, "<>") == 0)
        hint = "; did you mean !=?";
    parse_error(ctx, ERR_QUERY, c->op_off,
                "unknown operator '%.*s' in where clause (expected == != < <= > >= "
                "eq ne contains ncontains lacks hasprefix nhasprefix hassuffix "
                "nhassuffix)%s", (int)c->text_len, ctx->z + c->op_off, hint);
}

/* A set assignment: `$var = rhs`. */
static void check_set_cond(parse_ctx_t *ctx, const ast_expr_t *c)
{
    const ast_expr_t *l = c->lhs;
    if (l->kind != AST_FIELD || l->quote || l->text[0] != '$' || l->text_len < 2) {
        parse_error(ctx, ERR_QUERY, l->off,
                    "set assigns to a $variable: '%.*s' is not one",
                    (int)l->len, ctx->z + l->off);
        return;
    }
    if (c->op != TK_ASSIGN)
        parse_error(ctx, ERR_QUERY, c->op_off,
                    "unknown operator '%.*s' in set clause; expected '='%s",
                    (int)c->text_len, ctx->z + c->op_off,
                    c->op == TK_EQ ? " (set assigns with a single =)" : "");
}

ast_expr_t *ast_cond(parse_ctx_t *ctx, ast_expr_t *lhs, const token_t *op,
                     ast_expr_t *rhs)
{
    if (parse_failed(ctx))
        return NULL;
    ast_expr_t *e = node_new(ctx, AST_COND);
    if (!e || node_text(ctx, e, op->off, op->len))
        return NULL;
    e->op = op->type;
    e->op_off = op->off;
    e->lhs = lhs;
    e->rhs = rhs;
    e->off = lhs->off;
    e->len = rhs->off + rhs->len - lhs->off;
    /* ctx->clause is still the clause this condition belongs to: the driver
     * updates it only after the next keyword has been fed. */
    if (ctx->clause == TK_WHERE)
        check_where_cond(ctx, e);
    else
        check_set_cond(ctx, e);
    return parse_failed(ctx) ? NULL : e;
}

enum ast_slot ast_slot_of(int kw)
{
    switch (kw) {
    case TK_SELECT: return AST_SELECT;
    case TK_FROM: return AST_FROM;
    case TK_WHERE: return AST_WHERE;
    case TK_SET: return AST_SET;
    case TK_GROUP: return AST_GROUP;
    case TK_ORDER: case TK_RORDER: return AST_ORDER;
    case TK_INTERVAL: return AST_INTERVAL;
    case TK_LIMIT: return AST_LIMIT;
    case TK_OUTFILE: return AST_OUTFILE;
    default: return AST_LOGFORMAT;
    }
}

/* Files the clause in its slot; a repeated clause replaces the earlier one
 * (DTail's rule), with a warning since that is rarely intended. */
static ast_clause_t *clause_new(parse_ctx_t *ctx, const token_t *kw)
{
    ast_clause_t *c = arena_alloc(ctx->arena, sizeof *c);
    if (!c) {
        parse_nomem(ctx);
        return NULL;
    }
    c->kw = kw->type;
    c->off = kw->off;
    c->kw_len = kw->len;
    enum ast_slot s = ast_slot_of(kw->type);
    ast_clause_t *old = ctx->ast->slot[s];
    if (old)
        parse_warn(ctx, kw->off, "%s replaces the earlier %s clause (the last one wins)",
                   query_token_name(kw->type), query_token_name(old->kw));
    ctx->ast->slot[s] = c;
    ctx->ast->n_clauses++;
    return c;
}

void ast_clause(parse_ctx_t *ctx, const token_t *kw, ast_list_t *list)
{
    if (parse_failed(ctx) || !list || !parse_clause_may_end(ctx))
        return;
    const char *name = query_token_name(kw->type);
    uint32_t after = ctx->prev_end;   /* just past the clause's last token */
    switch (kw->type) {
    case TK_SELECT:
        if (list->n == 0) {
            parse_error(ctx, ERR_QUERY, after,
                        "empty select: select needs at least one field or aggregate");
            return;
        }
        break;
    case TK_GROUP:
        if (list->n == 0) {
            parse_error(ctx, ERR_QUERY, after, "group by needs at least one field");
            return;
        }
        break;
    case TK_ORDER: case TK_RORDER:
        if (list->n == 0) {
            parse_error(ctx, ERR_QUERY, after, "%s by needs a selected field", name);
            return;
        }
        for (const ast_expr_t *e = list->head->next; e; e = e->next)
            parse_warn(ctx, e->off, "'%.*s' after %s by is ignored, as in DTail",
                       (int)e->len, ctx->z + e->off, name);
        break;
    case TK_SET:
        if (list->n == 0) {
            parse_error(ctx, ERR_QUERY, after,
                        "set needs at least one assignment ($var = value)");
            return;
        }
        break;
    default:
        break;
    }
    ast_clause_t *c = clause_new(ctx, kw);
    if (c)
        c->list = list;
}

void ast_clause_word(parse_ctx_t *ctx, const token_t *kw, const token_t *word)
{
    if (parse_failed(ctx) || !parse_clause_may_end(ctx))
        return;
    if (!word) {
        const char *what = kw->type == TK_FROM ? "table name"
                         : kw->type == TK_INTERVAL ? "number of seconds"
                         : kw->type == TK_LIMIT ? "number of rows"
                         : "log format name";
        parse_error(ctx, ERR_QUERY, kw->off + kw->len, "missing %s after %s",
                    what, query_token_name(kw->type));
        return;
    }
    ast_expr_t *w = ast_term(ctx, word);
    ast_clause_t *c = w ? clause_new(ctx, kw) : NULL;
    if (c)
        c->word = w;
}

void ast_outfile(parse_ctx_t *ctx, const token_t *kw, const token_t *append,
                 const token_t *path)
{
    if (parse_failed(ctx) || !parse_clause_may_end(ctx))
        return;
    if (!path) {
        const token_t *t = append ? append : kw;
        parse_error(ctx, ERR_QUERY, t->off + t->len, "missing file name after %s",
                    append ? "outfile append" : "outfile");
        return;
    }
    ast_expr_t *w = ast_term(ctx, path);
    ast_clause_t *c = w ? clause_new(ctx, kw) : NULL;
    if (c) {
        c->word = w;
        c->append = append != NULL;
    }
}

void ast_discard(parse_ctx_t *ctx, const void *node)
{
    (void)ctx;
    (void)node;
}
