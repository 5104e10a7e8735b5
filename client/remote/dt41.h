/* dt41.h: a request of ours answered by a DTail 4.1 server (a Go
 * dserver), on a connection whose handshake found it speaking 4.1
 * (client/remote/hello.h).
 *
 * The request goes out as the commands a Go client sends for it
 * (wire/dt41.h, dt41_put_spec_frames): one read command per file, with
 * the options and pattern serialized as Go does. The answer's messages
 * are turned into what a server of ours would have sent: REMOTE and
 * plain lines are rendered by our own line sink in the format the
 * request asked for (so the output is the same as from our dserver, but
 * for the host name), server messages are shown as they came and an
 * ERROR raises the exit status, `.syn close connection` is acknowledged
 * and ends the request as END does. The hidden messages, the AUTHKEY
 * answers and the Go dserver's refusal of our HELLO are dropped. */
#ifndef DTAIL_CLIENT_REMOTE_DT41_H
#define DTAIL_CLIENT_REMOTE_DT41_H

#include "client/remote/session.h"

/* remote_request for a 4.1 server: sends rq (NULL is refused: a 4.1
 * request is sent whole) and handles its messages until the server's
 * close. A request the client cannot express in 4.1 (a map query,
 * an interactive reload) fails with ERR_USAGE naming it. */
int remote_dt41_request(remote_conn_t *c, const wire_request_t *rq, outbuf_t *out,
                        const remote_handler_t *h, client_run_t *rs, err_t *e);

/* The 4.1 health check on stream s: "health", then the server's answer.
 * 1 when it said OK, 0 when it answered anything else (e says what), -1
 * when the connection failed. */
int remote_dt41_health(stream_t *s, wire_reader_t *r, err_t *e);

#endif
