/* batch.c: whole-line LINES frames from flushed output blocks. */
#include "wire/batch.h"

#include <errno.h>
#include <string.h>
#include <zstd.h>

#include "wire/msg.h"

/* Payloads at most this large are staged with their header into one write;
 * larger ones are written straight from the caller's block. */
#define STAGE_MAX (256u * 1024)
/* A frame never carries more than this (well under WIRE_MAX_PAYLOAD). */
#define FRAME_MAX (8u * 1024 * 1024)
/* Frames end at the last line end before this size: a client holds a whole
 * frame per server before it writes it out, so with many servers the frame
 * size is the client's memory per server; 256 KiB writes still run at the
 * transport's full speed. Only a line longer than this makes a frame
 * longer (up to FRAME_MAX, beyond which a line is cut). */
#define FRAME_TARGET (256u * 1024)

int wire_batch_init(wire_batch_t *b, stream_t *s, pthread_mutex_t *mu, int zlevel, err_t *e)
{
    memset(b, 0, sizeof *b);
    b->s = s;
    b->mu = mu;
    b->zlevel = zlevel;
    if (zlevel > 0) {
        b->zc = ZSTD_createCCtx();
        if (!b->zc || ZSTD_isError(ZSTD_CCtx_setParameter(b->zc, ZSTD_c_compressionLevel, zlevel)))
            return err_set(e, ERR_NOMEM, "cannot set up zstd compression at level %d", zlevel);
    }
    return 0;
}

void wire_batch_free(wire_batch_t *b)
{
    wire_buf_free(&b->carry);
    wire_buf_free(&b->stage);
    ZSTD_freeCCtx(b->zc);
    memset(b, 0, sizeof *b);
}

/* Empties stage for the next frame; returns -1 (for failures). */
static int drop_stage(wire_batch_t *b)
{
    b->stage.len = 0;
    b->stage.failed = 0;
    return -1;
}

static int send_locked(wire_batch_t *b, const char *body, size_t n)
{
    int rc;
    if (b->mu)
        pthread_mutex_lock(b->mu);
    if (b->stage.failed) {
        rc = err_set(&b->err, ERR_NOMEM, "out of memory staging a LINES frame");
    } else if (n == 0) {
        rc = stream_write(b->s, b->stage.p, b->stage.len, &b->err);
    } else {
        rc = stream_write(b->s, b->stage.p, b->stage.len, &b->err);
        if (rc == 0)
            rc = stream_write(b->s, body, n, &b->err);
    }
    if (b->mu)
        pthread_mutex_unlock(b->mu);
    drop_stage(b);
    return rc;
}

/* One compressed frame of carry + [p, p+n): the zstd frame is written
 * straight after the header in stage, whose length is then filled in. */
static int send_compressed(wire_batch_t *b, const char *p, size_t n)
{
    const char *src = p;
    if (b->carry.len) {   /* make the input contiguous */
        wire_put_bytes(&b->carry, p, n);
        if (b->carry.failed) {
            size_t total = b->carry.len + n;
            b->carry.len = 0;
            b->carry.failed = 0;
            return err_set(&b->err, ERR_NOMEM, "out of memory compressing %zu bytes", total);
        }
        src = (const char *)b->carry.p;   /* stays put until the next hold */
        n = b->carry.len;
        b->carry.len = 0;
    }
    size_t bound = ZSTD_compressBound(n);
    size_t at = wire_frame_begin(&b->stage, WIRE_LINES, WIRE_FLAG_ZSTD);
    unsigned char *z = wire_buf_reserve(&b->stage, bound);
    if (!z) {
        err_set(&b->err, ERR_NOMEM, "out of memory compressing %zu bytes", n);
        return drop_stage(b);
    }
    size_t zn = ZSTD_compress2(b->zc, z, bound, src, n);
    if (ZSTD_isError(zn)) {
        err_set(&b->err, ERR_IO, "zstd: %s", ZSTD_getErrorName(zn));
        return drop_stage(b);
    }
    b->stage.len += zn;
    wire_frame_end(&b->stage, at);
    return send_locked(b, NULL, 0);
}

/* One frame of carry + [p, p+n). */
static int send_frame(wire_batch_t *b, const char *p, size_t n)
{
    size_t total = b->carry.len + n;
    b->bytes += total;
    b->frames++;
    if (b->zc)
        return send_compressed(b, p, n);
    wire_encode_lines_head(&b->stage, total, 0);
    wire_put_bytes(&b->stage, b->carry.p, b->carry.len);
    b->carry.len = 0;
    if (n <= STAGE_MAX) {
        wire_put_bytes(&b->stage, p, n);
        return send_locked(b, NULL, 0);
    }
    return send_locked(b, p, n);
}

int wire_batch_sink(void *ctx, const char *p, size_t n, int *err)
{
    wire_batch_t *b = ctx;
    while (n > 0) {
        size_t room = FRAME_MAX - b->carry.len;
        size_t chunk = n < room ? n : room;
        size_t target = b->carry.len < FRAME_TARGET ? FRAME_TARGET - b->carry.len : 1;
        const char *nl = memrchr(p, '\n', chunk < target ? chunk : target);
        if (!nl && chunk > target)
            nl = memchr(p + target, '\n', chunk - target);
        size_t whole = nl ? (size_t)(nl - p) + 1 : 0;
        if (!whole && b->carry.len + chunk < FRAME_MAX) {
            /* chunk == n here: no line ends in it; hold it for the next block */
            wire_put_bytes(&b->carry, p, chunk);
            if (b->carry.failed) {
                b->carry.failed = 0;
                err_set(&b->err, ERR_NOMEM, "out of memory holding a %zu byte line", b->carry.len + chunk);
                goto failed;
            }
            return 0;
        }
        if (!whole)
            whole = chunk;   /* a line longer than a frame: cut it */
        if (send_frame(b, p, whole) < 0)
            goto failed;
        p += whole;
        n -= whole;
    }
    return 0;
failed:
    *err = b->err.code == ERR_NOMEM ? ENOMEM : EPIPE;
    return -1;
}

int wire_batch_finish(wire_batch_t *b, err_t *e)
{
    if (b->carry.len && send_frame(b, "", 0) < 0) {
        *e = b->err;
        return -1;
    }
    return 0;
}
