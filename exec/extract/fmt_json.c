/* fmt_json.c: the `json` log format: one JSON object per line (RFC 8259).
 *
 * Keys are fields; nested keys are dotted paths ("req.user.id"). String
 * values are unescaped (\uXXXX to UTF-8, surrogate pairs joined, a lone
 * surrogate becomes U+FFFD as in Go); numbers, true, false and null are their
 * raw text; an array's or object's value is its raw JSON text, and its
 * members are named by index ("tags.0", "a.1.b"). Names are flat: each dotted name takes the
 * last value the line gives it, whether from nested objects or from a key
 * that holds a '.' itself, and duplicate keys are not merged as objects
 * ({"a":{"b":1},"a":2} has a = 2 and a.b = 1; RFC 8259 leaves duplicate
 * names undefined).
 * A line that is not exactly one valid JSON object is EXTRACT_ERROR.
 * $time is the first of the top-level keys time, timestamp, ts and
 * @timestamp the line has, read as a timestamp (extract.c).
 *
 * The same scanner reads the `k8s` format (fmt_k8s.c) through
 * extract_json_object.
 *
 * A hand-written recursive-descent scanner: no allocation per line, no
 * read past the line, nesting limited to JSON_MAX_DEPTH. Paths are built
 * only inside objects that can hold a requested key (the requested names'
 * dotted prefixes are in a table); everything else is only validated.
 * Values are materialised only for requested keys, and copied (to scratch)
 * only when they hold escapes. */
#include "exec/extract/extract_int.h"

#include <stdio.h>

#define JSON_MAX_DEPTH 64   /* nested objects and arrays per line */

typedef struct jp {
    extractor_t *x;       /* the extractor (path buffer, tables, scratch) */
    const char *p;        /* cursor */
    const char *end;      /* one past the line */
    size_t i;             /* line index in the batch */
    sv_t *const *cols;    /* output columns */
    uint32_t plen;        /* bytes of the current path in x->json_path */
    const char *err;      /* why the line was rejected */
    extract_json_outer_t *outer; /* k8s: the top-level strings to take
                             instead of the requested names; NULL: none */
} jp_t;

static bool j_fail(jp_t *j, const char *why)
{
    if (!j->err)
        j->err = why;
    return false;
}

static inline void j_ws(jp_t *j)
{
    /* Most places have no whitespace: one compare settles them. */
    if (j->p < j->end && (unsigned char)*j->p > ' ')
        return;
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static inline int hexval(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c |= 0x20;
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* The 16-bit value of 4 hex digits at p (validated by the caller). */
static unsigned hex4(const char *p)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++)
        v = v << 4 | (unsigned)hexval((unsigned char)p[k]);
    return v;
}

#ifdef EXTRACT_SSE2
/* The bytes of v that need attention inside a string: '"', '\\' and the
 * control characters. */
static inline unsigned j_special16(__m128i v)
{
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
    const __m128i ctl = _mm_set1_epi8(0x1f);
    __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
                             _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v));
    return (unsigned)_mm_movemask_epi8(m);
}
#endif

/* Skips bytes that need no attention inside a string. */
static inline const char *j_str_plain(const char *p, const char *end)
{
#ifdef EXTRACT_SSE2
    while (end - p >= 16) {
        unsigned mask = j_special16(_mm_loadu_si128((const __m128i *)(const void *)p));
        if (mask)
            return p + __builtin_ctz(mask);
        p += 16;
    }
#endif
    while (p < end && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
        p++;
    return p;
}

/* At p, where a string's plain bytes end: 0 its closing quote, 1 a
 * backslash and a byte after it, -1 when the string is bad (unterminated,
 * a control character). */
static int j_at_special(jp_t *j, const char *p)
{
    if (p >= j->end || (*p == '\\' && j->end - p < 2)) {
        j_fail(j, "unterminated string");
        return -1;
    }
    if (*p == '"')
        return 0;
    if ((unsigned char)*p < 0x20) {
        j_fail(j, "control character in string");
        return -1;
    }
    return 1;
}

/* At '"': validates a string, sets its raw content and whether it holds
 * escapes, and moves past the closing quote. */
static bool j_string(jp_t *j, const char **s, uint32_t *len, bool *esc)
{
    const char *p = j->p + 1, *end = j->end;
    *esc = false;
    *s = p;
    for (;;) {
        p = j_str_plain(p, end);
        int at = j_at_special(j, p);
        if (at <= 0) {
            if (at < 0)
                return false;
            break;
        }
        *esc = true;
        switch (p[1]) {
        case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
            p += 2;
            break;
        case 'u':
            if (end - p < 6)
                return j_fail(j, "bad \\u escape");
            for (int k = 2; k < 6; k++)
                if (hexval((unsigned char)p[k]) < 0)
                    return j_fail(j, "bad \\u escape");
            p += 6;
            break;
        default:
            return j_fail(j, "bad escape in string");
        }
    }
    *len = (uint32_t)(p - *s);
    j->p = p + 1;
    return true;
}

/* Unescapes validated string content [s, s+len) into out (at most len
 * bytes are written: every escape is at least as long as its output). The
 * runs between escapes are copied whole. */
uint32_t extract_json_unescape(const char *s, uint32_t len, char *out)
{
    uint32_t o = 0, k = 0;
    while (extract_copy_plain(s, len, &k, out, &o)) {
        char e = s[k + 1];
        k += 2;
        if (e != 'u') {
            out[o++] = extract_escape_byte(e, false);   /* validated: one of " \ / b f n r t */
            continue;
        }
        {
            unsigned cp = hex4(s + k);
            k += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF) {
                if (k + 6 <= len && s[k] == '\\' && s[k + 1] == 'u') {
                    unsigned lo = hex4(s + k + 2);
                    if (lo >= 0xDC00 && lo <= 0xDFFF) {
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                        k += 6;
                    } else {
                        cp = 0xFFFD;
                    }
                } else {
                    cp = 0xFFFD;
                }
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                cp = 0xFFFD;
            }
            o += extract_utf8_put(out + o, cp);
        }
    }
    return o;
}

#ifdef EXTRACT_SSE2
/* The bytes of the 64 at p that need attention inside a string. */
static inline uint64_t j_special64(const char *p)
{
    uint64_t m = 0;
    for (int k = 0; k < 4; k++)
        m |= (uint64_t)j_special16(_mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k)))
             << (16 * k);
    return m;
}
#endif

/* Copies n plain bytes from p to out: 16 at a time while the source has
 * them before end (out has room for n + 16 more). */
static inline void j_copy_run(char *out, const char *p, uint32_t n, const char *end)
{
#ifdef EXTRACT_SSE2
    if ((size_t)(end - p) >= (size_t)n + 16) {
        for (uint32_t k = 0; k < n; k += 16)
            _mm_storeu_si128((__m128i *)(void *)(out + k),
                             _mm_loadu_si128((const __m128i *)(const void *)(p + k)));
        return;
    }
#endif
    memcpy(out, p, n);
}

/* At an escape's backslash p (with a byte after it): its bytes written to
 * out, the length written into *o and the escape's own length returned;
 * 0 when it is none (the failure set). */
static uint32_t j_escape_copy_u(jp_t *j, const char *p, char *out, uint32_t *o);

static inline uint32_t j_escape_copy(jp_t *j, const char *p, char *out, uint32_t *o)
{
    char b = extract_escape_byte(p[1], false);
    if (b) {
        out[(*o)++] = b;
        return 2;
    }
    return j_escape_copy_u(j, p, out, o);
}

/* j_escape_copy of an escape that is not one byte: \uXXXX, a pair, or
 * none. */
static __attribute__((noinline)) uint32_t j_escape_copy_u(jp_t *j, const char *p, char *out,
                                                          uint32_t *o)
{
    const char *end = j->end;
    if (p[1] != 'u') {
        j_fail(j, "bad escape in string");
        return 0;
    }
    if (end - p < 6 || hexval((unsigned char)p[2]) < 0 || hexval((unsigned char)p[3]) < 0 ||
        hexval((unsigned char)p[4]) < 0 || hexval((unsigned char)p[5]) < 0) {
        j_fail(j, "bad \\u escape");
        return 0;
    }
    /* a surrogate pair is one escape of 12 bytes */
    uint32_t span = 6;
    unsigned cp = hex4(p + 2);
    if (cp >= 0xD800 && cp <= 0xDBFF && end - p >= 12 && p[6] == '\\' && p[7] == 'u') {
        bool hex = true;
        for (int k = 8; k < 12; k++)
            hex &= hexval((unsigned char)p[k]) >= 0;
        unsigned lo = hex ? hex4(p + 8) : 0;
        if (lo >= 0xDC00 && lo <= 0xDFFF)
            span = 12;
    }
    *o += extract_json_unescape(p, span, out + *o);
    return span;
}

/* At '"': j_string and extract_json_unescape in one pass, for a long
 * string with many escapes (k8s's log): validates the string, writes its
 * unescaped content to out (room for the rest of the line and 64 bytes
 * more) and moves past the closing quote. The bytes that need care are
 * found as one mask per 64 bytes, so an escape costs a few instructions
 * and the plain runs between escapes are copied 16 bytes at a time; the
 * last 64 bytes of the line go 16 at a time, each block stored whatever
 * it holds and the copy stopped at the first byte that needs care. */
static bool j_string_copy(jp_t *j, char *out, uint32_t *olen)
{
    const char *p = j->p + 1, *end = j->end;
    uint32_t o = 0;
#ifdef EXTRACT_SSE2
    while (end - p >= 64) {
        const char *wb = p;
        uint64_t m = j_special64(wb);
        if (!m) {
            j_copy_run(out + o, p, 64, end);
            p += 64;
            o += 64;
            continue;
        }
        do {
            uint32_t k = (uint32_t)__builtin_ctzll(m) - (uint32_t)(p - wb);
            j_copy_run(out + o, p, k, end);
            p += k;
            o += k;
            int at = j_at_special(j, p);
            if (at < 0)
                return false;
            if (at == 0) {
                *olen = o;
                j->p = p + 1;
                return true;
            }
            uint32_t span = j_escape_copy(j, p, out, &o);
            if (!span)
                return false;
            p += span;
            uint32_t used = (uint32_t)(p - wb);
            m = used < 64 ? m & (~(uint64_t)0 << used) : 0;
        } while (m);
        if (p - wb < 64) {
            uint32_t rest = 64 - (uint32_t)(p - wb);
            j_copy_run(out + o, p, rest, end);
            p += rest;
            o += rest;
        }
    }
#endif
    for (;;) {
        bool special = false;
#ifdef EXTRACT_SSE2
        while (end - p >= 16) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
            _mm_storeu_si128((__m128i *)(void *)(out + o), v);
            unsigned mask = j_special16(v);
            if (mask) {
                unsigned k = (unsigned)__builtin_ctz(mask);
                p += k;
                o += k;
                special = true;
                break;
            }
            p += 16;
            o += 16;
        }
#endif
        if (!special)
            while (p < end && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
                out[o++] = *p++;
        int at = j_at_special(j, p);
        if (at <= 0) {
            if (at < 0)
                return false;
            break;
        }
        uint32_t span = j_escape_copy(j, p, out, &o);
        if (!span)
            return false;
        p += span;
    }
    *olen = o;
    j->p = p + 1;
    return true;
}

static bool j_number(jp_t *j)
{
    const char *p = j->p, *end = j->end;
    if (p < end && *p == '-')
        p++;
    if (p < end && *p == '0') {
        p++;
    } else if (p < end && *p >= '1' && *p <= '9') {
        while (p < end && (unsigned char)(*p - '0') <= 9)
            p++;
    } else {
        return j_fail(j, "bad number");
    }
    if (p < end && *p == '.') {
        p++;
        if (p >= end || (unsigned char)(*p - '0') > 9)
            return j_fail(j, "bad number");
        while (p < end && (unsigned char)(*p - '0') <= 9)
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < end && (*p == '+' || *p == '-'))
            p++;
        if (p >= end || (unsigned char)(*p - '0') > 9)
            return j_fail(j, "bad number");
        while (p < end && (unsigned char)(*p - '0') <= 9)
            p++;
    }
    j->p = p;
    return true;
}

static bool j_literal(jp_t *j, const char *word, size_t n)
{
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n) != 0)
        return j_fail(j, "bad literal");
    j->p += n;
    return true;
}

static bool j_object(jp_t *j, int depth, bool track, bool top);
static bool j_array(jp_t *j, int depth, bool track);

/* Reads one value; field is the column it fills (EXTRACT_NONE: none);
 * descend: an object here may hold requested keys (path is current). */
static bool j_value(jp_t *j, int depth, uint32_t field, bool descend)
{
    if (j->p >= j->end)
        return j_fail(j, "value expected");
    const char *start = j->p;
    bool ok;
    switch (*j->p) {
    case '"': {
        const char *s;
        uint32_t len;
        bool esc;
        if (!j_string(j, &s, &len, &esc))
            return false;
        if (field != EXTRACT_NONE) {
            if (esc) {
                char *out = extract_scratch(j->x, len);
                if (!out)
                    return j_fail(j, "out of memory unescaping a string");
                len = extract_json_unescape(s, len, out);
                s = out;
            }
            j->cols[field][j->i].p = s;
            j->cols[field][j->i].len = len;
        }
        return true;
    }
    case '{':
        ok = j_object(j, depth + 1, descend, false);
        break;
    case '[':
        ok = j_array(j, depth + 1, descend);
        break;
    case 't':
        ok = j_literal(j, "true", 4);
        break;
    case 'f':
        ok = j_literal(j, "false", 5);
        break;
    case 'n':
        ok = j_literal(j, "null", 4);
        break;
    default:
        ok = j_number(j);
        break;
    }
    if (ok && field != EXTRACT_NONE) {
        j->cols[field][j->i].p = start;
        j->cols[field][j->i].len = (uint32_t)(j->p - start);
    }
    return ok;
}

/* Makes the path of key [s, s+len) below the current base: *name and
 * *plen are where it can be looked up. A top-level key without escapes is
 * looked up where it is in the line; other keys are written into the path
 * buffer after the base and a '.'. Returns false when the path is longer
 * than any requested name (then nothing below it can match either). */
static bool j_path_key(jp_t *j, uint32_t base, bool top, const char *s, uint32_t len, bool esc,
                       const char **name, uint32_t *plen)
{
    extractor_t *x = j->x;
    if (top && !esc) {
        *name = s;
        *plen = len;
        return len <= x->dyn_max_len;
    }
    uint32_t at = base;
    if (!top) {
        if (at >= x->json_path_cap)
            return false;
        x->json_path[at++] = '.';
    }
    if (len > x->json_path_cap - at)
        return false;                    /* unescaped >= len / 6: too long */
    if (esc)
        at += extract_json_unescape(s, len, x->json_path + at);
    else {
        memcpy(x->json_path + at, s, len);
        at += len;
    }
    *name = x->json_path;
    *plen = at;
    return at <= x->dyn_max_len;
}

/* Whether [s, s+len) is the NUL-terminated name (read no further than
 * its NUL). */
static inline bool j_name_is(const char *name, const char *s, uint32_t len)
{
    for (uint32_t k = 0; k < len; k++)
        if (!name[k] || name[k] != s[k])
            return false;
    return name[len] == '\0';
}

static bool j_object(jp_t *j, int depth, bool track, bool top)
{
    if (depth > JSON_MAX_DEPTH)
        return j_fail(j, "nesting too deep");
    extractor_t *x = j->x;
    uint32_t base = j->plen;
    j->p++;                          /* '{' */
    j_ws(j);
    if (j->p < j->end && *j->p == '}') {
        j->p++;
        return true;
    }
    for (;;) {
        if (j->p >= j->end || *j->p != '"')
            return j_fail(j, "key expected");
        const char *s;
        uint32_t len;
        bool esc;
        if (!j_string(j, &s, &len, &esc))
            return false;
        j_ws(j);
        if (j->p >= j->end || *j->p != ':')
            return j_fail(j, "':' expected");
        j->p++;
        j_ws(j);
        uint32_t field = EXTRACT_NONE;
        bool descend = false;
        if (top && j->outer) {
            /* k8s: the runtime's strings; the last of a key wins, also
             * when it is no string (then the key has none) */
            extract_json_outer_t *o = j->outer;
            char kb[64];
            const char *kn = s;
            uint32_t kl = len;
            if (esc)
                kl = len <= sizeof kb ? extract_json_unescape(s, len, kb) : 0, kn = kb;
            int k = 0;
            while (k < EXTRACT_JSON_OUTER && !j_name_is(o->name[k], kn, kl))
                k++;
            if (k < EXTRACT_JSON_OUTER) {
                if (j->p >= j->end || *j->p != '"') {
                    o->val[k] = (sv_t){NULL, SV_MISSING};
                    if (!j_value(j, depth, EXTRACT_NONE, false))
                        return false;
                } else if (k == 0) {
                    /* the log: validated and unescaped in one pass */
                    char *out = extract_scratch(x, (size_t)(j->end - j->p) + 64);
                    if (!out)
                        return j_fail(j, "out of memory unescaping a string");
                    if (!j_string_copy(j, out, &o->val[k].len))
                        return false;
                    o->val[k].p = out;
                    o->esc[k] = false;
                } else if (!j_string(j, &o->val[k].p, &o->val[k].len, &o->esc[k])) {
                    return false;
                }
                goto next;
            }
        }
        if (track) {
            const char *name;
            uint32_t plen;
            if (j_path_key(j, base, top, s, len, esc, &name, &plen)) {
                field = extract_dyn_field(x, name, plen);
                /* only an object or array value can hold requested names
                 * below */
                descend = x->n_pre && j->p < j->end && (*j->p == '{' || *j->p == '[') &&
                          extract_name_find(&x->pre_tab, x->pre, name, plen) != EXTRACT_NONE;
                if (descend && name != x->json_path)
                    memcpy(x->json_path, name, plen);   /* the base of nested keys */
                j->plen = plen;
            }
        }
        if (!j_value(j, depth, field, descend))
            return false;
        j->plen = base;
next:
        j_ws(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            j_ws(j);
            continue;
        }
        if (j->p < j->end && *j->p == '}') {
            j->p++;
            return true;
        }
        return j_fail(j, "',' or '}' expected");
    }
}

/* Element k of an array whose path is the current one (the path buffer
 * holds it): its path "base.k" made in the buffer; false when that is
 * longer than any requested name. */
static bool j_path_index(jp_t *j, uint32_t base, uint32_t k, uint32_t *plen)
{
    extractor_t *x = j->x;
    char digits[10];
    uint32_t nd = 0;
    do {
        digits[nd++] = (char)('0' + k % 10);
        k /= 10;
    } while (k);
    if (base + 1 + nd > x->dyn_max_len || base + 1 + nd > x->json_path_cap)
        return false;
    x->json_path[base] = '.';
    for (uint32_t d = 0; d < nd; d++)
        x->json_path[base + 1 + d] = digits[nd - 1 - d];
    *plen = base + 1 + nd;
    return true;
}

static bool j_array(jp_t *j, int depth, bool track)
{
    if (depth > JSON_MAX_DEPTH)
        return j_fail(j, "nesting too deep");
    extractor_t *x = j->x;
    uint32_t base = j->plen;
    j->p++;                          /* '[' */
    j_ws(j);
    if (j->p < j->end && *j->p == ']') {
        j->p++;
        return true;
    }
    for (uint32_t k = 0;; k++) {
        uint32_t field = EXTRACT_NONE, plen;
        bool descend = false;
        if (track && j_path_index(j, base, k, &plen)) {
            field = extract_dyn_field(x, x->json_path, plen);
            descend = x->n_pre && j->p < j->end && (*j->p == '{' || *j->p == '[') &&
                      extract_name_find(&x->pre_tab, x->pre, x->json_path, plen) != EXTRACT_NONE;
            j->plen = plen;
        }
        if (!j_value(j, depth, field, descend))
            return false;
        j->plen = base;
        j_ws(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            j_ws(j);
            continue;
        }
        if (j->p < j->end && *j->p == ']') {
            j->p++;
            return true;
        }
        return j_fail(j, "',' or ']' expected");
    }
}

bool extract_json_object(extractor_t *x, size_t i, const char *p, uint32_t len,
                         sv_t *const *cols, extract_json_outer_t *outer, const char **why,
                         size_t *at)
{
    jp_t j = {x, p, p + len, i, cols, 0, NULL, outer};
    bool ok;
    if (len == 0 || *p != '{') {
        ok = j_fail(&j, "not a JSON object");
    } else {
        ok = j_object(&j, 1, x->n_dyn > 0 && !outer, true);
        if (ok) {
            j_ws(&j);
            if (j.p != j.end)
                ok = j_fail(&j, "text after the JSON object");
        }
    }
    *why = j.err;
    *at = (size_t)(j.p - p);
    return ok;
}

static uint8_t json_line(extractor_t *x, size_t i, const char *p, uint32_t len, sv_t *const *cols)
{
    const char *why;
    size_t at;
    if (extract_json_object(x, i, p, len, cols, NULL, &why, &at))
        return EXTRACT_OK;
    extract_error(x, "JSON line rejected: %s at byte %zu", why, at);
    return EXTRACT_ERROR;
}

static void json_batch(extractor_t *x, const char *const *line, const uint32_t *len, size_t n,
                       sv_t *const *cols, uint8_t *status)
{
    extract_each_line(x, line, len, n, cols, status, json_line);
}

/* Every string followed by ':' is a key, at any depth (in valid JSON no
 * value string is); keys come as written, escapes kept. */
static void json_names(const extractor_t *x, const char *p, uint32_t len, extract_name_fn fn,
                       void *arg)
{
    (void)x;
    const char *end = p + len;
    while (p < end) {
        if (*p++ != '"')
            continue;
        const char *s = p;
        while (p < end && *p != '"')
            p += *p == '\\' ? 2 : 1;
        if (p >= end)
            return;
        const char *q = p + 1;
        while (q < end && (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r'))
            q++;
        if (q < end && *q == ':')
            fn(arg, s, (size_t)(p - s));
        p++;
    }
}

static bool json_plan_var(const char *name, field_plan_t *fp)
{
    if (strcmp(name, "$time") != 0)
        return false;
    fp->kind = FIELD_TIME;
    return true;
}

static const char *const json_time_keys[] = {"time", "timestamp", "ts", "@timestamp", NULL};

const extract_format_t extract_format_json = {
    .name = "json", .dynamic = true, .plan_var = json_plan_var, .batch = json_batch,
    .names = json_names, .time_keys = json_time_keys,
};
