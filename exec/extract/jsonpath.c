/* jsonpath.c: see jsonpath.h. */
#include "exec/extract/jsonpath.h"

#include <string.h>

#include "exec/extract/extract_int.h"

typedef struct jcur {
    const char *p, *end;
} jcur_t;

static void ws(jcur_t *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

/* A string at c->p ('"'): its contents [*s, *s+*len), escapes noted. */
static bool is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool string(jcur_t *c, const char **s, uint32_t *len, bool *esc)
{
    const char *q = c->p + 1;
    *esc = false;
    while (q < c->end && *q != '"') {
        if ((unsigned char)*q < 0x20)
            return false;
        if (*q == '\\') {
            *esc = true;
            if (++q >= c->end || !strchr("\"\\/bfnrtu", *q) || !*q)
                return false;
            if (*q == 'u') {
                if (c->end - q < 5 || !is_hex(q[1]) || !is_hex(q[2]) || !is_hex(q[3]) ||
                    !is_hex(q[4]))
                    return false;
                q += 4;
            }
        }
        q++;
    }
    if (q >= c->end)
        return false;
    *s = c->p + 1;
    *len = (uint32_t)(q - c->p - 1);
    c->p = q + 1;
    return true;
}

static bool skip_value(jcur_t *c, int depth);

static bool literal(jcur_t *c, const char *w, size_t n)
{
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n) != 0)
        return false;
    c->p += n;
    return true;
}

static bool digits(jcur_t *c)
{
    const char *s = c->p;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
        c->p++;
    return c->p > s;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool number(jcur_t *c)
{
    if (c->p < c->end && *c->p == '-')
        c->p++;
    if (c->p < c->end && *c->p == '0')
        c->p++;
    else if (!digits(c))
        return false;
    if (c->p < c->end && *c->p == '.') {
        c->p++;
        if (!digits(c))
            return false;
    }
    if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
        c->p++;
        if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
            c->p++;
        if (!digits(c))
            return false;
    }
    return true;
}

static bool skip_container(jcur_t *c, int depth, char close)
{
    if (depth >= JSONPATH_DEPTH)
        return false;
    c->p++;
    ws(c);
    if (c->p < c->end && *c->p == close) {
        c->p++;
        return true;
    }
    for (;;) {
        if (close == '}') {
            const char *s;
            uint32_t l;
            bool e;
            ws(c);
            if (c->p >= c->end || *c->p != '"' || !string(c, &s, &l, &e))
                return false;
            ws(c);
            if (c->p >= c->end || *c->p != ':')
                return false;
            c->p++;
        }
        if (!skip_value(c, depth + 1))
            return false;
        ws(c);
        if (c->p >= c->end)
            return false;
        if (*c->p == ',') {
            c->p++;
            continue;
        }
        if (*c->p != close)
            return false;
        c->p++;
        return true;
    }
}

static bool skip_value(jcur_t *c, int depth)
{
    ws(c);
    if (c->p >= c->end)
        return false;
    switch (*c->p) {
    case '"': {
        const char *s;
        uint32_t l;
        bool e;
        return string(c, &s, &l, &e);
    }
    case '{': return skip_container(c, depth, '}');
    case '[': return skip_container(c, depth, ']');
    case 't': return literal(c, "true", 4);
    case 'f': return literal(c, "false", 5);
    case 'n': return literal(c, "null", 4);
    default: return number(c);
    }
}

/* Whether the key [s, s+l) (escaped: with escapes) is the segment
 * [g, g+gl). An escaped key is compared after undoing its simple
 * escapes; one with \u is compared as written. */
static bool key_is(const char *s, uint32_t l, bool escaped, const char *g, size_t gl)
{
    if (!escaped)
        return l == gl && memcmp(s, g, gl) == 0;
    size_t k = 0;
    for (uint32_t i = 0; i < l; i++, k++) {
        char ch = s[i];
        if (ch == '\\' && i + 1 < l) {
            char x = s[++i];
            ch = x == 'n' ? '\n' : x == 't' ? '\t' : x == 'r' ? '\r' : x == 'b' ? '\b'
               : x == 'f' ? '\f' : x;
            if (x == 'u')
                return false;
        }
        if (k >= gl || g[k] != ch)
            return false;
    }
    return k == gl;
}

/* The member named by segment [g, g+gl) of the object or array at c->p;
 * c->p at its value. */
static bool member(jcur_t *c, const char *g, size_t gl, int depth)
{
    ws(c);
    if (c->p >= c->end || depth >= JSONPATH_DEPTH)
        return false;
    if (*c->p == '[') {
        size_t idx = 0;
        if (gl == 0 || gl > 9)
            return false;
        for (size_t i = 0; i < gl; i++) {
            if (g[i] < '0' || g[i] > '9')
                return false;
            idx = idx * 10 + (size_t)(g[i] - '0');
        }
        c->p++;
        for (size_t k = 0;; k++) {
            ws(c);
            if (c->p >= c->end || *c->p == ']')
                return false;
            if (k == idx)
                return true;
            if (!skip_value(c, depth + 1))
                return false;
            ws(c);
            if (c->p >= c->end || *c->p != ',')
                return false;
            c->p++;
        }
    }
    if (*c->p != '{')
        return false;
    c->p++;
    for (;;) {
        ws(c);
        if (c->p >= c->end || *c->p != '"')
            return false;
        const char *s;
        uint32_t l;
        bool e;
        if (!string(c, &s, &l, &e))
            return false;
        ws(c);
        if (c->p >= c->end || *c->p != ':')
            return false;
        c->p++;
        if (key_is(s, l, e, g, gl)) {
            ws(c);
            return true;
        }
        if (!skip_value(c, depth + 1))
            return false;
        ws(c);
        if (c->p >= c->end || *c->p != ',')
            return false;
        c->p++;
    }
}

bool jsonpath_find(const char *p, size_t n, const char *path, const char **v, uint32_t *vlen,
                   bool *escaped)
{
    *escaped = false;
    /* The whole text must be one JSON value: a value found in a text
     * that is no JSON would be a guess. */
    jcur_t all = {p, p + n};
    if (!skip_value(&all, 0))
        return false;
    ws(&all);
    if (all.p != all.end)
        return false;
    jcur_t c = {p, p + n};
    int depth = 0;
    for (const char *g = path;; depth++) {
        const char *dot = strchr(g, '.');
        size_t gl = dot ? (size_t)(dot - g) : strlen(g);
        if (!member(&c, g, gl, depth))
            return false;
        if (!dot)
            break;
        g = dot + 1;
    }
    ws(&c);
    if (c.p >= c.end)
        return false;
    const char *s = c.p;
    if (*c.p == '"') {
        uint32_t l;
        if (!string(&c, v, &l, escaped))
            return false;
        *vlen = l;
        return true;
    }
    if (!skip_value(&c, depth))
        return false;
    if (c.p - s == 4 && memcmp(s, "null", 4) == 0)
        return false;
    *v = s;
    *vlen = (uint32_t)(c.p - s);
    return true;
}

uint32_t jsonpath_unescape(const char *s, uint32_t len, char *out)
{
    return extract_json_unescape(s, len, out);
}
