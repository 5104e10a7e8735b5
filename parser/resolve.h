/* parser/resolve.h: name resolution shared by plan.c (internal to parser/).
 *
 * resolve.c knows which names exist: aggregates, functions, log format
 * variables and the $variables the set clause creates. It turns an AST
 * operand into a plan_value_t, or records an error that names the problem
 * and suggests the closest valid name. */
#ifndef DTAIL_PARSER_RESOLVE_H
#define DTAIL_PARSER_RESOLVE_H

#include "parser/ast.h"
#include "parser/parse_int.h"
#include "parser/parser.h"
#include "parser/plan.h"

/* Where an operand appears: decides how barewords, strings and numbers read
 * and which $variables are visible. */
enum resolve_where {
    RESOLVE_SELECT,   /* select item / group by / order by: names fields */
    RESOLVE_WHERE,    /* where operand: runs before set */
    RESOLVE_SET,      /* set right-hand side: sees earlier assignments */
    RESOLVE_ARG,      /* function argument (inherits visibility of its use) */
};

/* A name -> index map for the $variables assigned by set (arena-backed,
 * open addressing). */
typedef struct resolve_vars {
    const char **keys;      /* cap slots, NULL when empty */
    int *vals;              /* index of the last assignment of that key */
    size_t cap;             /* power of two */
    size_t n;               /* keys present */
    size_t hint;            /* expected number of keys (sizes the first table) */
} resolve_vars_t;

typedef struct resolve_ctx {
    parse_ctx_t *pc;                /* text, arena, error, warnings */
    const logformat_t *fmt;         /* effective log format */
    const ast_list_t *set_list;     /* the set clause's assignments, or NULL */
    resolve_vars_t vars;            /* set variables visible right now */
    bool set_visible;               /* false while resolving where */
    bool warned_generic;            /* one "no named fields" warning is enough */
    size_t select_cap;              /* items plan.select has room for */
} resolve_ctx_t;

/* Function and aggregate registry. */
typedef struct resolve_fn {
    const char *name;
    bool aggregate;                 /* select-only, top level */
    enum plan_agg agg;              /* when aggregate */
    enum plan_func func;            /* when not */
    int min_args, max_args;
    const char *usage;              /* e.g. "bucket(time, 5m)" */
} resolve_fn_t;

/* Looks up `name`; pNN (p50, p99.9) yields the quantile aggregate with
 * *quantile = NN/100. Returns NULL when unknown. */
const resolve_fn_t *resolve_fn_find(const char *name, double *quantile);

/* Checks the arguments of aggregate fn called at e (fn and q as
 * resolve_fn_find gave them) and fills s->agg, s->quantile and s->top_k:
 * count(f) or count(distinct f), quantile(f, q), top(f, k), pNN(f), the
 * others one field. Returns the argument that is aggregated, or NULL with
 * an error recorded. */
const ast_expr_t *resolve_agg_args(resolve_ctx_t *rc, const resolve_fn_t *fn, double q,
                                   const ast_expr_t *e, plan_select_t *s);

/* Resolves one operand (FIELD, STRING, NUMBER, CALL or ARITH node).
 * Returns NULL with an error recorded on failure. */
plan_value_t *resolve_value(resolve_ctx_t *rc, const ast_expr_t *e,
                            enum resolve_where where);
/* A value node of kind for AST node e (text, offset), in the arena. */
plan_value_t *resolve_value_new(resolve_ctx_t *rc, enum plan_value_kind kind,
                                const ast_expr_t *e);
/* Resolves an operand of arithmetic after aggregation (select.c). */
typedef plan_value_t *(*resolve_operand_fn)(resolve_ctx_t *rc, const ast_expr_t *e, void *arg);
/* The PLAN_V_ARITH of AST_ARITH e: its operands resolved by operand(rc, op,
 * arg), or per line as `where` says when operand is NULL. */
plan_value_t *resolve_arith(resolve_ctx_t *rc, const ast_expr_t *e, enum resolve_where where,
                            resolve_operand_fn operand, void *arg);
/* Resolves a field name used as a column (select/group by): strings and
 * numbers name fields too. */
plan_value_t *resolve_field_named(resolve_ctx_t *rc, const ast_expr_t *e);

/* Checks that pat is a "quoted" PCRE2 pattern that compiles (errors name
 * `what`, "regex()" or "matches", and point into the pattern); *ncap is its
 * number of capture groups. */
int resolve_pattern(resolve_ctx_t *rc, const ast_expr_t *pat, const char *what, uint32_t *ncap);

int resolve_vars_put(resolve_ctx_t *rc, resolve_vars_t *v, const char *key, int val);
int resolve_vars_get(const resolve_vars_t *v, const char *key);

/* resolve_suggest: declared in parser/parser.h (exec/ names fields with it). */
/* Optimal string alignment distance (edits incl. transpositions), capped. */
int resolve_distance(const char *a, size_t na, const char *b, size_t nb);

/* Parses a duration: "30", "30s", "5m", "1h30m", "1d". Returns seconds, or
 * -1 when the text is not a duration. */
long long resolve_duration(const char *s, size_t n);

#endif
