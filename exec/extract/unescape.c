/* unescape.c: the backslash escapes of quoted values in text formats
 * (logfmt, the access logs, syslog's structured data): see extract_int.h. */
#include "exec/extract/extract_int.h"

static int hex_digit(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20;
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* The value of n hex digits at p, -1 when one is not. */
static long hex_value(const char *p, uint32_t n)
{
    long v = 0;
    for (uint32_t k = 0; k < n; k++) {
        int d = hex_digit((unsigned char)p[k]);
        if (d < 0)
            return -1;
        v = v << 4 | d;
    }
    return v;
}

uint32_t extract_utf8_put(char *out, unsigned cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | cp >> 18);
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

uint32_t extract_unescape(const char *p, uint32_t n, char *out)
{
    uint32_t o = 0, k = 0;
    while (extract_copy_plain(p, n, &k, out, &o)) {
        if (k + 1 >= n) {
            out[o++] = '\\';                /* a final lone backslash */
            break;
        }
        char c = p[k + 1], b = extract_escape_byte(c, true);
        long v;
        if (b) {
            out[o++] = b;
            k += 2;
            continue;
        }
        switch (c) {
        case 'x':
            if (k + 4 <= n && (v = hex_value(p + k + 2, 2)) >= 0) {
                out[o++] = (char)v;
                k += 4;
                continue;
            }
            break;
        case 'u':
            /* A BMP code point; surrogates are not joined (they are
             * JSON's, and JSON has its own format). \u0000-\u007f take
             * fewer bytes than their escape, the others at most as many. */
            if (k + 6 <= n && (v = hex_value(p + k + 2, 4)) >= 0) {
                o += extract_utf8_put(out + o, (unsigned)v);
                k += 6;
                continue;
            }
            break;
        default:
            break;
        }
        out[o++] = '\\';                    /* not an escape: kept as written */
        k++;
    }
    return o;
}
