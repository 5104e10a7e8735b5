/* lines.h: multi-line input. A query may span lines; it ends with a
 * line ending in ';' or with an empty line. A dot command is one line,
 * recognised only at the start of a query. */
#ifndef DTAIL_CLIENT_REPL_LINES_H
#define DTAIL_CLIENT_REPL_LINES_H

#include <stddef.h>

typedef struct repl_lines {
    char *text;      /* the lines so far, joined by '\n', NUL-terminated */
    size_t len;      /* bytes in text */
    size_t cap;      /* bytes allocated */
    int n_lines;     /* lines added since the last clear */
} repl_lines_t;

enum repl_line_kind {
    REPL_LINE_MORE = 0,   /* the query goes on: prompt for the next line */
    REPL_LINE_QUERY,      /* text holds a whole query (without the ';') */
    REPL_LINE_COMMAND,    /* text holds one dot-command line */
    REPL_LINE_NOTHING,    /* an empty line with nothing pending */
    REPL_LINE_NOMEM,      /* out of memory: the pending text is dropped */
};

void repl_lines_init(repl_lines_t *q);
void repl_lines_free(repl_lines_t *q);
/* Forgets the pending text (after it ran, or on Ctrl-C). */
void repl_lines_clear(repl_lines_t *q);
/* Adds one line (without its '\n') and says what the text is now. */
enum repl_line_kind repl_lines_add(repl_lines_t *q, const char *line);
/* The text as one history line: line breaks as spaces, with the ';' that
 * makes it run again when recalled. The caller frees it; NULL when out of
 * memory. */
char *repl_lines_history(const repl_lines_t *q);

#endif
