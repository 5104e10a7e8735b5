/* ssh_stream.h: an SSH channel as a wire stream (wire/stream.h), the one
 * adapter the clients and dserver both use.
 *
 * libssh is called through a table (ssh_stream_calls_t): the clients load
 * libssh only when they first connect (client/tools/lazy_lib.h) and give
 * the pointers they found; dserver, linked with libssh, gives the
 * functions themselves. This module includes libssh's header only.
 *
 * Reads poll the socket without holding the session lock, so a thread may
 * write (the next request, a reply) while another waits for data. With
 * read_max set, a read asks libssh for read_max bytes at once (kept for
 * later small reads), which grows the peer's window as a blocking read
 * does; without, it reads straight into the caller's buffer.
 *
 * Writes go out in 64 KiB pieces under the lock. With a stall policy
 * (dserver), a piece that comes back short or late means the peer stopped
 * reading: the policy is told (outside the lock), the buffered bytes are
 * flushed before more are added, and without progress for timeout_ms the
 * write fails. Without one (the clients), writes simply block. */
#ifndef DTAIL_TRANSPORT_SSH_STREAM_H
#define DTAIL_TRANSPORT_SSH_STREAM_H

#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

#include <libssh/libssh.h>

#include "base/err.h"
#include "wire/stream.h"

typedef struct ssh_stream_calls {
    __typeof__(ssh_channel_read_timeout) *channel_read_timeout;
    __typeof__(ssh_channel_write) *channel_write;
    __typeof__(ssh_channel_is_eof) *channel_is_eof;
    __typeof__(ssh_channel_is_closed) *channel_is_closed;
    __typeof__(ssh_get_fd) *get_fd;
    __typeof__(ssh_get_error) *get_error;
    __typeof__(ssh_blocking_flush) *blocking_flush;   /* with a stall policy only */
} ssh_stream_calls_t;

/* dserver's: what a writer does when its peer stops reading. */
typedef struct ssh_stream_stall {
    long long timeout_ms;              /* no progress for this long: the write fails */
    const volatile int *stopping;      /* set: a stalled write fails at once */
    const char *peer_name;             /* "client NAME" in the messages */
    /* Told when a write starts waiting on the peer (1) and when it went
     * through again (0); called without the lock. May be NULL. */
    void (*tell)(void *ctx, int stalled);
    void *ctx;
} ssh_stream_stall_t;

typedef struct ssh_stream {
    const ssh_stream_calls_t *api;
    ssh_session sess;
    ssh_channel ch;
    pthread_mutex_t *mu;               /* one libssh call at a time on sess */
    char who[300];                     /* "the server", "the SSH channel of NAME" */
    size_t read_max;                   /* see the header; 0: read into the caller's buffer */
    char *buf;                         /* read_max bytes, when read_max */
    size_t off, len;                   /* unread part of buf */
    /* Asked while a read waits for data: 1 ends the read as the end of
     * the stream (the server stops, the connection was dropped). May be
     * NULL. */
    int (*read_ends)(void *ctx);
    void *read_ends_ctx;
    const ssh_stream_stall_t *stall;   /* NULL: writes just block */
} ssh_stream_t;

/* Sets up st over sess/ch (borrowed) with the lock mu and the fields the
 * caller filled (api, who, read_max, read_ends, stall); allocates buf.
 * 0, or -1 (ERR_NOMEM). */
int ssh_stream_init(ssh_stream_t *st, err_t *e);
void ssh_stream_free(ssh_stream_t *st);

/* stream_t's read and write over st. */
ssize_t ssh_stream_read(ssh_stream_t *st, void *buf, size_t n, err_t *e);
int ssh_stream_write(ssh_stream_t *st, const void *buf, size_t n, err_t *e);

#endif
