/* term.c: see term.h. */
#include "base/term.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"

/* Bytes that are shown as they are wherever they stand. */
static inline int plain_byte(unsigned char c)
{
    return (c >= 0x20 && c < 0x7f) || c == '\t' || c == '\n';
}

/* Whether the 8 bytes at p are all printable ASCII (0x20-0x7e): a byte
 * below 0x20 borrows into its top bit, one of 0x7f or above has it set
 * or gets it by adding 1. A false "no" only sends the bytes to the byte
 * loop; a "yes" is exact. */
static inline int word_printable(const unsigned char *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
    const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
    uint64_t below = (x - 0x20 * ones) & ~x & highs;
    uint64_t above = (x | (x + ones)) & highs;
    return !(below | above);
}

static inline int cont(unsigned char c)
{
    return (c & 0xc0) == 0x80;
}

size_t term_utf8_len(const unsigned char *p, size_t n)
{
    unsigned char c = p[0];
    if (c >= 0xc2 && c <= 0xdf)
        return n >= 2 && cont(p[1]) ? 2 : 0;
    if (c >= 0xe0 && c <= 0xef) {
        if (n < 3 || !cont(p[1]) || !cont(p[2]))
            return 0;
        if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] > 0x9f))
            return 0;   /* overlong; a surrogate */
        return 3;
    }
    if (c >= 0xf0 && c <= 0xf4) {
        if (n < 4 || !cont(p[1]) || !cont(p[2]) || !cont(p[3]))
            return 0;
        if ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] > 0x8f))
            return 0;   /* overlong; beyond U+10FFFF */
        return 4;
    }
    return 0;
}

static const char hex[] = "0123456789ABCDEF";

size_t term_escape(char *dst, const char *src, size_t n, unsigned flags)
{
    const unsigned char *p = (const unsigned char *)src;
    size_t i = 0, out = 0;
    while (i < n) {
        /* A run of plain bytes is copied whole. */
        size_t run = i;
        for (;;) {
            if (run + 8 <= n && word_printable(p + run))
                run += 8;
            else if (run < n && plain_byte(p[run]))
                run++;
            else
                break;
        }
        if (run > i) {
            if (dst)
                memcpy(dst + out, p + i, run - i);
            out += run - i;
            i = run;
            if (i == n)
                break;
        }
        unsigned char c = p[i];
        char e[8];
        size_t k = 0, used = 1;
        if (c == '\r' && ((i + 1 < n && p[i + 1] == '\n') ||
                          (i + 1 == n && (flags & TERM_LINE_END)))) {
            e[k++] = '\r';
        } else if (c < 0x20 || c == 0x7f) {
            e[k++] = '^';
            e[k++] = c == 0x7f ? '?' : (char)(c + 0x40);
        } else if ((used = term_utf8_len(p + i, n - i)) == 0) {
            used = 1;
            e[k++] = '<';
            e[k++] = hex[c >> 4];
            e[k++] = hex[c & 15];
            e[k++] = '>';
        } else if (c == 0xc2 && p[i + 1] < 0xa0) {
            memcpy(e, "<U+00", 5);   /* a C1 control */
            k = 5;
            e[k++] = hex[p[i + 1] >> 4];
            e[k++] = hex[p[i + 1] & 15];
            e[k++] = '>';
        } else {
            if (dst)
                memcpy(dst + out, p + i, used);
            out += used;
            i += used;
            continue;
        }
        if (dst)
            memcpy(dst + out, e, k);
        out += k;
        i += used;
    }
    return out;
}

size_t term_cut(const char *src, size_t n, size_t k)
{
    const unsigned char *p = (const unsigned char *)src;
    if (k >= n)
        return n;
    size_t c = k, j = k;
    /* p[k] starts the second span; if it continues a sequence whose lead
     * is at most 3 bytes back, cut before that lead. */
    while (j > 0 && k - j < 3 && cont(p[j]))
        j--;
    if (j < k && p[j] >= 0xc0)
        c = j;
    if (c > 0 && p[c - 1] == '\r' && p[c] == '\n')
        c--;
    return c;
}

static int escapes[3];

void term_setup(int raw)
{
    escapes[1] = !raw && isatty(STDOUT_FILENO);
    escapes[2] = !raw && isatty(STDERR_FILENO);
}

int term_escapes(int fd)
{
    return fd == 1 || fd == 2 ? escapes[fd] : 0;
}

void term_write_escaped(FILE *f, const char *text, size_t n)
{
    char small[4 * 4096];
    char *d = n <= sizeof small / TERM_ESCAPE_MAX ? small : malloc(n * TERM_ESCAPE_MAX);
    if (!d)
        return;
    fwrite(d, 1, term_escape(d, text, n, 0), f);
    if (d != small)
        free(d);
}

void term_fprintf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int diag = f == stderr;
    if (!diag && !term_escapes(fileno(f))) {
        vfprintf(f, fmt, ap);
        va_end(ap);
        return;
    }
    char text[4096];
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    char *t = text;
    if (n >= (int)sizeof text) {   /* a long message: on the heap */
        t = malloc((size_t)n + 1);
        if (t)
            vsnprintf(t, (size_t)n + 1, fmt, ap2);
    }
    va_end(ap2);
    if (n > 0 && t && diag)
        log_diag_write(t, (size_t)n);   /* the terminal and/or the client log file */
    else if (n > 0 && t)
        term_write_escaped(f, t, (size_t)n);
    if (t != text)
        free(t);
}
