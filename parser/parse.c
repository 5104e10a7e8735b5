/* parser/parse.c: the driver. Feeds tokens to the Lemon parser, stops at
 * the first error, then runs the planner and the canonical printer.
 *
 * Like sqlite3RunParser: the tokenizer is called here one token at a time,
 * separators are skipped, and the end of input is fed explicitly (token 0),
 * so the grammar sees every clause end. The parser engine itself is placed
 * in the query's arena, so an abandoned parse frees with everything else. */
#include "parser/parser.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser/parse_int.h"
#include "parser/plan_int.h"
#include "parser/print.h"
#include "parser/resolve.h"
#include "query.h"

struct query {
    arena_t arena;           /* owns everything below */
    const char *text;        /* NUL-terminated copy of the query */
    size_t len;              /* bytes in text */
    ast_query_t *ast;        /* syntax tree */
    plan_t plan;             /* logical plan */
    const char *canonical;   /* ast_print() output */
    const char *explain;     /* plan_explain() output, made on demand */
};

/* ------------------------------------------------------------- errors */

int parse_error(parse_ctx_t *ctx, enum err_code code, uint32_t off, const char *fmt, ...)
{
    if (ctx->err->code != ERR_NONE)
        return -1;               /* the first error wins */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ctx->err->msg, sizeof ctx->err->msg, fmt, ap);
    va_end(ap);
    ctx->err->code = code;
    ctx->err->offset = off;
    return -1;
}

int parse_nomem(parse_ctx_t *ctx)
{
    return parse_error(ctx, ERR_NOMEM, 0, "out of memory while parsing the query");
}

void parse_warn(parse_ctx_t *ctx, uint32_t off, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    parse_warn_t *w = arena_alloc(ctx->arena, sizeof *w);
    char *msg = w ? arena_strndup(ctx->arena, buf, strlen(buf)) : NULL;
    if (!msg) {
        parse_nomem(ctx);
        return;
    }
    w->off = off;
    w->msg = msg;
    if (ctx->warn_tail)
        ctx->warn_tail->next = w;
    else
        ctx->warn_head = w;
    ctx->warn_tail = w;
    ctx->n_warn++;
}

static bool is_clause_keyword(int type)
{
    return type >= TK_SELECT && type <= TK_HAVING;
}

void parse_note_ext(parse_ctx_t *ctx, uint32_t off, const char *what)
{
    if (!ctx->ext || off < ctx->ext_off) {   /* the first in the text */
        ctx->ext = what;
        ctx->ext_off = off;
    }
}

bool parse_clause_may_end(const parse_ctx_t *ctx)
{
    return ctx->lookahead == 0 || is_clause_keyword(ctx->lookahead);
}

/* Offset of the innermost '(' still open before `end`, or -1. Only used on
 * the error path, so it simply re-reads the text. */
static long open_paren_before(const parse_ctx_t *ctx, size_t end)
{
    long stack[64];
    size_t depth = 0;
    for (size_t i = 0; i < end;) {
        int type;
        size_t l = query_token(ctx->z, ctx->n, i, QUERY_TOKEN_EXPR, &type);
        if (type == TK_LP) {
            if (depth < 64)
                stack[depth] = (long)i;
            depth++;
        } else if (type == TK_RP && depth > 0) {
            depth--;
        }
        i += l;
    }
    if (depth == 0)
        return -1;
    return depth <= 64 ? stack[depth - 1] : stack[63];
}

/* What a token the grammar did not expect after the previous one most
 * likely means, for the words of the extensions; 1 when reported. */
static int extension_hint(parse_ctx_t *ctx, int major, const token_t *tok)
{
    int prev = ctx->prev_type;
    bool value = major == TK_ID || major == TK_NUMBER || major == TK_STRING ||
                 major == TK_BQUOTED || major == TK_STAR || major == TK_STARF;
    if (prev == TK_IN && major != TK_LP && major != TK_LPS) {
        parse_error(ctx, ERR_QUERY, tok->off, "in takes a list in parentheses: x in (\"a\", \"b\")");
        return 1;
    }
    if (prev == TK_NOT && value) {   /* a value, not, a value */
        parse_error(ctx, ERR_QUERY, ctx->prev_off,
                    "'not' between two values must be 'not in (...)'; to negate a condition, "
                    "write not before it: not a eq \"x\"");
        return 1;
    }
    if (prev == TK_NOT) {
        parse_error(ctx, ERR_QUERY, tok->off, "incomplete %s condition: not needs a condition "
                    "after it", ctx->clause ? query_token_name(ctx->clause) : "where");
        return 1;
    }
    if (prev == TK_PLUS || prev == TK_MINUS || prev == TK_STAR || prev == TK_SLASH) {
        parse_error(ctx, ERR_QUERY, ctx->prev_off, "incomplete arithmetic: '%s' needs a value "
                    "after it", query_token_name(prev));
        return 1;
    }
    return 0;
}

/* The %syntax_error hook: explain the unexpected token in terms of the
 * clause being read. */
void parse_syntax_error(parse_ctx_t *ctx, int major, const token_t *tok)
{
    const char *txt = ctx->z + tok->off;
    int tl = tok->len > 60 ? 60 : (int)tok->len;
    const char *cl = ctx->clause ? query_token_name(ctx->clause) : NULL;
    if (extension_hint(ctx, major, tok))
        return;

    if (major == 0 || major == TK_RP || is_clause_keyword(major)) {
        long lp = open_paren_before(ctx, tok->off);
        if (lp >= 0 && major != TK_RP) {
            parse_error(ctx, ERR_QUERY, (uint32_t)lp, "unclosed '(' (missing ')' before %s)",
                        major == 0 ? "the end of the query" : query_token_name(major));
            return;
        }
        if (major == TK_RP) {
            parse_error(ctx, ERR_QUERY, tok->off, "%s ')'",
                        lp >= 0 ? "unexpected" : "unmatched");
            return;
        }
        if (ctx->clause == TK_WHERE || ctx->clause == TK_SET) {
            parse_error(ctx, ERR_QUERY, tok->off,
                        "incomplete %s %s before %s (expected %s)", cl,
                        ctx->clause == TK_WHERE ? "condition" : "assignment",
                        major == 0 ? "the end of the query" : query_token_name(major),
                        ctx->clause == TK_WHERE ? "field operator value" : "$var = value");
            return;
        }
        parse_error(ctx, ERR_QUERY, tok->off, "unexpected %s%s%s",
                    major == 0 ? "end of query" : query_token_name(major),
                    cl ? " in " : "", cl ? cl : "");
        return;
    }
    if (major == TK_LP || major == TK_LPS) {
        parse_error(ctx, ERR_QUERY, tok->off,
                    "unexpected '(': a call is written name(arguments)");
        return;
    }
    /* A word where a clause keyword must come: at the start, or after a
     * clause that takes exactly one word. */
    if (ctx->clause == 0 || ctx->clause == TK_FROM || ctx->clause == TK_INTERVAL ||
        ctx->clause == TK_LIMIT || ctx->clause == TK_LOGFORMAT ||
        ctx->clause == TK_OUTFILE) {
        char word[64];
        snprintf(word, sizeof word, "%.*s", tl, txt);
        for (char *s = word; *s; s++)
            if (*s >= 'A' && *s <= 'Z')
                *s = (char)(*s + 32);
        const char *hint = resolve_suggest(word, query_clause_words);
        char extra[128] = "";
        if (!ctx->clause && !hint)
            snprintf(extra, sizeof extra, " (a query is a list of clauses: select, from, "
                     "where, set, group by, order by, limit, ...)");
        else if (ctx->clause)
            snprintf(extra, sizeof extra, " (%s takes a single %s)", cl,
                     ctx->clause == TK_FROM ? "table name"
                     : ctx->clause == TK_OUTFILE ? "file name; quote names with spaces"
                     : ctx->clause == TK_LOGFORMAT ? "format name" : "number");
        parse_error(ctx, ERR_QUERY, tok->off, "unknown clause word '%.*s'%s%s%s%s", tl, txt,
                    hint ? "; did you mean " : "", hint ? hint : "", hint ? "?" : "",
                    extra);
        return;
    }
    /* In a list clause a misspelt keyword reads as one more item, and the
     * trouble only shows a few tokens later: point at the misspelling. */
    const char *kw = NULL;
    uint32_t kw_off = 0, kw_len = 0;
    for (size_t i = ctx->clause_off; i < tok->off;) {
        int type;
        size_t l = query_token(ctx->z, ctx->n, i, query_token_flags(ctx->clause), &type);
        if (type == TK_ID && l < 16) {
            char word[16];
            for (size_t k = 0; k < l; k++) {
                char c = ctx->z[i + k];
                word[k] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
            }
            word[l] = '\0';
            const char *s = resolve_suggest(word, query_clause_words);
            if (s) {
                kw = s;
                kw_off = (uint32_t)i;
                kw_len = (uint32_t)l;
            }
        }
        i += l;
    }
    if (kw) {
        parse_error(ctx, ERR_QUERY, kw_off,
                    "unknown clause word '%.*s'; did you mean %s? ('%.*s' cannot follow "
                    "a %s item)", (int)kw_len, ctx->z + kw_off, kw, tl, txt, cl);
        return;
    }
    parse_error(ctx, ERR_QUERY, tok->off, "unexpected '%.*s' in %s clause", tl, txt,
                cl ? cl : "the");
}

void parse_stack_overflow(parse_ctx_t *ctx)
{
    parse_error(ctx, ERR_QUERY, ctx->last_off, "query nested too deeply");
}

static void illegal_token(parse_ctx_t *ctx, size_t i, size_t l)
{
    char c = ctx->z[i];
    if (c == '"')
        parse_error(ctx, ERR_QUERY, (uint32_t)i, "unterminated string: missing closing \"");
    else if (c == '`' && l == 2)
        parse_error(ctx, ERR_QUERY, (uint32_t)i, "empty `` name");
    else if (c == '`')
        parse_error(ctx, ERR_QUERY, (uint32_t)i, "unterminated `name`: missing closing `");
    else
        parse_error(ctx, ERR_QUERY, (uint32_t)i, "NUL byte in query");
}

/* ------------------------------------------------------------- driver */

static void run_parser(parse_ctx_t *ctx, void *engine)
{
    const char *z = ctx->z;
    size_t n = ctx->n;
    bool comma = false;   /* a comma since the last token */
    for (size_t i = 0; i < n;) {
        int type;
        size_t l = query_token(z, n, i, query_token_flags(ctx->clause), &type);
        if (type == TK_SPACE) {
            comma |= memchr(z + i, ',', l) != NULL;
            i += l;
            continue;
        }
        /* After a comma an item ends: `a, (b)` is two items, not the call
         * a(b), and `a, * 2` two, not a product (the canonical form writes
         * items with ", ", so it reads back as it was). */
        int fed = type;
        if (comma && type == TK_LP)
            fed = TK_LPS;
        else if (comma && type == TK_STAR)
            fed = TK_STARF;
        comma = false;
        if (type == TK_ILLEGAL) {
            illegal_token(ctx, i, l);
            return;
        }
        /* Terminate the token's text in the split copy: the byte after a
         * word is a separator, quote, parenthesis or operator (or the end);
         * the last byte of a string or `name` is its closing quote. No text
         * is read of operators and clause keywords: a keyword can end at a
         * byte that starts the next word (`from/x`: / ends a word where
         * `from` is read, and is part of one in the from clause). */
        if (type == TK_STRING || type == TK_BQUOTED)
            ctx->split[i + l - 1] = '\0';
        else if (type != TK_LP && type != TK_RP && type != TK_PLUS && type != TK_MINUS &&
                 type != TK_STAR && type != TK_SLASH && !is_clause_keyword(type) && i + l < n)
            ctx->split[i + l] = '\0';
        token_t t = { fed, (uint32_t)i, (uint32_t)l };
        ctx->last_off = t.off;
        ctx->lookahead = fed;
        QueryParse(engine, fed, t);
        if (parse_failed(ctx))
            return;
        /* Updated after the keyword is fed: reductions of the previous
         * clause triggered by this keyword still see their own clause. */
        if (is_clause_keyword(type)) {
            ctx->clause = type;
            ctx->clause_off = t.off;
        }
        ctx->prev_end = t.off + t.len;
        ctx->prev_type = type;
        ctx->prev_off = t.off;
        i += l;
    }
    token_t end = { 0, (uint32_t)n, 0 };
    ctx->lookahead = 0;
    QueryParse(engine, 0, end);
}

int query_parse(const char *text, size_t len, const query_opts_t *opts,
                query_t **out, err_t *err)
{
    err_clear(err);
    *out = NULL;
    if (len >= UINT32_MAX / 2)
        return err_set_at(err, ERR_QUERY, 0, "query too long (%zu bytes)", len);

    arena_t arena;
    /* A query needs about 16 bytes of tree and plan per byte of text. One
     * block of that size: a big query then costs one allocation, and glibc
     * (which raises its mmap and trim thresholds when such a block is freed)
     * keeps the memory for the next query instead of faulting in fresh pages
     * each time, which matters to the REPL. */
    size_t block = len < 512 ? 8192 : len * 16;
    arena_init(&arena, block < 4u << 20 ? block : 4u << 20);
    query_t *q = arena_alloc(&arena, sizeof *q);
    char *copy = q ? arena_strndup(&arena, text, len) : NULL;
    char *split = copy ? arena_strndup(&arena, text, len) : NULL;
    ast_query_t *ast = split ? arena_alloc(&arena, sizeof *ast) : NULL;
    void *engine = ast ? arena_alloc(&arena, QueryParseSize()) : NULL;
    if (!engine) {
        arena_free(&arena);
        return err_set(err, ERR_NOMEM, "out of memory while parsing the query");
    }
    q->text = copy;
    q->len = len;
    q->ast = ast;

    parse_ctx_t ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.z = copy;
    ctx.split = split;
    ctx.n = len;
    ctx.arena = &arena;
    ctx.err = err;
    ctx.ast = ast;

    size_t first = strspn(copy, " \t\r\n\v\f,");
    const char *nul = memchr(copy, '\0', len);
    if (nul) {
        /* Never valid, and it would cut the C strings of the AST short. */
        parse_error(&ctx, ERR_QUERY, (uint32_t)(nul - copy), "NUL byte in query");
    } else if (first >= len) {
        parse_error(&ctx, ERR_QUERY, 0, "empty query (e.g. select count($line) from STATS)");
    } else {
        QueryParseInit(engine, &ctx);
        run_parser(&ctx, engine);
        QueryParseFinalize(engine);
    }
    if (!parse_failed(&ctx))
        plan_build(&ctx, ast, opts ? opts->default_logformat : NULL, &q->plan);
    if (!parse_failed(&ctx)) {
        strbuf_t sb;
        sb_init(&sb);
        ast_print(&sb, ast);
        q->canonical = sb_to_arena(&sb, &arena);
        sb_free(&sb);
        if (!q->canonical)
            parse_nomem(&ctx);
    }
    if (parse_failed(&ctx)) {
        arena_free(&arena);
        return -1;
    }
    q->arena = arena;   /* from here on the arena is reached through q */
    *out = q;
    return 0;
}

int query_check_dtail_dialect(const plan_t *plan, const char *why, err_t *err)
{
    if (!plan->ext)
        return 0;
    return err_set_at(err, ERR_QUERY, plan->ext_offset,
                      "the query uses %s, which DTail's own query language does not have: %s",
                      plan->ext, why);
}

bool query_looks_like(const char *text)
{
    size_t n = strlen(text), i = strspn(text, " \t\r\n\v\f,");
    int type;
    if (i >= n)
        return false;
    size_t l = query_token(text, n, i, 0, &type);
    if (type != TK_ID && !is_clause_keyword(type))
        return false;
    if (i + l >= n || strspn(text + i + l, " \t\r\n\v\f,(") == 0)
        return false;   /* one word: a file name */
    if (is_clause_keyword(type))
        return true;
    char word[16];
    if (l >= sizeof word)
        return false;
    for (size_t k = 0; k < l; k++) {
        char c = text[i + k];
        word[k] = (c >= 'A' && c <= 'Z') ? (char)(c + 32) : c;
    }
    word[l] = '\0';
    return resolve_suggest(word, query_clause_words) != NULL;
}

void query_free(query_t *q)
{
    if (!q)
        return;
    arena_t a = q->arena;   /* q itself lives in the arena */
    arena_free(&a);
}

const plan_t *query_plan(const query_t *q) { return &q->plan; }
const ast_query_t *query_ast(const query_t *q) { return q->ast; }
const char *query_text(const query_t *q) { return q->text; }
const char *query_canonical(const query_t *q) { return q->canonical; }

const char *query_explain(query_t *q)
{
    if (!q->explain) {
        strbuf_t sb;
        sb_init(&sb);
        plan_explain(&sb, &q->plan);
        q->explain = sb_to_arena(&sb, &q->arena);
        sb_free(&sb);
    }
    return q->explain;
}

/* ----------------------------------------------------- error formatting */

size_t query_error_format(const char *text, size_t len, const err_t *err,
                          char *buf, size_t cap)
{
    strbuf_t sb;
    sb_init(&sb);
    sb_puts(&sb, err->msg);
    if (err->offset >= 0 && text) {
        size_t o = (size_t)err->offset > len ? len : (size_t)err->offset;
        sb_printf(&sb, " (at byte %ld)\n", err->offset);
        size_t ls = o, le = o;
        while (ls > 0 && text[ls - 1] != '\n')
            ls--;
        while (le < len && text[le] != '\n')
            le++;
        /* Long lines: a window of about 150 bytes around the offset. */
        size_t ws = ls, we = le;
        if (le - ls > 150) {
            ws = o > ls + 60 ? o - 60 : ls;
            we = ws + 150 < le ? ws + 150 : le;
            while (ws > ls && ((unsigned char)text[ws] & 0xC0) == 0x80)
                ws--;   /* do not start inside a UTF-8 character */
        }
        if (ws > ls)
            sb_puts(&sb, "...");
        for (size_t i = ws; i < we; i++) {
            unsigned char c = (unsigned char)text[i];
            char d = (c < 0x20 && c != '\t') || c == 0x7f ? '?' : (char)c;
            sb_put(&sb, &d, 1);
        }
        if (we < le)
            sb_puts(&sb, "...");
        sb_puts(&sb, "\n");
        if (ws > ls)
            sb_puts(&sb, "   ");
        for (size_t i = ws; i < o; i++) {
            unsigned char c = (unsigned char)text[i];
            if ((c & 0xC0) == 0x80)
                continue;   /* UTF-8 continuation byte: same column */
            sb_put(&sb, c == '\t' ? "\t" : " ", 1);
        }
        sb_puts(&sb, "^");
    }
    size_t need = sb.oom ? 0 : sb.len;
    if (cap > 0) {
        size_t n = need < cap - 1 ? need : cap - 1;
        if (n)
            memcpy(buf, sb.p, n);
        buf[n] = '\0';
    }
    sb_free(&sb);
    return need;
}
