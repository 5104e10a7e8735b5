/* table_print.h: a result on stdout, the one printer every client uses:
 * dmap serverless and through servers, the REPL, and dtail --query.
 *
 * In the table form, DTail's terminal table (shared reference §2.12): the
 * query goes above the table (cyan on black, dim, when painted; dtail
 * --query also shows it unpainted), and a table identical to the one
 * printed last is not printed again, as in DTail. The machine forms (csv,
 * tsv, json: --output, the REPL's .mode) print every result they are
 * given, unpainted and without the query, and a printer writes the header
 * of csv and tsv once, before its first rows: a run that prints a result
 * per interval (dtail --query) makes one stream with one header. */
#ifndef DTAIL_CLIENT_TABLE_PRINT_H
#define DTAIL_CLIENT_TABLE_PRINT_H

#include <stddef.h>

#include "base/err.h"
#include "base/outbuf.h"
#include "base/palette.h"
#include "exec/sink/result.h"
#include "parser/plan.h"

typedef struct table_printer {
    const plan_t *plan;          /* borrowed */
    const char *query;           /* shown above the table; borrowed */
    const palette_t *color;      /* paint the table and the query; NULL: don't */
    int query_always;            /* show the query also unpainted */
    enum result_form form;       /* table, or a machine form */
    int header_done;             /* the csv/tsv header is out */
    unsigned char *group_key;    /* per select item: a group-by column */
    char *last;                  /* the text printed last */
    size_t last_len;             /* its length */
} table_printer_t;

/* color (NULL: no paint) and query_always apply to the table form only. */
int table_printer_init(table_printer_t *tp, const plan_t *plan, const char *query,
                       enum result_form form, const palette_t *color, int query_always,
                       err_t *e);
void table_printer_free(table_printer_t *tp);
/* Appends r to text in the printer's form (the table: with the query line). */
void table_printer_render(table_printer_t *tp, const result_t *r, outbuf_t *text);
/* Writes text to stdout unless the table equals what was printed last;
 * keeps it (text's buffer is taken over). */
void table_printer_emit(table_printer_t *tp, outbuf_t *text);
/* Renders r and emits it. */
void table_printer_show(table_printer_t *tp, const result_t *r);
/* Whether r would print nothing new: no rows, and no header to write. */
int table_printer_idle(const table_printer_t *tp, const result_t *r);
/* The rows printed: the query's limit, else 10 in the table, else all (-1). */
long long table_printer_limit(const table_printer_t *tp);
/* DTail's note on stderr when the table's default limit cut rows. */
void table_printer_note_limit(const table_printer_t *tp, size_t n_groups);
/* The note on stderr when cells of the final result are estimates:
 * "dmap: note: approximate result: ..." (result_approx_text), from the
 * rows per select item that hold one; nothing when none does. */
void table_printer_note_approx(const plan_t *plan, const size_t *rows);
/* The same for the rows of r. */
void table_printer_note_approx_result(const plan_t *plan, const result_t *r);

#define TABLE_DEFAULT_ROWS 10   /* table rows without a limit clause */

#endif
