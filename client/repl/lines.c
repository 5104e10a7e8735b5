/* lines.c: assembling a query from lines. */
#include "client/repl/lines.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"

void repl_lines_init(repl_lines_t *q)
{
    memset(q, 0, sizeof *q);
}

void repl_lines_free(repl_lines_t *q)
{
    free(q->text);
    repl_lines_init(q);
}

void repl_lines_clear(repl_lines_t *q)
{
    q->len = 0;
    q->n_lines = 0;
    if (q->text)
        q->text[0] = '\0';
}

static int append(repl_lines_t *q, const char *p, size_t n)
{
    if (GROW_ARRAY(q->text, q->cap, q->len + n + 1, 256) < 0)
        return -1;
    memcpy(q->text + q->len, p, n);
    q->len += n;
    q->text[q->len] = '\0';
    return 0;
}

static void trim_end(repl_lines_t *q)
{
    while (q->len && isspace((unsigned char)q->text[q->len - 1]))
        q->text[--q->len] = '\0';
}

enum repl_line_kind repl_lines_add(repl_lines_t *q, const char *line)
{
    const char *s = line;
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        n--;
    if (n == 0)
        return q->n_lines ? (trim_end(q), REPL_LINE_QUERY) : REPL_LINE_NOTHING;
    if ((q->n_lines && append(q, "\n", 1) < 0) || append(q, s, n) < 0) {
        repl_lines_clear(q);
        return REPL_LINE_NOMEM;
    }
    if (q->n_lines++ == 0 && s[0] == '.')
        return REPL_LINE_COMMAND;
    if (s[n - 1] != ';')
        return REPL_LINE_MORE;
    /* The ';' ends the query and is not part of it (nor are more of them). */
    while (q->len && (q->text[q->len - 1] == ';' || isspace((unsigned char)q->text[q->len - 1])))
        q->text[--q->len] = '\0';
    return REPL_LINE_QUERY;
}

char *repl_lines_history(const repl_lines_t *q)
{
    char *h = malloc(q->len + 2);
    if (!h)
        return NULL;
    for (size_t i = 0; i < q->len; i++)
        h[i] = q->text[i] == '\n' ? ' ' : q->text[i];
    h[q->len] = ';';
    h[q->len + 1] = '\0';
    return h;
}
