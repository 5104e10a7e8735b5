/* fmt_tsv.c: the `tsv` log format: tab-separated values with a header, as
 * csv has one. The first line of each source (after extractor_begin_source,
 * or the line given to extractor_set_header) names the columns and yields
 * EXTRACT_SKIP; more values than header columns is EXTRACT_ERROR, fewer
 * leave the rest missing. The separator is '\t' (extract_opts_t may set
 * another).
 *
 * There is no quoting. In a field (and a header name) the escapes that
 * dmap's own --output tsv writes are read back: \t, \n, \r and \\ are a tab,
 * a newline, a carriage return and a backslash; any other backslash is an
 * ordinary byte. A field is copied (to scratch) only when it holds a
 * backslash.
 *
 * Unlike the other formats a line is not trimmed of whitespace (an empty
 * last field ends the line in a tab, and spaces are data): only a final
 * '\r' is dropped (CRLF files). */
#include "exec/extract/extract_int.h"

#include <stdlib.h>

#include "base/grow.h"

#define TSV_TOKS 64     /* tokens taken from the splitter at once */

/* The value of field [p, p+n) with its escapes read, into out (n bytes of
 * room); its length. */
static uint32_t tsv_unescape(const char *p, uint32_t n, char *out)
{
    uint32_t o = 0, k = 0;
    while (extract_copy_plain(p, n, &k, out, &o)) {
        char c = k + 1 < n ? p[k + 1] : 0;
        char v = c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c == '\\' ? '\\' : 0;
        if (v) {
            out[o++] = v;
            k += 2;
        } else {
            out[o++] = '\\';
            k++;
        }
    }
    return o;
}

/* Drops a final '\r'. */
static void tsv_trim(const char **p, uint32_t *len)
{
    (void)p;
    if (*len && (*p)[*len - 1] == '\r')
        (*len)--;
}

/* Calls fn for each field of [p, p+n) with its bounds and whether it holds
 * a backslash; stops early when fn returns false. The vector splitter
 * (extract_int.h) over the separator, noting backslashes. */
typedef bool (*tsv_field_fn)(void *arg, uint32_t col, const char *p, uint32_t len, bool esc);

static bool tsv_split(char delim, const char *p, uint32_t n, tsv_field_fn fn, void *arg)
{
    if (n <= SPLIT_SHORT_MAX) {
        split_short_t ss;
        split_short_init(&ss, p, n, delim, '\\');
        for (uint32_t t = 0; t <= ss.n_sep; t++) {
            uint32_t start = split_short_start(&ss, t), end = split_short_end(&ss, t);
            bool esc = extract_first_eq(ss.eq, SPLIT_SHORT_WIN - 1, 0, start, end) != EXTRACT_NONE;
            if (!fn(arg, t, p + start, end - start, esc))
                return false;
        }
        return true;
    }
    split_tok_t tok[TSV_TOKS];
    split_t s;
    split_init(&s, p, n, delim, '\\');
    uint32_t col = 0;
    size_t nt;
    while ((nt = split_fill(&s, tok, TSV_TOKS)) > 0)
        for (size_t t = 0; t < nt; t++, col++)
            if (!fn(arg, col, p + tok[t].start, tok[t].end - tok[t].start,
                    tok[t].eq != EXTRACT_NONE))
                return false;
    return true;
}

/* ---- the header ---- */

typedef struct tsv_head {
    extractor_t *x;     /* the extractor */
    char *buf;          /* unescaped names */
    uint32_t cap;       /* its size */
    bool nomem;         /* an allocation failed */
} tsv_head_t;

static bool head_field(void *arg, uint32_t col, const char *p, uint32_t len, bool esc)
{
    tsv_head_t *h = arg;
    extractor_t *x = h->x;
    (void)col;
    if (esc) {
        if (h->cap < len) {
            char *nb = realloc(h->buf, len);
            if (!nb) {
                h->nomem = true;
                return false;
            }
            h->buf = nb;
            h->cap = len;
        }
        len = tsv_unescape(p, len, h->buf);
        p = h->buf;
    }
    uint32_t field = x->n_dyn ? extract_dyn_field(x, p, len) : EXTRACT_NONE;
    if (GROW_ARRAY(x->csv_map, x->csv_map_cap, (size_t)x->csv_cols + 1, 16) < 0) {
        h->nomem = true;
        return false;
    }
    x->csv_map[x->csv_cols++] = field;
    return true;
}

/* Reads a header line; false when out of memory. */
static bool tsv_header(extractor_t *x, const char *p, uint32_t n)
{
    char *copy = realloc(x->csv_head, n ? n : 1);
    if (copy) {
        memcpy(copy, p, n);
        x->csv_head = copy;
        x->csv_head_len = n;
    }
    x->csv_need_header = false;
    x->csv_cols = 0;
    tsv_head_t h = {x, NULL, 0, false};
    tsv_split(x->delim, p, n, head_field, &h);
    free(h.buf);
    x->csv_header_bad = h.nomem;
    return !h.nomem;
}

int extract_tsv_set_header(extractor_t *x, const char *line, size_t len, err_t *e)
{
    if (len > UINT32_MAX)
        return err_set(e, ERR_INPUT, "TSV header line too long");
    uint32_t l = (uint32_t)len;
    tsv_trim(&line, &l);
    if (!tsv_header(x, line, l))
        return err_set(e, ERR_NOMEM, "out of memory reading the TSV header");
    return 0;
}

/* ---- rows ---- */

typedef struct tsv_row {
    extractor_t *x;         /* the extractor */
    size_t i;               /* the line's row in the batch */
    sv_t *const *cols;      /* the columns */
    uint8_t st;             /* its status so far */
} tsv_row_t;

static bool row_field(void *arg, uint32_t col, const char *p, uint32_t len, bool esc)
{
    tsv_row_t *r = arg;
    extractor_t *x = r->x;
    if (col >= x->csv_cols) {
        extract_error(x, "TSV line has more fields than the header");
        r->st = EXTRACT_ERROR;
        return false;
    }
    uint32_t field = x->csv_map[col];
    if (field == EXTRACT_NONE)
        return true;
    if (esc) {
        char *out = extract_scratch(x, len);
        if (!out) {
            extract_error(x, "out of memory unescaping a TSV field");
            r->st = EXTRACT_ERROR;
            return false;
        }
        len = tsv_unescape(p, len, out);
        p = out;
    }
    r->cols[field][r->i].p = p;
    r->cols[field][r->i].len = len;
    return true;
}

static void tsv_batch(extractor_t *x, const char *const *line, const uint32_t *len, size_t n,
                      sv_t *const *cols, uint8_t *status)
{
    for (size_t i = 0; i < n; i++) {
        const char *p = line[i];
        uint32_t l = len[i];
        tsv_trim(&p, &l);
        uint8_t st;
        if (x->csv_need_header) {
            if (tsv_header(x, p, l)) {
                st = EXTRACT_SKIP;
            } else {
                extract_error(x, "out of memory reading the TSV header");
                st = EXTRACT_ERROR;
            }
        } else if (x->csv_header_bad) {
            extract_error(x, "TSV header of this source could not be read");
            st = EXTRACT_ERROR;
        } else {
            extract_line_common(x, i, p, l, cols);
            tsv_row_t r = {x, i, cols, EXTRACT_OK};
            tsv_split(x->delim, p, l, row_field, &r);
            st = r.st;
        }
        if (st != EXTRACT_OK)
            extract_line_missing(x, i, cols);
        else
            extract_line_dups(x, i, cols);
        status[i] = st;
    }
}

/* The columns of the current header, unescaped (up to 256 bytes each). */
typedef struct tsv_names_arg {
    extract_name_fn fn;     /* the caller's function */
    void *arg;              /* its argument */
} tsv_names_arg_t;

static bool name_field(void *arg, uint32_t col, const char *p, uint32_t len, bool esc)
{
    tsv_names_arg_t *a = arg;
    char buf[256];
    (void)col;
    if (!esc)
        a->fn(a->arg, p, len);
    else if (len <= sizeof buf)
        a->fn(a->arg, buf, tsv_unescape(p, len, buf));
    return true;
}

static void tsv_names(const extractor_t *x, const char *line, uint32_t len, extract_name_fn fn,
                      void *arg)
{
    (void)line;
    (void)len;
    if (!x->csv_head)
        return;
    tsv_names_arg_t a = {fn, arg};
    tsv_split(x->delim, x->csv_head, x->csv_head_len, name_field, &a);
}

const extract_format_t extract_format_tsv = {
    .name = "tsv", .dynamic = true, .batch = tsv_batch, .names = tsv_names,
    .per_source = true, .delimiter = '\t',
};
