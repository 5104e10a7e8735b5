/* parser/logpattern.c: see logpattern.h. */
#include "parser/logpattern.h"

#include <string.h>

typedef struct reader {
    logpattern_t *lp;
    const char *why;
    size_t at;
} reader_t;

static bool fail(reader_t *r, const char *why, size_t at)
{
    r->why = why;
    r->at = at;
    return false;
}

static bool put_text(reader_t *r, const char *s, size_t n, size_t src)
{
    if (r->lp->text_len + n > LOGPATTERN_TEXT)
        return fail(r, "the pattern is too long", src);
    memcpy(r->lp->text + r->lp->text_len, s, n);
    r->lp->text_len += n;
    return true;
}

/* Literal text, merged into a literal just before it. */
static bool add_literal(reader_t *r, const char *s, size_t n, size_t src)
{
    logpattern_t *lp = r->lp;
    logpattern_item_t *last = lp->n ? &lp->item[lp->n - 1] : NULL;
    if (!(last && last->kind == LOGPATTERN_LITERAL)) {
        if (lp->n == LOGPATTERN_ITEMS)
            return fail(r, "the pattern has too many fields", src);
        last = &lp->item[lp->n++];
        *last = (logpattern_item_t){LOGPATTERN_LITERAL, false, (uint16_t)lp->text_len, 0,
                                    (uint16_t)src};
    }
    if (!put_text(r, s, n, src))
        return false;
    last->len = (uint16_t)(last->len + n);
    return true;
}

/* A field named prefix + name (name lower-cased and '-' as '_' when fold:
 * Apache's header names are nginx's $http_ variables). */
static bool add_field(reader_t *r, const char *prefix, const char *name, size_t n, bool fold,
                      bool zero_dash, size_t src)
{
    logpattern_t *lp = r->lp;
    if (lp->n && lp->item[lp->n - 1].kind == LOGPATTERN_FIELD)
        return fail(r, "two fields need text between them (where would the first end?)", src);
    if (lp->n == LOGPATTERN_ITEMS)
        return fail(r, "the pattern has too many fields", src);
    size_t off = lp->text_len, pl = strlen(prefix);
    if (!put_text(r, "$", 1, src) || !put_text(r, prefix, pl, src) || !put_text(r, name, n, src))
        return false;
    if (fold)
        for (size_t k = off + 1 + pl; k < lp->text_len; k++) {
            char c = lp->text[k];
            lp->text[k] = c == '-' ? '_' : c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
        }
    lp->item[lp->n++] = (logpattern_item_t){LOGPATTERN_FIELD, zero_dash, (uint16_t)off,
                                            (uint16_t)(lp->text_len - off), (uint16_t)src};
    return true;
}

static bool is_name_byte(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The nginx variable of a one-letter Apache directive, NULL when none. */
static const char *apache_var(char d)
{
    switch (d) {
    case 'a': case 'h': return "remote_addr";
    case 'A': return "server_addr";
    case 'b': case 'B': return "body_bytes_sent";
    case 'D': return "request_time_us";
    case 'f': return "request_filename";
    case 'H': return "server_protocol";
    case 'I': return "request_length";
    case 'k': return "connection_requests";
    case 'l': return "remote_logname";
    case 'm': return "request_method";
    case 'O': return "bytes_sent";
    case 'p': return "server_port";
    case 'P': return "pid";
    case 'q': return "query_string";
    case 'r': return "request";
    case 's': return "status";
    case 'T': return "request_time";
    case 'u': return "remote_user";
    case 'U': return "uri";
    case 'v': case 'V': return "server_name";
    default: return NULL;
    }
}

/* %{NAME}X at p[i] (i at '{'); i past it. */
static bool apache_braced(reader_t *r, const char *p, size_t n, size_t *i, size_t pct)
{
    const char *close = memchr(p + *i, '}', n - *i);
    if (!close)
        return fail(r, "%{ without its closing }", pct);
    size_t name = *i + 1, nl = (size_t)(close - p) - name;
    size_t d = (size_t)(close - p) + 1;
    if (nl == 0)
        return fail(r, "%{} needs a name", pct);
    if (d >= n)
        return fail(r, "%{NAME} needs its letter (i, o or C)", pct);
    const char *prefix = p[d] == 'i' ? "http_" : p[d] == 'o' ? "sent_http_" : p[d] == 'C' ? "cookie_"
                                                                                       : NULL;
    if (p[d] == 't')
        return fail(r, "%{format}t is not supported: write %t, or the time's field and "
                       "timeformat \"...\"", pct);
    if (!prefix)
        return fail(r, "unsupported Apache directive: %{NAME} takes i, o or C", d);
    *i = d + 1;
    return add_field(r, prefix, p + name, nl, true, false, pct);
}

/* An Apache directive at p[i] (i at '%'); i past it. */
static bool apache(reader_t *r, const char *p, size_t n, size_t *i)
{
    size_t pct = *i, k = pct + 1;
    if (k < n && p[k] == '%') {
        *i = k + 1;
        return add_literal(r, "%", 1, pct);
    }
    while (k < n && (p[k] == '<' || p[k] == '>'))
        k++;
    if (k >= n)
        return fail(r, "a % at the end (write %% for a percent sign)", pct);
    if (p[k] == '{') {
        *i = k;
        return apache_braced(r, p, n, i, pct);
    }
    *i = k + 1;
    if (p[k] == 't')
        return add_literal(r, "[", 1, pct) &&
               add_field(r, "", "time_local", 10, false, false, pct) &&
               add_literal(r, "]", 1, pct);
    const char *v = apache_var(p[k]);
    if (!v)
        return fail(r, "unknown or unsupported Apache directive", pct);
    return add_field(r, "", v, strlen(v), false, p[k] == 'b', pct);
}

/* An nginx variable at p[i] (i at '$'); i past it. */
static bool nginx(reader_t *r, const char *p, size_t n, size_t *i)
{
    size_t dollar = *i, k = dollar + 1;
    if (k < n && p[k] == '{') {
        const char *close = memchr(p + k, '}', n - k);
        if (!close)
            return fail(r, "${ without its closing }", dollar);
        size_t name = k + 1, nl = (size_t)(close - p) - name;
        for (size_t j = name; j < name + nl; j++)
            if (!is_name_byte(p[j]))
                return fail(r, "a variable name is letters, digits and _", j);
        if (nl == 0)
            return fail(r, "${} needs a name", dollar);
        *i = (size_t)(close - p) + 1;
        return add_field(r, "", p + name, nl, false, false, dollar);
    }
    while (k < n && is_name_byte(p[k]))
        k++;
    if (k == dollar + 1)
        return fail(r, "a $ must start a variable name ($remote_addr)", dollar);
    *i = k;
    return add_field(r, "", p + dollar + 1, k - dollar - 1, false, false, dollar);
}

bool logpattern_read(const char *p, size_t n, logpattern_t *lp, const char **why, size_t *at)
{
    reader_t r = {lp, NULL, 0};
    lp->n = 0;
    lp->text_len = 0;
    bool ok = n > 0 || fail(&r, "the pattern is empty", 0);
    for (size_t i = 0; ok && i < n;) {
        if (p[i] == '$') {
            ok = nginx(&r, p, n, &i);
        } else if (p[i] == '%') {
            ok = apache(&r, p, n, &i);
        } else {
            size_t k = i;
            while (k < n && p[k] != '$' && p[k] != '%')
                k++;
            ok = add_literal(&r, p + i, k - i, i);
            i = k;
        }
    }
    if (ok) {
        bool field = false;
        for (size_t k = 0; k < lp->n; k++)
            field |= lp->item[k].kind == LOGPATTERN_FIELD;
        if (!field)
            ok = fail(&r, "the pattern names no field ($remote_addr, %h, ...)", 0);
    }
    if (!ok) {
        *why = r.why;
        *at = r.at;
    }
    return ok;
}
