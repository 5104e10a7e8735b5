/* base64.h: the standard base64 alphabet (RFC 4648, padded), decoded
 * exactly as Go's encoding/base64 StdEncoding decodes it, because DTail
 * 4.1 peers send base64 that Go encoded and expect Go's verdict on what
 * is not base64:
 *  - '\r' and '\n' anywhere are skipped;
 *  - padding is required ("Y2F0Og" is an error at byte 4);
 *  - the unused bits of the last character need not be zero;
 *  - an error names the byte offset Go names in "illegal base64 data at
 *    input byte N" (base64_decode's *bad_at).
 * Encoding is the one canonical form (what Go's EncodeToString writes). */
#ifndef DTAIL_BASE_BASE64_H
#define DTAIL_BASE_BASE64_H

#include <stddef.h>

/* Characters base64_encode writes for n bytes. */
static inline size_t base64_encoded_len(size_t n)
{
    return (n + 2) / 3 * 4;
}

/* Room base64_decode needs for n characters. */
static inline size_t base64_decoded_max(size_t n)
{
    return (n + 3) / 4 * 3;
}

/* Writes base64_encoded_len(n) characters to dst (no NUL). */
void base64_encode(char *dst, const void *src, size_t n);

/* Decodes n characters into dst (base64_decoded_max(n) bytes of room):
 * 0 with *out_len set, or -1 with *bad_at set to the offset Go reports.
 * On failure dst holds some of the bytes before the error. */
int base64_decode(void *dst, size_t *out_len, const char *src, size_t n, size_t *bad_at);

#endif
