/* map_run_text.c: a result as CSV or JSON lines for the terminal (the
 * REPL's .format csv|json). The cells are the renderer's (result_build);
 * only the framing differs from the table. */
#include "client/serverless/map_run.h"

#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Aggregates other than last() yield numbers; they are JSON numbers when
 * the cell reads as a finite one, everything else a string. */
static json_t *json_cell(const plan_select_t *sel, const char *s)
{
    if (sel->agg != PLAN_AGG_LAST && *s) {
        char *end;
        double v = strtod(s, &end);
        if (!*end && isfinite(v)) {
            if (sel->agg == PLAN_AGG_COUNT && v == (double)(json_int_t)v)
                return json_integer((json_int_t)v);
            return json_real(v);
        }
    }
    json_t *str = json_string(s);
    if (str)
        return str;
    /* Not UTF-8 (log bytes can be anything): the bytes above ASCII as '?'. */
    char *copy = strdup(s);
    for (char *p = copy; p && *p; p++)
        if ((unsigned char)*p >= 0x80)
            *p = '?';
    str = copy ? json_string(copy) : NULL;
    free(copy);
    return str;
}

static void show_json(const result_t *r, const plan_t *plan, outbuf_t *out)
{
    for (size_t i = 0; i < r->n_rows; i++) {
        json_t *row = json_object();
        for (size_t c = 0; row && c < r->n_cols; c++)
            json_object_set_new_nocheck(row, r->headers[c],
                                        json_cell(&plan->select[c], result_cell(r, i, c)));
        char *text = row ? json_dumps(row, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
        if (text) {
            outbuf_append_data(out, text, strlen(text), 0);   /* C1 and DEL are in it raw */
            outbuf_putc(out, '\n');
        } else {
            out->failed = 1;   /* out of memory: show nothing rather than part */
        }
        free(text);
        json_decref(row);
    }
}

void dmap_show_text(const result_t *r, const plan_t *plan, dmap_show_t show, outbuf_t *out)
{
    if (show == DMAP_SHOW_JSON)
        show_json(r, plan, out);
    else
        result_render_csv(r, out, 1);
}
