/* dt41_go.h: what the 4.1 codec needs of Go's strconv and strings, whose
 * exact behaviour (and error texts) the Go peers show on the wire. Private
 * to wire/dt41*.c. */
#ifndef DTAIL_WIRE_DT41_GO_H
#define DTAIL_WIRE_DT41_GO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/dt41.h"

/* The bytes of "∥" (U+2225) and "≔" (U+2254). */
#define DT41_PART "\xe2\x88\xa5"
#define DT41_KV "\xe2\x89\x94"

enum go_num { GO_NUM_OK = 0, GO_NUM_SYNTAX, GO_NUM_RANGE };

/* strconv.Atoi on a 64-bit host: on a syntax error *v is 0, on a range
 * error it is clamped to the int64 bound, as Go returns them. */
enum go_num go_atoi(const char *p, size_t n, long long *v);
/* strconv.ParseUint(s, 10, 64). */
enum go_num go_parse_u64(const char *p, size_t n, uint64_t *v);
/* Go's *NumError text: "strconv.<fn>: parsing <quoted>: invalid syntax". */
void go_num_error(char *buf, size_t cap, const char *fn, const char *p, size_t n, enum go_num r);
/* strconv.Quote of p into buf (truncated to cap, NUL-terminated): printable
 * ASCII and valid UTF-8 as they are, '"' and '\\' escaped, controls as
 * \n \t ... or \xNN, invalid bytes \xNN. */
void go_quote(char *buf, size_t cap, const char *p, size_t n);

/* The length of the valid UTF-8 sequence at p (1..4; 1 for ASCII), or 0
 * for a byte that starts none. */
size_t go_utf8_len(const unsigned char *p, const unsigned char *end);
/* strings.TrimSpace (ASCII white space). */
dt41_str_t go_trim(dt41_str_t s);
static inline bool go_eq(dt41_str_t s, const char *lit)
{
    size_t n = __builtin_strlen(lit);
    return s.n == n && __builtin_memcmp(s.p, lit, n) == 0;
}
static inline bool go_prefix(dt41_str_t s, const char *lit)
{
    size_t n = __builtin_strlen(lit);
    return s.n >= n && __builtin_memcmp(s.p, lit, n) == 0;
}
/* The byte length of a Unicode white space rune (unicode.IsSpace) at p,
 * or 0 (strings.Fields splits on these). */
size_t go_space_len(const char *p, const char *end);

/* n bytes of the command's store (reserved for the parse: never moves). */
char *dt41_store_take(dt41_cmd_t *c, size_t n);
/* Decodes and checks a SESSION spec into c->spec (dt41_session.c); -1
 * with e's message the reason Go gives in ".syn session err". */
int dt41_session_decode(dt41_cmd_t *c, dt41_str_t json, err_t *e);

#endif
