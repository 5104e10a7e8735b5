/* batch.c: whole-line LINES frames from flushed output blocks. */
#include "wire/batch.h"

#include <errno.h>
#include <stdlib.h>
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
    free(b->carry);
    wire_buf_free(&b->stage);
    ZSTD_freeCCtx(b->zc);
    memset(b, 0, sizeof *b);
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
    b->stage.len = 0;
    b->stage.failed = 0;
    return rc;
}

/* One frame of carry + [p, p+n). */
static int send_frame(wire_batch_t *b, const char *p, size_t n)
{
    size_t total = b->carry_len + n;
    b->bytes += total;
    b->frames++;
    if (b->zc) {
        const char *src = p;
        if (b->carry_len) {   /* make the input contiguous */
            wire_put_bytes(&b->stage, b->carry, b->carry_len);
            wire_put_bytes(&b->stage, p, n);
            if (b->stage.failed)
                return err_set(&b->err, ERR_NOMEM, "out of memory compressing");
            src = (const char *)b->stage.p;
        }
        size_t bound = ZSTD_compressBound(total);
        char *z = malloc(bound + WIRE_HEADER_LEN);
        if (!z)
            return err_set(&b->err, ERR_NOMEM, "out of memory compressing %zu bytes", total);
        size_t zn = ZSTD_compress2(b->zc, z + WIRE_HEADER_LEN, bound, src, total);
        b->stage.len = 0;
        if (ZSTD_isError(zn)) {
            free(z);
            return err_set(&b->err, ERR_IO, "zstd: %s", ZSTD_getErrorName(zn));
        }
        wire_encode_lines_head(&b->stage, zn, WIRE_FLAG_ZSTD);
        memcpy(z, b->stage.p, WIRE_HEADER_LEN);
        b->stage.len = 0;
        wire_put_bytes(&b->stage, z, zn + WIRE_HEADER_LEN);
        free(z);
        b->carry_len = 0;
        return send_locked(b, NULL, 0);
    }
    wire_encode_lines_head(&b->stage, total, 0);
    wire_put_bytes(&b->stage, b->carry, b->carry_len);
    b->carry_len = 0;
    if (n <= STAGE_MAX) {
        wire_put_bytes(&b->stage, p, n);
        return send_locked(b, NULL, 0);
    }
    return send_locked(b, p, n);
}

static int hold(wire_batch_t *b, const char *p, size_t n)
{
    if (b->carry_cap - b->carry_len < n) {
        size_t cap = b->carry_cap ? b->carry_cap : 4096;
        while (cap - b->carry_len < n)
            cap *= 2;
        char *nc = realloc(b->carry, cap);
        if (!nc)
            return err_set(&b->err, ERR_NOMEM, "out of memory holding a %zu byte line", b->carry_len + n);
        b->carry = nc;
        b->carry_cap = cap;
    }
    memcpy(b->carry + b->carry_len, p, n);
    b->carry_len += n;
    return 0;
}

int wire_batch_sink(void *ctx, const char *p, size_t n, int *err)
{
    wire_batch_t *b = ctx;
    while (n > 0) {
        size_t room = FRAME_MAX - b->carry_len;
        size_t chunk = n < room ? n : room;
        size_t target = b->carry_len < FRAME_TARGET ? FRAME_TARGET - b->carry_len : 1;
        const char *nl = memrchr(p, '\n', chunk < target ? chunk : target);
        if (!nl && chunk > target)
            nl = memchr(p + target, '\n', chunk - target);
        size_t whole = nl ? (size_t)(nl - p) + 1 : 0;
        if (!whole && b->carry_len + chunk < FRAME_MAX) {
            if (hold(b, p, chunk) < 0)
                goto failed;
            return 0;   /* chunk == n here: no line ends in it */
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
    if (b->carry_len && send_frame(b, "", 0) < 0) {
        *e = b->err;
        return -1;
    }
    return 0;
}
