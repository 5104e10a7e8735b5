/* hello.h: the client's half of the handshake, which also tells which
 * protocol a server speaks.
 *
 * The client sends its HELLO and WIRE_HELLO_END (wire/frame.h). Our
 * dserver answers with its HELLO; a Go dserver (DTail 4.1) reads the two
 * as one command it refuses, and answers in 4.1 text (".syn capabilities",
 * or the refusal as "SERVER|..."). The first byte of the answer tells
 * them apart: a HELLO's type is not ASCII. */
#ifndef DTAIL_CLIENT_REMOTE_HELLO_H
#define DTAIL_CLIENT_REMOTE_HELLO_H

#include "base/err.h"
#include "wire/frame.h"
#include "wire/msg.h"
#include "wire/stream.h"

enum remote_proto {
    REMOTE_PROTO_C = 1,      /* ours: the server's HELLO was read */
    REMOTE_PROTO_DT41 = 2,   /* DTail 4.1: its first bytes wait in the reader */
};

/* Sends HELLO (from host me) on s (an ssh_client_open stream) and waits
 * up to timeout_ms for the answer, read through r. The HELLO carries
 * early, the first request, when it fits (NULL: none;
 * wire/hello_early.h); *early_taken (may be NULL) tells whether the
 * server took it, so that it must not be sent again. Returns the protocol
 * (C: *server is the server's HELLO), or -1: the connection ended, the
 * server said nothing within timeout_ms, or it speaks neither protocol
 * (e gives its first bytes). */
int remote_hello(stream_t *s, wire_reader_t *r, const char *me, int timeout_ms,
                 const wire_request_t *early, int *early_taken, wire_hello_t *server, err_t *e);

#endif
