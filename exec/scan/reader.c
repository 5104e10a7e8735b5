/* reader.c: block reads, carry of the partial last line, long-line split. */
#include "exec/scan/reader.h"

#include <stdlib.h>
#include <string.h>

int reader_init(reader_t *r, input_t *in, size_t max_line_len, err_t *e)
{
    memset(r, 0, sizeof *r);
    r->in = in;
    r->max_line_len = max_line_len ? max_line_len : 1;
    r->cap = READER_BLOCK + r->max_line_len + 1;
    r->buf = malloc(r->cap + READER_SLACK);
    r->piece = malloc(r->max_line_len + 1 + READER_SLACK);
    if (!r->buf || !r->piece) {
        reader_free(r);
        return err_set(e, ERR_NOMEM, "out of memory for a %zu byte read buffer", r->cap);
    }
    return 0;
}

void reader_free(reader_t *r)
{
    free(r->buf);
    free(r->piece);
    r->buf = r->piece = NULL;
}

/* Start of the first line in [p, end) whose content is longer than max, or
 * NULL. A line fits when its '\n' lies within max + 1 bytes of its start, so
 * the scan jumps from one window's last '\n' to the next window. */
static const char *find_long_line(const char *p, const char *end, size_t max)
{
    while ((size_t)(end - p) > max) {
        const char *nl = memrchr(p, '\n', max + 1);
        if (!nl)
            return p;
        p = nl + 1;
    }
    return NULL;
}

static void hand_out_piece(reader_t *r, const char *p, size_t len, region_t *out)
{
    memcpy(r->piece, p, len);
    r->piece[len] = '\n';
    out->p = r->piece;
    out->len = len + 1;
    out->synthetic = 1;
}

int reader_next(reader_t *r, region_t *out, err_t *e)
{
    const size_t max = r->max_line_len;
    for (;;) {
        char *p = r->buf + r->pos, *end = r->buf + r->len;
        if (p < end) {
            char *last_nl = memrchr(p, '\n', (size_t)(end - p));
            if (last_nl) {
                char *stop = last_nl + 1;
                const char *lng = find_long_line(p, stop, max);
                if (lng == p) {
                    r->n_split++;
                    hand_out_piece(r, p, max, out);
                    r->pos += max;
                    return 1;
                }
                if (lng)
                    stop = (char *)lng;
                out->p = p;
                out->len = (size_t)(stop - p);
                out->synthetic = 0;
                r->pos += out->len;
                return 1;
            }
            if ((size_t)(end - p) > max) {
                r->n_split++;
                hand_out_piece(r, p, max, out);
                r->pos += max;
                return 1;
            }
            if (r->eof) {
                hand_out_piece(r, p, (size_t)(end - p), out);
                r->pos = r->len;
                return 1;
            }
        } else if (r->eof) {
            return 0;
        }
        /* Carry the partial line to the front and read more. */
        size_t carry = r->len - r->pos;
        if (carry && r->pos)
            memmove(r->buf, r->buf + r->pos, carry);
        r->len = carry;
        r->pos = 0;
        size_t room = r->cap - r->len;
        ssize_t n = input_read(r->in, r->buf + r->len, room < READER_BLOCK ? room : READER_BLOCK, e);
        if (n < 0)
            return -1;
        if (n == 0)
            r->eof = 1;
        r->len += (size_t)n;
        r->bytes_read += (size_t)n;
    }
}
