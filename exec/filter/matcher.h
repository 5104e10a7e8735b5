/* matcher.h: the line filter of cat, grep and tail plans.
 *
 * A pattern is classified once: empty, "." and ".*" select every line (noop,
 * as DTail); a pattern without regex metacharacters is a literal searched
 * over the whole chunk; anything else is a pcre2 pattern, JIT-compiled, with
 * a required literal (when one can be proven) searched first and each
 * candidate line confirmed by pcre2. Lines are matched without their '\n',
 * so '$' matches at the end of a line (DTail's defect D5 fixed). */
#ifndef DTAIL_EXEC_MATCHER_H
#define DTAIL_EXEC_MATCHER_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stddef.h>

#include "base/err.h"
#include "exec/filter/literal.h"

enum matcher_kind {
    MATCHER_NOOP = 0,   /* every line matches */
    MATCHER_LITERAL,    /* substring search */
    MATCHER_REGEX,      /* pcre2 */
};

/* matcher_init_opts flags. */
#define MATCHER_CASELESS 0x1u     /* letters match either case (grep -i) */

typedef struct matcher {
    enum matcher_kind kind;       /* strategy chosen at plan time */
    unsigned flags;               /* MATCHER_* it was made with */
    char *pattern;                /* owned copy of the pattern */
    size_t pattern_len;           /* bytes in pattern */
    literal_t lit;                /* the literal, or the regex's required literal */
    int has_lit;                  /* lit is valid (always for MATCHER_LITERAL) */
    char *lit_text;               /* owned bytes behind lit */
    pcre2_code *code;             /* compiled regex */
    pcre2_match_data *md;         /* reused for every match */
    int jit;                      /* JIT compiled */
    int buffer_safe;              /* the regex may be run across many lines */
} matcher_t;

/* Classifies and compiles pattern. On an invalid regex, fills e with the
 * pattern, pcre2's message and its offset (ERR_PATTERN). */
int matcher_init(matcher_t *m, const char *pattern, err_t *e);
/* The same with MATCHER_* flags. A caseless pattern is always run by
 * pcre2 (PCRE2_CASELESS), without a required-literal prefilter: the
 * literal search is byte-exact. */
int matcher_init_opts(matcher_t *m, const char *pattern, unsigned flags, err_t *e);
/* Another matcher of the same pattern and flags (one per worker thread). */
int matcher_init_same(matcher_t *m, const matcher_t *like, err_t *e);
/* A matcher for the literal text, whatever characters it contains (the
 * table filter "|MAPREDUCE:STATS|" is text, not a regex). */
int matcher_init_literal(matcher_t *m, const char *text, err_t *e);
void matcher_free(matcher_t *m);
/* A short name of the strategy, for --logLevel debug and tests. */
const char *matcher_strategy(const matcher_t *m);

/* Finds the first line in [p, end) that matches. Lines in the range end with
 * '\n' (end[-1] == '\n'). On a hit stores the line start and the position of
 * its '\n' and returns 1; returns 0 when no line in the range matches. */
int matcher_next_line(matcher_t *m, const char *p, const char *end,
                      const char **line_start, const char **line_end);
/* Whether the single line [p, p+len) (no '\n') matches. */
int matcher_line_matches(matcher_t *m, const char *p, size_t len);

/* Exposed for tests: the literal every match must contain, or 0. */
int matcher_required_literal(const char *pattern, char *out, size_t cap);

#endif
