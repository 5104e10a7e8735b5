/* table_print.h: DTail's terminal table of a result (shared reference
 * §2.12), the one renderer every client prints with: dmap serverless and
 * through servers, the REPL, and dtail --query.
 *
 * The query goes above the table (cyan on black, dim, when painted; dtail
 * --query also shows it unpainted), and a table identical to the one
 * printed last is not printed again, as in DTail. */
#ifndef DTAIL_CLIENT_TABLE_PRINT_H
#define DTAIL_CLIENT_TABLE_PRINT_H

#include <stddef.h>

#include "base/err.h"
#include "base/outbuf.h"
#include "exec/sink/result.h"
#include "parser/plan.h"

typedef struct table_printer {
    const plan_t *plan;          /* borrowed */
    const char *query;           /* shown above the table; borrowed */
    int color;                   /* paint the table and the query */
    int query_always;            /* show the query also unpainted */
    unsigned char *group_key;    /* per select item: a group-by column */
    char *last;                  /* the text printed last */
    size_t last_len;             /* its length */
} table_printer_t;

int table_printer_init(table_printer_t *tp, const plan_t *plan, const char *query, int color,
                       int query_always, err_t *e);
void table_printer_free(table_printer_t *tp);
/* Appends the query line and the table of r to text. */
void table_printer_render(const table_printer_t *tp, const result_t *r, outbuf_t *text);
/* Writes text to stdout unless it equals what was printed last; keeps it
 * (text's buffer is taken over). */
void table_printer_emit(table_printer_t *tp, outbuf_t *text);
/* Renders r and emits it. */
void table_printer_show(table_printer_t *tp, const result_t *r);
/* DTail's note on stderr when the default terminal limit cut rows. */
void table_printer_note_limit(const plan_t *plan, size_t n_groups);
/* The note on stderr when cells of the final result are estimates:
 * "dmap: note: approximate result: ..." (result_approx_text), from the
 * rows per select item that hold one; nothing when none does. */
void table_printer_note_approx(const plan_t *plan, const size_t *rows);
/* The same for the rows of r. */
void table_printer_note_approx_result(const plan_t *plan, const result_t *r);

#define TABLE_DEFAULT_ROWS 10   /* terminal rows without a limit clause */

#endif
