/* rng.h: the tests' random numbers: xorshift64, fixed seeds, so a failing
 * random test fails the same way on every run. Header-only. */
#ifndef DTAIL_TESTS_RNG_H
#define DTAIL_TESTS_RNG_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The next 64-bit number of the sequence in *state (which must not be 0;
 * no number is 0). */
static inline uint64_t rng_next64(uint64_t *state)
{
    uint64_t s = *state;
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    *state = s;
    return s;
}

/* The next number of the sequence in *state (which must not be 0). */
static inline unsigned rng_next(uint64_t *state)
{
    return (unsigned)(rng_next64(state) >> 11);
}

/* Fills out with random pieces until it holds at least target bytes (an
 * empty piece stands for one NUL byte); returns the length. out must have
 * room for target bytes plus the longest piece. */
static inline size_t rng_pieces(uint64_t *state, char *out, size_t target,
                                const char *const *pieces, size_t n_pieces)
{
    size_t o = 0;
    while (o < target) {
        const char *pc = pieces[rng_next(state) % n_pieces];
        size_t pl = pc[0] ? strlen(pc) : 1;
        memcpy(out + o, pc, pl);
        o += pl;
    }
    return o;
}

#endif
