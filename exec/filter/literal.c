/* literal.c: packed-pair prefilter with runtime CPU dispatch. */
#include "exec/filter/literal.h"

#include <stdint.h>
#include <string.h>

#include "base/cpu.h"

#if defined(__x86_64__)
#include <immintrin.h>
#define LITERAL_X86 1
#endif

/* Rough frequency rank of bytes in log text (higher = more common), so the
 * prefilter keys on bytes that rarely occur: upper-case letters and most
 * punctuation are rare, digits, lower-case vowels and separators common. */
static unsigned char byte_rank(unsigned char c)
{
    static const char common[] = " etaoinsrhldcumfpgwybvkxjqz0123456789|:.-_=/,";
    const char *hit = c ? strchr(common, c) : NULL;
    if (hit)
        return (unsigned char)(255 - (hit - common));
    if (c >= 'A' && c <= 'Z')
        return 120;
    if (c == '\n')
        return 0;
    return 60;
}

void literal_init(literal_t *l, const char *needle, size_t len)
{
    l->needle = needle;
    l->len = len;
    size_t best = 0;
    for (size_t i = 1; i < len; i++)
        if (byte_rank((unsigned char)needle[i]) < byte_rank((unsigned char)needle[best]))
            best = i;
    size_t second = best == 0 ? (len > 1 ? 1 : 0) : 0;
    for (size_t i = 0; i < len; i++) {
        if (i == best)
            continue;
        int better = byte_rank((unsigned char)needle[i]) < byte_rank((unsigned char)needle[second]);
        /* Prefer a different byte value: equal bytes filter less. */
        if (needle[second] == needle[best] && needle[i] != needle[best])
            better = 1;
        if (better || second == best)
            second = i;
    }
    l->off1 = best < second ? best : second;
    l->off2 = best < second ? second : best;
    l->b1 = (unsigned char)needle[l->off1];
    l->b2 = (unsigned char)needle[l->off2];
}

static const char *find_scalar(const literal_t *l, const char *p, const char *end)
{
    if (end <= p)
        return NULL;
    size_t n = (size_t)(end - p);
    if (n < l->len)
        return NULL;
    if (l->len == 1)
        return memchr(p, l->b1, n);
    return memmem(p, n, l->needle, l->len);
}

#ifdef LITERAL_X86
/* Candidates in one 32-byte block at p whose bits are set in mask. */
static inline const char *confirm(const literal_t *l, const char *p, const char *last, uint32_t mask)
{
    while (mask) {
        const char *cand = p + __builtin_ctz(mask);
        if (cand <= last && memcmp(cand, l->needle, l->len) == 0)
            return cand;
        mask &= mask - 1;
    }
    return NULL;
}

__attribute__((target("avx2")))
static const char *find_avx2(const literal_t *l, const char *p, const char *end)
{
    const __m256i v1 = _mm256_set1_epi8((char)l->b1);
    const __m256i v2 = _mm256_set1_epi8((char)l->b2);
    const char *last = end - l->len;    /* last valid start */
    /* Two blocks per step with one branch: the common case is no candidate. */
    while ((size_t)(end - p) >= l->off2 + 64 && p <= last) {
        __m256i a0 = _mm256_loadu_si256((const __m256i *)(p + l->off1));
        __m256i b0 = _mm256_loadu_si256((const __m256i *)(p + l->off2));
        __m256i a1 = _mm256_loadu_si256((const __m256i *)(p + 32 + l->off1));
        __m256i b1 = _mm256_loadu_si256((const __m256i *)(p + 32 + l->off2));
        __m256i m0 = _mm256_and_si256(_mm256_cmpeq_epi8(a0, v1), _mm256_cmpeq_epi8(b0, v2));
        __m256i m1 = _mm256_and_si256(_mm256_cmpeq_epi8(a1, v1), _mm256_cmpeq_epi8(b1, v2));
        if (!_mm256_testz_si256(_mm256_or_si256(m0, m1), _mm256_or_si256(m0, m1))) {
            const char *hit = confirm(l, p, last, (uint32_t)_mm256_movemask_epi8(m0));
            if (!hit)
                hit = confirm(l, p + 32, last, (uint32_t)_mm256_movemask_epi8(m1));
            if (hit)
                return hit;
        }
        p += 64;
    }
    while ((size_t)(end - p) >= l->off2 + 32 && p <= last) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(p + l->off1));
        __m256i b = _mm256_loadu_si256((const __m256i *)(p + l->off2));
        uint32_t mask = (uint32_t)_mm256_movemask_epi8(
            _mm256_and_si256(_mm256_cmpeq_epi8(a, v1), _mm256_cmpeq_epi8(b, v2)));
        const char *hit = confirm(l, p, last, mask);
        if (hit)
            return hit;
        p += 32;
    }
    return find_scalar(l, p, end);
}

static const char *find_sse2(const literal_t *l, const char *p, const char *end)
{
    const size_t span = l->off2 + 16;
    const __m128i v1 = _mm_set1_epi8((char)l->b1);
    const __m128i v2 = _mm_set1_epi8((char)l->b2);
    const char *last = end - l->len;
    while ((size_t)(end - p) >= span && p <= last) {
        __m128i a = _mm_loadu_si128((const __m128i *)(p + l->off1));
        __m128i b = _mm_loadu_si128((const __m128i *)(p + l->off2));
        uint32_t mask = (uint32_t)_mm_movemask_epi8(
            _mm_and_si128(_mm_cmpeq_epi8(a, v1), _mm_cmpeq_epi8(b, v2)));
        while (mask) {
            const char *cand = p + __builtin_ctz(mask);
            if (cand <= last && memcmp(cand, l->needle, l->len) == 0)
                return cand;
            mask &= mask - 1;
        }
        p += 16;
    }
    return find_scalar(l, p, end);
}

#endif

const char *literal_find(const literal_t *l, const char *p, const char *end)
{
    if (l->len == 1 || p >= end)
        return find_scalar(l, p, end);
#ifdef LITERAL_X86
    return cpu_vec_level() >= CPU_VEC_AVX2 ? find_avx2(l, p, end) : find_sse2(l, p, end);
#else
    return find_scalar(l, p, end);
#endif
}

#ifdef LITERAL_X86
__attribute__((target("avx2,popcnt")))
static size_t count_avx2(const char *p, size_t n, char c)
{
    const __m256i v = _mm256_set1_epi8(c);
    size_t total = 0, i = 0;
    for (; i + 32 <= n; i += 32) {
        __m256i x = _mm256_loadu_si256((const __m256i *)(p + i));
        total += (size_t)__builtin_popcount((unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, v)));
    }
    for (; i < n; i++)
        total += p[i] == c;
    return total;
}
#endif

#ifdef LITERAL_X86
__attribute__((target("avx512f,avx512bw,popcnt")))
static size_t count_avx512(const char *p, size_t n, char c)
{
    const __m512i v = _mm512_set1_epi8(c);
    size_t total = 0, i = 0;
    for (; i + 64 <= n; i += 64) {
        __m512i x = _mm512_loadu_si512((const void *)(p + i));
        total += (size_t)__builtin_popcountll(_mm512_cmpeq_epi8_mask(x, v));
    }
    for (; i < n; i++)
        total += p[i] == c;
    return total;
}

#endif

size_t count_byte(const char *p, size_t n, char c)
{
#ifdef LITERAL_X86
    if (cpu_vec_level() >= CPU_VEC_AVX512BW)
        return count_avx512(p, n, c);
    if (cpu_vec_level() >= CPU_VEC_AVX2)
        return count_avx2(p, n, c);
#endif
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += p[i] == c;
    return total;
}
