/* fuzz_wire.c: libFuzzer target over the frame decoder and every message
 * decoder. The input is split into chunks (sizes taken from its first
 * byte) to exercise partial frames; any input must decode into frames or
 * fail with an error message, never crash, leak or loop. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wire/frame.h"
#include "wire/msg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void decode_payload(const wire_frame_t *f)
{
    err_t e;
    err_clear(&e);   /* a failure must write its own message */
    if (f->type == WIRE_HELLO) {
        wire_hello_t h;
        if (wire_decode_hello(f, &h, &e) < 0 && !e.msg[0])
            abort();
    } else if (f->type == WIRE_REQUEST) {
        wire_request_t rq;
        if (wire_decode_request(f, &rq, &e) == 0)
            wire_request_free(&rq);
        else if (!e.msg[0])
            abort();
    } else {
        wire_msg_t m;
        if (wire_decode_msg(f, &m, &e) < 0 && !e.msg[0])
            abort();
        if (m.data.len && (m.data.p < (const char *)f->p || m.data.p + m.data.len > (const char *)f->p + f->len))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    size_t chunk = 1 + data[0] % 64;
    data++;
    size--;
    wire_decoder_t d;
    err_t e;
    err_clear(&e);
    if (wire_decoder_init(&d, 1 << 20, &e) < 0)
        return 0;
    for (size_t off = 0; off < size;) {
        size_t n = size - off < chunk ? size - off : chunk;
        if (wire_decoder_feed(&d, data + off, n, &e) < 0)
            break;
        off += n;
        wire_frame_t f;
        int rc;
        while ((rc = wire_decoder_next(&d, &f, &e)) == 1)
            decode_payload(&f);
        if (rc < 0) {
            if (!e.msg[0])
                abort();
            break;
        }
    }
    wire_decoder_free(&d);
    return 0;
}
