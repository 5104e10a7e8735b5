/* logzone.c: see logzone.h. TZif (RFC 8536): the version 2+ block of
 * 64-bit transition times is read; before its first transition the first
 * standard-time type applies, after its last the last one (Debian's
 * tzdata is built "fat": explicit transitions to 2037; the footer's rule
 * for later years is not read). */
#include "exec/extract/logzone.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int64_t be64(const unsigned char *p)
{
    return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4));
}

/* "+HH:MM", "-HHMM", "+HH": seconds east; false when spec is none. */
static bool parse_offset(const char *s, int32_t *off)
{
    if (s[0] != '+' && s[0] != '-')
        return false;
    int sign = s[0] == '-' ? -1 : 1;
    const char *p = s + 1;
    unsigned h, m = 0;
    if (!(p[0] >= '0' && p[0] <= '9' && p[1] >= '0' && p[1] <= '9'))
        return false;
    h = (unsigned)(p[0] - '0') * 10 + (unsigned)(p[1] - '0');
    p += 2;
    if (*p == ':')
        p++;
    if (*p) {
        if (!(p[0] >= '0' && p[0] <= '9' && p[1] >= '0' && p[1] <= '9') || p[2])
            return false;
        m = (unsigned)(p[0] - '0') * 10 + (unsigned)(p[1] - '0');
    }
    if (h > 23 || m > 59)
        return false;
    *off = sign * (int32_t)(h * 3600 + m * 60);
    return true;
}

/* A zone name the database may hold: letters, digits, _ + - and / between
 * parts, no part "." or "..". */
static bool name_ok(const char *s)
{
    if (!*s || *s == '/')
        return false;
    for (const char *p = s; *p; p++) {
        char c = *p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '+' || c == '-' || c == '/' || c == '.'))
            return false;
        if (c == '.' && (p == s || p[-1] == '/'))
            return false;   /* no part starts with a dot: no ".." */
    }
    return true;
}

static bool read_tzif(logzone_t *z, const unsigned char *b, size_t n)
{
    if (n < 44 || memcmp(b, "TZif", 4) != 0 || b[4] < '2')
        return false;
    /* skip the version 1 block */
    uint32_t isut = be32(b + 20), isstd = be32(b + 24), leap = be32(b + 28), tc = be32(b + 32),
             ty = be32(b + 36), ch = be32(b + 40);
    size_t skip = 44 + (size_t)tc * 5 + (size_t)ty * 6 + ch + (size_t)leap * 8 + isstd + isut;
    if (skip + 44 > n || memcmp(b + skip, "TZif", 4) != 0)
        return false;
    const unsigned char *h = b + skip;
    isut = be32(h + 20), isstd = be32(h + 24), leap = be32(h + 28), tc = be32(h + 32),
    ty = be32(h + 36), ch = be32(h + 40);
    const unsigned char *times = h + 44, *idx = times + (size_t)tc * 8, *types = idx + tc;
    if (ty == 0 || ty > 256 || tc > LOGZONE_TRANS_MAX ||
        (size_t)(types + (size_t)ty * 6 - b) > n)
        return false;
    int32_t first_std = (int32_t)be32(types);
    for (uint32_t k = 0; k < ty; k++)
        if (types[k * 6 + 4] == 0) {
            first_std = (int32_t)be32(types + k * 6);
            break;
        }
    z->before = first_std;
    z->n = 0;
    for (uint32_t k = 0; k < tc; k++) {
        if (idx[k] >= ty)
            return false;
        int64_t at = be64(times + (size_t)k * 8);
        if (z->n && at <= z->at[z->n - 1])
            return false;
        z->at[z->n] = at;
        z->off[z->n] = (int32_t)be32(types + (size_t)idx[k] * 6);
        z->n++;
    }
    if (z->n == 0)
        z->fixed = (int32_t)be32(types);
    return true;
}

static int load_file(logzone_t *z, const char *name, err_t *e)
{
    const char *dir = getenv("TZDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : "/usr/share/zoneinfo", name);
    FILE *f = name_ok(name) ? fopen(path, "rb") : NULL;
    if (!f)
        return err_set(e, ERR_USAGE,
                       "unknown time zone '%s' (an IANA name such as Europe/Berlin, UTC, or "
                       "an offset such as +02:00)", name);
    unsigned char *b = malloc(1 << 20);
    size_t n = b ? fread(b, 1, 1 << 20, f) : 0;
    fclose(f);
    bool ok = b && read_tzif(z, b, n);
    free(b);
    if (!ok)
        return err_set(e, ERR_USAGE, "time zone '%s': %s is no zone file this build reads",
                       name, path);
    return 0;
}

int logzone_load(logzone_t *z, const char *spec, err_t *e)
{
    memset(z, 0, sizeof *z);
    if (strlen(spec) >= LOGZONE_NAME_MAX)
        return err_set(e, ERR_USAGE, "time zone '%.40s...' is too long", spec);
    snprintf(z->spec, sizeof z->spec, "%s", spec);
    if (strcmp(spec, "UTC") == 0 || strcmp(spec, "Z") == 0 || strcmp(spec, "GMT") == 0 ||
        strcmp(spec, "Etc/UTC") == 0) {
        z->utc = true;
        return 0;
    }
    if (spec[0] == '+' || spec[0] == '-') {
        if (!parse_offset(spec, &z->fixed))
            return err_set(e, ERR_USAGE,
                           "time zone '%s': an offset is +HH:MM, +HHMM or +HH (hours to 23)",
                           spec);
        return 0;
    }
    return load_file(z, spec, e);
}

int32_t logzone_offset(const logzone_t *z, int64_t utc)
{
    if (z->n == 0)
        return z->fixed;
    if (utc < z->at[0])
        return z->before;
    size_t lo = 0, hi = z->n;   /* the last transition at or before utc */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (z->at[mid] <= utc)
            lo = mid;
        else
            hi = mid;
    }
    return z->off[lo];
}

/* A POSIX TZ value without rules ("UTC-3", "<+03>-3", "EST5"): its offset. */
static bool posix_fixed(const char *tz, int32_t *off)
{
    const char *p = tz;
    if (*p == '<') {
        p = strchr(p, '>');
        if (!p)
            return false;
        p++;
    } else {
        while ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z'))
            p++;
        if (p - tz < 3)
            return false;
    }
    int sign = 1;
    if (*p == '+' || *p == '-')
        sign = *p++ == '-' ? -1 : 1;
    long h = 0, m = 0;
    if (!(*p >= '0' && *p <= '9'))
        return false;
    while (*p >= '0' && *p <= '9')
        h = h * 10 + (*p++ - '0');
    if (*p == ':') {
        p++;
        while (*p >= '0' && *p <= '9')
            m = m * 10 + (*p++ - '0');
    }
    if (*p || h > 24 || m > 59)
        return false;
    *off = -sign * (int32_t)(h * 3600 + m * 60);   /* POSIX counts west */
    return true;
}

static void put_offset(char *out, size_t cap, int32_t off)
{
    if (off == 0) {
        snprintf(out, cap, "UTC");
        return;
    }
    int32_t a = off < 0 ? -off : off;
    snprintf(out, cap, "%c%02d:%02d", off < 0 ? '-' : '+', (int)(a / 3600), (int)(a / 60 % 60));
}

void logzone_local_spec(char *out, size_t cap)
{
    const char *tz = getenv("TZ");
    logzone_t *z = malloc(sizeof *z);
    err_t e;
    if (tz) {
        const char *name = tz[0] == ':' ? tz + 1 : tz;
        int32_t off;
        if (!*name) {
            snprintf(out, cap, "UTC");
        } else if (z && strlen(name) < LOGZONE_NAME_MAX && name_ok(name) &&
                   logzone_load(z, name, &e) == 0) {
            snprintf(out, cap, "%s", name);
        } else if (posix_fixed(name, &off)) {
            put_offset(out, cap, off);
        } else {
            tz = NULL;   /* rules we do not read: the offset now, below */
            out[0] = '\0';
        }
    }
    if (!tz) {
        char link[256];
        ssize_t n = readlink("/etc/localtime", link, sizeof link - 1);
        const char *at = NULL;
        if (n > 0) {
            link[n] = '\0';
            at = strstr(link, "zoneinfo/");
        }
        if (at && z && logzone_load(z, at + 9, &e) == 0 && !getenv("TZ")) {
            snprintf(out, cap, "%s", at + 9);
        } else {
            time_t now = time(NULL);
            struct tm tm;
            localtime_r(&now, &tm);
            put_offset(out, cap, (int32_t)tm.tm_gmtoff);
        }
    }
    free(z);
    if (strcmp(out, "Etc/UTC") == 0 || strcmp(out, "UTC") == 0 || strcmp(out, "Etc/GMT") == 0 ||
        strcmp(out, "GMT") == 0 || strcmp(out, "Universal") == 0 || strcmp(out, "Zulu") == 0)
        snprintf(out, cap, "UTC");
}
