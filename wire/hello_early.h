/* hello_early.h: a client's first REQUEST carried inside its HELLO, so
 * that the request costs no round trip of its own (docs/protocol.md,
 * "Round trips").
 *
 * The HELLO gains two trailing string fields, which a server that does
 * not know them ignores (a decoder ignores bytes after the fields it
 * knows): `early`, the whole REQUEST frame (header included) in base64,
 * and `pad`, zero or one byte. A Go dserver (DTail 4.1) reads the HELLO
 * as one command up to the first ';' and refuses it; so that it still
 * sees one command, no byte of this HELLO may be ';': base64 has none,
 * the pad moves the payload length off it, and a 59-byte host name
 * (length byte ';') is cut to 58. A server that took the request says so
 * with WIRE_CAP_EARLY_REQUEST in its HELLO and serves it as the first
 * frame; without that bit the client sends the REQUEST itself. */
#ifndef DTAIL_WIRE_HELLO_EARLY_H
#define DTAIL_WIRE_HELLO_EARLY_H

#include <stddef.h>

#include "base/err.h"
#include "wire/frame.h"
#include "wire/msg.h"

/* base64 characters the early field may hold: a request larger than
 * this (9 KiB encoded) goes out on its own after the HELLO. */
#define WIRE_EARLY_MAX 12288

/* Appends h's HELLO frame to b, carrying rq when it fits (rq NULL: a
 * plain HELLO). Returns 1 when rq is in it, 0 when not (too large, out of
 * memory: b->failed), so the caller sends it later. */
int wire_encode_hello_early(wire_buf_t *b, const wire_hello_t *h, const wire_request_t *rq);

/* A decoded early request: frame points into buf (malloc'd; free it). */
typedef struct wire_early {
    unsigned char *buf;
    wire_frame_t frame;
} wire_early_t;

/* The early request of a HELLO frame (one wire_decode_hello accepted):
 * 1 with *out filled, 0 when there is none, -1 with e set when the field
 * is malformed, not a REQUEST frame, or over max_payload bytes. */
int wire_hello_early_request(const wire_frame_t *hello, size_t max_payload, wire_early_t *out,
                             err_t *e);

#endif
