/* complete.h: tab-completion candidates for a line being edited:
 * clause keywords and operators, aggregates and functions, log formats
 * (after `logformat`), the field names seen in the data, dot commands and
 * their arguments. Pure: the REPL supplies the field names and does the
 * editing. */
#ifndef DTAIL_CLIENT_REPL_COMPLETE_H
#define DTAIL_CLIENT_REPL_COMPLETE_H

#include <stddef.h>

typedef struct repl_cands {
    char **items;    /* sorted, distinct; functions end in '(' */
    size_t n;        /* items used */
    size_t cap;      /* items allocated */
} repl_cands_t;

/* Words the query language knows (for tests that check them against the
 * parser): clause keywords and operators, and aggregate and function
 * names. NULL-terminated. */
extern const char *const repl_keywords[];
extern const char *const repl_functions[];

void repl_cands_init(repl_cands_t *c);
void repl_cands_free(repl_cands_t *c);

/* Candidates for the word that ends at byte `cursor` of line, which
 * starts at *word_start (set). fields are the names known for the current
 * log format ($variables with their '$', barewords without). Returns the
 * count, or -1 when out of memory. */
int repl_complete(const char *line, size_t cursor, const char *const *fields, size_t n_fields,
                  repl_cands_t *out, size_t *word_start);

/* The longest common prefix of the candidates (bytes). */
size_t repl_cands_common(const repl_cands_t *c);

/* The log format named by a `logformat NAME` clause in text, copied into
 * buf (NULL when there is none). */
const char *repl_complete_logformat(const char *text, char *buf, size_t cap);

#endif
