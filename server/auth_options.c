/* auth_options.c: see auth_options.h. */
#include "server/auth_options.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

long auth_options_len(const char *line, size_t len)
{
    int quoted = 0;
    for (size_t i = 0; i < len; i++) {
        char c = line[i];
        if (quoted && c == '\\' && i + 1 < len && line[i + 1] == '"') {
            i++;
            continue;
        }
        if (c == '"')
            quoted = !quoted;
        else if (!quoted && (c == ' ' || c == '\t'))
            return (long)i;
    }
    return quoted ? -1 : (long)len;
}

/* Glob match of text against pattern (* and ?), ignoring case as
 * OpenSSH's match_pattern does for addresses and names. */
static int wild_match(const char *t, size_t tn, const char *p, size_t pn)
{
    size_t ti = 0, pi = 0, star_p = (size_t)-1, star_t = 0;
    while (ti < tn) {
        if (pi < pn && (p[pi] == '?' || tolower((unsigned char)p[pi]) == tolower((unsigned char)t[ti]))) {
            ti++;
            pi++;
        } else if (pi < pn && p[pi] == '*') {
            star_p = pi++;
            star_t = ti;
        } else if (star_p != (size_t)-1) {
            pi = star_p + 1;
            ti = ++star_t;
        } else {
            return 0;
        }
    }
    while (pi < pn && p[pi] == '*')
        pi++;
    return pi == pn;
}

/* addr/bits: 1 when peer is inside, 0 when not (or of the other family),
 * -1 when the pattern is no such network. */
static int cidr_match(const char *peer, const char *pat, size_t n)
{
    char addr[64];
    const char *slash = memchr(pat, '/', n);
    size_t an = (size_t)(slash - pat);
    if (an == 0 || an >= sizeof addr)
        return -1;
    memcpy(addr, pat, an);
    addr[an] = '\0';
    unsigned char net[16], me[16];
    int family = strchr(addr, ':') ? AF_INET6 : AF_INET;
    int max_bits = family == AF_INET6 ? 128 : 32;
    if (inet_pton(family, addr, net) != 1)
        return -1;
    size_t bn = n - an - 1;
    if (bn == 0 || bn > 3)
        return -1;
    int bits = 0;
    for (size_t i = 0; i < bn; i++) {
        char c = slash[1 + i];
        if (c < '0' || c > '9')
            return -1;
        bits = bits * 10 + (c - '0');
    }
    if (bits > max_bits)
        return -1;
    if (inet_pton(family, peer, me) != 1)
        return 0;
    int whole = bits / 8, rest = bits % 8;
    if (memcmp(net, me, (size_t)whole) != 0)
        return 0;
    if (rest) {
        unsigned char mask = (unsigned char)(0xff << (8 - rest));
        if ((net[whole] & mask) != (me[whole] & mask))
            return 0;
    }
    return 1;
}

int auth_addr_match_list(const char *peer, const char *list, size_t len)
{
    /* An IPv4 client on a dual-stack socket: match it as IPv4. */
    if (strncasecmp(peer, "::ffff:", 7) == 0 && strchr(peer + 7, '.'))
        peer += 7;
    size_t peer_len = strlen(peer);
    int allowed = 0;
    size_t i = 0;
    while (i <= len) {
        const char *p = list + i;
        const char *comma = memchr(p, ',', len - i);
        size_t n = comma ? (size_t)(comma - p) : len - i;
        int negated = n > 0 && p[0] == '!';
        const char *pat = p + negated;
        size_t pn = n - (size_t)negated;
        if (pn == 0)
            return -1;
        int m = memchr(pat, '/', pn) ? cidr_match(peer, pat, pn) : wild_match(peer, peer_len, pat, pn);
        if (m < 0)
            return -1;
        if (m && negated)
            return 0;
        if (m)
            allowed = 1;
        i += n + 1;
    }
    return allowed;
}

/* expiry-time's value: seconds since the epoch, or -1. */
static time_t parse_expiry(const char *v, size_t n)
{
    int utc = n > 0 && (v[n - 1] == 'Z' || v[n - 1] == 'z');
    n -= (size_t)utc;
    if (n != 8 && n != 12 && n != 14)
        return -1;
    int d[14] = {0};
    for (size_t i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9')
            return -1;
        d[i] = v[i] - '0';
    }
    struct tm tm = {0};
    tm.tm_year = d[0] * 1000 + d[1] * 100 + d[2] * 10 + d[3] - 1900;
    tm.tm_mon = d[4] * 10 + d[5] - 1;
    tm.tm_mday = d[6] * 10 + d[7];
    tm.tm_hour = d[8] * 10 + d[9];
    tm.tm_min = d[10] * 10 + d[11];
    tm.tm_sec = d[12] * 10 + d[13];
    if (tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 ||
        tm.tm_min > 59 || tm.tm_sec > 59)
        return -1;
    tm.tm_isdst = -1;
    return utc ? timegm(&tm) : mktime(&tm);
}

/* Options that govern what dserver never offers: a key may carry them. */
static const char *const harmless[] = {
    "restrict", "no-pty", "no-port-forwarding", "no-agent-forwarding", "no-x11-forwarding",
    "no-user-rc", "pty", "port-forwarding", "agent-forwarding", "x11-forwarding", "user-rc", NULL};

static int is_harmless(const char *name, size_t n)
{
    for (const char *const *h = harmless; *h; h++)
        if (strlen(*h) == n && strncasecmp(*h, name, n) == 0)
            return 1;
    return 0;
}

/* The value after '=' of one option: "...", with \" for a quote; copied
 * unquoted into out. Returns its length, or -1. */
static long unquote(const char *v, size_t n, char *out, size_t cap)
{
    if (n < 2 || v[0] != '"' || v[n - 1] != '"')
        return -1;
    size_t k = 0;
    for (size_t i = 1; i + 1 < n; i++) {
        if (v[i] == '\\' && i + 2 < n && v[i + 1] == '"')
            i++;
        if (k + 1 >= cap)
            return -1;
        out[k++] = v[i];
    }
    out[k] = '\0';
    return (long)k;
}

/* The end of the option starting at i: the next comma outside quotes. */
static size_t option_end(const char *opts, size_t len, size_t i)
{
    int quoted = 0;
    for (; i < len; i++) {
        if (quoted && opts[i] == '\\' && i + 1 < len && opts[i + 1] == '"') {
            i++;
            continue;
        }
        if (opts[i] == '"')
            quoted = !quoted;
        else if (!quoted && opts[i] == ',')
            break;
    }
    return i;
}

int auth_options_check(const char *opts, size_t len, const char *peer, time_t now, char *why,
                       size_t cap)
{
    char value[4096];
    int verdict = 1;
    why[0] = '\0';
    for (size_t i = 0; i < len;) {
        size_t end = option_end(opts, len, i);
        const char *o = opts + i;
        size_t on = end - i;
        const char *eq = memchr(o, '=', on);
        size_t nn = eq ? (size_t)(eq - o) : on;
        long vn = eq ? unquote(eq + 1, on - nn - 1, value, sizeof value) : 0;
        i = end + 1;
        if (nn == 0 || vn < 0) {
            snprintf(why, cap, "malformed option \"%.*s\"", (int)(on > 64 ? 64 : on), o);
            return -1;
        }
        if (!eq && is_harmless(o, nn))
            continue;
        if (eq && nn == 4 && strncasecmp(o, "from", 4) == 0) {
            int m = auth_addr_match_list(peer, value, (size_t)vn);
            if (m < 0) {
                snprintf(why, cap, "malformed from=\"%.200s\"", value);
                return -1;
            }
            if (!m && verdict > 0) {
                snprintf(why, cap, "from=\"%.200s\" does not allow %.64s", value, peer);
                verdict = 0;
            }
            continue;
        }
        if (eq && nn == 11 && strncasecmp(o, "expiry-time", 11) == 0) {
            time_t t = parse_expiry(value, (size_t)vn);
            if (t == (time_t)-1) {
                snprintf(why, cap, "malformed expiry-time=\"%.64s\"", value);
                return -1;
            }
            if (now >= t && verdict > 0) {
                snprintf(why, cap, "key expired (expiry-time=\"%.64s\")", value);
                verdict = 0;
            }
            continue;
        }
        snprintf(why, cap, "option %.*s is not supported by dserver; the key is not used",
                 (int)(nn > 64 ? 64 : nn), o);
        return -1;
    }
    return verdict;
}
