/* hello_early.c: see hello_early.h. */
#include "wire/hello_early.h"

#include <stdlib.h>
#include <string.h>

#include "base/base64.h"

/* The payload bytes of a HELLO whose host, software, early and pad are
 * hl, sl, el and pl bytes long. */
static size_t hello_payload_len(size_t hl, size_t sl, size_t el, size_t pl)
{
    return WIRE_MAGIC_LEN + 2 + 4 + (4 + hl) + (4 + sl) + (4 + el) + (4 + pl);
}

static int has_hello_end(uint32_t v)
{
    unsigned char p[4];
    wire_be32_put(p, v);
    return memchr(p, WIRE_HELLO_END, sizeof p) != NULL;
}

int wire_encode_hello_early(wire_buf_t *b, const wire_hello_t *h, const wire_request_t *rq)
{
    if (!rq || strchr(h->host, WIRE_HELLO_END) || strchr(h->software, WIRE_HELLO_END)) {
        wire_encode_hello(b, h);
        return 0;
    }
    wire_buf_t req = {0};
    wire_encode_request(&req, rq);
    size_t el = base64_encoded_len(req.len);
    char *early = req.failed || el > WIRE_EARLY_MAX ? NULL : malloc(el + 1);
    if (!early) {
        wire_buf_free(&req);
        wire_encode_hello(b, h);
        return 0;
    }
    base64_encode(early, req.p, req.len);
    early[el] = 0;
    wire_buf_free(&req);
    wire_hello_t mine = *h;
    size_t hl = strlen(mine.host);
    if (hl == WIRE_HELLO_END)
        mine.host[--hl] = 0;
    size_t sl = strlen(mine.software);
    /* The other lengths cannot hold the byte: the version and caps are
     * small, el is a multiple of 4 below 0x3B00, the payload below 0x3B00. */
    size_t pl = has_hello_end((uint32_t)hello_payload_len(hl, sl, el, 0)) ? 1 : 0;
    if (sl == WIRE_HELLO_END || has_hello_end(mine.caps)) {
        free(early);
        wire_encode_hello(b, h);
        return 0;
    }
    size_t at = wire_frame_begin(b, WIRE_HELLO, 0);
    wire_put_bytes(b, WIRE_MAGIC, WIRE_MAGIC_LEN);
    wire_put_u16(b, mine.version);
    wire_put_u32(b, mine.caps);
    wire_put_str(b, mine.host);
    wire_put_str(b, mine.software);
    wire_put_str(b, early);
    wire_put_str(b, pl ? "-" : "");
    wire_frame_end(b, at);
    free(early);
    return b->failed ? 0 : 1;
}

static int bad_early(err_t *e, const char *why)
{
    return err_set(e, ERR_INPUT, "malformed HELLO message: its early request %s", why);
}

int wire_hello_early_request(const wire_frame_t *hello, size_t max_payload, wire_early_t *out,
                             err_t *e)
{
    memset(out, 0, sizeof *out);
    wire_cursor_t c = wire_cursor(hello);
    c.p += WIRE_MAGIC_LEN;
    size_t n;
    (void)wire_get_u16(&c);
    (void)wire_get_u32(&c);
    (void)wire_get_str(&c, &n);
    (void)wire_get_str(&c, &n);
    if (c.bad)
        return bad_early(e, "follows a truncated HELLO");
    if (c.p == c.end)
        return 0;   /* a client that sends its request on its own */
    const char *text = wire_get_str(&c, &n);
    if (c.bad)
        return bad_early(e, "is truncated");
    if (n == 0)
        return 0;
    if (n > WIRE_EARLY_MAX)
        return err_set(e, ERR_INPUT, "malformed HELLO message: its early request is over %d "
                                     "base64 characters", WIRE_EARLY_MAX);
    unsigned char *buf = malloc(base64_decoded_max(n));
    if (!buf)
        return err_set(e, ERR_NOMEM, "out of memory decoding the HELLO's early request");
    size_t len, bad_at;
    if (base64_decode(buf, &len, text, n, &bad_at) < 0) {
        free(buf);
        return err_set(e, ERR_INPUT, "malformed HELLO message: its early request is not base64 "
                                     "(at character %zu)", bad_at);
    }
    if (len < WIRE_HEADER_LEN || buf[0] != WIRE_REQUEST || buf[1] != 0 ||
        wire_be32_get(buf + WIRE_LEN_AT) != len - WIRE_HEADER_LEN) {
        free(buf);
        return bad_early(e, "is not one whole REQUEST frame");
    }
    if (len - WIRE_HEADER_LEN > max_payload) {
        free(buf);
        return err_set(e, ERR_INPUT, "the HELLO's early request is %zu bytes, over the limit of "
                                     "%zu", len - WIRE_HEADER_LEN, max_payload);
    }
    out->buf = buf;
    out->frame = (wire_frame_t){.type = WIRE_REQUEST, .flags = 0, .p = buf + WIRE_HEADER_LEN,
                                .len = len - WIRE_HEADER_LEN};
    return 1;
}
