/* table_print.c: see table_print.h. */
#include "client/tools/table_print.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/term.h"

int table_printer_init(table_printer_t *tp, const plan_t *plan, const char *query,
                       enum result_form form, const palette_t *color, int query_always,
                       err_t *e)
{
    memset(tp, 0, sizeof *tp);
    tp->plan = plan;
    tp->query = query;
    tp->form = form;
    tp->color = form == RESULT_FORM_TABLE ? color : NULL;
    tp->query_always = form == RESULT_FORM_TABLE && query_always;
    tp->group_key = calloc(plan->n_select ? plan->n_select : 1, 1);
    if (!tp->group_key)
        return err_set(e, ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < plan->n_select; i++)
        tp->group_key[i] = plan->select[i].group_key;
    return 0;
}

void table_printer_free(table_printer_t *tp)
{
    free(tp->group_key);
    free(tp->last);
    memset(tp, 0, sizeof *tp);
}

void table_printer_render(table_printer_t *tp, const result_t *r, outbuf_t *text)
{
    if (tp->form != RESULT_FORM_TABLE) {
        result_render_form(r, tp->plan, tp->form, text, !tp->header_done);
        tp->header_done = 1;
        return;
    }
    if (tp->color) {
        paint_append(text, tp->color->slot[PAL_TABLE_RAW_QUERY], NULL, 0, tp->query,
                     strlen(tp->query), 0);
        outbuf_putc(text, '\n');
    } else if (tp->query_always) {
        outbuf_append(text, tp->query, strlen(tp->query));
        outbuf_putc(text, '\n');
    }
    result_render_table(r, text, tp->color, tp->plan->order_index, tp->group_key);
}

void table_printer_emit(table_printer_t *tp, outbuf_t *text)
{
    if (text->failed || (tp->form == RESULT_FORM_TABLE && tp->last && tp->last_len == text->len &&
                         memcmp(tp->last, text->data, text->len) == 0))
        return;
    outbuf_t out = {.fd = STDOUT_FILENO, .data = text->data, .len = text->len, .cap = text->cap};
    outbuf_flush(&out);
    free(tp->last);
    tp->last = text->data;   /* kept for the next comparison */
    tp->last_len = text->len;
    text->data = NULL;
}

void table_printer_show(table_printer_t *tp, const result_t *r)
{
    outbuf_t text;
    err_t e;
    if (outbuf_init_mem(&text, 64 * 1024, &e) < 0)
        return;
    text.escape_data = term_escapes(STDOUT_FILENO);
    table_printer_render(tp, r, &text);
    table_printer_emit(tp, &text);
    outbuf_free(&text);
}

void table_printer_note_approx(const plan_t *plan, const size_t *rows)
{
    char text[1024];
    if (rows && result_approx_text(plan, rows, text, sizeof text) > 0)
        fprintf(stderr, "dmap: note: %s\n", text);
}

void table_printer_note_approx_result(const plan_t *plan, const result_t *r)
{
    size_t *rows = calloc(plan->n_select ? plan->n_select : 1, sizeof *rows);
    if (!rows)
        return;
    result_approx_add(r, rows);
    table_printer_note_approx(plan, rows);
    free(rows);
}

int table_printer_idle(const table_printer_t *tp, const result_t *r)
{
    return r->n_rows == 0 && (tp->header_done || !result_form_has_header(tp->form));
}

long long table_printer_limit(const table_printer_t *tp)
{
    if (tp->plan->limit_given)
        return tp->plan->limit;
    return tp->form == RESULT_FORM_TABLE ? TABLE_DEFAULT_ROWS : -1;
}

void table_printer_note_limit(const table_printer_t *tp, size_t n_groups)
{
    if (tp->form == RESULT_FORM_TABLE && !tp->plan->limit_given && n_groups > TABLE_DEFAULT_ROWS)
        fprintf(stderr, "Got %zu results but limited terminal output to %d rows! "
                        "Use 'limit' clause to override!\n", n_groups, TABLE_DEFAULT_ROWS);
}
