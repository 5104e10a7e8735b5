/* result.c: ordering, rendering, table and CSV output. */
#include "exec/sink/result.h"

#include "base/numfmt.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fdio.h"
#include "base/grow.h"
#include "base/term.h"
#include "exec/agg/distinct.h"
#include "exec/agg/quant.h"
#include "exec/agg/post.h"
#include "exec/agg/sketch.h"
#include "exec/agg/topk.h"
#include "exec/sink/lines.h"
#include "wire/codec.h"

typedef struct row_ref {
    size_t group;           /* group index in the table */
    char *key;              /* display key: parts joined by ',' */
    size_t key_len;         /* its length */
    double order;           /* order-by value, numeric columns */
    const char *text;       /* order-by value, text columns */
    uint32_t text_len;      /* its length */
} row_ref_t;

/* Byte order, a prefix first: memcmp, then the length. */
static int cmp_bytes(const char *a, size_t alen, const char *b, size_t blen)
{
    int c = memcmp(a, b, alen < blen ? alen : blen);
    return c ? c : (alen > blen) - (alen < blen);
}

static int cmp_key(const void *a, const void *b)
{
    const row_ref_t *x = a, *y = b;
    return cmp_bytes(x->key, x->key_len, y->key, y->key_len);
}

/* A total order of doubles: NaN (a sum of +inf and -inf) below every
 * number, so sorting is well defined and agrees with the spill's SQLite
 * order, where NaN is stored as NULL. */
static int cmp_num(double x, double y)
{
    if (isnan(x) || isnan(y))
        return isnan(y) - isnan(x);
    return (x > y) - (x < y);
}

/* Order value first, ties in group-key order: DTail's key sort followed by
 * a stable sort on the value, done as one sort. */
static int cmp_desc(const void *a, const void *b)
{
    const row_ref_t *x = a, *y = b;
    int c = cmp_num(y->order, x->order);
    return c ? c : cmp_key(a, b);
}

static int cmp_asc(const void *a, const void *b)
{
    const row_ref_t *x = a, *y = b;
    int c = cmp_num(x->order, y->order);
    return c ? c : cmp_key(a, b);
}

static int cmp_text_desc(const void *a, const void *b)
{
    const row_ref_t *x = a, *y = b;
    int c = cmp_bytes(y->text, y->text_len, x->text, x->text_len);
    return c ? c : cmp_key(a, b);
}

static int cmp_text_asc(const void *a, const void *b)
{
    const row_ref_t *x = a, *y = b;
    int c = cmp_bytes(x->text, x->text_len, y->text, y->text_len);
    return c ? c : cmp_key(a, b);
}

/* Restores the max-heap rows[0..n) below position j. */
static void sift_down(row_ref_t *rows, size_t n, size_t j, int (*cmp)(const void *, const void *))
{
    for (;;) {
        size_t l = 2 * j + 1, r = l + 1, m = j;
        if (l < n && cmp(&rows[l], &rows[m]) > 0)
            m = l;
        if (r < n && cmp(&rows[r], &rows[m]) > 0)
            m = r;
        if (m == j)
            return;
        row_ref_t t = rows[j];
        rows[j] = rows[m];
        rows[m] = t;
        j = m;
    }
}

/* Moves the `keep` first rows in cmp order to the front, sorted: a bounded
 * max-heap, O(n log keep), for a short terminal table over many groups. */
static void top_rows(row_ref_t *rows, size_t n, size_t keep, int (*cmp)(const void *, const void *))
{
    if (keep == 0)
        return;
    /* rows[0..keep) is a max-heap of the best rows seen so far. */
    for (size_t i = keep / 2; i-- > 0;)
        sift_down(rows, keep, i, cmp);
    for (size_t i = keep; i < n; i++) {
        if (cmp(&rows[i], &rows[0]) >= 0)
            continue;
        row_ref_t t = rows[0];
        rows[0] = rows[i];
        rows[i] = t;
        sift_down(rows, keep, 0, cmp);
    }
    qsort(rows, keep, sizeof *rows, cmp);
}

static int cmp_double(const void *a, const void *b)
{
    return cmp_num(*(const double *)a, *(const double *)b);
}

char *result_group_key(const agg_table_t *t, size_t g, char *out, size_t *len)
{
    const char *k = agg_table_key(t, g);
    size_t kl = t->groups[g].key_len;
    size_t n = 0, i = 0;
    while (i + 4 <= kl) {
        uint32_t pl = wire_le32_load((const unsigned char *)k + i);
        if (pl > kl - i - 4)
            break;   /* malformed (a partial from elsewhere): stop, never overrun */
        /* A comma before every part but the first, also after an empty
         * one: the key ("", "z") is ",z", as the spill's merge orders it. */
        if (i)
            out[n++] = ',';
        memcpy(out + n, k + i + 4, pl);
        n += pl;
        i += 4 + pl;
    }
    out[n] = '\0';
    *len = n;
    return out;
}

typedef result_col_totals_t col_totals_t;

static double percentile_rank(const col_totals_t *ct, double x)
{
    if (!ct->n)
        return 0;
    /* Number of values <= x (equal values share the upper rank), in the
     * order of cmp_num. */
    size_t lo = 0, hi = ct->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (cmp_num(ct->sorted[mid], x) <= 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (double)lo / (double)ct->n * 100.0;
}

/* "%f" of the largest double: 309 digits, the sign, the point and six
 * decimals, and the NUL. */
#define CELL_NUMBER_MAX 320

/* A rendered number: "%f", and for the non-finite values Go's text, as
 * DTail prints them (printf would write inf, -inf, nan or -nan). */
int result_format_real(char *buf, size_t cap, double v)
{
    if (isfinite(v))
        return numfmt_fixed6(buf, cap, v);
    return snprintf(buf, cap, "%s", isnan(v) ? "NaN" : v > 0 ? "+Inf" : "-Inf");
}

size_t result_cell_need(const agg_spec_t *spec, const unsigned char *st)
{
    if (spec->agg == PLAN_AGG_LAST)
        return 64 + ((const agg_last_t *)(const void *)st)->len;
    if (spec->agg == PLAN_AGG_TOP) {
        const topk_t *k;
        memcpy(&k, st, sizeof k);
        return k ? topk_render_need(k, spec->top_k) : 1;
    }
    return CELL_NUMBER_MAX;
}

int result_format_cell(char *buf, size_t cap, const agg_spec_t *spec, const unsigned char *st,
                       const col_totals_t *ct)
{
    /* An arithmetic column without a value (a division by zero, an
     * operand without a number) is always empty. */
    if ((spec->null_empty || spec->agg == PLAN_AGG_EXPR) && agg_state_no_number(spec, st))
        return snprintf(buf, cap, "%s", "");
    switch (spec->agg) {
    case PLAN_AGG_COUNT: {
        uint64_t c;
        memcpy(&c, st, 8);
        return numfmt_u64(buf, cap, c);
    }
    case PLAN_AGG_LAST: {
        const agg_last_t *l = (const agg_last_t *)(const void *)st;
        if (!l->seq)
            return snprintf(buf, cap, "%s", "");
        return snprintf(buf, cap, "%.*s", (int)l->len, l->p);
    }
    case PLAN_AGG_COUNT_DISTINCT: {
        const distinct_t *d;
        memcpy(&d, st, sizeof d);
        return numfmt_u64(buf, cap, d ? distinct_count(d) : 0);
    }
    case PLAN_AGG_TOP: {
        const topk_t *k;
        memcpy(&k, st, sizeof k);
        int n = k ? topk_render(k, spec->top_k, buf, cap) : 0;
        if (n <= 0)
            buf[0] = '\0';   /* no value; or out of memory: an empty cell */
        return n < 0 ? 0 : n;
    }
    default:
        return result_format_real(buf, cap, result_item_number(spec, st, ct));
    }
}

double result_item_number(const agg_spec_t *spec, const unsigned char *st,
                          const col_totals_t *ct)
{
    double v = agg_state_number(spec, st);
    switch (spec->agg) {
    case PLAN_AGG_PERCENTAGE:
        return ct->sum != 0 ? v / ct->sum * 100.0 : 0.0;
    case PLAN_AGG_PERCENTILE:
        return isnan(v) ? v : percentile_rank(ct, v);
    default:
        return v;
    }
}

/* ---- totals and rows, shared with spilled results ------------------------- */

static int is_total_agg(enum plan_agg agg)
{
    return agg == PLAN_AGG_PERCENTAGE || agg == PLAN_AGG_PERCENTILE;
}

int result_needs_totals(const agg_spec_t *specs, size_t n)
{
    for (size_t c = 0; c < n; c++)
        if (is_total_agg(specs[c].agg))
            return 1;
    return 0;
}

int result_totals_add(result_col_totals_t *ct, const agg_table_t *t, size_t g)
{
    for (size_t c = 0; c < t->n_specs; c++) {
        if (!is_total_agg(t->specs[c].agg))
            continue;
        double v = agg_state_number(&t->specs[c], agg_table_state(t, g, c));
        ct[c].sum += v;
        if (t->specs[c].agg == PLAN_AGG_PERCENTILE) {
            if (GROW_ARRAY(ct[c].sorted, ct[c].cap, ct[c].n + 1, 1024) < 0)
                return -1;
            ct[c].sorted[ct[c].n] = v;
        }
        ct[c].n++;
    }
    return 0;
}

void result_totals_finish(result_col_totals_t *ct, size_t n)
{
    for (size_t c = 0; c < n; c++)
        if (ct[c].sorted)
            qsort(ct[c].sorted, ct[c].n, sizeof(double), cmp_double);
}

void result_totals_free(result_col_totals_t *ct, size_t n)
{
    for (size_t c = 0; ct && c < n; c++)
        free(ct[c].sorted);
    free(ct);
}

char *result_rows_cell(result_rows_t *rb, size_t need)
{
    size_t cap_cells = rb->cap_cells;
    if (GROW_ARRAY(rb->text, rb->cap, rb->len + need, 4096) < 0 ||
        GROW_ARRAY(rb->offs, rb->cap_cells, rb->n_cells + 1, 256) < 0 ||
        GROW_ARRAY(rb->approx, cap_cells, rb->n_cells + 1, 256) < 0)
        return NULL;
    rb->approx[rb->n_cells] = 0;
    rb->offs[rb->n_cells++] = rb->len;
    return rb->text + rb->len;
}

int result_rows_add(result_rows_t *rb, const plan_t *plan, const agg_table_t *t, size_t g,
                    const result_col_totals_t *ct)
{
    for (size_t c = 0; c < plan->n_columns && c < t->n_specs; c++) {
        const unsigned char *st = agg_table_state(t, g, c);
        size_t need = result_cell_need(&t->specs[c], st);
        char *at = result_rows_cell(rb, need);
        if (!at)
            return -1;
        rb->len += (size_t)result_format_cell(at, need, &t->specs[c], st, &ct[c]) + 1;
        if (agg_state_approx(&t->specs[c], st))
            rb->approx[rb->n_cells - 1] = rb->any_approx = 1;
    }
    rb->n_rows++;
    return 0;
}

int result_rows_take(result_rows_t *rb, const plan_t *plan, size_t n_groups, result_t *r,
                     err_t *e)
{
    memset(r, 0, sizeof *r);
    r->n_cols = plan->n_columns;
    r->n_rows = rb->n_rows;
    r->n_groups = n_groups;
    r->headers = calloc(plan->n_columns ? plan->n_columns : 1, sizeof *r->headers);
    r->cells = calloc(rb->n_cells + 1, sizeof *r->cells);
    if (!r->headers || !r->cells) {
        result_free(r);
        return err_set(e, ERR_NOMEM, "out of memory rendering %zu groups", n_groups);
    }
    for (size_t c = 0; c < plan->n_columns; c++)
        r->headers[c] = plan->select[c].name;
    for (size_t k = 0; k < rb->n_cells; k++)
        r->cells[k] = rb->text + rb->offs[k];
    if (rb->any_approx) {
        r->approx = malloc(rb->n_cells ? rb->n_cells : 1);
        if (!r->approx) {
            result_free(r);
            return err_set(e, ERR_NOMEM, "out of memory rendering %zu groups", n_groups);
        }
        memcpy(r->approx, rb->approx, rb->n_cells);
    }
    rb->any_approx = 0;
    r->text = rb->text;   /* result_free frees it */
    rb->text = NULL;
    rb->len = rb->cap = 0;
    rb->n_cells = rb->n_rows = 0;
    return 0;
}

void result_rows_free(result_rows_t *rb)
{
    free(rb->text);
    free(rb->offs);
    free(rb->approx);
    memset(rb, 0, sizeof *rb);
}

void result_free(result_t *r)
{
    free(r->approx);
    free(r->cells);
    free(r->text);
    free(r->headers);
    memset(r, 0, sizeof *r);
}

int result_build(const plan_t *plan, const agg_table_t *t, long long limit, result_t *r, err_t *e)
{
    memset(r, 0, sizeof *r);
    size_t ng = t->n_groups, nc = t->n_specs;
    char *keybuf = NULL;
    result_rows_t rb = {0};
    agg_post_t post;
    int have_post = agg_post_needed(plan);
    if (have_post && agg_post_init(&post, plan, e) < 0)
        return -1;
    row_ref_t *rows = calloc(ng ? ng : 1, sizeof *rows);
    col_totals_t *ct = calloc(nc ? nc : 1, sizeof *ct);
    if (!rows || !ct)
        goto nomem;
    /* Totals over all groups for percentage and percentile (before having,
     * as before the limit). */
    if (result_needs_totals(t->specs, nc)) {
        for (size_t g = 0; g < ng; g++)
            if (result_totals_add(ct, t, g) < 0)
                goto nomem;
        result_totals_finish(ct, nc);
    }
    keybuf = malloc(t->keys_len + ng + 1);
    if (!keybuf)
        goto nomem;
    size_t kept = 0;
    for (size_t g = 0, off = 0; g < ng; g++) {
        /* Arithmetic columns and having, once per group of the merged
         * result, serverless or merged from servers alike. */
        if (have_post && !agg_post_group(&post, (agg_table_t *)t, g, ct))
            continue;
        rows[kept].group = g;
        rows[kept].key = result_group_key(t, g, keybuf + off, &rows[kept].key_len);
        off += rows[kept].key_len + 1;
        kept++;
    }
    int (*cmp)(const void *, const void *) = cmp_key;
    if (plan->order_index >= 0 && (size_t)plan->order_index < nc) {
        const agg_spec_t *spec = &t->specs[plan->order_index];
        int text = 0;
        for (size_t i = 0; i < kept; i++) {
            const unsigned char *st = agg_table_state(t, rows[i].group, (size_t)plan->order_index);
            text |= agg_state_text(spec, st, &rows[i].text, &rows[i].text_len);
            rows[i].order = agg_state_number(spec, st);
        }
        if (text)
            cmp = plan->order_ascending ? cmp_text_asc : cmp_text_desc;
        else
            cmp = plan->order_ascending ? cmp_asc : cmp_desc;
    }
    size_t keep = limit >= 0 && (unsigned long long)limit < kept ? (size_t)limit : kept;
    if (keep < kept / 4)
        top_rows(rows, kept, keep, cmp);   /* a short table of many groups */
    else
        qsort(rows, kept, sizeof *rows, cmp);
    for (size_t i = 0; i < keep; i++)
        if (result_rows_add(&rb, plan, t, rows[i].group, ct) < 0)
            goto nomem;
    free(keybuf);
    free(rows);
    result_totals_free(ct, nc);
    int rc = result_rows_take(&rb, plan, kept, r, e);
    result_rows_free(&rb);
    if (have_post) {
        r->n_divzero = post.n_divzero;
        agg_post_free(&post);
    }
    return rc;
nomem:
    free(keybuf);
    free(rows);
    result_totals_free(ct, nc);
    result_rows_free(&rb);
    if (have_post)
        agg_post_free(&post);
    return err_set(e, ERR_NOMEM, "out of memory rendering %zu groups", ng);
}


/* The width of a cell as shown: escaped (base/term.h) when esc. */
static size_t cell_width(const char *s, int esc)
{
    return esc ? term_escape(NULL, s, strlen(s), 0) : strlen(s);
}

/* " %*s " into buf (cap >= width + 3 and cell_width(s, esc) + 3), s
 * escaped when esc (cells hold log data; a table on a terminal shows them
 * escaped, padded to what is shown). */
static size_t pad_cell(char *buf, const char *s, size_t width, int esc)
{
    size_t n = strlen(s), shown = esc ? cell_width(s, esc) : n, k = 0;
    buf[k++] = ' ';
    for (size_t i = shown; i < width; i++)
        buf[k++] = ' ';
    if (esc) {
        k += term_escape(buf + k, s, n, 0);
    } else {
        memcpy(buf + k, s, n);
        k += n;
    }
    buf[k++] = ' ';
    return k;
}

static void put_delim(outbuf_t *out, const palette_t *color, int slot)
{
    if (color)
        paint_append(out, color->slot[slot], NULL, 0, "|", 1, 0);
    else
        outbuf_putc(out, '|');
}

void result_render_table(const result_t *r, outbuf_t *out, const palette_t *color, int sort_col,
                         const unsigned char *group_key)
{
    size_t *w = calloc(r->n_cols ? r->n_cols : 1, sizeof *w);
    if (!w)
        return;
    size_t widest = 0;
    int esc = out->escape_data;
    for (size_t c = 0; c < r->n_cols; c++) {
        w[c] = strlen(r->headers[c]);
        for (size_t i = 0; i < r->n_rows; i++) {
            size_t n = cell_width(result_cell(r, i, c), esc);
            if (n > w[c])
                w[c] = n;
        }
        if (w[c] > widest)
            widest = w[c];
    }
    char *cell = malloc(widest + 3);
    if (!cell) {
        free(w);
        return;
    }
    for (size_t c = 0; c < r->n_cols; c++) {
        if (c)
            put_delim(out, color, PAL_TABLE_HEADER_DELIMITER);
        size_t n = pad_cell(cell, r->headers[c], w[c], 0);
        if (color) {
            uint8_t extra[2] = {(int)c == sort_col ? color->sort_key_attr : PAINT_NO_ATTR,
                                group_key && group_key[c] ? color->group_key_attr : PAINT_NO_ATTR};
            paint_append(out, color->slot[PAL_TABLE_HEADER], extra, 2, cell, n, 0);
        } else {
            outbuf_append(out, cell, n);
        }
    }
    outbuf_putc(out, '\n');
    for (size_t c = 0; c < r->n_cols; c++) {
        if (c)
            put_delim(out, color, PAL_TABLE_HEADER_DELIMITER);
        memset(cell, '-', w[c] + 2);
        if (color)
            paint_append(out, color->slot[PAL_TABLE_HEADER_DELIMITER], NULL, 0, cell, w[c] + 2, 0);
        else
            outbuf_append(out, cell, w[c] + 2);
    }
    outbuf_putc(out, '\n');
    for (size_t i = 0; i < r->n_rows; i++) {
        for (size_t c = 0; c < r->n_cols; c++) {
            if (c)
                put_delim(out, color, PAL_TABLE_DELIMITER);
            size_t n = pad_cell(cell, result_cell(r, i, c), w[c], esc);
            if (color)
                paint_append(out, color->slot[PAL_TABLE_DATA], NULL, 0, cell, n, 0);
            else
                outbuf_append(out, cell, n);
        }
        outbuf_putc(out, '\n');
    }
    free(cell);
    free(w);
}

/* A CSV field, quoted when it must be; its bytes are data (escaped when
 * out ends on a terminal, the quoting not). */
static void csv_value(outbuf_t *out, const char *s)
{
    if (!strpbrk(s, ",\"\r\n")) {
        outbuf_append_data(out, s, strlen(s), 0);
        return;
    }
    outbuf_putc(out, '"');
    for (;;) {
        size_t n = strcspn(s, "\"");
        outbuf_append_data(out, s, n, 0);
        if (!s[n])
            break;
        outbuf_append(out, "\"\"", 2);
        s += n + 1;
    }
    outbuf_putc(out, '"');
}

void result_render_csv(const result_t *r, outbuf_t *out, int header)
{
    if (header) {
        for (size_t c = 0; c < r->n_cols; c++) {
            if (c)
                outbuf_putc(out, ',');
            csv_value(out, r->headers[c]);
        }
        outbuf_putc(out, '\n');
    }
    for (size_t i = 0; i < r->n_rows; i++) {
        for (size_t c = 0; c < r->n_cols; c++) {
            if (c)
                outbuf_putc(out, ',');
            csv_value(out, result_cell(r, i, c));
        }
        outbuf_putc(out, '\n');
    }
}

int result_csv_query_path(const outpath_t *dest, outpath_t *q, err_t *e)
{
    char qpath[OUTPATH_MAX];
    if (snprintf(qpath, sizeof qpath, "%s.query", dest->target) >= (int)sizeof qpath)
        return err_set(e, ERR_IO, "outfile %s: path too long", dest->given);
    return outpath_resolve(q, qpath, dest->given, e);
}

/* The query text into its own temporary, renamed by close with the rows. */
static int stage_query(result_csv_t *w, const char *query, err_t *e)
{
    if (result_csv_query_path(&w->dest, &w->qdest, e) < 0)
        return -1;
    int fd = outpath_temp(&w->qdest, w->qtmp, sizeof w->qtmp, e);
    if (fd < 0)
        return -1;
    int rc = fdio_write_all(fd, query, strlen(query));
    int err = errno;
    if (close(fd) < 0 && rc == 0) {
        rc = -1;
        err = errno;
    }
    if (rc < 0) {
        err_set(e, ERR_IO, "outfile %s: writing %s: %s", w->dest.given, w->qtmp, strerror(err));
        unlink(w->qtmp);
        w->qtmp[0] = '\0';
        return -1;
    }
    return 0;
}

/* Opens the file rows go to: a temporary beside the target (renamed at
 * the end), the target itself when appending, or stdout. */
static int open_dest(result_csv_t *w, const char *query, err_t *e)
{
    if (w->to_stdout) {
        w->fd = STDOUT_FILENO;
        w->header = 1;
        return 0;
    }
    if (!w->append) {
        if (stage_query(w, query, e) < 0)
            return -1;
        w->fd = outpath_temp(&w->dest, w->tmp, sizeof w->tmp, e);
        w->header = 1;
        return w->fd < 0 ? -1 : 0;
    }
    /* O_NONBLOCK and O_NOFOLLOW: what replaced the checked file since
     * (a FIFO, a link) is neither waited on nor followed, and is refused. */
    const char *t = w->dest.target;
    w->fd = open(t, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
    if (w->fd < 0)
        return err_set(e, ERR_IO, "outfile %s: %s: %s", w->dest.given, t, strerror(errno));
    struct stat st;
    if (fstat(w->fd, &st) < 0 || !S_ISREG(st.st_mode)) {
        close(w->fd);
        w->fd = -1;
        return err_set(e, ERR_IO, "outfile %s: %s is not a regular file; not appended to",
                       w->dest.given, t);
    }
    w->header = st.st_size == 0;
    return 0;
}

/* Removes the temporaries of a write that is not kept. */
static void discard(result_csv_t *w)
{
    if (w->tmp[0])
        unlink(w->tmp);
    if (w->qtmp[0])
        unlink(w->qtmp);
    w->tmp[0] = w->qtmp[0] = '\0';
}

int result_csv_open(result_csv_t *w, const char *path, int append, const char *query, err_t *e)
{
    memset(w, 0, sizeof *w);
    w->fd = -1;
    w->append = append;
    w->to_stdout = outpath_is_stdout(path);
    if (!w->to_stdout && outpath_resolve(&w->dest, path, path, e) < 0)
        return -1;
    if (open_dest(w, query, e) < 0) {
        discard(w);
        return -1;
    }
    if (outbuf_init(&w->out, w->fd, 256 * 1024, e) < 0) {
        if (!w->to_stdout)
            close(w->fd);
        w->fd = -1;
        discard(w);
        return -1;
    }
    return 0;
}

void result_csv_put(result_csv_t *w, const result_t *r)
{
    result_render_csv(r, &w->out, w->header);
    w->header = 0;
}

int result_csv_close(result_csv_t *w, int keep, err_t *e)
{
    if (w->fd < 0)
        return keep ? -1 : 0;
    outbuf_flush(&w->out);
    int failed = w->out.failed, err = w->out.write_errno;
    outbuf_free(&w->out);
    if (!w->to_stdout && close(w->fd) < 0 && !failed) {
        failed = 1;
        err = errno;
    }
    w->fd = -1;
    if (!keep || failed) {
        discard(w);
        if (!keep)
            return 0;
        if (w->to_stdout)
            return err_set(e, ERR_IO, "outfile -: writing to stdout: %s", strerror(err));
        return err_set(e, ERR_IO, "outfile %s: %s %s failed: %s", w->dest.given,
                       w->append ? "appending to" : "writing", w->append ? w->dest.target : w->tmp,
                       strerror(err));
    }
    if (w->to_stdout || w->append)
        return 0;
    /* The rows first: a failure after them still leaves the result. */
    int rc = outpath_commit(&w->dest, w->tmp, e);
    w->tmp[0] = '\0';
    if (rc < 0) {
        discard(w);
        return -1;
    }
    rc = outpath_commit(&w->qdest, w->qtmp, e);
    w->qtmp[0] = '\0';
    return rc;
}

int result_write_csv(const result_t *r, const char *path, int append, const char *query, err_t *e)
{
    result_csv_t w;
    if (result_csv_open(&w, path, append, query, e) < 0)
        return -1;
    result_csv_put(&w, r);
    return result_csv_close(&w, 1, e);
}

void result_approx_add(const result_t *r, size_t *rows)
{
    for (size_t i = 0; r->approx && i < r->n_rows; i++)
        for (size_t c = 0; c < r->n_cols; c++)
            rows[c] += r->approx[i * r->n_cols + c];
}

/* What an item's estimate is, for the note. */
static const char *approx_kind(enum plan_agg agg)
{
    switch (agg) {
    case PLAN_AGG_QUANTILE:
        return "more than 10000 values: a DDSketch, within 1% of the true value";
    case PLAN_AGG_COUNT_DISTINCT:
        return "more than 10000 distinct values: HyperLogLog, standard error 0.81%";
    default:
        return "more than 20000 distinct values: Misra-Gries, counts may be low";
    }
}

int result_approx_text(const plan_t *plan, const size_t *rows, char *buf, size_t cap)
{
    int len = 0;
    for (size_t c = 0; c < plan->n_columns && len >= 0 && (size_t)len < cap; c++) {
        if (!rows[c])
            continue;
        len += snprintf(buf + len, cap - (size_t)len, "%s%s is approximate in %zu row%s (%s)",
                        len ? "; " : "approximate result: ", plan->select[c].name, rows[c],
                        rows[c] == 1 ? "" : "s", approx_kind(plan->select[c].agg));
    }
    if (len >= 0 && (size_t)len >= cap && cap > 4)
        memcpy(buf + cap - 4, "...", 4);
    return len;
}
