/* batch.h: the server's LINES sender. An outbuf_t whose sink is
 * wire_batch_sink hands it each flushed block (64 KiB of rendered lines, or
 * a whole mapped region of a plain cat); the batch sends whole lines as
 * LINES frames and carries a line cut by the block edge into the next
 * frame, so a client never sees half a line. Large blocks go out without a
 * copy (header write, then the block); small ones as one write. With
 * compression each frame's payload is one zstd frame.
 *
 * Frames are sent under *mu when given, so other threads of the session
 * (the map reporter) interleave whole frames only. */
#ifndef DTAIL_WIRE_BATCH_H
#define DTAIL_WIRE_BATCH_H

#include <pthread.h>
#include <stddef.h>

#include "base/err.h"
#include "wire/frame.h"
#include "wire/stream.h"

typedef struct wire_batch {
    stream_t *s;                 /* borrowed */
    pthread_mutex_t *mu;         /* send lock, or NULL */
    wire_buf_t carry;            /* the cut line, held back (with zstd,
                                    also the frame's contiguous input) */
    wire_buf_t stage;            /* header (+ small or compressed payload) */
    void *zc;                    /* ZSTD_CCtx when compressing */
    int zlevel;                  /* zstd level, 0 = off */
    unsigned long long bytes;    /* payload bytes sent (uncompressed) */
    unsigned long long frames;   /* LINES frames sent */
    err_t err;                   /* why the last send failed */
} wire_batch_t;

int wire_batch_init(wire_batch_t *b, stream_t *s, pthread_mutex_t *mu, int zlevel, err_t *e);
void wire_batch_free(wire_batch_t *b);
/* outbuf sink (ctx is the batch). */
int wire_batch_sink(void *ctx, const char *p, size_t n, int *err);
/* Sends what is carried (a last line without '\n'). */
int wire_batch_finish(wire_batch_t *b, err_t *e);

#endif
