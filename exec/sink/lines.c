/* lines.c: plain, REMOTE and coloured line formatting. */
#include "exec/sink/lines.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static void build_head(line_sink_t *s)
{
    char *h = s->head;
    size_t n = 0;
    if (s->format == LINE_COLOR) {
        n += color_paint(h + n, "REMOTE", 6, FG_WHITE, BG_BLUE, ATTR_DIM);
        n += paint_sep(h + n);
        n += color_paint(h + n, s->host, strlen(s->host), FG_WHITE, BG_BLUE, ATTR_BOLD);
        n += paint_sep(h + n);
        n += color_paint(h + n, "100", 3, FG_BLACK, BG_GREEN, -1);
        n += paint_sep(h + n);
        /* The line number's own paint opens here and closes in mid. */
        n += color_open(h + n, FG_WHITE, BG_BLUE, (const int[]){ATTR_DIM}, 1);
    } else {
        n = (size_t)snprintf(h, sizeof s->head, "REMOTE|%s|100|", s->host);
    }
    s->head_len = n;
}

int line_sink_init(line_sink_t *s, outbuf_t *out, enum line_format format, const char *host)
{
    memset(s, 0, sizeof *s);
    s->out = out;
    s->format = format;
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
        n += color_close(m, 1);
        n += paint_sep(m + n);
        n += color_paint(m + n, source_id, sl, FG_WHITE, BG_BLUE, ATTR_DIM);
        n += paint_sep(m + n);
    } else {
        m[n++] = '|';
        memcpy(m + n, source_id, sl);
        n += sl;
        m[n++] = '|';
    }
    s->mid_len = n;
}

static void put_content_colored(line_sink_t *s, const char *p, size_t len)
{
    static const char plain_open[] = ESC "37m" ESC "40m";
    static const char warn_open[] = ESC "37m" ESC "40m" ESC "1m";
    static const char error_open[] = ESC "37m" ESC "41m" ESC "1m";
    static const char fatal_open[] = ESC "37m" ESC "45m" ESC "1m";
    static const char close_attr[] = ESC "0m" ESC "49m" ESC "39m\n";
    static const char close_plain[] = ESC "49m" ESC "39m\n";
    outbuf_t *o = s->out;
    if (len >= 4 && memcmp(p, "WARN", 4) == 0) {
        outbuf_append(o, warn_open, sizeof warn_open - 1);
    } else if (len >= 5 && memcmp(p, "ERROR", 5) == 0) {
        outbuf_append(o, error_open, sizeof error_open - 1);
    } else if (len >= 5 && memcmp(p, "FATAL", 5) == 0) {
        outbuf_append(o, fatal_open, sizeof fatal_open - 1);
    } else {
        outbuf_append(o, plain_open, sizeof plain_open - 1);
        outbuf_append(o, p, len);
        outbuf_append(o, close_plain, sizeof close_plain - 1);
        return;
    }
    outbuf_append(o, p, len);
    outbuf_append(o, close_attr, sizeof close_attr - 1);
}

void line_sink_put(line_sink_t *s, const char *p, size_t len, unsigned long long lineno)
{
    outbuf_t *o = s->out;
    s->n_lines++;
    if (s->format == LINE_PLAIN) {
        outbuf_append(o, p, len);
        outbuf_putc(o, '\n');
        return;
    }
    outbuf_append(o, s->head, s->head_len);
    outbuf_put_u64(o, lineno);
    outbuf_append(o, s->mid, s->mid_len);
    if (s->format == LINE_COLOR) {
        put_content_colored(s, p, len);
    } else {
        outbuf_append(o, p, len);
        outbuf_putc(o, '\n');
    }
}

void line_sink_put_run(line_sink_t *s, const char *p, size_t len, unsigned long long n_lines)
{
    s->n_lines += n_lines;
    if (len >= s->out->cap / 2)
        outbuf_write_direct(s->out, p, len);
    else
        outbuf_append(s->out, p, len);
}
