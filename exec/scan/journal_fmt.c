/* journal_fmt.c: see journal_fmt.h. */
#include "exec/scan/journal_fmt.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/grow.h"

/* journalctl leaves out a header field this long (PRINT_CHAR_THRESHOLD). */
#define FIELD_MAX 300
/* The last timestamp it formats (USEC_TIMESTAMP_FORMATTABLE_MAX, year 9999). */
#define REALTIME_MAX 253402214400000000ull

void journal_fmt_init(journal_fmt_t *f)
{
    memset(f, 0, sizeof *f);
    f->time_s = -1;
}

void journal_fmt_free(journal_fmt_t *f)
{
    free(f->out);
    free(f->msg);
    journal_fmt_init(f);
}

/* ---- systemd's UTF-8 rules (src/basic/utf8.c) ----------------------------- */

/* The length of the valid character at p (n > 0 bytes left) and its code
 * point in *c, or 0 when it is not valid (unichar_is_valid: no surrogate,
 * none of U+FDD0..U+FDEF nor U+xFFFE/U+xFFFF, at most U+10FFFF, shortest
 * form). */
static size_t utf8_char(const unsigned char *p, size_t n, uint32_t *c)
{
    size_t len = p[0] < 0x80 ? 1 : (p[0] & 0xE0) == 0xC0 ? 2 : (p[0] & 0xF0) == 0xE0 ? 3
                 : (p[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (!len || len > n)
        return 0;
    uint32_t v = len == 1 ? p[0] : p[0] & (0x7Fu >> len);
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        v = v << 6 | (p[i] & 0x3F);
    }
    size_t shortest = v < 0x80 ? 1 : v < 0x800 ? 2 : v < 0x10000 ? 3 : 4;
    if (shortest != len || v >= 0x110000 || (v & 0xFFFFF800u) == 0xD800 ||
        (v >= 0xFDD0 && v <= 0xFDEF) || (v & 0xFFFE) == 0xFFFE)
        return 0;
    *c = v;
    return len;
}

int journal_utf8_printable(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    while (n) {
        if (*p >= 0x20 && *p < 0x7F) {   /* the common case */
            p++;
            n--;
            continue;
        }
        uint32_t c;
        size_t len = utf8_char(p, n, &c);
        if (!len || (c < 0x20 && c != '\t' && c != '\n') || (c >= 0x7F && c <= 0x9F))
            return 0;
        p += len;
        n -= len;
    }
    return 1;
}

/* ---- the message: systemd's strip_tab_ansi (src/basic/string-util.c) ------ */

/* Tabs to 8 spaces, ESC [ digits;... m and ESC ] ... BEL dropped (a
 * sequence cut short or with other bytes is kept as it is), carriage
 * returns dropped before '\n' and at the end. out has room for 8 n. */
static size_t strip_tab_ansi(const char *in, size_t n, char *out)
{
    size_t k = 0, crs = 0;
    size_t plain = 0;   /* most messages have none of the four: copied whole */
    while (plain < n && in[plain] != '\t' && in[plain] != '\r' && in[plain] != '\x1B')
        plain++;
    if (plain == n) {
        memcpy(out, in, n);
        return n;
    }
    for (size_t i = 0; i < n; i++) {
        char c = in[i];
        if (c == '\r') {
            crs++;
            continue;
        }
        if (c == '\n')
            crs = 0;
        for (; crs; crs--)
            out[k++] = '\r';
        if (c == '\t') {
            memcpy(out + k, "        ", 8);
            k += 8;
            continue;
        }
        if (c != '\x1B' || i + 1 >= n) {
            out[k++] = c;   /* also ESC at the end */
            continue;
        }
        if (in[i + 1] != '[' && in[i + 1] != ']') {
            out[k++] = c;   /* ESC and the byte after it, as they are */
            out[k++] = in[++i];
            continue;
        }
        /* A CSI colour sequence ends at 'm' and holds digits and ';' (and
         * NUL: systemd tests them with strchr); an OSC one ends at BEL and
         * holds printable ASCII. */
        int csi = in[i + 1] == '[';
        size_t j = i + 2;
        for (; j < n; j++) {
            unsigned char d = (unsigned char)in[j];
            if (csi ? d == 'm' : d == '\a')
                break;
            if (csi ? d && !strchr("0123456789;", d) : (d < 32 || d > 126))
                break;
        }
        if (j < n && in[j] == (csi ? 'm' : '\a')) {
            i = j;   /* the whole sequence goes */
            continue;
        }
        out[k++] = c;   /* not a sequence: ESC and its bracket stay, the rest is read again */
        out[k++] = in[++i];
    }
    return k;
}

/* ---- the line --------------------------------------------------------------- */

static int room(journal_fmt_t *f, size_t more)
{
    return GROW_ARRAY(f->out, f->cap, f->len + more, 4096);
}

static void put(journal_fmt_t *f, const char *p, size_t n)
{
    memcpy(f->out + f->len, p, n);
    f->len += n;
}

/* A header field journalctl shows (shall_print). */
static int shown(const journal_text_t *t)
{
    return t->p && t->n < FIELD_MAX && journal_utf8_printable(t->p, t->n);
}

/* systemd's safe_atou64: leading blanks, then a number of base 10, 16
 * (0x) or 8 (0), nothing after it, no sign. */
static int parse_u64(const journal_text_t *t, uint64_t *v)
{
    char buf[64];
    if (!t->p || t->n >= sizeof buf)
        return -1;
    memcpy(buf, t->p, t->n);
    buf[t->n] = 0;
    const char *s = buf + strspn(buf, " \t\n\r");
    if (*s == '-' || *s == '+')
        return -1;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 0);
    if (errno || end == s || *end)
        return -1;
    *v = x;
    return 0;
}

/* f->time_text: "Mon DD HH:MM:SS" of us (microseconds), local time,
 * English months; made again only when the second changes. */
static void set_time(journal_fmt_t *f, uint64_t us)
{
    static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    time_t t = (time_t)(us / 1000000);
    if ((long long)t == f->time_s)
        return;
    struct tm tm;
    if (!localtime_r(&t, &tm))
        memset(&tm, 0, sizeof tm);
    int n = snprintf(f->time_text, sizeof f->time_text, "%s %02d %02d:%02d:%02d",
                     months[tm.tm_mon % 12], tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    f->time_len = n > 0 ? (size_t)n : 0;
    f->time_s = (long long)t;
}

/* systemd's format_bytes: "123B", "68.3K", "1.5M" (1024-based, one decimal
 * digit, truncated). */
static void format_bytes(char *out, size_t cap, uint64_t t)
{
    static const char *const suffix[] = {"E", "P", "T", "G", "M", "K"};
    for (int i = 0; i < 6; i++) {
        uint64_t factor = 1ull << (10 * (6 - i));
        if (t < factor)
            continue;
        uint64_t digit = i != 5 ? (t / (factor >> 10) * 10 / 1024) % 10 : (t * 10 / factor) % 10;
        snprintf(out, cap, "%" PRIu64 ".%" PRIu64 "%s", t / factor, digit, suffix[i]);
        return;
    }
    snprintf(out, cap, "%" PRIu64 "B", t);
}

int journal_fmt_short(journal_fmt_t *f, const journal_entry_t *en)
{
    const journal_text_t *m = &en->message;
    if (!m->p)
        return 0;
    if (m->n > (SIZE_MAX - 1) / 8 || GROW_ARRAY(f->msg, f->msg_cap, 8 * m->n + 1, 4096) < 0)
        return -1;
    size_t mlen = strip_tab_ansi(m->p, m->n, f->msg);

    uint64_t when;
    if (parse_u64(&en->source_realtime, &when) < 0 || when == 0 || when >= REALTIME_MAX)
        when = en->realtime_us;
    set_time(f, when);
    size_t head_len = f->time_len;
    const journal_text_t *ident = shown(&en->identifier) ? &en->identifier
                                  : shown(&en->comm)     ? &en->comm
                                                         : NULL;
    const journal_text_t *pid = shown(&en->pid)          ? &en->pid
                                : shown(&en->syslog_pid) ? &en->syslog_pid
                                                         : NULL;
    const journal_text_t *host = shown(&en->hostname) ? &en->hostname : NULL;
    /* The column of the message; journalctl does not count "unknown". */
    size_t indent = head_len + (host ? host->n + 1 : 0) + (ident ? ident->n + 1 : 0) +
                    (pid ? pid->n + 2 : 0) + 2;
    int printable = journal_utf8_printable(f->msg, mlen);
    size_t lines = 1;
    for (const char *q = f->msg, *end = f->msg + (mlen ? mlen - 1 : 0);
         printable && (q = memchr(q, '\n', (size_t)(end - q))); q++)
        lines++;
    size_t need = indent + 8 + 2 + (printable ? mlen + lines * (indent + 1) : 64);
    if (room(f, need) < 0)
        return -1;
    put(f, f->time_text, head_len);
    if (host) {
        put(f, " ", 1);
        put(f, host->p, host->n);
    }
    put(f, " ", 1);
    if (ident)
        put(f, ident->p, ident->n);
    else
        put(f, "unknown", 7);
    if (pid) {
        put(f, "[", 1);
        put(f, pid->p, pid->n);
        put(f, "]", 1);
    }
    put(f, ": ", 2);
    if (!printable) {
        char size[32];
        format_bytes(size, sizeof size, mlen);
        f->len += (size_t)snprintf(f->out + f->len, 64, "[%s blob data]\n", size);
        return 0;
    }
    if (mlen == 0) {
        put(f, "\n", 1);
        return 0;
    }
    /* Every line of the message ends in '\n'; a last '\n' ends the last
     * line rather than starting an empty one. */
    for (size_t pos = 0; pos < mlen;) {
        const char *nl = memchr(f->msg + pos, '\n', mlen - pos);
        size_t end = nl ? (size_t)(nl - f->msg) : mlen;
        if (pos) {
            memset(f->out + f->len, ' ', indent);
            f->len += indent;
        }
        put(f, f->msg + pos, end - pos);
        put(f, "\n", 1);
        pos = end + 1;
    }
    return 0;
}
