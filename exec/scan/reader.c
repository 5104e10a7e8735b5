/* reader.c: block reads, carry of the partial last line, long-line split. */
#include "exec/scan/reader.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define READER_MAP_MIN (1024 * 1024)       /* smaller files are read */
#define READER_MAP_WINDOW (4 * 1024 * 1024)

int reader_init(reader_t *r, input_t *in, size_t max_line_len, long long start_off, err_t *e)
{
    memset(r, 0, sizeof *r);
    r->buf_off = start_off;
    r->in = in;
    r->max_line_len = max_line_len ? max_line_len : 1;
    r->cap = READER_BLOCK + r->max_line_len + 1;
    r->block = READER_BLOCK;
    r->own_buf = r->buf = malloc(r->cap + READER_SLACK);
    r->piece = malloc(r->max_line_len + 1 + READER_SLACK);
    r->fd = -1;
    long page = sysconf(_SC_PAGESIZE);
    r->window = READER_MAP_WINDOW;
    while (r->window < 2 * (r->max_line_len + 1) + (size_t)page)
        r->window *= 2;
    if (in)
        reader_reset(r, in, start_off);
    if (!r->buf || !r->piece) {
        reader_free(r);
        return err_set(e, ERR_NOMEM, "out of memory for a %zu byte read buffer", r->cap);
    }
    return 0;
}

static void unmap_window(reader_t *r)
{
    if (r->map) {
        munmap(r->map, r->map_len);
        r->map = NULL;
        r->map_len = 0;
    }
    r->guard.lo = r->guard.hi = NULL;
}

void reader_reset(reader_t *r, input_t *in, long long start_off)
{
    unmap_window(r);
    r->in = in;
    r->buf = r->own_buf;
    r->len = r->pos = 0;
    r->eof = 0;
    r->buf_off = start_off;
    r->in_split = 0;
    r->fd = -1;
    if (in && input_kind(in) == INPUT_PLAIN && input_plain_size(in) >= READER_MAP_MIN) {
        r->fd = input_fd(in);
        r->file_size = input_plain_size(in);
        map_guard_install();
    }
}

/* Maps the window that starts at the first unconsumed byte. */
static int map_next_window(reader_t *r, err_t *e)
{
    long long next = r->buf_off + (long long)r->pos;
    unmap_window(r);
    if (next >= r->file_size) {
        r->buf = r->own_buf;
        r->buf_off = next;
        r->len = r->pos = 0;
        r->eof = 1;
        return 0;
    }
    long long page = sysconf(_SC_PAGESIZE);
    long long at = next & ~(page - 1);
    size_t len = r->window;
    if ((long long)len > r->file_size - at)
        len = (size_t)(r->file_size - at);
    /* No MAP_POPULATE: populating each window costs 3x the system time of
     * faulting it in (the kernel maps a large folio's pages per fault), and
     * two scanning threads populating at once wait on each other's mm lock
     * (benchmarks/mapprobe.c, benchmarks/README.md "Reading files"). */
    void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, r->fd, at);
    if (m == MAP_FAILED)
        return err_set(e, ERR_INPUT, "cannot map %zu bytes at offset %lld", len, at);
    madvise(m, len, MADV_SEQUENTIAL);
    r->map = m;
    r->map_len = len;
    r->guard.lo = m;
    r->guard.hi = (char *)m + len;
    r->buf = m;
    r->buf_off = at;
    r->pos = (size_t)(next - at);
    r->len = len;
    if (at + (long long)len >= r->file_size)
        r->eof = 1;
    return 0;
}

void reader_set_block(reader_t *r, size_t block)
{
    if (block > 0 && block <= READER_BLOCK)
        r->block = block;
}

void reader_free(reader_t *r)
{
    unmap_window(r);
    free(r->own_buf);
    free(r->piece);
    r->buf = r->own_buf = r->piece = NULL;
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

/* Hands out [p, p+len) as one line through the piece buffer. split says
 * whether the line goes on after it. */
static void hand_out_piece(reader_t *r, const char *p, size_t len, int split, region_t *out)
{
    memcpy(r->piece, p, len);
    r->piece[len] = '\n';
    out->p = r->piece;
    out->len = len + 1;
    out->off = r->buf_off + (long long)(p - r->buf);
    out->synthetic = 1;
    out->cont = r->in_split;
    r->in_split = split;
    if (split)
        r->n_split++;
    r->pos += len;
    r->bytes_read += len;
}

/* bytes_read counts what is handed out, not what is read or mapped: the
 * next window starts at the first unconsumed byte, so it maps the partial
 * line at the end of the last one again, and a range's reader loads past
 * the end of its range (range_cut gives that part back). */
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
                    hand_out_piece(r, p, max, 1, out);
                    return 1;
                }
                if (lng)
                    stop = (char *)lng;
                out->p = p;
                out->len = (size_t)(stop - p);
                out->off = r->buf_off + (long long)r->pos;
                out->synthetic = 0;
                out->cont = r->in_split;
                r->in_split = 0;
                r->pos += out->len;
                r->bytes_read += out->len;
                return 1;
            }
            if ((size_t)(end - p) > max) {
                hand_out_piece(r, p, max, 1, out);
                return 1;
            }
            if (r->eof) {
                hand_out_piece(r, p, (size_t)(end - p), 0, out);
                return 1;
            }
        } else if (r->eof) {
            return 0;
        }
        if (r->fd >= 0) {
            if (map_next_window(r, e) < 0)
                return -1;
            continue;
        }
        /* Carry the partial line to the front and read more. */
        size_t carry = r->len - r->pos;
        if (carry && r->pos)
            memmove(r->buf, r->buf + r->pos, carry);
        r->buf_off += (long long)r->pos;
        r->len = carry;
        r->pos = 0;
        size_t room = r->cap - r->len;
        ssize_t n = input_read(r->in, r->buf + r->len, room < r->block ? room : r->block, e);
        if (n == INPUT_AGAIN)
            return 2;
        if (n == INPUT_CUT) {
            /* The unfinished line is void: it is neither shown nor
             * joined to what the source reads next. */
            if (r->len || r->in_split)
                r->n_cut++;
            r->buf_off += (long long)r->len;
            r->len = 0;
            r->in_split = 0;
            continue;
        }
        if (n < 0)
            return -1;
        if (n == 0)
            r->eof = 1;
        r->len += (size_t)n;
    }
}
