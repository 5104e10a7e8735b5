/* fmt_access.c: the `nginx` and `apache` log formats: the access logs'
 * common and combined layouts (nginx's default `combined`, Apache's
 * LogFormat "%h %l %u %t \"%r\" %>s %b" and its combined variant):
 *
 *   remote_addr ident remote_user [time_local] "request" status bytes
 *       [ "http_referer" "http_user_agent" [ more... ] ]
 *
 * Fields carry nginx's names as $variables: $remote_addr, $remote_user,
 * $time_local, $request (and its parts $method, $path, $protocol),
 * $status, $body_bytes_sent, $http_referer, $http_user_agent, and from
 * what follows the user agent the first quoted field as
 * $http_x_forwarded_for and the first bare number as $request_time
 * (`... "$http_user_agent" $request_time`, a common addition). $time is
 * time_local as an instant.
 *
 * Quoted fields end at the first '"' not escaped by a backslash; their
 * escapes (nginx's \xHH, Apache's \" \\ \xhh \n \t) are read
 * (extract_unescape, into scratch only then). The request splits at its
 * first and last space: method, path, and a protocol starting "HTTP/"
 * (without one, the path runs to the end); a request without a space
 * ("-", the bytes of a TLS handshake sent to a plain port) has no method
 * and path. Values are as written ("-" stays "-"), except that body bytes
 * "-" (Apache's %b of an empty body) is "0", as nginx writes it. The two
 * names are one format: Apache's and nginx's layouts are the same.
 *
 * EXTRACT_ERROR: a line without the fixed fields up to the bytes sent, a
 * time_local without its ']', a quoted field without its closing quote,
 * a status that is not three digits, bytes that are not a number or "-",
 * text that is neither a quoted field nor a bare token where the
 * referer or later fields go. Fields are found with xcur_find (xcur.h);
 * a quoted field is unescaped only when the query uses it. */
#include "exec/extract/extract_int.h"
#include "exec/extract/xcur.h"

static const char zero[] = "0";   /* the bytes of an empty body */

enum access_slot {
    AS_REMOTE_ADDR = 1, AS_REMOTE_USER, AS_TIME_LOCAL, AS_REQUEST, AS_METHOD, AS_PATH,
    AS_PROTOCOL, AS_STATUS, AS_BODY_BYTES, AS_REFERER, AS_USER_AGENT, AS_XFF, AS_REQUEST_TIME,
    AS_SLOTS
};

static const char *const access_vars[AS_SLOTS] = {
    [AS_REMOTE_ADDR] = "$remote_addr", [AS_REMOTE_USER] = "$remote_user",
    [AS_TIME_LOCAL] = "$time_local",   [AS_REQUEST] = "$request",
    [AS_METHOD] = "$method",           [AS_PATH] = "$path",
    [AS_PROTOCOL] = "$protocol",       [AS_STATUS] = "$status",
    [AS_BODY_BYTES] = "$body_bytes_sent", [AS_REFERER] = "$http_referer",
    [AS_USER_AGENT] = "$http_user_agent", [AS_XFF] = "$http_x_forwarded_for",
    [AS_REQUEST_TIME] = "$request_time",
};

static bool access_plan_var(const char *name, field_plan_t *fp)
{
    if (strcmp(name, "$time") == 0) {
        fp->kind = FIELD_TIME;
        return true;
    }
    for (int s = 1; s < AS_SLOTS; s++)
        if (strcmp(name, access_vars[s]) == 0) {
            fp->kind = FIELD_SLOT;
            fp->pos = (uint8_t)s;
            return true;
        }
    return false;
}

/* A field of the optional part: a separating space, then a quoted field
 * (as written: the caller unescapes what the query uses) or a bare token.
 * 0: none left, 1: *quoted says which, -1: malformed. */
static int acc_more(xcur_t *a, const char **v, uint32_t *len, bool *quoted)
{
    if (a->pos >= a->n)
        return 0;
    if (a->p[a->pos] != ' ') {
        xcur_fail(a, "space expected");
        return -1;
    }
    while (a->pos < a->n && a->p[a->pos] == ' ')
        a->pos++;
    if (a->pos >= a->n)
        return 0;
    *quoted = a->p[a->pos] == '"';
    if (*quoted)
        return xcur_quoted_raw(a, v, len) ? 1 : -1;
    uint32_t end = xcur_find(a->p, a->n, a->pos, ' ');
    *v = a->p + a->pos;
    *len = end - a->pos;
    a->pos = end;
    return 1;
}

static bool is_number(const char *v, uint32_t len)
{
    uint32_t k = 0, digits = 0, dots = 0;
    for (; k < len; k++) {
        if (v[k] >= '0' && v[k] <= '9')
            digits++;
        else if (v[k] == '.' && !dots++)
            continue;
        else
            return false;
    }
    return digits > 0;
}

/* Whether [v, v+len) is one or more digits (a byte count). */
static bool all_digits(const char *v, uint32_t len)
{
    uint32_t k = 0;
    while (k < len && (unsigned char)(v[k] - '0') <= 9)
        k++;
    return len > 0 && k == len;
}

/* The request's method, path and protocol. */
static void acc_request(xcur_t *a, const char *r, uint32_t len)
{
    const char *sp1 = len ? memchr(r, ' ', len) : NULL;
    if (!sp1)
        return;
    uint32_t m = (uint32_t)(sp1 - r);
    xcur_set(a, AS_METHOD, r, m);
    const char *path = sp1 + 1;
    uint32_t plen = len - m - 1;
    const char *sp2 = memrchr(path, ' ', plen);
    if (sp2 && (uint32_t)(path + plen - sp2 - 1) >= 5 && memcmp(sp2 + 1, "HTTP/", 5) == 0) {
        xcur_set(a, AS_PROTOCOL, sp2 + 1, (uint32_t)(path + plen - sp2 - 1));
        plen = (uint32_t)(sp2 - path);
    }
    xcur_set(a, AS_PATH, path, plen);
}

static bool access_line(xcur_t *a)
{
    const char *v;
    uint32_t len;
    if (!xcur_token(a, false, &v, &len))
        return false;
    if (len == 0)
        return xcur_fail(a, "empty remote address");
    xcur_set(a, AS_REMOTE_ADDR, v, len);
    if (!xcur_token(a, false, &v, &len) || !xcur_token(a, false, &v, &len))   /* ident, user */
        return false;
    xcur_set(a, AS_REMOTE_USER, v, len);
    if (a->pos >= a->n || a->p[a->pos] != '[')
        return xcur_fail(a, "'[' of the time expected");
    uint32_t rb = xcur_find(a->p, a->n, a->pos, ']');
    if (rb >= a->n)
        return xcur_fail(a, "']' of the time expected");
    xcur_set(a, AS_TIME_LOCAL, a->p + a->pos + 1, rb - a->pos - 1);
    a->pos = rb + 1;
    if (a->n - a->pos < 2 || a->p[a->pos] != ' ' || a->p[a->pos + 1] != '"')
        return xcur_fail(a, "the quoted request expected");
    a->pos++;
    if (!xcur_quoted_raw(a, &v, &len))
        return false;
    bool parts = xcur_wants(a, AS_METHOD) || xcur_wants(a, AS_PATH) || xcur_wants(a, AS_PROTOCOL);
    if (parts || xcur_wants(a, AS_REQUEST)) {
        if (!xcur_unescape(a, &v, &len))
            return false;
        xcur_set(a, AS_REQUEST, v, len);
        if (parts)
            acc_request(a, v, len);
    }
    if (a->pos >= a->n || a->p[a->pos] != ' ')
        return xcur_fail(a, "status expected");
    a->pos++;
    if (!xcur_token(a, false, &v, &len))
        return false;
    if (len != 3 || v[0] < '1' || v[0] > '9' || v[1] < '0' || v[1] > '9' || v[2] < '0' ||
        v[2] > '9')
        return xcur_fail(a, "status is not three digits");
    xcur_set(a, AS_STATUS, v, len);
    len = xcur_find(a->p, a->n, a->pos, ' ') - a->pos;
    v = a->p + a->pos;
    a->pos += len;
    if (len == 1 && v[0] == '-')
        v = zero;
    else if (!all_digits(v, len))
        return xcur_fail(a, "bytes sent is not a number");
    xcur_set(a, AS_BODY_BYTES, v, len);
    /* referer, user agent, then what a format adds */
    bool quoted, xff = false, rt = false;
    for (int k = 0;; k++) {
        int r = acc_more(a, &v, &len, &quoted);
        if (r < 0)
            return false;
        if (r == 0)
            return true;
        if (k < 2 && !quoted)
            return xcur_fail(a, k ? "the quoted user agent expected" : "the quoted referer expected");
        int slot = k < 2 ? (k ? AS_USER_AGENT : AS_REFERER) : quoted && !xff ? AS_XFF : 0;
        if (slot) {
            if (xcur_wants(a, slot) && !xcur_unescape(a, &v, &len))
                return false;
            xcur_set(a, slot, v, len);
            xff |= slot == AS_XFF;
        } else if (!quoted && !rt && is_number(v, len)) {
            xcur_set(a, AS_REQUEST_TIME, v, len);
            rt = true;
        }
    }
}

static uint8_t access_parse(extractor_t *x, size_t i, const char *p, uint32_t len,
                            sv_t *const *cols)
{
    return xcur_line(x, i, p, len, cols, access_line);
}

static void access_batch(extractor_t *x, const char *const *line, const uint32_t *len, size_t n,
                         sv_t *const *cols, uint8_t *status)
{
    extract_each_line(x, line, len, n, cols, status, access_parse);
}

const extract_format_t extract_format_nginx = {
    .name = "nginx", .plan_var = access_plan_var, .batch = access_batch,
    .time_slot = AS_TIME_LOCAL, .consts = zero, .consts_len = sizeof zero,
};

const extract_format_t extract_format_apache = {
    .name = "apache", .plan_var = access_plan_var, .batch = access_batch,
    .time_slot = AS_TIME_LOCAL, .consts = zero, .consts_len = sizeof zero,
};
