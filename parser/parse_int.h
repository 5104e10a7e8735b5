/* parser/parse_int.h: state shared by the parser's own files and the
 * generated grammar (grammar/query.y). Nothing outside parser/ and grammar/
 * should include it; the public API is parser/parser.h.
 *
 * One parse_ctx_t lives for one call of query_parse(). It points into the
 * query text (tokens are {offset,len} views, never copies), owns nothing
 * itself, and allocates everything from the query's arena. */
#ifndef DTAIL_PARSER_PARSE_INT_H
#define DTAIL_PARSER_PARSE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/err.h"

/* A token: a view into the query text. `type` is a TK_* code from the
 * generated query.h; a fallback word (e.g. `by` used as a field) keeps its
 * own type, the parser only treats it as TK_ID. */
typedef struct token {
    int type;        /* TK_* */
    uint32_t off;    /* byte offset of the first byte */
    uint32_t len;    /* length in bytes, quotes included */
} token_t;

typedef struct ast_query ast_query_t;
typedef struct plan_warning plan_warning_t;

/* Warnings collected while parsing and planning (a chain in the arena). */
typedef struct parse_warn {
    struct parse_warn *next;  /* next warning, in the order they were made */
    uint32_t off;             /* byte offset the warning is about */
    const char *msg;          /* NUL-terminated, in the arena */
} parse_warn_t;

typedef struct parse_ctx {
    const char *z;            /* query text (not NUL-terminated necessarily) */
    char *split;              /* a copy of z in which the byte after each token
                                 is NUL, so token texts are C strings in place */
    size_t n;                 /* bytes in z */
    arena_t *arena;           /* owner of every allocation of this query */
    err_t *err;               /* the first error; code ERR_NONE while fine */
    ast_query_t *ast;         /* the query being built */
    int clause;               /* TK_* of the clause being read, 0 before any */
    uint32_t clause_off;      /* offset of that clause's keyword */
    int lookahead;            /* TK_* of the token being fed (0 at the end) */
    uint32_t prev_end;        /* offset just past the token fed before it */
    uint32_t last_off;        /* offset of the previous token fed */
    int prev_type;            /* TK_* of the token fed before the current one */
    uint32_t prev_off;        /* ... its offset */
    parse_warn_t *warn_head;  /* warnings, oldest first */
    parse_warn_t *warn_tail;  /* last warning, for O(1) append */
    uint32_t n_warn;          /* number of warnings */
    const char *ext;          /* the first construct DTail's dialect does not
                                 have ("or", "having", ...), NULL for none */
    uint32_t ext_off;         /* its offset */
} parse_ctx_t;

/* True once an error has been recorded: every constructor then does nothing
 * and returns NULL, and the driver stops feeding tokens. */
static inline bool parse_failed(const parse_ctx_t *ctx)
{
    return ctx->err->code != ERR_NONE;
}

/* True if the token being fed may follow a complete clause (a clause
 * keyword or the end). When it may not, a clause being reduced now is a
 * default reduction just before a syntax error: semantic checks of that
 * clause are skipped so that the syntax error is the one reported. */
bool parse_clause_may_end(const parse_ctx_t *ctx);

/* Records an error at byte offset `off` unless one is already recorded
 * (first error wins). Always returns -1. */
int parse_error(parse_ctx_t *ctx, enum err_code code, uint32_t off,
                const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Records an out-of-memory error; returns -1. */
int parse_nomem(parse_ctx_t *ctx);
/* Appends a warning (copied into the arena). */
void parse_warn(parse_ctx_t *ctx, uint32_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Called by the grammar's %syntax_error and %stack_overflow. */
void parse_syntax_error(parse_ctx_t *ctx, int major, const token_t *tok);
void parse_stack_overflow(parse_ctx_t *ctx);

/* ------------------------------------------------------------ tokenize.c */

/* Flags of query_token. */
#define QUERY_TOKEN_EXPR 1u   /* a clause of expressions (select, where, set,
                                 group, order, having): the arithmetic
                                 operators are tokens; elsewhere (from,
                                 outfile, ...) a path such as /tmp/a*.csv
                                 is one word */

/* Cuts the token that starts at z[i] (i < n). Returns its length (>= 1) and
 * stores its TK_* type in *type: TK_SPACE for separators (whitespace and
 * commas), TK_ILLEGAL for an unterminated "string" or `name`, or a NUL. */
size_t query_token(const char *z, size_t n, size_t i, unsigned flags, int *type);
/* The query_token flags for the words of the clause `clause` (TK_*, 0
 * before the first). */
unsigned query_token_flags(int clause);
/* Records the first construct outside DTail's dialect (for the servers
 * and clients that speak DTail's protocol, which must refuse it). */
void parse_note_ext(parse_ctx_t *ctx, uint32_t off, const char *what);
/* Keyword or operator code of a bareword, or TK_ID / TK_NUMBER. */
int query_word_type(const char *z, size_t n);
/* True if z[0..n) is a number as DTail's where/limit understand it. */
bool query_is_number(const char *z, size_t n);
/* The clause keywords in lower case, NULL-terminated (for suggestions). */
extern const char *const query_clause_words[];
/* The spelling of a TK_* code for messages ("select", "==", "end of query"). */
const char *query_token_name(int type);

/* ------------------------------------------------------------ generated */

size_t QueryParseSize(void);
void QueryParseInit(void *engine, parse_ctx_t *ctx);
void QueryParse(void *engine, int major, token_t minor);
void QueryParseFinalize(void *engine);

#endif
