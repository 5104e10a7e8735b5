/* base64.c: see base64.h. Decoding follows Go's decoder one 4-character
 * quantum at a time, so that every error lands on the offset Go names. */
#include "base/base64.h"

#include <stdint.h>

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void base64_encode(char *dst, const void *src, size_t n)
{
    const unsigned char *s = src;
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)s[i] << 16 | (uint32_t)s[i + 1] << 8 | s[i + 2];
        *dst++ = alphabet[v >> 18];
        *dst++ = alphabet[(v >> 12) & 63];
        *dst++ = alphabet[(v >> 6) & 63];
        *dst++ = alphabet[v & 63];
    }
    if (i < n) {
        uint32_t v = (uint32_t)s[i] << 16 | (i + 1 < n ? (uint32_t)s[i + 1] << 8 : 0);
        *dst++ = alphabet[v >> 18];
        *dst++ = alphabet[(v >> 12) & 63];
        *dst++ = i + 1 < n ? alphabet[(v >> 6) & 63] : '=';
        *dst++ = '=';
    }
}

/* The 6-bit value of c, or -1. */
static int sextet(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

static int is_newline(char c)
{
    return c == '\n' || c == '\r';
}

static size_t skip_newlines(const char *src, size_t n, size_t si)
{
    while (si < n && is_newline(src[si]))
        si++;
    return si;
}

/* One quantum from src[*si]: up to 4 sextets into q, their count in *got.
 * 1 more quanta may follow, 0 this was the last (padded or at the end),
 * -1 malformed with *bad_at set. */
static int read_quantum(const char *src, size_t n, size_t *si, int q[4], int *got, size_t *bad_at)
{
    int j = 0;
    while (j < 4) {
        if (*si == n) {
            if (j == 0) {
                *got = 0;
                return 0;
            }
            *bad_at = *si - (size_t)j;   /* unpadded: Go counts back to the quantum */
            return -1;
        }
        char c = src[(*si)++];
        int v = sextet((unsigned char)c);
        if (v >= 0) {
            q[j++] = v;
            continue;
        }
        if (is_newline(c))
            continue;
        if (c != '=' || j < 2) {
            *bad_at = *si - 1;
            return -1;
        }
        if (j == 2) {   /* "==" expected: the second '=' may follow newlines */
            *si = skip_newlines(src, n, *si);
            if (*si == n) {
                *bad_at = n;
                return -1;
            }
            if (src[*si] != '=') {
                *bad_at = *si - 1;
                return -1;
            }
            (*si)++;
        }
        *si = skip_newlines(src, n, *si);
        if (*si < n) {
            *bad_at = *si;   /* anything after the padding */
            return -1;
        }
        *got = j;
        return 0;
    }
    *got = 4;
    return 1;
}

int base64_decode(void *dst, size_t *out_len, const char *src, size_t n, size_t *bad_at)
{
    unsigned char *d = dst;
    size_t si = 0, len = 0;
    for (;;) {
        int q[4] = {0, 0, 0, 0}, got = 0;
        int more = read_quantum(src, n, &si, q, &got, bad_at);
        if (more < 0)
            return -1;
        uint32_t v = (uint32_t)q[0] << 18 | (uint32_t)q[1] << 12 | (uint32_t)q[2] << 6 | (uint32_t)q[3];
        if (got >= 2)
            d[len++] = (unsigned char)(v >> 16);
        if (got >= 3)
            d[len++] = (unsigned char)(v >> 8);
        if (got == 4)
            d[len++] = (unsigned char)v;
        if (!more)
            break;
    }
    *out_len = len;
    return 0;
}
