/*
 * gen.c - deterministic benchmark data generator for DTail in C.
 *
 * Single file, no dependencies; built by benchmarks/run.sh with `cc -O2`.
 *
 *   gen mixed SIZE_MB OUT      DTail-format mixed log (~100-byte lines,
 *                              ~19 % ERROR, ~0.07 % rare token)
 *   gen stats SIZE_MB OUT      MAPREDUCE:STATS lines, 50 hostname= values
 *   gen manyfiles N DIR        N small log files in DIR (DIR must be empty)
 *   gen oneline OUT            a file with a single mixed-log line
 *   gen sum [-u] [FILE|-]      bytes, lines and checksum of a file or stdin
 *                              (-u: also an order-independent line-multiset
 *                              sum, usum=)
 *   gen sink                   read stdin and discard it (splice when possible)
 *
 * SIZE_MB is in MiB (1024 = 1 GiB). The file ends with the first complete
 * line that reaches the size, so it is at most one line larger. The same
 * arguments always give byte-identical output: the PRNG is a fixed-seed
 * xorshift64*, nothing depends on time, locale or the environment. Every
 * generating subcommand prints one summary line on stdout, ending with
 * `sum=<16 hex digits>`, the same checksum that `gen sum FILE` prints.
 *
 * Facts about the mixed log that the benchmark relies on (and checks):
 *   - "ERROR" occurs only as the severity field of ERROR lines;
 *   - "XYZZY-RARE" occurs at most once per line (rare_lines counts them);
 *   - the lines that match ERROR.*user[0-9]+ are counted (regex_lines).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define GEN_VERSION "1"
#define RARE_TOKEN "XYZZY-RARE"
#define OUTBUF_SIZE (4u << 20)
#define LINE_MAX_BYTES 1024u

/* ---------------------------------------------------------------- PRNG */

static uint64_t rng_state;

static void rng_seed(uint64_t seed)
{
    /* splitmix64 so that small seeds give a well-mixed, non-zero state */
    uint64_t z = seed + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    rng_state = z ? z : 0x2545F4914F6CDD1Dull;
}

static inline uint64_t rnd(void)
{
    uint64_t x = rng_state; /* xorshift64* */
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    rng_state = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* uniform in [0, n) */
static inline uint32_t rndn(uint32_t n)
{
    return (uint32_t)(((rnd() >> 32) * (uint64_t)n) >> 32);
}

/* ------------------------------------------------------------ checksum */

/* Four 64-bit lanes over 32-byte blocks; streaming, so the result does not
 * depend on how the data is split into writes or reads. */
typedef struct {
    uint64_t lane[4];
    uint64_t total;
    uint64_t lines;
    unsigned char pend[32];
    unsigned npend;
} hasher;

static const uint64_t K1 = 0x9E3779B97F4A7C15ull;
static const uint64_t K2 = 0xC2B2AE3D27D4EB4Full;

static inline uint64_t rotl64(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }

static void h_init(hasher *h)
{
    memset(h, 0, sizeof *h);
    h->lane[0] = 0x243F6A8885A308D3ull;
    h->lane[1] = 0x13198A2E03707344ull;
    h->lane[2] = 0xA4093822299F31D0ull;
    h->lane[3] = 0x082EFA98EC4E6C89ull;
}

static inline void h_block(hasher *h, const unsigned char *p)
{
    uint64_t w[4];
    memcpy(w, p, 32);
    for (int i = 0; i < 4; i++)
        h->lane[i] = rotl64(h->lane[i] ^ w[i], 31) * K1;
}

static void h_count_lines(hasher *h, const unsigned char *p, size_t n)
{
    const unsigned char *end = p + n;
    while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        h->lines++;
        p++;
    }
}

static void h_update(hasher *h, const void *data, size_t n, int count_lines)
{
    const unsigned char *p = data;
    if (count_lines)
        h_count_lines(h, p, n);
    h->total += n;
    if (h->npend) {
        size_t take = 32 - h->npend;
        if (take > n)
            take = n;
        memcpy(h->pend + h->npend, p, take);
        h->npend += (unsigned)take;
        p += take;
        n -= take;
        if (h->npend < 32)
            return;
        h_block(h, h->pend);
        h->npend = 0;
    }
    while (n >= 32) {
        h_block(h, p);
        p += 32;
        n -= 32;
    }
    if (n) {
        memcpy(h->pend, p, n);
        h->npend = (unsigned)n;
    }
}

static uint64_t fmix64(uint64_t z)
{
    z = (z ^ (z >> 33)) * 0xFF51AFD7ED558CCDull;
    z = (z ^ (z >> 33)) * 0xC4CEB9FE1A85EC53ull;
    return z ^ (z >> 33);
}

static uint64_t h_final(const hasher *h)
{
    hasher t = *h;
    if (t.npend) {
        memset(t.pend + t.npend, 0, 32 - t.npend);
        h_block(&t, t.pend);
    }
    uint64_t r = t.total * K2;
    for (int i = 0; i < 4; i++)
        r = rotl64(r ^ fmix64(t.lane[i] + (uint64_t)i), 27) * K1 + K2;
    return fmix64(r);
}

/* one-shot hash of a small buffer (used for the order-independent sum) */
static uint64_t hash_small(const unsigned char *p, size_t n)
{
    uint64_t r = K2 ^ (n * K1);
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        r = rotl64(r ^ (w * K2), 31) * K1;
        p += 8;
        n -= 8;
    }
    uint64_t w = 0;
    memcpy(&w, p, n);
    r = rotl64(r ^ (w * K2), 31) * K1;
    return fmix64(r);
}

/* -------------------------------------------------------------- output */

typedef struct {
    int fd;
    char *buf;
    size_t len;
    hasher h;
    const char *path;
} out_t;

/* where the summary line goes: stderr when the data itself goes to stdout */
static FILE *info_out;

static void die(const char *what, const char *path)
{
    fprintf(stderr, "gen: %s %s: %s\n", what, path ? path : "", strerror(errno));
    exit(1);
}

static void write_all(int fd, const char *p, size_t n, const char *path)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            die("write", path);
        }
        p += w;
        n -= (size_t)w;
    }
}

static void out_flush(out_t *o)
{
    if (!o->len)
        return;
    h_update(&o->h, o->buf, o->len, 0);
    write_all(o->fd, o->buf, o->len, o->path);
    o->len = 0;
}

static inline char *out_reserve(out_t *o)
{
    if (o->len + LINE_MAX_BYTES > OUTBUF_SIZE)
        out_flush(o);
    return o->buf + o->len;
}

/* ------------------------------------------------------- line building */

#define PUTL(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) += sizeof(lit) - 1)

static inline char *put_s(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

static inline char *put_u(char *p, uint64_t v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        *p++ = tmp[--n];
    return p;
}

static inline char *put_2(char *p, unsigned v)
{
    p[0] = (char)('0' + v / 10 % 10);
    p[1] = (char)('0' + v % 10);
    return p + 2;
}

static inline char *put_hex(char *p, uint64_t v, int digits)
{
    static const char hx[] = "0123456789abcdef";
    for (int i = digits - 1; i >= 0; i--) {
        p[i] = hx[v & 15];
        v >>= 4;
    }
    return p + digits;
}

static inline char *put_ip(char *p)
{
    PUTL(p, "10.");
    p = put_u(p, rndn(256));
    *p++ = '.';
    p = put_u(p, rndn(256));
    *p++ = '.';
    p = put_u(p, 1 + rndn(254));
    return p;
}

static inline char *put_user(char *p) /* "user<digits>" */
{
    PUTL(p, "user");
    return put_u(p, 1000 + rndn(99000));
}

static const char *const SERVICES[] = {
    "auth", "billing", "catalog", "checkout", "gateway", "indexer",
    "mailer", "payments", "search", "session", "storage", "worker",
};
#define NSERVICES (sizeof SERVICES / sizeof SERVICES[0])

static const char *const PATHS[] = {
    "/api/v1/orders", "/api/v1/users/profile", "/api/v2/search", "/healthz",
    "/api/v1/cart/items", "/static/app.js", "/api/v2/payments/charge",
    "/api/v1/login", "/api/v1/logout", "/metrics",
};
#define NPATHS (sizeof PATHS / sizeof PATHS[0])

static const char *const METHODS[] = {"GET", "GET", "GET", "POST", "PUT", "DELETE"};

/* start of the simulated clock: 1002-071143, as in DTail's mapr_testdata.log */
#define T0 (1ull * 86400 + 7 * 3600 + 11 * 60 + 43)

/* simulated wall clock, in seconds since an arbitrary 30-day-month epoch */
typedef struct {
    uint64_t t;
    uint64_t cgocalls;
    uint64_t lifetime;
    unsigned current;
} clock_state;

static char *put_time(char *p, uint64_t t) /* MMDD-HHMMSS */
{
    uint64_t day = t / 86400, sod = t % 86400;
    unsigned month = (unsigned)(9 + day / 30) % 12 + 1, mday = (unsigned)(day % 30) + 1;
    p = put_2(p, month);
    p = put_2(p, mday);
    *p++ = '-';
    p = put_2(p, (unsigned)(sod / 3600));
    p = put_2(p, (unsigned)(sod / 60 % 60));
    p = put_2(p, (unsigned)(sod % 60));
    return p;
}

static char *put_uptime(char *p, uint64_t t) /* Go duration, e.g. 471h0m21s */
{
    uint64_t up = t - T0 + 471ull * 3600 + 21;
    p = put_u(p, up / 3600);
    *p++ = 'h';
    p = put_u(p, up / 60 % 60);
    *p++ = 'm';
    p = put_u(p, up % 60);
    *p++ = 's';
    return p;
}

/* INFO|time|pid|stats.go:56|cpus|goroutines|cgocalls|loadavg|uptime|MAPREDUCE:STATS| */
static char *put_stats_prefix(char *p, clock_state *c)
{
    PUTL(p, "INFO|");
    p = put_time(p, c->t);
    PUTL(p, "|1|stats.go:56|8|");
    p = put_u(p, 10 + rndn(30));
    *p++ = '|';
    c->cgocalls += rndn(3);
    p = put_u(p, c->cgocalls);
    *p++ = '|';
    p = put_u(p, rndn(100) < 90 ? 0 : 1 + rndn(3));
    *p++ = '.';
    p = put_2(p, rndn(100));
    *p++ = '|';
    p = put_uptime(p, c->t);
    PUTL(p, "|MAPREDUCE:STATS|");
    return p;
}

typedef struct {
    uint64_t lines, error_lines, rare_lines, regex_lines, stats_lines;
} mixed_counts;

/* Writes one mixed-log line (with '\n') at p; returns the end. */
static char *mixed_line(char *p, clock_state *c, mixed_counts *k)
{
    uint32_t r = rndn(10000);
    int rare = r < 7; /* 0.07 % */
    uint32_t sev = rndn(10000);
    int regex_hit = 0;

    c->t += rndn(3) == 0;
    k->lines++;

    if (sev < 1900) { /* ----------------------------- ERROR, 19 % */
        k->error_lines++;
        PUTL(p, "ERROR|");
        p = put_time(p, c->t);
        *p++ = '|';
        switch (rndn(8)) {
        case 0:
            PUTL(p, "Unable to authenticate ");
            p = put_user(p);
            PUTL(p, " from ");
            p = put_ip(p);
            PUTL(p, ": permission denied|attempt=");
            p = put_u(p, 1 + rndn(5));
            regex_hit = 1;
            break;
        case 1:
            PUTL(p, "Failed to read file /var/log/");
            p = put_s(p, SERVICES[rndn(NSERVICES)]);
            PUTL(p, "/current.log|open: no such file or directory");
            break;
        case 2:
            PUTL(p, "Connection reset by peer|remote=");
            p = put_ip(p);
            *p++ = ':';
            p = put_u(p, 1024 + rndn(60000));
            PUTL(p, "|session=");
            p = put_hex(p, rnd(), 16);
            break;
        case 3:
            PUTL(p, "Query failed for ");
            p = put_user(p);
            PUTL(p, " after ");
            p = put_u(p, 100 + rndn(30000));
            PUTL(p, "ms: context deadline exceeded");
            regex_hit = 1;
            break;
        case 4: /* near miss for user[0-9]+ : "users=" */
            PUTL(p, "Handler error recovered|caller=handler.go:");
            p = put_u(p, 20 + rndn(400));
            PUTL(p, "|users=");
            p = put_u(p, rndn(5000));
            PUTL(p, "|goroutines=");
            p = put_u(p, 10 + rndn(500));
            break;
        case 5: /* near miss: "user quota" */
            PUTL(p, "Rejecting request: user quota exceeded|service=");
            p = put_s(p, SERVICES[rndn(NSERVICES)]);
            PUTL(p, "|limit=");
            p = put_u(p, 100 + rndn(900));
            break;
        case 6:
            PUTL(p, "SSH handshake failed|remote=");
            p = put_ip(p);
            PUTL(p, "|err=EOF|server=");
            p = put_s(p, SERVICES[rndn(NSERVICES)]);
            PUTL(p, "-");
            p = put_2(p, rndn(50));
            break;
        default:
            PUTL(p, "Lost session|");
            p = put_user(p);
            PUTL(p, "|session=");
            p = put_hex(p, rnd(), 16);
            PUTL(p, "|bytes=");
            p = put_u(p, rndn(10000000));
            regex_hit = 1;
            break;
        }
    } else if (sev < 2700) { /* ----------------------- WARN, 8 % */
        PUTL(p, "WARN|");
        p = put_time(p, c->t);
        *p++ = '|';
        switch (rndn(3)) {
        case 0:
            PUTL(p, "Slow request by ");
            p = put_user(p);
            PUTL(p, "|path=");
            p = put_s(p, PATHS[rndn(NPATHS)]);
            PUTL(p, "|took=");
            p = put_u(p, 500 + rndn(9500));
            PUTL(p, "ms");
            break;
        case 1:
            PUTL(p, "Retrying connection to ");
            p = put_ip(p);
            *p++ = ':';
            p = put_u(p, 1024 + rndn(60000));
            PUTL(p, " (attempt ");
            p = put_u(p, 1 + rndn(9));
            PUTL(p, " of 10, backing off)");
            break;
        default:
            PUTL(p, "Disk usage high on /var/log/");
            p = put_s(p, SERVICES[rndn(NSERVICES)]);
            PUTL(p, "|used=");
            p = put_u(p, 80 + rndn(20));
            PUTL(p, "%|free=");
            p = put_u(p, 100 + rndn(9000));
            PUTL(p, "MB");
            break;
        }
    } else if (sev < 3700) { /* ---------------------- DEBUG, 10 % */
        PUTL(p, "DEBUG|");
        p = put_time(p, c->t);
        *p++ = '|';
        if (rndn(2)) {
            PUTL(p, "Reading chunk|file=/var/log/");
            p = put_s(p, SERVICES[rndn(NSERVICES)]);
            PUTL(p, "/current.log|offset=");
            p = put_u(p, rnd() >> 34);
            PUTL(p, "|bytes=");
            p = put_u(p, 4096 + rndn(61440));
        } else {
            PUTL(p, "Cache lookup|key=");
            p = put_hex(p, rnd(), 16);
            PUTL(p, rndn(4) ? "|result=hit|ttl=" : "|result=miss|ttl=");
            p = put_u(p, rndn(3600));
            PUTL(p, "s|shard=");
            p = put_u(p, rndn(64));
        }
    } else if (sev < 6800) { /* ------------- INFO MAPREDUCE:STATS, 31 % */
        k->stats_lines++;
        p = put_stats_prefix(p, c);
        if (rndn(50) == 0) {
            c->lifetime++;
            c->current = c->current ? c->current + rndn(3) - 1 : 1;
        }
        if (rndn(2)) {
            PUTL(p, "currentConnections=");
            p = put_u(p, c->current);
            PUTL(p, "|lifetimeConnections=");
            p = put_u(p, c->lifetime);
        } else {
            PUTL(p, "lifetimeConnections=");
            p = put_u(p, c->lifetime);
            PUTL(p, "|currentConnections=");
            p = put_u(p, c->current);
        }
        if (rare)
            PUTL(p, "|note=" RARE_TOKEN);
        *p++ = '\n';
        k->rare_lines += rare;
        return p;
    } else { /* ------------------------------------- INFO other, 32 % */
        PUTL(p, "INFO|");
        p = put_time(p, c->t);
        *p++ = '|';
        switch (rndn(3)) {
        case 0:
            PUTL(p, "User session started|");
            p = put_user(p);
            PUTL(p, "|from=");
            p = put_ip(p);
            PUTL(p, "|client=dtail-4.1.0");
            break;
        case 1:
            PUTL(p, "Request served|method=");
            p = put_s(p, METHODS[rndn(6)]);
            PUTL(p, "|path=");
            p = put_s(p, PATHS[rndn(NPATHS)]);
            PUTL(p, "|status=200|took=");
            p = put_u(p, 1 + rndn(400));
            PUTL(p, "ms");
            break;
        default:
            PUTL(p, "Accepted connection|remote=");
            p = put_ip(p);
            *p++ = ':';
            p = put_u(p, 1024 + rndn(60000));
            PUTL(p, "|session=");
            p = put_hex(p, rnd(), 16);
            break;
        }
    }
    if (rndn(4) == 0) { /* pad some lines with a trace id */
        PUTL(p, "|trace=");
        p = put_hex(p, rnd(), 16);
        p = put_hex(p, rnd(), 16);
    }
    if (rare)
        PUTL(p, " " RARE_TOKEN);
    *p++ = '\n';
    k->rare_lines += rare;
    k->regex_lines += regex_hit;
    return p;
}

/* --------------------------------------------------------- subcommands */

static uint64_t parse_u(const char *s, const char *what)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *end || v == 0) {
        fprintf(stderr, "gen: invalid %s: %s\n", what, s);
        exit(2);
    }
    return v;
}

static void out_open(out_t *o, const char *path, char *tmp_path, size_t tmp_size)
{
    memset(o, 0, sizeof *o);
    h_init(&o->h);
    o->buf = malloc(OUTBUF_SIZE);
    if (!o->buf)
        die("malloc", NULL);
    o->path = path;
    if (strcmp(path, "-") == 0) {
        o->fd = 1;
        tmp_path[0] = 0;
        info_out = stderr;
        return;
    }
    /* write to OUT.tmp and rename, so an interrupted run never leaves a
     * truncated file under the final name */
    if ((size_t)snprintf(tmp_path, tmp_size, "%s.tmp", path) >= tmp_size) {
        fprintf(stderr, "gen: path too long: %s\n", path);
        exit(2);
    }
    o->fd = open(tmp_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (o->fd < 0)
        die("cannot create", tmp_path);
}

static void out_close(out_t *o, const char *tmp_path)
{
    out_flush(o);
    if (tmp_path[0]) {
        if (close(o->fd) != 0)
            die("close", tmp_path);
        if (rename(tmp_path, o->path) != 0)
            die("rename", o->path);
    }
    free(o->buf);
}

static int cmd_mixed(uint64_t size_mb, const char *path)
{
    out_t o;
    char tmp[PATH_MAX];
    clock_state c = {.t = T0, .lifetime = 1};
    mixed_counts k = {0};
    uint64_t target = size_mb << 20, written = 0;

    rng_seed(0xD7A11u);
    out_open(&o, path, tmp, sizeof tmp);
    while (written < target) {
        char *p = out_reserve(&o);
        char *e = mixed_line(p, &c, &k);
        o.len += (size_t)(e - p);
        written += (uint64_t)(e - p);
    }
    out_close(&o, tmp);
    fprintf(info_out, "mixed v" GEN_VERSION " size_mb=%llu bytes=%llu lines=%llu error_lines=%llu "
           "rare_token=" RARE_TOKEN " rare_lines=%llu regex_lines=%llu stats_lines=%llu sum=%016llx\n",
           (unsigned long long)size_mb, (unsigned long long)written,
           (unsigned long long)k.lines, (unsigned long long)k.error_lines,
           (unsigned long long)k.rare_lines, (unsigned long long)k.regex_lines,
           (unsigned long long)k.stats_lines, (unsigned long long)h_final(&o.h));
    return 0;
}

static int cmd_oneline(const char *path)
{
    out_t o;
    char tmp[PATH_MAX];
    clock_state c = {.t = T0, .lifetime = 1};
    mixed_counts k = {0};

    rng_seed(0xD7A11u);
    out_open(&o, path, tmp, sizeof tmp);
    char *p = out_reserve(&o);
    o.len += (size_t)(mixed_line(p, &c, &k) - p);
    uint64_t n = o.len;
    out_close(&o, tmp);
    fprintf(info_out, "oneline v" GEN_VERSION " bytes=%llu lines=1 sum=%016llx\n", (unsigned long long)n,
           (unsigned long long)h_final(&o.h));
    return 0;
}

/* key=value lines "id=uK|v=V", one distinct group per line: K = i * 7919
 * mod 10000019 (a permutation of 0..n-1 for n below that prime, so keys
 * arrive in no order), V = i mod 997 (spill.sh's data) */
#define GROUPS_PRIME 10000019u

static int cmd_groups(uint64_t n, const char *path)
{
    out_t o;
    char tmp[PATH_MAX];
    uint64_t written = 0;

    if (n >= GROUPS_PRIME) {
        fprintf(stderr, "gen: groups N must be below %u\n", GROUPS_PRIME);
        exit(2);
    }
    out_open(&o, path, tmp, sizeof tmp);
    for (uint64_t i = 0; i < n; i++) {
        char *p = out_reserve(&o), *b = p;
        PUTL(p, "id=u");
        p = put_u(p, i * 7919u % GROUPS_PRIME);
        PUTL(p, "|v=");
        p = put_u(p, i % 997u);
        *p++ = '\n';
        o.len += (size_t)(p - b);
        written += (uint64_t)(p - b);
    }
    out_close(&o, tmp);
    fprintf(info_out, "groups v" GEN_VERSION " bytes=%llu lines=%llu sum=%016llx\n",
            (unsigned long long)written, (unsigned long long)n, (unsigned long long)h_final(&o.h));
    return 0;
}

#define NHOSTS 50

static int cmd_stats(uint64_t size_mb, const char *path)
{
    out_t o;
    char tmp[PATH_MAX];
    clock_state c = {.t = T0, .lifetime = 1};
    uint64_t lifetime[NHOSTS];
    unsigned current[NHOSTS];
    uint64_t per_host[NHOSTS];
    uint64_t target = size_mb << 20, written = 0, lines = 0;

    rng_seed(0x57A75u);
    for (int i = 0; i < NHOSTS; i++) {
        lifetime[i] = rndn(100);
        current[i] = rndn(4);
        per_host[i] = 0;
    }
    out_open(&o, path, tmp, sizeof tmp);
    while (written < target) {
        char *p = out_reserve(&o), *s = p;
        unsigned h = rndn(NHOSTS);
        c.t += rndn(4) == 0;
        if (rndn(8) == 0) {
            lifetime[h]++;
            current[h] = current[h] ? current[h] + rndn(3) - 1 : 1;
        }
        p = put_stats_prefix(p, &c);
        /* Go map order is random: emit the three keys in a random order */
        static const unsigned char perms[6][3] = {
            {0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
        const unsigned char *perm = perms[rndn(6)];
        for (int i = 0; i < 3; i++) {
            if (i)
                *p++ = '|';
            switch (perm[i]) {
            case 0:
                PUTL(p, "hostname=host");
                p = put_2(p, h);
                break;
            case 1:
                PUTL(p, "currentConnections=");
                p = put_u(p, current[h]);
                break;
            default:
                PUTL(p, "lifetimeConnections=");
                p = put_u(p, lifetime[h]);
                break;
            }
        }
        *p++ = '\n';
        per_host[h]++;
        lines++;
        o.len += (size_t)(p - s);
        written += (uint64_t)(p - s);
    }
    out_close(&o, tmp);
    fprintf(info_out, "stats v" GEN_VERSION " size_mb=%llu bytes=%llu lines=%llu hosts=%d host00_lines=%llu sum=%016llx\n",
           (unsigned long long)size_mb, (unsigned long long)written, (unsigned long long)lines,
           NHOSTS, (unsigned long long)per_host[0], (unsigned long long)h_final(&o.h));
    return 0;
}

static int cmd_manyfiles(uint64_t n, const char *dir)
{
    char path[PATH_MAX];
    char *buf = malloc(16 * LINE_MAX_BYTES);
    clock_state c = {.t = T0, .lifetime = 1};
    mixed_counts k = {0};
    hasher h;
    uint64_t bytes = 0;

    if (!buf)
        die("malloc", NULL);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        die("mkdir", dir);
    /* refuse a non-empty directory: the benchmark globs DIR/ * */
    char probe[PATH_MAX];
    snprintf(probe, sizeof probe, "%s/f0000000.log", dir);
    if (access(probe, F_OK) == 0) {
        fprintf(stderr, "gen: %s already holds generated files; remove it first\n", dir);
        return 1;
    }
    rng_seed(0xF11E5u);
    h_init(&h);
    for (uint64_t i = 0; i < n; i++) {
        int plen = snprintf(path, sizeof path, "%s/f%07llu.log", dir, (unsigned long long)i);
        if (plen < 0 || (size_t)plen >= sizeof path) {
            fprintf(stderr, "gen: path too long\n");
            return 1;
        }
        unsigned nl = 1 + rndn(4);
        char *p = buf;
        for (unsigned j = 0; j < nl; j++)
            p = mixed_line(p, &c, &k);
        size_t len = (size_t)(p - buf);
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0)
            die("cannot create", path);
        write_all(fd, buf, len, path);
        if (close(fd) != 0)
            die("close", path);
        /* the sum covers the base name and the content of each file */
        const char *base = path + strlen(dir) + 1;
        h_update(&h, base, strlen(base) + 1, 0);
        h_update(&h, buf, len, 0);
        bytes += len;
    }
    free(buf);
    printf("manyfiles v" GEN_VERSION " files=%llu bytes=%llu lines=%llu sum=%016llx\n",
           (unsigned long long)n, (unsigned long long)bytes, (unsigned long long)k.lines,
           (unsigned long long)h_final(&h));
    return 0;
}

static int cmd_sum(int argc, char **argv)
{
    int unordered = 0;
    const char *path = "-";
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "-u") == 0)
            unordered = 1;
        else
            path = argv[i];
    }
    int fd = 0;
    if (strcmp(path, "-") != 0 && (fd = open(path, O_RDONLY)) < 0)
        die("cannot open", path);
    size_t cap = 1u << 20;
    unsigned char *buf = malloc(cap + LINE_MAX_BYTES);
    if (!buf)
        die("malloc", NULL);
    hasher h;
    h_init(&h);
    /* order-independent: sum of per-line hashes (partial line carried) */
    uint64_t usum = 0;
    unsigned char *line = NULL;
    size_t line_len = 0, line_cap = 0;
    for (;;) {
        ssize_t r = read(fd, buf, cap);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            die("read", path);
        }
        if (r == 0)
            break;
        h_update(&h, buf, (size_t)r, 1);
        if (!unordered)
            continue;
        unsigned char *p = buf, *end = buf + r;
        while (p < end) {
            unsigned char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t n = (size_t)((nl ? nl + 1 : end) - p);
            if (line_len == 0 && nl) {
                usum += hash_small(p, n);
            } else {
                if (line_len + n > line_cap) {
                    line_cap = (line_len + n) * 2;
                    line = realloc(line, line_cap);
                    if (!line)
                        die("realloc", NULL);
                }
                memcpy(line + line_len, p, n);
                line_len += n;
                if (nl) {
                    usum += hash_small(line, line_len);
                    line_len = 0;
                }
            }
            p += n;
        }
    }
    if (unordered && line_len)
        usum += hash_small(line, line_len);
    free(line);
    free(buf);
    if (fd)
        close(fd);
    printf("bytes=%llu lines=%llu sum=%016llx", (unsigned long long)h.total,
           (unsigned long long)h.lines, (unsigned long long)h_final(&h));
    if (unordered)
        printf(" usum=%016llx", (unsigned long long)fmix64(usum));
    putchar('\n');
    return 0;
}

static int cmd_sink(void)
{
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
        for (;;) {
            ssize_t r = splice(0, NULL, null, NULL, 1u << 20, SPLICE_F_MOVE);
            if (r == 0)
                return 0;
            if (r < 0) {
                if (errno == EINTR)
                    continue;
                break; /* stdin is not a pipe: fall back to read() */
            }
        }
    }
    static char buf[1u << 18];
    for (;;) {
        ssize_t r = read(0, buf, sizeof buf);
        if (r == 0)
            return 0;
        if (r < 0 && errno != EINTR)
            die("read", "stdin");
    }
}

static void usage(void)
{
    fputs("usage: gen mixed SIZE_MB OUT\n"
          "       gen stats SIZE_MB OUT\n"
          "       gen manyfiles N DIR\n"
          "       gen oneline OUT\n"
          "       gen groups N OUT\n"
          "       gen sum [-u] [FILE|-]\n"
          "       gen sink\n"
          "OUT may be - for stdout. Output is deterministic (generator v" GEN_VERSION ").\n",
          stderr);
    exit(2);
}

int main(int argc, char **argv)
{
    info_out = stdout;
    if (argc < 2)
        usage();
    const char *cmd = argv[1];
    if (strcmp(cmd, "mixed") == 0 && argc == 4)
        return cmd_mixed(parse_u(argv[2], "SIZE_MB"), argv[3]);
    if (strcmp(cmd, "stats") == 0 && argc == 4)
        return cmd_stats(parse_u(argv[2], "SIZE_MB"), argv[3]);
    if (strcmp(cmd, "manyfiles") == 0 && argc == 4)
        return cmd_manyfiles(parse_u(argv[2], "N"), argv[3]);
    if (strcmp(cmd, "groups") == 0 && argc == 4)
        return cmd_groups(parse_u(argv[2], "N"), argv[3]);
    if (strcmp(cmd, "oneline") == 0 && argc == 3)
        return cmd_oneline(argv[2]);
    if (strcmp(cmd, "sum") == 0 && argc <= 4)
        return cmd_sum(argc - 2, argv + 2);
    if (strcmp(cmd, "sink") == 0 && argc == 2)
        return cmd_sink();
    usage();
    return 2;
}
