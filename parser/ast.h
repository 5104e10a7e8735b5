/* parser/ast.h: the syntax tree of one query, as written.
 *
 * The AST records what the user typed, not what it means: a quoted string
 * in select stays a string node here, and plan.c decides that it names a
 * field. Every node lives in the query's arena and records the byte offset
 * of the text it came from, so later errors can point at it. The canonical
 * printer (print.c) turns an AST back into query text. */
#ifndef DTAIL_PARSER_AST_H
#define DTAIL_PARSER_AST_H

#include <stdbool.h>
#include <stdint.h>

#include "parser/parse_int.h"

enum ast_kind {
    AST_FIELD,    /* a field name: bareword, `backticked` or $variable */
    AST_STRING,   /* a "quoted" string (text is the content) */
    AST_NUMBER,   /* a bareword that reads as a number (text as written) */
    AST_CALL,     /* name(args...): aggregate or function, resolved later */
    AST_COND,     /* lhs OP rhs, in where, having and set; lhs [not] in (args) */
    AST_ARITH,    /* lhs OP rhs, OP one of + - * / (TK_PLUS ... TK_SLASH) */
    AST_BOOL,     /* and, or of args (op TK_AND, TK_OR); not lhs (TK_NOT) */
};

/* How deep arithmetic and conditions may nest: every pass over the tree
 * (resolving, printing, evaluating) recurses, also on a client's thread
 * with a small stack and in dserver for a remote user's query. A chain of
 * and or or is one node, however long. */
#define AST_MAX_DEPTH 200

typedef struct ast_list ast_list_t;

typedef struct ast_expr {
    enum ast_kind kind;
    char quote;             /* AST_FIELD: 0 bareword, '`' backticked */
    bool negated;           /* AST_COND with TK_IN: `not in` */
    int op;                 /* AST_COND, AST_ARITH, AST_BOOL: TK_* of the operator */
    uint32_t off;           /* first byte in the query: token, call name, cond lhs */
    uint32_t len;           /* bytes of the whole node's source text */
    uint32_t op_off;        /* AST_COND, AST_ARITH, AST_BOOL: offset of the operator */
    const char *text;       /* name, content, number or operator; NUL-terminated */
    uint32_t text_len;      /* bytes in text */
    uint32_t depth;         /* AST_ARITH, AST_BOOL: operators nested below, 1 + */
    struct ast_expr *lhs;   /* AST_COND, AST_ARITH, AST_BOOL: left operand */
    struct ast_expr *rhs;   /* ... right operand (NULL for not and in) */
    ast_list_t *args;       /* AST_CALL: arguments (never NULL); in: the list;
                               AST_BOOL and, or: the operands (two or more) */
    struct ast_expr *next;  /* next node of the list this node is in */
    const char *path;       /* AST_CALL followed by .a.b (json($log).a.b):
                               "a.b", else NULL */
    uint32_t path_off;      /* its byte offset (the '.') */
} ast_expr_t;

struct ast_list {
    ast_expr_t *head;       /* first node, NULL when empty */
    ast_expr_t *tail;       /* last node, for O(1) append */
    uint32_t n;             /* number of nodes */
};

/* Clause slots, in the canonical printing order. order and rorder share a
 * slot: the last of them wins, as in DTail. */
enum ast_slot {
    AST_SELECT, AST_FROM, AST_WHERE, AST_SET, AST_GROUP, AST_HAVING, AST_ORDER,
    AST_INTERVAL, AST_LIMIT, AST_OUTFILE, AST_LOGFORMAT, AST_NSLOT
};

typedef struct ast_clause {
    int kw;                 /* TK_* keyword (TK_ORDER or TK_RORDER for AST_ORDER) */
    uint32_t off;           /* offset of the keyword */
    uint32_t kw_len;        /* length of the keyword */
    ast_list_t *list;       /* select, group, order: exprs; set: conds;
                               where, having: the conditions joined by and
                               (each a cond or an AST_BOOL) */
    ast_expr_t *word;       /* from, interval, limit, logformat, outfile: the word */
    ast_list_t *opts;       /* logformat: the words after the name (NULL
                               for the other clauses) */
    bool append;            /* outfile append PATH */
} ast_clause_t;

struct ast_query {
    ast_clause_t *slot[AST_NSLOT];  /* last occurrence of each clause, or NULL */
    uint32_t n_clauses;             /* clauses read, repeats included */
};

/* Constructors, called from the grammar actions. Each returns NULL and does
 * nothing once the context holds an error; NULL arguments are tolerated in
 * that state. */
ast_list_t *ast_list(parse_ctx_t *ctx, ast_list_t *list, ast_expr_t *e);
ast_expr_t *ast_term(parse_ctx_t *ctx, const token_t *tok);
/* A call followed by a path token (`.a.b`, right after its ')'). */
ast_expr_t *ast_call_path(parse_ctx_t *ctx, const token_t *name, ast_list_t *args,
                          const token_t *path);
ast_expr_t *ast_call(parse_ctx_t *ctx, const token_t *name, ast_list_t *args,
                     const token_t *rp);
ast_expr_t *ast_cond(parse_ctx_t *ctx, ast_expr_t *lhs, const token_t *op,
                     ast_expr_t *rhs);
/* lhs [not] in (list): not_tok is the `not`, or NULL. */
ast_expr_t *ast_in(parse_ctx_t *ctx, ast_expr_t *lhs, const token_t *not_tok,
                   const token_t *in, ast_list_t *list, const token_t *rp);
/* lhs + - * / rhs. */
ast_expr_t *ast_arith(parse_ctx_t *ctx, ast_expr_t *lhs, const token_t *op, ast_expr_t *rhs);
/* lhs and rhs (op the `and`, or NULL when the two stand side by side), lhs
 * or rhs, not lhs (rhs NULL). */
ast_expr_t *ast_bool(parse_ctx_t *ctx, ast_expr_t *lhs, const token_t *op, ast_expr_t *rhs);
/* ( e ): e, its span widened to the parentheses. */
ast_expr_t *ast_paren(parse_ctx_t *ctx, const token_t *lp, ast_expr_t *e, const token_t *rp);
void ast_clause(parse_ctx_t *ctx, const token_t *kw, ast_list_t *list);
/* where [condition], having condition. */
void ast_where(parse_ctx_t *ctx, const token_t *kw, ast_expr_t *cond);
void ast_clause_word(parse_ctx_t *ctx, const token_t *kw, const token_t *word);
/* logformat NAME [OPTION VALUE]...: opts the words after the name. */
void ast_logformat(parse_ctx_t *ctx, const token_t *kw, const token_t *name, ast_list_t *opts);
void ast_outfile(parse_ctx_t *ctx, const token_t *kw, const token_t *append,
                 const token_t *path);
/* The grammar's %destructor. Nodes belong to the query arena, which the
 * owner frees in one call, so there is nothing to release per node; the
 * hook exists so that a node holding memory of its own would be freed when
 * a syntax error abandons a half-built tree. */
void ast_discard(parse_ctx_t *ctx, const void *node);

/* Which slot a clause keyword fills. */
enum ast_slot ast_slot_of(int kw);
/* True for the where comparison operators (numeric) and string operators
 * (eq ... nhassuffix, matches, nmatches). */
bool ast_op_is_numeric(int op);
bool ast_op_is_string(int op);
/* The binding strength of an arithmetic operator: 1 for + -, 2 for * /. */
int ast_arith_prec(int op);

#endif
