/* result_text.c: a result as TSV or JSON lines, and the choice of form. */
#include "exec/sink/result.h"

#include <string.h>

#include "base/term.h"

static const char *const form_names[] = {"table", "csv", "tsv", "json"};

int result_form_parse(const char *name, enum result_form *form)
{
    for (size_t i = 0; i < sizeof form_names / sizeof *form_names; i++) {
        if (strcmp(name, form_names[i]) == 0) {
            *form = (enum result_form)i;
            return 0;
        }
    }
    return -1;
}

const char *result_form_name(enum result_form form)
{
    return (size_t)form < sizeof form_names / sizeof *form_names ? form_names[form] : "table";
}

int result_form_has_header(enum result_form form)
{
    return form == RESULT_FORM_CSV || form == RESULT_FORM_TSV;
}

/* A TSV field: the separators and the escape character escaped. Its bytes
 * are data (escaped further when out ends on a terminal). */
static void tsv_value(outbuf_t *out, const char *s)
{
    for (;;) {
        size_t n = strcspn(s, "\\\t\n\r");
        outbuf_append_data(out, s, n, 0);
        if (!s[n])
            return;
        char esc[2] = {'\\', s[n] == '\\' ? '\\' : s[n] == '\t' ? 't' : s[n] == '\n' ? 'n' : 'r'};
        outbuf_append(out, esc, 2);
        s += n + 1;
    }
}

static void tsv_line(outbuf_t *out, const char *const *cells, size_t n)
{
    for (size_t c = 0; c < n; c++) {
        if (c)
            outbuf_putc(out, '\t');
        tsv_value(out, cells[c]);
    }
    outbuf_putc(out, '\n');
}

void result_render_tsv(const result_t *r, outbuf_t *out, int header)
{
    if (header)
        tsv_line(out, r->headers, r->n_cols);
    for (size_t i = 0; i < r->n_rows; i++)
        tsv_line(out, (const char *const *)&r->cells[i * r->n_cols], r->n_cols);
}

/* A JSON string. Nothing in it acts on a terminal: controls are escaped,
 * so it goes out unescaped. */
static void json_string(outbuf_t *out, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s), i = 0;
    outbuf_putc(out, '"');
    while (i < n) {
        size_t run = i;
        while (run < n && p[run] >= 0x20 && p[run] < 0x7f && p[run] != '"' && p[run] != '\\')
            run++;
        outbuf_append(out, s + i, run - i);
        if ((i = run) >= n)
            break;
        unsigned char c = p[i];
        size_t len = c >= 0x80 ? term_utf8_len(p + i, n - i) : 1;
        if (c == '"' || c == '\\') {
            char esc[2] = {'\\', (char)c};
            outbuf_append(out, esc, 2);
        } else if (c == '\n' || c == '\t' || c == '\r') {
            char esc[2] = {'\\', c == '\n' ? 'n' : c == '\t' ? 't' : 'r'};
            outbuf_append(out, esc, 2);
        } else if (c < 0x80 || (len == 2 && c == 0xc2 && p[i + 1] < 0xa0)) {
            unsigned cp = c < 0x80 ? c : p[i + 1];   /* C0, DEL; C1 (U+0080-U+009F) */
            char esc[6] = {'\\', 'u', '0', '0', hex[cp >> 4], hex[cp & 15]};
            outbuf_append(out, esc, 6);
        } else if (len == 0) {
            outbuf_append(out, "\xef\xbf\xbd", 3);   /* U+FFFD for a byte that is no UTF-8 */
            len = 1;
        } else {
            outbuf_append(out, s + i, len);
        }
        i += len;
    }
    outbuf_putc(out, '"');
}

/* Whether s is a JSON number (RFC 8259: -?int frac? exp?). */
static int json_number(const char *s)
{
    const char *p = s + (*s == '-');
    if (*p == '0')
        p++;
    else if (*p >= '1' && *p <= '9')
        while (*p >= '0' && *p <= '9')
            p++;
    else
        return 0;
    if (*p == '.') {
        if (!(*++p >= '0' && *p <= '9'))
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p == 'e' || *p == 'E') {
        p += p[1] == '+' || p[1] == '-' ? 2 : 1;
        if (!(*p >= '0' && *p <= '9'))
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return *p == '\0';
}

/* One cell as its column's JSON value. count() and len() cells are
 * integers ("%f" for len(): the digits before the point). */
static void json_cell(outbuf_t *out, enum plan_agg agg, const char *s)
{
    if (!*s) {
        outbuf_append(out, "null", 4);
        return;
    }
    if (agg == PLAN_AGG_LAST || !json_number(s)) {
        json_string(out, s);
        return;
    }
    size_t n = strlen(s);
    const char *dot = strchr(s, '.');
    if ((agg == PLAN_AGG_COUNT || agg == PLAN_AGG_LEN) && dot && !strchr(dot, 'e') &&
        !strchr(dot, 'E') && strspn(dot + 1, "0") == strlen(dot + 1))
        n = (size_t)(dot - s);   /* an integral "%f": its integer digits */
    outbuf_append(out, s, n);
}

void result_render_json(const result_t *r, const plan_t *plan, outbuf_t *out)
{
    for (size_t i = 0; i < r->n_rows; i++) {
        outbuf_putc(out, '{');
        for (size_t c = 0; c < r->n_cols; c++) {
            if (c)
                outbuf_putc(out, ',');
            json_string(out, r->headers[c]);
            outbuf_putc(out, ':');
            json_cell(out, c < plan->n_select ? plan->select[c].agg : PLAN_AGG_LAST,
                      result_cell(r, i, c));
        }
        outbuf_append(out, "}\n", 2);
    }
}

void result_render_form(const result_t *r, const plan_t *plan, enum result_form form,
                        outbuf_t *out, int header)
{
    switch (form) {
    case RESULT_FORM_CSV: result_render_csv(r, out, header); break;
    case RESULT_FORM_TSV: result_render_tsv(r, out, header); break;
    case RESULT_FORM_JSON: result_render_json(r, plan, out); break;
    case RESULT_FORM_TABLE: result_render_table(r, out, 0, plan->order_index, NULL); break;
    }
}
