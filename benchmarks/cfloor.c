/*
 * cfloor.c - the hand-fused floor for benchmarks/dmap.sh (q50 only).
 *
 * Not a peer but a yardstick: what this machine does for the 50-group
 * query when nothing is general. One AVX-512 pass per thread over a shared
 * mapping finds newlines and '|' (64 bytes at a time, offsets stored with
 * vpcompressw), keeps lines whose field 10 is MAPREDUCE:STATS, parses field
 * 6 ($goroutines, digits only), finds hostname= among the key=value tokens
 * without a branch on their order, and counts and sums into a per-thread
 * open-addressing table of at most 16-byte keys. It assumes the generator's
 * lines (no trimming, no escapes, lines under 512 bytes, integer field 6)
 * and checks nothing DTail checks. dmap's distance to it is the price of
 * being general.
 *
 *   cfloor q50 FILE [THREADS]   (default 2 threads)
 *
 * Output, one group per line, unsorted: host,count,avg (avg as %.6f), as
 * cref.c. Exits 3 when the CPU lacks AVX-512 BW and VBMI2.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <immintrin.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define TARGET __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi2,popcnt,bmi,bmi2")))
#define SLOTS 4096          /* per thread; 50 hosts here */
#define MAX_THREADS 16

typedef struct slot {
    uint64_t k0, k1;        /* the key, zero-padded */
    uint32_t len;           /* key bytes; 0 = empty */
    uint64_t count;
    double sum;
} slot_t;

typedef struct part {
    const char *p, *end;    /* whole lines */
    slot_t tab[SLOTS];
    int overflow;           /* a key over 16 bytes or a full table */
} part_t;

static part_t parts[MAX_THREADS];

static inline uint64_t key_hash(uint64_t a, uint64_t b, uint32_t len)
{
    uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + len) * 0xff51afd7ed558ccdull;
    return h ^ (h >> 29);
}

/* The slot of the key, or the empty one where it goes; NULL when full.
 * find and add are inlined into the AVX-512 loop: called with vector
 * registers live (no vzeroupper possible), their SSE code ran 5x slower. */
static inline __attribute__((always_inline)) slot_t *find(part_t *P, uint64_t k0, uint64_t k1, uint32_t len)
{
    uint32_t i = (uint32_t)(key_hash(k0, k1, len) >> 52) & (SLOTS - 1);
    for (uint32_t probes = 0; probes < SLOTS; probes++, i = (i + 1) & (SLOTS - 1)) {
        slot_t *s = &P->tab[i];
        if (!s->len || (s->len == len && s->k0 == k0 && s->k1 == k1))
            return s;
    }
    return NULL;
}

static inline __attribute__((always_inline)) void add(part_t *P, uint64_t k0, uint64_t k1,
                                                     uint32_t len, uint64_t count, double sum)
{
    slot_t *s = find(P, k0, k1, len);
    if (!s) {
        P->overflow = 1;
        return;
    }
    if (!s->len)
        *s = (slot_t){k0, k1, len, 0, 0};
    s->count += count;
    s->sum += sum;
}

TARGET static void *work(void *arg)
{
    part_t *P = arg;
    static const uint16_t iota[32] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10,
                                      11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21,
                                      22, 23, 24, 25, 26, 27, 28, 29, 30, 31};
    const __m512i io = _mm512_loadu_si512((const void *)iota);
    uint16_t pos[512 + 64];
    uint32_t ns = 0;
    uint64_t hk;
    memcpy(&hk, "hostname", 8);
    const char *p = P->p, *end = P->end, *ls = p;
    for (; p < end; p += 64) {
        __m512i v;
        if (end - p >= 64) {
            v = _mm512_loadu_si512((const void *)p);
        } else {
            char tmp[64] = {0};
            memcpy(tmp, p, (size_t)(end - p));
            v = _mm512_loadu_si512((const void *)tmp);
        }
        __builtin_prefetch(p + 1024);
        uint64_t nm = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('\n'));
        uint64_t sm = _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('|'));
        for (;;) {
            uint64_t below = nm ? (nm & (0 - nm)) - 1 : ~0ull, m = sm & below;
            if (m && ns < 512) {
                __m512i lo = _mm512_add_epi16(io, _mm512_set1_epi16((short)(p - ls)));
                __m512i hi = _mm512_add_epi16(lo, _mm512_set1_epi16(32));
                _mm512_storeu_si512((void *)(pos + ns), _mm512_maskz_compress_epi16((__mmask32)m, lo));
                uint32_t c = (uint32_t)__builtin_popcount((uint32_t)m);
                _mm512_storeu_si512((void *)(pos + ns + c),
                                    _mm512_maskz_compress_epi16((__mmask32)(m >> 32), hi));
                ns += (uint32_t)__builtin_popcountll(m);
            }
            sm &= ~below;
            if (!nm)
                break;
            const char *le = p + __builtin_ctzll(nm);
            uint32_t len = (uint32_t)(le - ls);
            if (ns >= 10 && ns < 512 && len < 512 && memcmp(ls, "INFO", 4) == 0 &&
                pos[9] - pos[8] - 1 == 15 && memcmp(ls + pos[8] + 1, "MAPREDUCE:STATS", 15) == 0) {
                const char *g = ls + pos[4] + 1;
                uint64_t gv = 0;
                for (uint32_t k = 0; k < (uint32_t)(pos[5] - pos[4] - 1); k++)
                    gv = gv * 10 + (uint64_t)(g[k] - '0');
                const char *hv = NULL;
                uint32_t hl = 0;
                for (uint32_t t = 10; t <= ns; t++) {
                    uint32_t st = pos[t - 1] + 1u, en = t < ns ? pos[t] : len;
                    uint64_t w8;
                    memcpy(&w8, ls + st, 8);   /* the mapping has slack or the tail copy */
                    int hit = (w8 == hk) & (ls[st + 8] == '=') & (en - st >= 9);
                    hv = hit ? ls + st + 9 : hv;
                    hl = hit ? en - st - 9 : hl;
                }
                if (hv && hl <= 16) {
                    __m128i kv = _mm_maskz_loadu_epi8((__mmask16)((1u << hl) - 1), hv);
                    add(P, (uint64_t)_mm_cvtsi128_si64(kv), (uint64_t)_mm_extract_epi64(kv, 1), hl,
                        1, (double)gv);
                } else if (hv) {
                    P->overflow = 1;
                }
            }
            ls = le + 1;
            ns = 0;
            nm &= nm - 1;
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3 || strcmp(argv[1], "q50") != 0) {
        fprintf(stderr, "usage: cfloor q50 FILE [THREADS]\n");
        return 2;
    }
    __builtin_cpu_init();
    if (!__builtin_cpu_supports("avx512bw") || !__builtin_cpu_supports("avx512vbmi2")) {
        fprintf(stderr, "cfloor: this CPU lacks AVX-512 BW/VBMI2\n");
        return 3;
    }
    int nth = argc > 3 ? atoi(argv[3]) : 2;
    if (nth < 1 || nth > MAX_THREADS)
        nth = 2;
    int fd = open(argv[2], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0 || st.st_size == 0) {
        perror("cfloor: open");
        return 1;
    }
    size_t sz = (size_t)st.st_size;
    /* One page more than the file: the 8-byte token loads may run past the
     * last line (the bytes there read as zeros). */
    const char *base = mmap(NULL, sz + 4096, PROT_READ, MAP_PRIVATE, fd, 0);
    if (base == MAP_FAILED) {
        perror("cfloor: mmap");
        return 1;
    }
    madvise((void *)base, sz, MADV_SEQUENTIAL);
    pthread_t th[MAX_THREADS];
    for (int t = 0; t < nth; t++) {
        size_t lo = sz * (size_t)t / (size_t)nth, hi = sz * (size_t)(t + 1) / (size_t)nth;
        while (lo > 0 && lo < sz && base[lo - 1] != '\n')
            lo++;
        while (t + 1 < nth && hi < sz && base[hi - 1] != '\n')
            hi++;
        parts[t].p = base + lo;
        parts[t].end = base + (t + 1 < nth ? hi : sz);
        pthread_create(&th[t], NULL, work, &parts[t]);
    }
    for (int t = 0; t < nth; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < nth; t++)
        if (parts[t].overflow) {
            fprintf(stderr, "cfloor: a key over 16 bytes or more than %d keys\n", SLOTS);
            return 1;
        }
    /* Thread 0's table gathers the others. */
    for (int t = 1; t < nth; t++)
        for (int i = 0; i < SLOTS; i++) {
            const slot_t *s = &parts[t].tab[i];
            if (s->len)
                add(&parts[0], s->k0, s->k1, s->len, s->count, s->sum);
        }
    if (parts[0].overflow) {
        fprintf(stderr, "cfloor: more than %d keys\n", SLOTS);
        return 1;
    }
    for (int i = 0; i < SLOTS; i++) {
        const slot_t *s = &parts[0].tab[i];
        if (!s->len)
            continue;
        char k[17] = {0};
        memcpy(k, &s->k0, 8);
        memcpy(k + 8, &s->k1, 8);
        printf("%.*s,%llu,%.6f\n", (int)s->len, k, (unsigned long long)s->count,
               s->sum / (double)s->count);
    }
    return 0;
}
