/* lines.c: plain, REMOTE and coloured line formatting. */
#include "exec/sink/lines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/term.h"

enum {
    FG_BLACK = 30, FG_WHITE = 37, FG_CYAN = 36,
    BG_RED = 41, BG_GREEN = 42, BG_BLUE = 44, BG_MAGENTA = 45, BG_BLACK = 40,
    ATTR_BOLD = 1, ATTR_DIM = 2,
};

#define ESC "\033["

size_t color_open(char *dst, int fg, int bg, const int *attrs, size_t n_attrs)
{
    size_t n = (size_t)sprintf(dst, ESC "%dm" ESC "%dm", fg, bg);
    for (size_t i = 0; i < n_attrs; i++)
        n += (size_t)sprintf(dst + n, ESC "%dm", attrs[i]);
    return n;
}

size_t color_close(char *dst, size_t n_attrs)
{
    size_t n = 0;
    if (n_attrs)
        n += (size_t)sprintf(dst, ESC "0m");
    n += (size_t)sprintf(dst + n, ESC "49m" ESC "39m");
    return n;
}

size_t color_paint(char *dst, const char *text, size_t len, int fg, int bg, int attr)
{
    size_t n_attrs = attr >= 0;
    size_t n = color_open(dst, fg, bg, &attr, n_attrs);
    memcpy(dst + n, text, len);
    n += len;
    return n + color_close(dst + n, n_attrs);
}

static size_t paint_sep(char *dst)
{
    return color_paint(dst, "|", 1, FG_CYAN, BG_BLUE, ATTR_DIM);
}

/* The paint of a coloured line around its data, in four fixed parts:
 *   A host B number C source D content-open content content-close
 * (the host painted bold, the number and source dim, white on blue, with
 * cyan '|' between). The sink writes them, line_sink_escape_rendered
 * finds them again in a server's lines. */
static size_t paint_a(char *d)   /* before the host */
{
    size_t n = color_paint(d, "REMOTE", 6, FG_WHITE, BG_BLUE, ATTR_DIM);
    n += paint_sep(d + n);
    return n + color_open(d + n, FG_WHITE, BG_BLUE, (const int[]){ATTR_BOLD}, 1);
}

static size_t paint_b(char *d)   /* the host to the line number */
{
    size_t n = color_close(d, 1);
    n += paint_sep(d + n);
    n += color_paint(d + n, "100", 3, FG_BLACK, BG_GREEN, -1);
    n += paint_sep(d + n);
    /* The line number's own paint opens here and closes in mid. */
    return n + color_open(d + n, FG_WHITE, BG_BLUE, (const int[]){ATTR_DIM}, 1);
}

static size_t paint_c(char *d)   /* the line number to the source id */
{
    size_t n = color_close(d, 1);
    n += paint_sep(d + n);
    return n + color_open(d + n, FG_WHITE, BG_BLUE, (const int[]){ATTR_DIM}, 1);
}

static size_t paint_d(char *d)   /* the source id to the content */
{
    size_t n = color_close(d, 1);
    return n + paint_sep(d + n);
}

/* The content's paint: by its first word (WARN, ERROR, FATAL: bold on
 * black, red, magenta), else plain white on black. */
static const char plain_open[] = ESC "37m" ESC "40m";
static const char close_plain[] = ESC "49m" ESC "39m\n";
static const char close_attr[] = ESC "0m" ESC "49m" ESC "39m\n";
#define CONTENT_ATTR(word, bg) \
    {word, sizeof word - 1, ESC "37m" ESC bg "m" ESC "1m", sizeof(ESC "37m" ESC bg "m" ESC "1m") - 1}
static const struct {
    const char *word;
    size_t len;
    const char *open;
    size_t open_len;
} content_attr[] = {CONTENT_ATTR("WARN", "40"), CONTENT_ATTR("ERROR", "41"), CONTENT_ATTR("FATAL", "45")};
#undef CONTENT_ATTR

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
        n += paint_a(h + n);
        n += put_name(s, h + n, s->host, strlen(s->host));
        n += paint_b(h + n);
    } else {
        memcpy(h, "REMOTE|", 7);
        n = 7 + put_name(s, h + 7, s->host, strlen(s->host));
        memcpy(h + n, "|100|", 5);
        n += 5;
    }
    s->head_len = n;
}

int line_sink_init(line_sink_t *s, outbuf_t *out, enum line_format format, const char *host)
{
    memset(s, 0, sizeof *s);
    s->out = out;
    s->format = format;
    s->escape = out->escape_data;
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
        n += paint_c(m);
        n += put_name(s, m + n, source_id, sl);
        n += paint_d(m + n);
    } else {
        m[n++] = '|';
        n += put_name(s, m + n, source_id, sl);
        m[n++] = '|';
    }
    s->mid_len = n;
}

static void put_content_colored(line_sink_t *s, const char *p, size_t len)
{
    outbuf_t *o = s->out;
    for (size_t k = 0; k < sizeof content_attr / sizeof content_attr[0]; k++) {
        if (len >= content_attr[k].len && memcmp(p, content_attr[k].word, content_attr[k].len) == 0) {
            outbuf_append(o, content_attr[k].open, content_attr[k].open_len);
            outbuf_append_data(o, p, len, TERM_LINE_END);
            outbuf_append(o, close_attr, sizeof close_attr - 1);
            return;
        }
    }
    outbuf_append(o, plain_open, sizeof plain_open - 1);
    outbuf_append_data(o, p, len, TERM_LINE_END);
    outbuf_append(o, close_plain, sizeof close_plain - 1);
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
    char a[128], b[192], c[96], d[64];   /* paint_a .. paint_d */
    size_t a_len, b_len, c_len, d_len;
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
    const char *body = src_end + t->d_len, *open = plain_open, *close = close_plain;
    for (size_t k = 0; k < sizeof content_attr / sizeof content_attr[0]; k++) {
        const char *o = content_attr[k].open;
        size_t ol = content_attr[k].open_len;
        if (starts(body, e, o, ol) &&
            starts(body + ol, e, content_attr[k].word, content_attr[k].len) &&
            (size_t)(e - body) >= ol + sizeof close_attr - 1 &&
            memcmp(e - (sizeof close_attr - 1), close_attr, sizeof close_attr - 1) == 0) {
            open = o;
            close = close_attr;
            break;
        }
    }
    size_t ol = strlen(open), cl = strlen(close);
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

void line_sink_escape_rendered(outbuf_t *dst, enum line_format f, const char *p, size_t n)
{
    if (f != LINE_COLOR) {   /* nothing of ours in it: all of it is data */
        outbuf_append_escaped(dst, p, n, 0);
        return;
    }
    painted_t t;
    t.a_len = paint_a(t.a);
    t.b_len = paint_b(t.b);
    t.c_len = paint_c(t.c);
    t.d_len = paint_d(t.d);
    const char *end = p + n;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl + 1 : end;
        if (!nl || escape_painted(dst, &t, p, e) < 0)
            outbuf_append_escaped(dst, p, (size_t)(e - p), 0);
        p = e;
    }
}
