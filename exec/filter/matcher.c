/* matcher.c: pattern classification, literal extraction, pcre2 JIT. */
#include "exec/filter/matcher.h"

#include <stdlib.h>
#include <string.h>

static const char META[] = ".+*?^$[]{}()|\\";

static int is_noop(const char *p)
{
    return p[0] == '\0' || strcmp(p, ".") == 0 || strcmp(p, ".*") == 0;
}

/* A literal that every match must contain, found only where that is sound:
 * no alternation anywhere, no inline options, and the run sits at nesting
 * depth 0 outside character classes. A run's last character is dropped when
 * a quantifier follows it. Returns the length written (0 = none). */
int matcher_required_literal(const char *pat, char *out, size_t cap)
{
    if (strchr(pat, '|') || strstr(pat, "(?"))
        return 0;
    size_t best_at = 0, best_len = 0;
    int depth = 0;
    size_t i = 0, n = strlen(pat);
    while (i < n) {
        char c = pat[i];
        if (c == '\\') {
            /* Escapes that take arguments (\pL, \x41, \cA, \k<n>, \Q..\E,
             * back references) would leave their argument looking like
             * text: give up rather than guess. */
            if (i + 1 < n && strchr("pPxocgkNQE0123456789", pat[i + 1]))
                return 0;
            i += 2;               /* other escapes end a run; skip the escaped byte */
            continue;
        }
        if (c == '[') {           /* skip a class, honouring []] and [^]] */
            i++;
            if (i < n && pat[i] == '^')
                i++;
            if (i < n && pat[i] == ']')
                i++;
            while (i < n && pat[i] != ']') {
                if (pat[i] == '\\')
                    i++;
                i++;
            }
            i++;
            continue;
        }
        if (c == '{') {           /* a counted quantifier: its digits are not text */
            while (i < n && pat[i] != '}')
                i++;
            i++;
            continue;
        }
        if (c == '(') { depth++; i++; continue; }
        if (c == ')') { depth--; i++; continue; }
        if (strchr(META, c)) { i++; continue; }
        size_t start = i;
        while (i < n && !strchr(META, pat[i]))
            i++;
        size_t len = i - start;
        if (i < n && strchr("?*{", pat[i]))
            len--;                /* the quantifier applies to the last byte */
        if (depth == 0 && len > best_len) {
            best_at = start;
            best_len = len;
        }
    }
    if (best_len == 0 || best_len >= cap)
        return 0;
    memcpy(out, pat + best_at, best_len);
    out[best_len] = '\0';
    return (int)best_len;
}

/* Whether a match found in a multi-line buffer starts where a match of the
 * line alone would: assertions about the subject's ends and lookarounds can
 * see past a line, so such patterns are matched line by line. */
static int regex_buffer_safe(const char *p)
{
    for (const char *s = p; *s; s++) {
        if (s[0] == '\\' && s[1]) {
            /* \R and \X match "\r\n" as one atomic unit, so across a line
             * end they cannot give back the '\n' a line alone never had. */
            if (strchr("AzZGKRX", s[1]))
                return 0;
            s++;
        } else if (s[0] == '(' && s[1] == '?' && s[2] != ':') {
            return 0;
        } else if (s[0] == '(' && s[1] == '*') {
            return 0;   /* verbs such as (*COMMIT) end a whole search, not a line's */
        } else if (strchr("*+?}", s[0]) && s[1] == '+') {
            return 0;   /* possessive quantifiers do not give back either */
        }
    }
    return 1;
}

int matcher_init(matcher_t *m, const char *pattern, err_t *e)
{
    return matcher_init_opts(m, pattern, 0, e);
}

int matcher_init_same(matcher_t *m, const matcher_t *like, err_t *e)
{
    return matcher_init_opts(m, like->pattern, like->flags, e);
}

int matcher_init_opts(matcher_t *m, const char *pattern, unsigned flags, err_t *e)
{
    memset(m, 0, sizeof *m);
    m->flags = flags;
    int caseless = (flags & MATCHER_CASELESS) != 0;
    m->pattern_len = strlen(pattern);
    m->pattern = strdup(pattern);
    if (!m->pattern)
        return err_set(e, ERR_NOMEM, "out of memory");
    if (is_noop(pattern)) {
        m->kind = MATCHER_NOOP;
        return 0;
    }
    if (!caseless && !strpbrk(pattern, META) && !strchr(pattern, '\n')) {
        m->kind = MATCHER_LITERAL;
        m->has_lit = 1;
        literal_init(&m->lit, m->pattern, m->pattern_len);
        return 0;
    }
    m->kind = MATCHER_REGEX;
    int errcode;
    PCRE2_SIZE erroff;
    m->code = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED,
                            PCRE2_MULTILINE | (caseless ? PCRE2_CASELESS : 0), &errcode,
                            &erroff, NULL);
    if (!m->code) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(errcode, msg, sizeof msg);
        err_set_at(e, ERR_PATTERN, (long)erroff,
                   "invalid regex '%s': %s at offset %zu", pattern, (char *)msg,
                   (size_t)erroff);
        matcher_free(m);
        return -1;
    }
    m->jit = pcre2_jit_compile(m->code, PCRE2_JIT_COMPLETE) == 0;
    m->md = pcre2_match_data_create_from_pattern(m->code, NULL);
    if (!m->md) {
        matcher_free(m);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    m->buffer_safe = regex_buffer_safe(pattern);
    char lit[256];
    int n = caseless ? 0 : matcher_required_literal(pattern, lit, sizeof lit);
    if (n > 0) {
        m->lit_text = strdup(lit);
        if (!m->lit_text) {
            matcher_free(m);
            return err_set(e, ERR_NOMEM, "out of memory");
        }
        m->has_lit = 1;
        literal_init(&m->lit, m->lit_text, (size_t)n);
    }
    return 0;
}

int matcher_init_literal(matcher_t *m, const char *text, err_t *e)
{
    memset(m, 0, sizeof *m);
    m->pattern_len = strlen(text);
    m->pattern = strdup(text);
    if (!m->pattern)
        return err_set(e, ERR_NOMEM, "out of memory");
    if (m->pattern_len == 0) {
        m->kind = MATCHER_NOOP;
        return 0;
    }
    m->kind = MATCHER_LITERAL;
    m->has_lit = 1;
    literal_init(&m->lit, m->pattern, m->pattern_len);
    return 0;
}

void matcher_free(matcher_t *m)
{
    pcre2_match_data_free(m->md);
    pcre2_code_free(m->code);
    free(m->pattern);
    free(m->lit_text);
    memset(m, 0, sizeof *m);
}

const char *matcher_strategy(const matcher_t *m)
{
    switch (m->kind) {
    case MATCHER_NOOP: return "noop";
    case MATCHER_LITERAL: return "literal";
    default:
        if (m->has_lit)
            return "regex+literal";
        return m->buffer_safe ? "regex(chunk)" : "regex(line)";
    }
}

static int pcre_match(matcher_t *m, const char *subject, size_t len, size_t start)
{
    int rc = m->jit
        ? pcre2_jit_match(m->code, (PCRE2_SPTR)subject, len, start, 0, m->md, NULL)
        : pcre2_match(m->code, (PCRE2_SPTR)subject, len, start, 0, m->md, NULL);
    return rc >= 0;
}

int matcher_line_matches(matcher_t *m, const char *p, size_t len)
{
    switch (m->kind) {
    case MATCHER_NOOP:
        return 1;
    case MATCHER_LITERAL:
        return literal_find(&m->lit, p, p + len) != NULL;
    default:
        if (m->has_lit && !literal_find(&m->lit, p, p + len))
            return 0;
        return pcre_match(m, p, len, 0);
    }
}

static const char *line_begin(const char *lo, const char *at)
{
    const char *nl = at > lo ? memrchr(lo, '\n', (size_t)(at - lo)) : NULL;
    return nl ? nl + 1 : lo;
}

int matcher_next_line(matcher_t *m, const char *p, const char *end,
                      const char **line_start, const char **line_end)
{
    while (p < end) {
        const char *ls, *le;
        if (m->kind == MATCHER_NOOP) {
            *line_start = p;
            *line_end = memchr(p, '\n', (size_t)(end - p));
            return 1;
        }
        if (m->has_lit) {
            const char *hit = literal_find(&m->lit, p, end);
            if (!hit)
                return 0;
            ls = line_begin(p, hit);
            le = memchr(hit, '\n', (size_t)(end - hit));
            if (m->kind == MATCHER_LITERAL || pcre_match(m, ls, (size_t)(le - ls), 0)) {
                *line_start = ls;
                *line_end = le;
                return 1;
            }
            p = le + 1;
            continue;
        }
        if (m->buffer_safe) {
            /* One pcre2 call over the rest of the chunk; the leftmost match
             * names the first line that can match. */
            if (!pcre_match(m, p, (size_t)(end - p), 0))
                return 0;
            PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m->md);
            const char *at = p + ov[0];
            ls = line_begin(p, at);
            le = memchr(at, '\n', (size_t)(end - at));
            if (!le)          /* an empty match right at the end */
                return 0;
            if (p + ov[1] <= le || pcre_match(m, ls, (size_t)(le - ls), 0)) {
                *line_start = ls;
                *line_end = le;
                return 1;
            }
            p = le + 1;
            continue;
        }
        le = memchr(p, '\n', (size_t)(end - p));
        if (pcre_match(m, p, (size_t)(le - p), 0)) {
            *line_start = p;
            *line_end = le;
            return 1;
        }
        p = le + 1;
    }
    return 0;
}
