/* fmt_csv.c: the `csv` log format (dtail-behaviour.md §3.5), and
 * `csvnoheader`. The delimiter is ',' (extract_opts_t may set another).
 * csv: the first line of each source (after extractor_begin_source, or
 * the line given to extractor_set_header) is the header: it yields
 * EXTRACT_SKIP and column i of later lines is the field named header[i].
 * More values than header columns is EXTRACT_ERROR; fewer leaves the rest
 * missing. A column named like a common variable overrides it, as in DTail.
 *
 * Beyond DTail, RFC 4180 quoting is accepted: a field that starts with '"'
 * runs to the next lone '"' (a doubled "" is one quote), may hold commas,
 * and its value is the unquoted text (copied to scratch only when it held
 * ""). A quote inside an unquoted field is an ordinary byte. An unterminated
 * quoted field, or text after a closing quote, is EXTRACT_ERROR.
 *
 * csvnoheader: no header; column i is the field named $i+1 ($1, $2, ...),
 * and a row may have any number of columns (those it lacks are missing). */
#include "exec/extract/extract_int.h"

#include <stdlib.h>

#include "base/grow.h"

#define CSV_TOKS 64     /* tokens taken from the splitter at once */

/* One field of a line as the lexer sees it. */
typedef struct csv_field {
    const char *p;      /* raw content (inside the quotes if quoted) */
    uint32_t len;       /* raw content length */
    bool dq;            /* quoted and holds "" pairs: needs unquoting */
} csv_field_t;

enum csv_lex { CSV_MORE, CSV_LAST, CSV_BAD };

/* Reads the field at *pos of [p, p+n) and moves *pos past its delimiter d. */
static enum csv_lex csv_next(const char *p, uint32_t n, uint32_t *pos, csv_field_t *f, char d)
{
    uint32_t at = *pos;
    f->dq = false;
    if (at < n && p[at] == '"') {
        uint32_t q = at + 1;
        for (;;) {
            const char *hit = q < n ? memchr(p + q, '"', n - q) : NULL;
            if (!hit)
                return CSV_BAD;                 /* unterminated */
            uint32_t h = (uint32_t)(hit - p);
            if (h + 1 < n && p[h + 1] == '"') {
                f->dq = true;
                q = h + 2;
                continue;
            }
            f->p = p + at + 1;
            f->len = h - at - 1;
            at = h + 1;
            break;
        }
        if (at == n) {
            *pos = at;
            return CSV_LAST;
        }
        if (p[at] != d)
            return CSV_BAD;                     /* text after the closing quote */
        *pos = at + 1;
        return CSV_MORE;
    }
    const char *c = at < n ? memchr(p + at, d, n - at) : NULL;
    uint32_t e = c ? (uint32_t)(c - p) : n;
    f->p = p + at;
    f->len = e - at;
    if (!c) {
        *pos = n;
        return CSV_LAST;
    }
    *pos = e + 1;
    return CSV_MORE;
}

/* Writes the unquoted value of a field with "" pairs into out; its length. */
static uint32_t csv_unquote(const csv_field_t *f, char *out)
{
    uint32_t o = 0;
    for (uint32_t k = 0; k < f->len; k++) {
        out[o++] = f->p[k];
        if (f->p[k] == '"')
            k++;                               /* skip the second quote of "" */
    }
    return o;
}

static int csv_map_push(extractor_t *x, uint32_t field)
{
    if (GROW_ARRAY(x->csv_map, x->csv_map_cap, (size_t)x->csv_cols + 1, 16) < 0)
        return -1;
    x->csv_map[x->csv_cols++] = field;
    return 0;
}

/* Reads a header line; ERR_NONE, or ERR_INPUT (malformed) or ERR_NOMEM
 * with a message in *why. */
static enum err_code csv_header(extractor_t *x, const char *p, uint32_t n, const char **why)
{
    /* Kept for extractor_line_names: once per source, not per line. */
    char *head = realloc(x->csv_head, n ? n : 1);
    if (head) {
        memcpy(head, p, n);
        x->csv_head = head;
        x->csv_head_len = n;
    }
    x->csv_need_header = false;
    x->csv_header_bad = true;
    x->csv_cols = 0;
    uint32_t pos = 0;
    char *buf = NULL;
    uint32_t buf_cap = 0;
    for (;;) {
        csv_field_t f;
        enum csv_lex r = csv_next(p, n, &pos, &f, x->delim);
        if (r == CSV_BAD) {
            free(buf);
            *why = "CSV header has a malformed quoted field";
            return ERR_INPUT;
        }
        const char *name = f.p;
        uint32_t name_len = f.len;
        if (f.dq) {
            if (buf_cap < f.len) {
                char *nb = realloc(buf, f.len);
                if (!nb) {
                    free(buf);
                    *why = "out of memory reading the CSV header";
                    return ERR_NOMEM;
                }
                buf = nb;
                buf_cap = f.len;
            }
            name_len = csv_unquote(&f, buf);
            name = buf;
        }
        uint32_t field = x->n_dyn ? extract_dyn_field(x, name, name_len) : EXTRACT_NONE;
        if (csv_map_push(x, field) < 0) {
            free(buf);
            *why = "out of memory reading the CSV header";
            return ERR_NOMEM;
        }
        if (r == CSV_LAST)
            break;
    }
    free(buf);
    x->csv_header_bad = false;
    return ERR_NONE;
}

int extractor_set_header(extractor_t *x, const char *line, size_t len, err_t *e)
{
    if (x->fmt == &extract_format_tsv)
        return extract_tsv_set_header(x, line, len, e);
    if (x->fmt != &extract_format_csv)
        return 0;
    const char *why = NULL;
    if (len > UINT32_MAX)
        return err_set(e, ERR_INPUT, "CSV header line too long");
    uint32_t l = (uint32_t)len;
    extract_trim(&line, &l);
    enum err_code c = csv_header(x, line, l, &why);
    if (c != ERR_NONE)
        return err_set(e, c, "%s", why);
    return 0;
}

/* Stores a value as column col of line i. */
static inline void csv_store(const extractor_t *x, size_t i, uint32_t col, const char *p,
                             uint32_t len, sv_t *const *cols)
{
    if (col >= x->csv_cols)
        return;                          /* csvnoheader: a column nobody asked for */
    uint32_t field = x->csv_map[col];
    if (field == EXTRACT_NONE)
        return;
    cols[field][i].p = p;
    cols[field][i].len = len;
}

/* A row with quotes somewhere: the full lexer. */
static uint8_t csv_row_quoted(extractor_t *x, size_t i, const char *p, uint32_t n,
                              sv_t *const *cols)
{
    uint32_t pos = 0, col = 0;
    for (;;) {
        csv_field_t f;
        enum csv_lex r = csv_next(p, n, &pos, &f, x->delim);
        if (r == CSV_BAD) {
            extract_error(x, "CSV line has a malformed quoted field");
            return EXTRACT_ERROR;
        }
        if (col >= x->csv_cols && !x->csv_fixed) {
            extract_error(x, "CSV line has more fields than the header");
            return EXTRACT_ERROR;
        }
        if (col < x->csv_cols && x->csv_map[col] != EXTRACT_NONE) {
            const char *v = f.p;
            uint32_t vl = f.len;
            if (f.dq) {
                char *out = extract_scratch(x, f.len);
                if (!out) {
                    extract_error(x, "out of memory unquoting a CSV field");
                    return EXTRACT_ERROR;
                }
                vl = csv_unquote(&f, out);
                v = out;
            }
            csv_store(x, i, col, v, vl, cols);
        }
        col++;
        if (r == CSV_LAST)
            return EXTRACT_OK;
    }
}

/* A row without quotes: the vector splitter. */
static uint8_t csv_row_plain(extractor_t *x, size_t i, const char *p, uint32_t n,
                             sv_t *const *cols)
{
    if (n <= SPLIT_SHORT_MAX) {
        split_short_t ss;
        split_short_init(&ss, p, n, x->delim, x->delim);
        if (ss.n_sep >= x->csv_cols && !x->csv_fixed) {
            extract_error(x, "CSV line has more fields than the header");
            return EXTRACT_ERROR;
        }
        for (uint32_t t = 0; t <= ss.n_sep; t++) {
            uint32_t start = split_short_start(&ss, t);
            csv_store(x, i, t, p + start, split_short_end(&ss, t) - start, cols);
        }
        return EXTRACT_OK;
    }
    split_tok_t tok[CSV_TOKS];
    split_t s;
    split_init(&s, p, n, x->delim, x->delim);
    uint32_t col = 0;
    size_t nt;
    while ((nt = split_fill(&s, tok, CSV_TOKS)) > 0) {
        if (col + nt > x->csv_cols && !x->csv_fixed) {
            extract_error(x, "CSV line has more fields than the header");
            return EXTRACT_ERROR;
        }
        for (size_t t = 0; t < nt; t++, col++)
            csv_store(x, i, col, p + tok[t].start, tok[t].end - tok[t].start, cols);
    }
    return EXTRACT_OK;
}

static void csv_batch(extractor_t *x, const char *const *line, const uint32_t *len, size_t n,
                      sv_t *const *cols, uint8_t *status)
{
    for (size_t i = 0; i < n; i++) {
        const char *p = line[i];
        uint32_t l = len[i];
        extract_trim(&p, &l);
        uint8_t st;
        if (x->csv_need_header) {
            const char *why = NULL;
            if (csv_header(x, p, l, &why) != ERR_NONE) {
                extract_error(x, "%s", why);
                st = EXTRACT_ERROR;
            } else {
                st = EXTRACT_SKIP;
            }
        } else if (x->csv_header_bad) {
            extract_error(x, "CSV header of this source could not be read");
            st = EXTRACT_ERROR;
        } else {
            extract_line_common(x, i, p, l, cols);
            if (l && memchr(p, '"', l))
                st = csv_row_quoted(x, i, p, l, cols);
            else
                st = csv_row_plain(x, i, p, l, cols);
        }
        if (st != EXTRACT_OK)
            extract_line_missing(x, i, cols);
        else
            extract_line_dups(x, i, cols);
        status[i] = st;
    }
}

/* The columns of the current header (the line itself names none). */
static void csv_names(const extractor_t *x, const char *line, uint32_t len, extract_name_fn fn,
                      void *arg)
{
    (void)line;
    (void)len;
    if (!x->csv_head)
        return;
    uint32_t pos = 0;
    char buf[256];
    for (;;) {
        csv_field_t f;
        enum csv_lex r = csv_next(x->csv_head, x->csv_head_len, &pos, &f, x->delim);
        if (r == CSV_BAD)
            return;
        if (!f.dq)
            fn(arg, f.p, f.len);
        else if (f.len <= sizeof buf)
            fn(arg, buf, csv_unquote(&f, buf));
        if (r == CSV_LAST)
            return;
    }
}

/* $1, $2, ...: the column of a name, or EXTRACT_NONE. */
static uint32_t dollar_column(const char *name, uint32_t len)
{
    if (len < 2 || len > 8 || name[0] != '$' || name[1] == '0')
        return EXTRACT_NONE;
    uint32_t v = 0;
    for (uint32_t k = 1; k < len; k++) {
        if (name[k] < '0' || name[k] > '9')
            return EXTRACT_NONE;
        v = v * 10 + (uint32_t)(name[k] - '0');
    }
    return v <= (1u << 20) ? v - 1 : EXTRACT_NONE;
}

int extract_csv_plan_columns(extractor_t *x, err_t *e)
{
    x->csv_fixed = true;
    x->csv_cols = 0;
    for (uint32_t k = 0; k < x->n_dyn; k++) {
        uint32_t c = dollar_column(x->dyn[k].name, x->dyn[k].len);
        if (c == EXTRACT_NONE)
            continue;
        if (GROW_ARRAY(x->csv_map, x->csv_map_cap, (size_t)c + 1, 16) < 0)
            return err_set(e, ERR_NOMEM, "out of memory planning CSV columns");
        while (x->csv_cols <= c)
            x->csv_map[x->csv_cols++] = EXTRACT_NONE;
        x->csv_map[c] = x->dyn[k].field;
    }
    return 0;
}

const extract_format_t extract_format_csv = {
    .name = "csv", .dynamic = true, .batch = csv_batch, .names = csv_names,
    .per_source = true, .delimiter = ',',
};

const extract_format_t extract_format_csvnoheader = {
    .name = "csvnoheader", .dynamic = true, .batch = csv_batch, .delimiter = ',',
};
