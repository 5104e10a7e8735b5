/* parser/plan_int.h: the planner's entry point, for parse.c only. */
#ifndef DTAIL_PARSER_PLAN_INT_H
#define DTAIL_PARSER_PLAN_INT_H

#include "parser/ast.h"
#include "parser/parse_int.h"
#include "parser/plan.h"
#include "parser/print.h"
#include "parser/resolve.h"

/* Fills *p from the AST. default_fmt is the log format of a `from` query
 * without `logformat` (NULL means "default"). Returns 0, or -1 with the
 * error recorded on pc. Everything is allocated in pc->arena. */
int plan_build(parse_ctx_t *pc, const ast_query_t *q, const char *default_fmt,
               plan_t *p);

/* select.c: the select items (columns, arithmetic columns, and the items
 * arithmetic and having read); names maps each column's name to its index. */
int plan_select(resolve_ctx_t *rc, plan_t *p, const ast_query_t *q, strbuf_t *sb,
                resolve_vars_t *names);
/* A value after aggregation (having, arithmetic columns): numbers, strings,
 * arithmetic, and items for aggregates and fields (added when new). */
plan_value_t *plan_post_value(resolve_ctx_t *rc, plan_t *p, const ast_expr_t *e, strbuf_t *sb);
/* The column name of a select item or group field, in the arena. */
const char *plan_column_name(resolve_ctx_t *rc, strbuf_t *sb, const ast_expr_t *e);
/* Warns about a bareword item that looks like a misspelt clause keyword. */
void plan_warn_misspelt(resolve_ctx_t *rc, const ast_expr_t *e, const char *in);

/* cond.c: the conditions of where (values per line) or having (values
 * after aggregation) into *out, *n. */
int plan_conds(resolve_ctx_t *rc, plan_t *p, const ast_clause_t *c, bool having, strbuf_t *sb,
               const plan_cond_t **out, size_t *n);

/* lfopts.c: the options after `logformat NAME` into p (lf its clause);
 * logformat pattern's own fields become p->logformat's variables. */
int plan_lfopts(resolve_ctx_t *rc, plan_t *p, const ast_clause_t *lf);

#endif
