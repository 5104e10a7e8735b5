/* parser/print.h: the canonical printer (AST back to query text) and the
 * plan explainer, over a small growable string buffer. */
#ifndef DTAIL_PARSER_PRINT_H
#define DTAIL_PARSER_PRINT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/arena.h"
#include "parser/ast.h"
#include "parser/plan.h"

/* A heap buffer that records running out of memory instead of failing each
 * call; check `oom` once at the end. */
typedef struct strbuf {
    char *p;          /* NUL-terminated contents (NULL until first write) */
    size_t len;       /* bytes used, without the NUL */
    size_t cap;       /* bytes allocated */
    bool oom;         /* an allocation failed; contents are truncated */
} strbuf_t;

void sb_init(strbuf_t *sb);
void sb_put(strbuf_t *sb, const char *s, size_t n);
void sb_puts(strbuf_t *sb, const char *s);
void sb_printf(strbuf_t *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sb_free(strbuf_t *sb);
/* Copies the contents into the arena; NULL if out of memory (either). */
char *sb_to_arena(const strbuf_t *sb, arena_t *a);

/* Prints one expression. compact: call arguments joined by "," without
 * spaces, the form used for column names ("quantile(x,0.9)"). */
void print_expr(strbuf_t *sb, const ast_expr_t *e, bool compact);
/* The column name of a select item or group-by field: a field's name as
 * written without its quotes, or the compact form of a call. */
void print_column_name(strbuf_t *sb, const ast_expr_t *e);
/* The canonical text of a whole query: lower-case keywords, clauses in the
 * order select from where set group by order by interval limit outfile
 * logformat, only the last of a repeated clause, commas between items.
 * parse(print(parse(q))) yields the same plan as parse(q). */
void ast_print(strbuf_t *sb, const ast_query_t *q);
/* A line-per-element description of a plan, for tests and `explain`. */
void plan_explain(strbuf_t *sb, const plan_t *p);

#endif
