/*
 * cref.c - plain hand-written C reference loop for benchmarks/dmap.sh.
 *
 * The floor the issue quotes ("a plain hand-written C loop"): one thread,
 * read() in 1 MiB blocks, split each line on '|', keep lines whose 10th
 * field is MAPREDUCE:STATS, find hostname=... among fields 11.., and
 * aggregate count and the sum of field 6 ($goroutines) in an open-addressing
 * hash table. No query engine, no generality beyond this one file layout.
 *
 *   cref q50 FILE     from STATS select count($line),avg($goroutines) group by hostname
 *   cref qmany FILE   ... group by $time, hostname
 *
 * Output, one group per line, unsorted: KEYS...,count,avg (avg as %.6f) -
 * the canonical form that dmap.sh compares.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    uint64_t hash;
    uint32_t key_off, key_len; /* into the arena; 0-length slot = empty */
    uint64_t count;
    double sum;
} slot;

static slot *tab;
static size_t tab_cap, tab_used;
static char *arena;
static size_t arena_len, arena_cap;

static void *xrealloc(void *p, size_t n)
{
    p = realloc(p, n);
    if (!p) {
        perror("cref: realloc");
        exit(1);
    }
    return p;
}

static uint64_t hash_bytes(const char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a, then a final mix */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 0x100000001b3ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

static void grow(void)
{
    size_t ncap = tab_cap ? tab_cap * 2 : 1024;
    slot *n = calloc(ncap, sizeof *n);
    if (!n) {
        perror("cref: calloc");
        exit(1);
    }
    for (size_t i = 0; i < tab_cap; i++) {
        if (!tab[i].key_len)
            continue;
        size_t j = tab[i].hash & (ncap - 1);
        while (n[j].key_len)
            j = (j + 1) & (ncap - 1);
        n[j] = tab[i];
    }
    free(tab);
    tab = n;
    tab_cap = ncap;
}

static void add(const char *key, size_t len, double v)
{
    if ((tab_used + 1) * 2 > tab_cap)
        grow();
    uint64_t h = hash_bytes(key, len);
    size_t j = h & (tab_cap - 1);
    for (;;) {
        slot *s = &tab[j];
        if (!s->key_len) {
            if (arena_len + len > arena_cap) {
                arena_cap = (arena_len + len) * 2 + 4096;
                arena = xrealloc(arena, arena_cap);
            }
            memcpy(arena + arena_len, key, len);
            s->hash = h;
            s->key_off = (uint32_t)arena_len;
            s->key_len = (uint32_t)len;
            s->count = 1;
            s->sum = v;
            arena_len += len;
            tab_used++;
            return;
        }
        if (s->hash == h && s->key_len == len && memcmp(arena + s->key_off, key, len) == 0) {
            s->count++;
            s->sum += v;
            return;
        }
        j = (j + 1) & (tab_cap - 1);
    }
}

#define MAXF 32
static int many; /* group by $time, hostname */

static void line(const char *p, const char *end)
{
    const char *f[MAXF + 1];
    int nf = 0;
    f[nf++] = p;
    while (nf < MAXF) {
        const char *b = memchr(p, '|', (size_t)(end - p));
        if (!b)
            break;
        p = b + 1;
        f[nf++] = p;
    }
    f[nf] = end + 1; /* field i is [f[i], f[i+1] - 1) */
    if (nf < 11)
        return;
    size_t tl = (size_t)(f[10] - 1 - f[9]);
    if (tl != 15 || memcmp(f[9], "MAPREDUCE:STATS", 15) != 0)
        return;
    const char *host = NULL;
    size_t hl = 0;
    for (int i = 10; i < nf; i++) {
        size_t l = (size_t)(f[i + 1] - 1 - f[i]);
        if (l >= 9 && memcmp(f[i], "hostname=", 9) == 0) {
            host = f[i] + 9;
            hl = l - 9;
            break;
        }
    }
    if (!host)
        return;
    /* $goroutines: digits fast path, strtod otherwise */
    const char *g = f[5], *ge = f[6] - 1;
    double v = 0;
    const char *q = g;
    uint64_t u = 0;
    while (q < ge && *q >= '0' && *q <= '9')
        u = u * 10 + (uint64_t)(*q++ - '0');
    if (q == ge && q > g) {
        v = (double)u;
    } else {
        char tmp[64];
        size_t n = (size_t)(ge - g) < sizeof tmp - 1 ? (size_t)(ge - g) : sizeof tmp - 1;
        memcpy(tmp, g, n);
        tmp[n] = 0;
        v = strtod(tmp, NULL);
    }
    if (!many) {
        add(host, hl, v);
    } else {
        char key[512];
        size_t tl1 = (size_t)(f[2] - 1 - f[1]);
        if (tl1 + 1 + hl > sizeof key)
            return;
        memcpy(key, f[1], tl1);
        key[tl1] = ',';
        memcpy(key + tl1 + 1, host, hl);
        add(key, tl1 + 1 + hl, v);
    }
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[1], "q50") && strcmp(argv[1], "qmany"))) {
        fputs("usage: cref q50|qmany FILE\n", stderr);
        return 2;
    }
    many = strcmp(argv[1], "qmany") == 0;
    int fd = open(argv[2], O_RDONLY);
    if (fd < 0) {
        perror(argv[2]);
        return 1;
    }
    size_t cap = 1u << 20, have = 0;
    char *buf = xrealloc(NULL, cap);
    for (;;) {
        if (have == cap) {
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
        ssize_t r = read(fd, buf + have, cap - have);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            perror("read");
            return 1;
        }
        if (r == 0)
            break;
        have += (size_t)r;
        char *p = buf, *end = buf + have, *nl;
        while ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
            line(p, nl);
            p = nl + 1;
        }
        have = (size_t)(end - p);
        memmove(buf, p, have);
    }
    if (have)
        line(buf, buf + have);
    close(fd);
    /* a stdio buffer is plenty: at most one line per group */
    for (size_t i = 0; i < tab_cap; i++) {
        if (!tab[i].key_len)
            continue;
        printf("%.*s,%llu,%.6f\n", (int)tab[i].key_len, arena + tab[i].key_off,
               (unsigned long long)tab[i].count, tab[i].sum / (double)tab[i].count);
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
