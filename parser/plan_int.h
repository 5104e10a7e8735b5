/* parser/plan_int.h: the planner's entry point, for parse.c only. */
#ifndef DTAIL_PARSER_PLAN_INT_H
#define DTAIL_PARSER_PLAN_INT_H

#include "parser/ast.h"
#include "parser/parse_int.h"
#include "parser/plan.h"
#include "parser/resolve.h"

/* Fills *p from the AST. default_fmt is the log format of a `from` query
 * without `logformat` (NULL means "default"). Returns 0, or -1 with the
 * error recorded on pc. Everything is allocated in pc->arena. */
int plan_build(parse_ctx_t *pc, const ast_query_t *q, const char *default_fmt,
               plan_t *p);

/* cond.c: the conditions of clause c (where) into *out, *n. */
int plan_conds(resolve_ctx_t *rc, const ast_clause_t *c, const plan_cond_t **out, size_t *n);

#endif
