/* parser/ast.c: constructors for the syntax tree, called by the grammar.
 *
 * Checks that need only the shape of the query live here (an operator that
 * does not fit its clause, a quoted operand of a numeric comparison, an
 * empty select); checks that need names and log formats live in plan.c. */
#include "parser/ast.h"

#include <string.h>
#include <strings.h>

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
        parse_note_ext(ctx, at, "a string escape");
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
    case TK_STAR: case TK_STARF:
        /* The field `*`. Its byte in the split copy may have been cut off
         * the word before it (a*): the text is the literal. */
        e = node_new(ctx, AST_FIELD);
        rc = e ? 0 : -1;
        if (e) {
            e->text = "*";
            e->text_len = 1;
        }
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

ast_expr_t *ast_call_path(parse_ctx_t *ctx, const token_t *name, ast_list_t *args,
                          const token_t *path)
{
    if (parse_failed(ctx))
        return NULL;
    if (name->len != 4 || strncasecmp(ctx->split + name->off, "json", 4) != 0) {
        parse_error(ctx, ERR_QUERY, path->off,
                    "a path such as .level only follows json(...): json($log).level");
        return NULL;
    }
    ast_expr_t *e = ast_call(ctx, name, args, path);
    if (!e)
        return NULL;
    e->path = ctx->split + path->off + 1;   /* NUL-terminated in the split copy */
    e->path_off = path->off;
    parse_note_ext(ctx, name->off, "json() paths");
    return e;
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
    case TK_HASSUFFIX: case TK_NHASSUFFIX: case TK_MATCHES: case TK_NMATCHES:
        return true;
    default:
        return false;
    }
}

int ast_arith_prec(int op)
{
    return op == TK_STAR || op == TK_SLASH ? 2 : 1;
}

static bool in_condition_clause(const parse_ctx_t *ctx)
{
    return ctx->clause == TK_WHERE || ctx->clause == TK_HAVING;
}

/* A where or having condition: the operator must be a comparison or string
 * operator, a numeric comparison cannot take a quoted string (DTail:
 * "Expected bareword at 'where' clause's lValue"), and matches takes a
 * "quoted" pattern. */
static void check_where_cond(parse_ctx_t *ctx, const ast_expr_t *c)
{
    const char *cl = query_token_name(ctx->clause);
    if (c->op == TK_MATCHES || c->op == TK_NMATCHES) {
        parse_note_ext(ctx, c->op_off, c->op == TK_MATCHES ? "matches" : "nmatches");
        if (c->rhs->kind != AST_STRING)
            parse_error(ctx, ERR_QUERY, c->rhs->off,
                        "%s takes a \"quoted\" regular expression, e.g. "
                        "$line %s \"GET /api/.*\"", c->text, c->text);
        return;
    }
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
                "unknown operator '%.*s' in %s clause (expected == != < <= > >= "
                "eq ne contains ncontains lacks hasprefix nhasprefix hassuffix "
                "nhassuffix matches nmatches in)%s", (int)c->text_len, ctx->z + c->op_off,
                cl, hint);
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

/* A node of kind for lhs, the operator op (TK_*) at op_off and what
 * follows, up to byte `end`; its text is the operator's word in the query. */
static ast_expr_t *op_node(parse_ctx_t *ctx, enum ast_kind kind, ast_expr_t *lhs, int op,
                           uint32_t op_off, uint32_t op_len, ast_expr_t *rhs, uint32_t end)
{
    ast_expr_t *e = node_new(ctx, kind);
    if (!e || (op_len && node_text(ctx, e, op_off, op_len)))
        return NULL;
    e->op = op;
    e->op_off = op_off;
    e->lhs = lhs;
    e->rhs = rhs;
    e->off = lhs->off;
    e->len = end - lhs->off;
    return e;
}

ast_expr_t *ast_cond(parse_ctx_t *ctx, ast_expr_t *lhs, const token_t *op,
                     ast_expr_t *rhs)
{
    if (parse_failed(ctx))
        return NULL;
    ast_expr_t *e = op_node(ctx, AST_COND, lhs, op->type, op->off, op->len, rhs,
                            rhs->off + rhs->len);
    if (!e)
        return NULL;
    /* ctx->clause is still the clause this condition belongs to: the driver
     * updates it only after the next keyword has been fed. */
    if (in_condition_clause(ctx))
        check_where_cond(ctx, e);
    else
        check_set_cond(ctx, e);
    return parse_failed(ctx) ? NULL : e;
}

ast_expr_t *ast_in(parse_ctx_t *ctx, ast_expr_t *lhs, const token_t *not_tok,
                   const token_t *in, ast_list_t *list, const token_t *rp)
{
    if (parse_failed(ctx))
        return NULL;
    const token_t *op = not_tok ? not_tok : in;
    if (!in_condition_clause(ctx)) {
        parse_error(ctx, ERR_QUERY, op->off,
                    "unknown operator '%s' in set clause; expected '='",
                    not_tok ? "not in" : "in");
        return NULL;
    }
    parse_note_ext(ctx, op->off, not_tok ? "not in" : "in");
    if (list->n == 0) {
        parse_error(ctx, ERR_QUERY, rp->off,
                    "empty list after %s: write %s (\"a\", \"b\")",
                    not_tok ? "not in" : "in", not_tok ? "not in" : "in");
        return NULL;
    }
    for (const ast_expr_t *v = list->head; v; v = v->next) {
        if (v->kind != AST_STRING && v->kind != AST_NUMBER) {
            parse_error(ctx, ERR_QUERY, v->off,
                        "the list of %s holds \"quoted\" strings and numbers; '%.*s' is "
                        "not one", not_tok ? "not in" : "in", (int)v->len, ctx->z + v->off);
            return NULL;
        }
    }
    ast_expr_t *e = op_node(ctx, AST_COND, lhs, TK_IN, op->off, 0, NULL, rp->off + rp->len);
    if (!e || node_text(ctx, e, in->off, in->len))
        return NULL;
    e->negated = not_tok != NULL;
    e->args = list;
    return e;
}

static uint32_t depth_of(const ast_expr_t *e)
{
    return e->kind == AST_ARITH || e->kind == AST_BOOL ? e->depth : 0;
}

/* Raises e's depth to d; -1 (reported) past AST_MAX_DEPTH. */
static int deepen_to(parse_ctx_t *ctx, ast_expr_t *e, uint32_t d)
{
    if (d > e->depth)
        e->depth = d;
    if (e->depth <= AST_MAX_DEPTH)
        return 0;
    return parse_error(ctx, ERR_QUERY, e->op_off,
                       "expression nested too deeply (more than %d operators inside each "
                       "other%s)", AST_MAX_DEPTH,
                       e->kind == AST_BOOL ? "; for many alternatives write x in (...)" : "");
}

/* e's depth for an operand. */
static int deepen(parse_ctx_t *ctx, ast_expr_t *e, const ast_expr_t *operand)
{
    return deepen_to(ctx, e, depth_of(operand) + 1);
}

ast_expr_t *ast_arith(parse_ctx_t *ctx, ast_expr_t *lhs, const token_t *op, ast_expr_t *rhs)
{
    if (parse_failed(ctx))
        return NULL;
    const ast_expr_t *s = lhs->kind == AST_STRING ? lhs : rhs->kind == AST_STRING ? rhs : NULL;
    if (s) {
        parse_error(ctx, ERR_QUERY, s->off,
                    "arithmetic '%s' on the quoted string \"%s\": it takes numbers, "
                    "fields and aggregates", query_token_name(op->type), s->text);
        return NULL;
    }
    parse_note_ext(ctx, op->off, "arithmetic");
    ast_expr_t *e = op_node(ctx, AST_ARITH, lhs, op->type, op->off, 0, rhs, rhs->off + rhs->len);
    if (!e || deepen(ctx, e, lhs) || deepen(ctx, e, rhs))
        return NULL;
    e->text = query_token_name(op->type);
    e->text_len = 1;
    return e;
}

/* Adds x to chain e (an and or or): x's own operands when it is the same
 * operator, so that a chain is one node. */
static int chain_add(parse_ctx_t *ctx, ast_expr_t *e, ast_expr_t *x, bool front)
{
    if (x->kind == AST_BOOL && x->op == e->op) {
        if (deepen_to(ctx, e, x->depth) < 0)   /* x's operands join e's */
            return -1;
        if (front) {
            x->args->tail->next = e->args->head;
            e->args->head = x->args->head;
            e->args->n += x->args->n;
        } else {
            e->args->tail->next = x->args->head;
            e->args->tail = x->args->tail;
            e->args->n += x->args->n;
        }
        return 0;
    }
    if (deepen(ctx, e, x) < 0)
        return -1;
    if (front) {
        x->next = e->args->head;
        e->args->head = x;
        e->args->n++;
        return 0;
    }
    return ast_list(ctx, e->args, x) ? 0 : -1;
}

ast_expr_t *ast_bool(parse_ctx_t *ctx, ast_expr_t *lhs, const token_t *op, ast_expr_t *rhs)
{
    if (parse_failed(ctx))
        return NULL;
    int kind = !op ? TK_AND : op->type;
    if (kind == TK_OR || kind == TK_NOT)
        parse_note_ext(ctx, op->off, query_token_name(kind));
    if (kind == TK_NOT) {
        ast_expr_t *e = op_node(ctx, AST_BOOL, lhs, kind, op->off, 0, NULL, lhs->off + lhs->len);
        if (!e || deepen(ctx, e, lhs) < 0)
            return NULL;
        e->len += e->off - op->off;   /* not lhs: it starts at the not */
        e->off = op->off;
        e->text = "not";
        e->text_len = 3;
        return e;
    }
    /* and is left-recursive (the chain so far is lhs), or right-recursive
     * (rhs); either way the chain grows in place. */
    ast_expr_t *e;
    if (lhs->kind == AST_BOOL && lhs->op == kind) {
        e = lhs;
        if (chain_add(ctx, e, rhs, false) < 0)
            return NULL;
    } else if (rhs->kind == AST_BOOL && rhs->op == kind) {
        e = rhs;
        if (chain_add(ctx, e, lhs, true) < 0)
            return NULL;
    } else {
        e = op_node(ctx, AST_BOOL, lhs, kind, op ? op->off : rhs->off, 0, NULL, 0);
        if (!e || !(e->args = ast_list(ctx, NULL, lhs)) || chain_add(ctx, e, rhs, false) < 0)
            return NULL;
        e->lhs = NULL;
        e->text = query_token_name(kind);
        e->text_len = (uint32_t)strlen(e->text);
    }
    const ast_expr_t *first = e->args->head, *last = e->args->tail;
    e->off = first->off;
    e->len = last->off + last->len - e->off;
    return e;
}

ast_expr_t *ast_paren(parse_ctx_t *ctx, const token_t *lp, ast_expr_t *e, const token_t *rp)
{
    if (parse_failed(ctx))
        return NULL;
    if (e->kind == AST_BOOL || e->kind == AST_COND)
        parse_note_ext(ctx, lp->off, "parentheses");
    e->off = lp->off;
    e->len = rp->off + rp->len - lp->off;
    return e;
}

enum ast_slot ast_slot_of(int kw)
{
    switch (kw) {
    case TK_SELECT: return AST_SELECT;
    case TK_FROM: return AST_FROM;
    case TK_WHERE: return AST_WHERE;
    case TK_SET: return AST_SET;
    case TK_GROUP: return AST_GROUP;
    case TK_HAVING: return AST_HAVING;
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


void ast_where(parse_ctx_t *ctx, const token_t *kw, ast_expr_t *cond)
{
    if (parse_failed(ctx) || !parse_clause_may_end(ctx))
        return;
    if (kw->type == TK_HAVING) {
        parse_note_ext(ctx, kw->off, "having");
        if (!cond) {
            parse_error(ctx, ERR_QUERY, kw->off + kw->len,
                        "having needs a condition on the groups, e.g. having count($line) > 10");
            return;
        }
    }
    /* The conditions joined by and at the top are the clause's list. */
    ast_list_t *list = cond && cond->kind == AST_BOOL && cond->op == TK_AND
                           ? cond->args : ast_list(ctx, ast_list(ctx, NULL, NULL), cond);
    ast_clause_t *c = list ? clause_new(ctx, kw) : NULL;
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

void ast_logformat(parse_ctx_t *ctx, const token_t *kw, const token_t *name, ast_list_t *opts)
{
    if (parse_failed(ctx) || !opts || !parse_clause_may_end(ctx))
        return;
    ast_clause_word(ctx, kw, name);
    ast_clause_t *c = ctx->ast->slot[AST_LOGFORMAT];
    if (parse_failed(ctx) || !c)
        return;
    c->opts = opts;
    if (opts->n)
        parse_note_ext(ctx, opts->head->off, "logformat options");
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
