/* literal.h: substring search over a whole chunk, ripgrep-style.
 *
 * Two bytes of the needle that are rare in log text are compared at their
 * offsets 32 positions at a time (AVX2, or 16 with SSE2); only candidate
 * positions are confirmed with memcmp. Needles of one byte use memchr. */
#ifndef DTAIL_EXEC_LITERAL_H
#define DTAIL_EXEC_LITERAL_H

#include <stddef.h>

typedef struct literal {
    const char *needle;  /* borrowed; lives as long as the plan */
    size_t len;          /* needle length, >= 1 */
    size_t off1, off2;   /* offsets of the two rare bytes, off1 < off2 unless len == 1 */
    unsigned char b1, b2;/* needle[off1], needle[off2] */
} literal_t;

void literal_init(literal_t *l, const char *needle, size_t len);
/* First occurrence in [p, end), or NULL. */
const char *literal_find(const literal_t *l, const char *p, const char *end);
/* Number of bytes equal to c in [p, p+n). */
size_t count_byte(const char *p, size_t n, char c);

#endif
