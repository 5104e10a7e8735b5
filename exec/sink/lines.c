/* lines.c: plain, REMOTE and coloured line formatting. */
#include "exec/sink/lines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/term.h"

/* The paint of a coloured line around its data, in four fixed parts:
 *   A host B number C source D content-open content content-close
 * (by default the host painted bold, the number and source dim, white on
 * blue, with cyan '|' between: DTail's, base/palette.c). The sink writes
 * them, line_sink_escape_rendered finds them again in a server's lines. */
static size_t paint_sep(char *dst, const palette_t *p)
{
    return paint_text(dst, p->slot[PAL_REMOTE_DELIMITER], "|", 1);
}

static size_t paint_a(char *d, const palette_t *p)   /* before the host */
{
    size_t n = paint_text(d, p->slot[PAL_REMOTE_REMOTE], "REMOTE", 6);
    n += paint_sep(d + n, p);
    return n + paint_open(d + n, p->slot[PAL_REMOTE_HOSTNAME], NULL, 0);
}

static size_t close_of(char *d, paint_t c)
{
    return paint_close(d, c.attr != PAINT_NO_ATTR);
}

static size_t paint_b(char *d, const palette_t *p)   /* the host to the line number */
{
    size_t n = close_of(d, p->slot[PAL_REMOTE_HOSTNAME]);
    n += paint_sep(d + n, p);
    n += paint_text(d + n, p->slot[PAL_REMOTE_STATS_OK], "100", 3);
    n += paint_sep(d + n, p);
    /* The line number's own paint opens here and closes in mid. */
    return n + paint_open(d + n, p->slot[PAL_REMOTE_COUNT], NULL, 0);
}

static size_t paint_c(char *d, const palette_t *p)   /* the line number to the source id */
{
    size_t n = close_of(d, p->slot[PAL_REMOTE_COUNT]);
    n += paint_sep(d + n, p);
    return n + paint_open(d + n, p->slot[PAL_REMOTE_ID], NULL, 0);
}

static size_t paint_d(char *d, const palette_t *p)   /* the source id to the content */
{
    size_t n = close_of(d, p->slot[PAL_REMOTE_ID]);
    return n + paint_sep(d + n, p);
}

/* The content's paint: by its first word (WARN, ERROR, FATAL: Common's
 * severity paint), else Remote's text paint; each closes with the line's
 * '\n'. content_paint_t k = 0 is the text's, 1.. the words'. */
static const struct {
    const char *word;
    size_t len;
    int slot;
} content_word[] = {{"WARN", 4, PAL_SEVERITY_WARN}, {"ERROR", 5, PAL_SEVERITY_ERROR},
                    {"FATAL", 5, PAL_SEVERITY_FATAL}};
#define N_CONTENT_WORDS (sizeof content_word / sizeof content_word[0])

static void build_content_paints(content_paint_t *cp, const palette_t *p)
{
    for (size_t k = 0; k <= N_CONTENT_WORDS; k++) {
        paint_t c = p->slot[k ? content_word[k - 1].slot : PAL_REMOTE_TEXT];
        cp[k].open_len = paint_open(cp[k].open, c, NULL, 0);
        cp[k].close_len = close_of(cp[k].close, c);
        cp[k].close[cp[k].close_len++] = '\n';
    }
}

/* The paint of the content [p, p+len): the word's, else the text's. */
static const content_paint_t *content_paint(const content_paint_t *cp, const char *p, size_t len)
{
    for (size_t k = 0; k < N_CONTENT_WORDS; k++)
        if (len >= content_word[k].len && memcmp(p, content_word[k].word, content_word[k].len) == 0)
            return &cp[k + 1];
    return &cp[0];
}

/* [p, p+n) into d, escaped when the sink escapes; returns its length. */
static size_t put_name(const line_sink_t *s, char *d, const char *p, size_t n)
{
    if (s->escape)
        return term_escape(d, p, n, 0);
    memcpy(d, p, n);
    return n;
}

static void build_head(line_sink_t *s)
{
    char *h = s->head;
    size_t n = 0;
    if (s->format == LINE_COLOR) {
        n += paint_a(h + n, &s->palette);
        n += put_name(s, h + n, s->host, strlen(s->host));
        n += paint_b(h + n, &s->palette);
    } else {
        memcpy(h, "REMOTE|", 7);
        n = 7 + put_name(s, h + 7, s->host, strlen(s->host));
        memcpy(h + n, "|100|", 5);
        n += 5;
    }
    s->head_len = n;
}

int line_sink_init(line_sink_t *s, outbuf_t *out, enum line_format format, const char *host,
                   const palette_t *palette)
{
    memset(s, 0, sizeof *s);
    s->out = out;
    s->format = format;
    s->escape = out->escape_data;
    if (palette)
        s->palette = *palette;
    else
        palette_defaults(&s->palette);
    build_content_paints(s->content, &s->palette);
    /* DTail shows the host name cut at its first dot; cap it so the
     * painted head always fits. */
    size_t hl = strcspn(host, ".");
    if (hl > 200)
        hl = 200;
    s->host = strndup(host, hl);
    if (!s->host)
        return -1;
    build_head(s);
    line_sink_set_source(s, "-");
    return 0;
}

void line_sink_free(line_sink_t *s)
{
    free(s->host);
    s->host = NULL;
}

void line_sink_set_source(line_sink_t *s, const char *source_id)
{
    size_t sl = strlen(source_id);
    if (sl > 400)
        sl = 400;   /* a source id is a file name; keep mid bounded */
    char *m = s->mid;
    size_t n = 0;
    if (s->format == LINE_COLOR) {
        n += paint_c(m, &s->palette);
        n += put_name(s, m + n, source_id, sl);
        n += paint_d(m + n, &s->palette);
    } else {
        m[n++] = '|';
        n += put_name(s, m + n, source_id, sl);
        m[n++] = '|';
    }
    s->mid_len = n;
}

static void put_content_colored(line_sink_t *s, const char *p, size_t len)
{
    const content_paint_t *cp = content_paint(s->content, p, len);
    outbuf_append(s->out, cp->open, cp->open_len);
    outbuf_append_data(s->out, p, len, TERM_LINE_END);
    outbuf_append(s->out, cp->close, cp->close_len);
}

/* A DTail 4.1 line: the REMOTE head unless plain, the content, its '\n'
 * unless a tail line, the message's end. Off the hot path of the other
 * formats: line_sink_put reaches it only after theirs. */
static void put_dt41(line_sink_t *s, const char *p, size_t len, unsigned long long lineno)
{
    outbuf_t *o = s->out;
    if (s->format == LINE_DT41_REMOTE || s->format == LINE_DT41_REMOTE_NONL) {
        outbuf_append(o, s->head, s->head_len);
        outbuf_put_u64(o, lineno);
        outbuf_append(o, s->mid, s->mid_len);
    }
    outbuf_append(o, p, len);
    if (s->format == LINE_DT41_REMOTE || s->format == LINE_DT41_PLAIN)
        outbuf_putc(o, '\n');
    outbuf_putc(o, (char)0xAC);
}

void line_sink_put(line_sink_t *s, const char *p, size_t len, unsigned long long lineno)
{
    outbuf_t *o = s->out;
    s->n_lines++;
    if (s->format == LINE_PLAIN) {
        outbuf_append_data(o, p, len, TERM_LINE_END);
        outbuf_putc(o, '\n');
        return;
    }
    if (s->format >= LINE_DT41_REMOTE) {
        put_dt41(s, p, len, lineno);
        return;
    }
    outbuf_append(o, s->head, s->head_len);
    outbuf_put_u64(o, lineno);
    outbuf_append(o, s->mid, s->mid_len);
    if (s->format == LINE_COLOR) {
        put_content_colored(s, p, len);
    } else {
        outbuf_append_data(o, p, len, TERM_LINE_END);
        outbuf_putc(o, '\n');
    }
}

void line_sink_put_run(line_sink_t *s, const char *p, size_t len, unsigned long long n_lines)
{
    s->n_lines += n_lines;
    if (s->escape)
        outbuf_append_escaped(s->out, p, len, 0);
    else if (len >= s->out->cap / 2)
        outbuf_write_direct(s->out, p, len);
    else
        outbuf_append(s->out, p, len);
}

/* ---- a server's painted lines, escaped ---------------------------------- */

typedef struct painted {
    char a[160], b[224], c[96], d[64];   /* paint_a .. paint_d */
    size_t a_len, b_len, c_len, d_len;
    content_paint_t content[N_CONTENT_WORDS + 1];
} painted_t;

static int starts(const char *p, const char *e, const char *s, size_t n)
{
    return (size_t)(e - p) >= n && memcmp(p, s, n) == 0;
}

/* The line [l, e) (its '\n' included) as painted_t's parts and the data
 * between them, the data escaped; -1 when it is not of that form. The
 * parts are found by first occurrence and the content's paint by its end,
 * so data can never pass unescaped but as one of these very parts. */
static int escape_painted(outbuf_t *dst, const painted_t *t, const char *l, const char *e)
{
    if (!starts(l, e, t->a, t->a_len))
        return -1;
    const char *host = l + t->a_len;
    const char *host_end = memmem(host, (size_t)(e - host), t->b, t->b_len);
    if (!host_end)
        return -1;
    const char *num = host_end + t->b_len, *num_end = num;
    while (num_end < e && *num_end >= '0' && *num_end <= '9')
        num_end++;
    if (num_end == num || !starts(num_end, e, t->c, t->c_len))
        return -1;
    const char *src = num_end + t->c_len;
    const char *src_end = memmem(src, (size_t)(e - src), t->d, t->d_len);
    if (!src_end)
        return -1;
    const char *body = src_end + t->d_len;
    const content_paint_t *cp = &t->content[0];
    for (size_t k = 0; k < N_CONTENT_WORDS; k++) {
        const content_paint_t *w = &t->content[k + 1];
        if (starts(body, e, w->open, w->open_len) &&
            starts(body + w->open_len, e, content_word[k].word, content_word[k].len) &&
            (size_t)(e - body) >= w->open_len + w->close_len &&
            memcmp(e - w->close_len, w->close, w->close_len) == 0) {
            cp = w;
            break;
        }
    }
    const char *open = cp->open, *close = cp->close;
    size_t ol = cp->open_len, cl = cp->close_len;
    if (!starts(body, e, open, ol) || (size_t)(e - body) < ol + cl || memcmp(e - cl, close, cl) != 0)
        return -1;
    outbuf_append(dst, t->a, t->a_len);
    outbuf_append_escaped(dst, host, (size_t)(host_end - host), 0);
    outbuf_append(dst, t->b, t->b_len);
    outbuf_append(dst, num, (size_t)(num_end - num));
    outbuf_append(dst, t->c, t->c_len);
    outbuf_append_escaped(dst, src, (size_t)(src_end - src), 0);
    outbuf_append(dst, t->d, t->d_len);
    outbuf_append(dst, open, ol);
    outbuf_append_escaped(dst, body + ol, (size_t)(e - cl - (body + ol)), TERM_LINE_END);
    outbuf_append(dst, close, cl);
    return 0;
}

void line_sink_escape_rendered(outbuf_t *dst, enum line_format f, const palette_t *palette,
                               const char *p, size_t n)
{
    if (f != LINE_COLOR) {   /* nothing of ours in it: all of it is data */
        outbuf_append_escaped(dst, p, n, 0);
        return;
    }
    palette_t dflt;
    if (!palette) {
        palette_defaults(&dflt);
        palette = &dflt;
    }
    painted_t t;
    t.a_len = paint_a(t.a, palette);
    t.b_len = paint_b(t.b, palette);
    t.c_len = paint_c(t.c, palette);
    t.d_len = paint_d(t.d, palette);
    build_content_paints(t.content, palette);
    const char *end = p + n;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl + 1 : end;
        if (!nl || escape_painted(dst, &t, p, e) < 0)
            outbuf_append_escaped(dst, p, (size_t)(e - p), 0);
        p = e;
    }
}
