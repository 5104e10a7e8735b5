/* input.c: plain, gzip and zstd streams behind one read call. */
#include "exec/scan/input.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "base/clock.h"
#include "exec/scan/journal.h"
#include "exec/scan/journal_spec.h"

#define INPUT_RAW_CAP (256 * 1024)   /* compressed bytes read at once */

struct input {
    int fd;                  /* owned unless it is stdin */
    int owns_fd;             /* close fd on input_close */
    enum input_kind kind;    /* how bytes are decoded */
    const char *path;        /* for messages; borrowed */
    long long plain_size;    /* regular plain file size, -1 otherwise */
    long long open_size;     /* a regular file's size when opened, -1 otherwise */
    unsigned char *raw;      /* compressed bytes (gzip/zstd) */
    size_t raw_len;          /* valid bytes in raw */
    size_t raw_pos;          /* consumed bytes in raw */
    int raw_eof;             /* fd returned 0 */
    z_stream z;              /* gzip state */
    int z_done;              /* a gzip member ended; restart if more bytes */
    ZSTD_DStream *zs;        /* zstd state */
    size_t zs_hint;          /* last ZSTD_decompressStream result: 0 = frame complete */
    /* Magic bytes peeked from a pipe that must be replayed to the decoder or
     * to the reader. */
    long long slice_pos;     /* next offset for positional reads, -1 if none */
    unsigned char peek[4];   /* first bytes of the stream */
    size_t peek_len;         /* bytes in peek not yet handed out */
    input_source_t src;      /* bytes from code instead of fd (src.read set) */
    int may_block;           /* fd is a stream: a read may wait */
    long long deadline_ms;   /* a stream that waits past it has ended; 0: none */
};

/* Waits until a stream has bytes (or its end) or the deadline passes: 1,
 * 0 at the deadline, -1 with e set. */
static int wait_readable(input_t *in, err_t *e)
{
    for (;;) {
        long long left = in->deadline_ms - clock_now_ms();
        if (left <= 0)
            return 0;
        struct pollfd p = {.fd = in->fd, .events = POLLIN};
        int r = poll(&p, 1, left > INT_MAX ? INT_MAX : (int)left);
        if (r > 0)
            return 1;
        if (r < 0 && errno != EINTR)
            return err_set(e, ERR_INPUT, "%s: poll failed: %s", in->path, strerror(errno));
    }
}

static ssize_t read_fd(input_t *in, void *buf, size_t cap, err_t *e)
{
    if (in->may_block && in->deadline_ms) {
        int r = wait_readable(in, e);
        if (r <= 0)
            return r;   /* the deadline reads as the end */
    }
    for (;;) {
        ssize_t n = in->slice_pos >= 0 ? pread(in->fd, buf, cap, in->slice_pos)
                                       : read(in->fd, buf, cap);
        if (n >= 0) {
            if (in->slice_pos >= 0)
                in->slice_pos += n;
            return n;
        }
        if (errno == EINTR)
            continue;
        return err_set(e, ERR_INPUT, "%s: read failed: %s", in->path, strerror(errno));
    }
}

/* Raw bytes: first the peeked magic, then the fd. */
static ssize_t read_raw(input_t *in, void *buf, size_t cap, err_t *e)
{
    if (in->peek_len) {
        size_t n = in->peek_len < cap ? in->peek_len : cap;
        memcpy(buf, in->peek, n);
        memmove(in->peek, in->peek + n, in->peek_len - n);
        in->peek_len -= n;
        return (ssize_t)n;
    }
    return read_fd(in, buf, cap, e);
}

static int fill_raw(input_t *in, err_t *e)
{
    if (in->raw_pos < in->raw_len || in->raw_eof)
        return 0;
    ssize_t n = read_raw(in, in->raw, INPUT_RAW_CAP, e);
    if (n < 0)
        return -1;
    in->raw_len = (size_t)n;
    in->raw_pos = 0;
    if (n == 0)
        in->raw_eof = 1;
    return 0;
}

static enum input_kind detect_kind(const unsigned char *m, size_t n)
{
    if (n >= 2 && m[0] == 0x1f && m[1] == 0x8b)
        return INPUT_GZIP;
    if (n >= 4 && m[0] == 0x28 && m[1] == 0xb5 && m[2] == 0x2f && m[3] == 0xfd)
        return INPUT_ZSTD;
    return INPUT_PLAIN;
}

static int setup_decoder(input_t *in, err_t *e)
{
    if (in->kind == INPUT_PLAIN)
        return 0;
    in->raw = malloc(INPUT_RAW_CAP);
    if (!in->raw)
        return err_set(e, ERR_NOMEM, "%s: out of memory", in->path);
    if (in->kind == INPUT_GZIP) {
        memset(&in->z, 0, sizeof in->z);
        if (inflateInit2(&in->z, 15 + 32) != Z_OK)
            return err_set(e, ERR_INPUT, "%s: cannot start gzip decoder", in->path);
    } else {
        in->zs = ZSTD_createDStream();
        if (!in->zs || ZSTD_isError(ZSTD_initDStream(in->zs)))
            return err_set(e, ERR_INPUT, "%s: cannot start zstd decoder", in->path);
    }
    return 0;
}

static input_t *input_setup(input_t *in, int is_stdin, err_t *e);

/* A new input named path, read with read() until set up otherwise. */
static input_t *input_alloc(const char *path, err_t *e)
{
    input_t *in = calloc(1, sizeof *in);
    if (!in) {
        err_set(e, ERR_NOMEM, "%s: out of memory", path);
        return NULL;
    }
    in->path = path;
    in->plain_size = -1;
    in->open_size = -1;
    in->slice_pos = -1;
    return in;
}

input_t *input_open(const char *path, err_t *e)
{
    return input_open_until(path, 0, e);
}

input_t *input_open_until(const char *path, long long deadline_ms, err_t *e)
{
    if (journal_spec_is(path, strlen(path)))
        return journal_open(path, 0, e);   /* never waits: no deadline to keep */
    input_t *in = input_alloc(path, e);
    if (!in)
        return NULL;
    in->deadline_ms = deadline_ms;
    int is_stdin = strcmp(path, "-") == 0;
    if (is_stdin) {
        in->fd = STDIN_FILENO;
    } else {
        in->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
        if (in->fd < 0) {
            err_set(e, ERR_INPUT, "%s: %s", path, strerror(errno));
            free(in);
            return NULL;
        }
        in->owns_fd = 1;
    }
    return input_setup(in, is_stdin, e);
}

input_t *input_open_fd(int fd, const char *name, err_t *e)
{
    input_t *in = input_alloc(name, e);
    if (!in)
        return NULL;
    in->slice_pos = 0;   /* positional: the shared offset of fd stays put */
    in->fd = fd;
    return input_setup(in, 0, e);
}

/* Checks the opened descriptor and sets up decoding; closes in on failure. */
static input_t *input_setup(input_t *in, int is_stdin, err_t *e)
{
    const char *path = in->path;
    struct stat st;
    if (fstat(in->fd, &st) < 0) {
        err_set(e, ERR_INPUT, "%s: %s", path, strerror(errno));
        goto fail;
    }
    if (S_ISDIR(st.st_mode)) {
        err_set(e, ERR_INPUT, "%s: is a directory", path);
        goto fail;
    }
    if (!is_stdin && !S_ISREG(st.st_mode)) {
        err_set(e, ERR_INPUT, "%s: not a regular file", path);
        goto fail;
    }
    in->may_block = !S_ISREG(st.st_mode);
    if (S_ISREG(st.st_mode))
        in->open_size = (long long)st.st_size;
    /* O_NONBLOCK only guarded the open against a FIFO; it has no effect on
     * the regular files that pass the checks above. */
    if (S_ISREG(st.st_mode) && !is_stdin) {
        unsigned char m[4];
        ssize_t n = pread(in->fd, m, sizeof m, 0);
        in->kind = detect_kind(m, n > 0 ? (size_t)n : 0);
        if (in->kind == INPUT_PLAIN)
            in->plain_size = (long long)st.st_size;
    } else {
        /* A pipe: peek the magic bytes and replay them afterwards. */
        while (in->peek_len < sizeof in->peek) {
            ssize_t n = read_fd(in, in->peek + in->peek_len, sizeof in->peek - in->peek_len, e);
            if (n < 0)
                goto fail;
            if (n == 0)
                break;
            in->peek_len += (size_t)n;
        }
        in->kind = detect_kind(in->peek, in->peek_len);
    }
    if (setup_decoder(in, e) < 0)
        goto fail;
    return in;
fail:
    input_close(in);
    return NULL;
}

static ssize_t read_gzip(input_t *in, char *buf, size_t cap, err_t *e)
{
    in->z.next_out = (unsigned char *)buf;
    in->z.avail_out = (unsigned)cap;
    while (in->z.avail_out == cap) {
        if (fill_raw(in, e) < 0)
            return -1;
        if (in->raw_pos == in->raw_len) {
            if (!in->z_done && in->z.total_in > 0)
                return err_set(e, ERR_INPUT, "%s: truncated gzip stream", in->path);
            break;
        }
        if (in->z_done) {
            /* Concatenated members, as gzip -c a b > c makes. */
            inflateReset(&in->z);
            in->z_done = 0;
        }
        in->z.next_in = in->raw + in->raw_pos;
        in->z.avail_in = (unsigned)(in->raw_len - in->raw_pos);
        int rc = inflate(&in->z, Z_NO_FLUSH);
        in->raw_pos = in->raw_len - in->z.avail_in;
        if (rc == Z_STREAM_END) {
            in->z_done = 1;
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            return err_set(e, ERR_INPUT, "%s: corrupt gzip data: %s", in->path,
                           in->z.msg ? in->z.msg : "inflate failed");
        }
    }
    return (ssize_t)(cap - in->z.avail_out);
}

static ssize_t read_zstd(input_t *in, char *buf, size_t cap, err_t *e)
{
    ZSTD_outBuffer out = {buf, cap, 0};
    while (out.pos == 0) {
        if (fill_raw(in, e) < 0)
            return -1;
        if (in->raw_pos == in->raw_len) {
            if (in->zs_hint != 0)
                return err_set(e, ERR_INPUT, "%s: truncated zstd stream", in->path);
            break;
        }
        ZSTD_inBuffer inb = {in->raw, in->raw_len, in->raw_pos};
        size_t rc = ZSTD_decompressStream(in->zs, &out, &inb);
        in->raw_pos = inb.pos;
        if (ZSTD_isError(rc))
            return err_set(e, ERR_INPUT, "%s: corrupt zstd data: %s", in->path,
                           ZSTD_getErrorName(rc));
        in->zs_hint = rc;
    }
    return (ssize_t)out.pos;
}

input_t *input_open_source(const input_source_t *src, const char *name, err_t *e)
{
    input_t *in = input_alloc(name, e);
    if (!in)
        return NULL;
    in->fd = -1;
    in->kind = INPUT_PLAIN;
    in->src = *src;
    return in;
}

ssize_t input_read(input_t *in, char *buf, size_t cap, err_t *e)
{
    if (in->src.read)
        return in->src.read(in->src.ctx, buf, cap, e);
    switch (in->kind) {
    case INPUT_GZIP: return read_gzip(in, buf, cap, e);
    case INPUT_ZSTD: return read_zstd(in, buf, cap, e);
    default: return read_raw(in, buf, cap, e);
    }
}

input_t *input_slice(const input_t *whole, long long from, err_t *e)
{
    if (whole->kind != INPUT_PLAIN || whole->plain_size < 0) {
        err_set(e, ERR_INPUT, "%s: positional reads need a plain regular file", whole->path);
        return NULL;
    }
    input_t *in = calloc(1, sizeof *in);
    if (!in) {
        err_set(e, ERR_NOMEM, "%s: out of memory", whole->path);
        return NULL;
    }
    in->fd = whole->fd;
    in->path = whole->path;
    in->kind = INPUT_PLAIN;
    in->plain_size = whole->plain_size;
    in->open_size = whole->open_size;
    in->slice_pos = from;
    return in;
}

int input_err_shrank(err_t *e, const char *name)
{
    return err_set(e, ERR_INPUT, "%s: file shrank while being read (truncated?)", name);
}

int input_check_not_shrunk(const input_t *in, const char *name, err_t *e)
{
    struct stat st;
    if (in->open_size < 0 || fstat(in->fd, &st) < 0 || (long long)st.st_size >= in->open_size)
        return 0;
    return input_err_shrank(e, name);
}

enum input_kind input_kind(const input_t *in) { return in->kind; }
long long input_plain_size(const input_t *in) { return in->plain_size; }
const char *input_name(const input_t *in) { return in->path; }
int input_fd(const input_t *in) { return in->fd; }

void input_close(input_t *in)
{
    if (!in)
        return;
    if (in->kind == INPUT_GZIP && in->raw)
        inflateEnd(&in->z);
    if (in->zs)
        ZSTD_freeDStream(in->zs);
    free(in->raw);
    if (in->owns_fd)
        close(in->fd);
    if (in->src.close)
        in->src.close(in->src.ctx);
    free(in);
}
