/* parser/parser.h: the query language front end, public API.
 *
 *   query_t *q;
 *   err_t err;
 *   if (query_parse(text, strlen(text), NULL, &q, &err) != 0) {
 *       char msg[2048];
 *       query_error_format(text, strlen(text), &err, msg, sizeof msg);
 *       fprintf(stderr, "%s\n", msg);           // exit 2: err_exit_status()
 *   } else {
 *       const plan_t *plan = query_plan(q);     // hand to exec/
 *       ...
 *       query_free(q);
 *   }
 *
 * Re-entrant: no globals; each query owns one arena holding its copy of the
 * text, the AST, the plan and every string in them, released by
 * query_free(). On failure nothing is left allocated. */
#ifndef DTAIL_PARSER_PARSER_H
#define DTAIL_PARSER_PARSER_H

#include <stdbool.h>
#include <stddef.h>

#include "base/err.h"
#include "parser/ast.h"
#include "parser/plan.h"

typedef struct query query_t;

typedef struct query_opts {
    /* Log format of a query with `from` but without `logformat` (dserver's
     * MapreduceLogFormat). NULL means "default". */
    const char *default_logformat;
} query_opts_t;

/* Parses and plans text[0..len) (need not be NUL-terminated). On success
 * returns 0 and stores the query in *out (free with query_free). On failure
 * returns -1, sets *out to NULL and fills *err: code ERR_QUERY (or
 * ERR_PATTERN for a bad regex() pattern, ERR_NOMEM), offset = byte offset
 * of the problem in text, msg = what is wrong, with a hint when one helps. */
int query_parse(const char *text, size_t len, const query_opts_t *opts,
                query_t **out, err_t *err);
void query_free(query_t *q);

/* The plan exec/ runs. Valid until query_free. */
const plan_t *query_plan(const query_t *q);
/* The syntax tree (for tools such as the REPL's completion). */
const ast_query_t *query_ast(const query_t *q);
/* The query as given (NUL-terminated copy). */
const char *query_text(const query_t *q);
/* The canonical text (see print.h, ast_print); written to PATH.query by
 * the outfile writer and shown by the REPL. */
const char *query_canonical(const query_t *q);
/* A line-per-element description of the plan (tests, `explain`). NULL when
 * out of memory. */
const char *query_explain(query_t *q);

/* Formats an error for a terminal:
 *
 *   unknown aggregate or function 'cnt'; did you mean count? (at byte 7)
 *   select cnt($line) from STATS
 *          ^
 *
 * Only the line holding the offset is shown, cut to a window around it if it
 * is long; control characters print as '?', and the caret counts UTF-8
 * characters, not bytes. No trailing newline. Returns the length the full
 * text needs (like snprintf); buf is always NUL-terminated when cap > 0. */
size_t query_error_format(const char *text, size_t len, const err_t *err,
                          char *buf, size_t cap);

/* For a peer that speaks DTail 4.1 (a Go dserver, or a Go client of
 * ours): 0 when plan is DTail's own dialect, else -1 with *err (ERR_QUERY,
 * at plan->ext_offset) naming the extension, which such a peer would not
 * understand or would read otherwise; `why` ends the message. */
int query_check_dtail_dialect(const plan_t *plan, const char *why, err_t *err);

/* Whether text reads as an attempt at a query: two words or more, the first
 * a clause keyword or a near miss of one (`selct count($line)`). dmap takes
 * the first argument holding "select " as its query, as DTail does; one
 * that misspells it is shown its parse error instead of "no query". */
bool query_looks_like(const char *text);

/* The candidate in cands (NULL-terminated) closest to word by edit distance,
 * or NULL when none is close enough to be a plausible typo. */
const char *resolve_suggest(const char *word, const char *const *cands);

#endif
