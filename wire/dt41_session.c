/* dt41_session.c: the SESSION spec, JSON both ways. Decoding follows Go's
 * json.Unmarshal into session.Spec (keys matched without regard to case,
 * unknown keys ignored, null leaves a field as it was, a value of the
 * wrong type refuses the whole spec) and then the Go dserver's checks
 * (sessioncommand.go). Encoding writes the bytes Go's json.Marshal
 * writes. One difference: Go reads invalid UTF-8 in a string as U+FFFD,
 * jansson refuses it; both refuse the spec's meaning anyway in practice
 * (a path or pattern with invalid UTF-8), ours with "invalid session spec". */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/base64.h"
#include "wire/dt41.h"
#include "wire/dt41_go.h"

static int invalid_spec(err_t *e)
{
    return err_set(e, ERR_INPUT, "invalid session spec");
}

/* A copy of a JSON string in the command's store. */
static dt41_str_t store_string(dt41_cmd_t *c, json_t *v)
{
    size_t n = json_string_length(v);
    char *dst = dt41_store_take(c, n);
    memcpy(dst, json_string_value(v), n);
    return (dt41_str_t){dst, n};
}

static int int_field(json_t *v, long long *out)
{
    if (json_is_null(v))
        return 0;
    if (!json_is_integer(v))
        return -1;
    *out = (long long)json_integer_value(v);
    return 0;
}

static int string_field(dt41_cmd_t *c, json_t *v, dt41_str_t *out)
{
    if (json_is_null(v))
        return 0;
    if (!json_is_string(v))
        return -1;
    *out = store_string(c, v);
    return 0;
}

static int files_field(dt41_cmd_t *c, json_t *v, dt41_spec_t *s)
{
    if (json_is_null(v)) {
        s->files = NULL;
        s->nfiles = 0;
        return 0;
    }
    if (!json_is_array(v))
        return -1;
    size_t n = json_array_size(v);
    if (n + 1 > c->files_cap) {
        dt41_str_t *nf = realloc(c->files, (n + 1) * sizeof *nf);
        if (!nf)
            return -1;
        c->files = nf;
        c->files_cap = n + 1;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *f = json_array_get(v, i);
        if (json_is_null(f))
            c->files[i] = (dt41_str_t){"", 0};
        else if (json_is_string(f))
            c->files[i] = store_string(c, f);
        else
            return -1;
    }
    s->files = c->files;   /* an empty array is [], not null */
    s->nfiles = n;
    return 0;
}

static int spec_field(dt41_cmd_t *c, const char *key, json_t *v, dt41_spec_t *s)
{
    if (strcasecmp(key, "mode") == 0)
        return int_field(v, &s->mode);
    if (strcasecmp(key, "files") == 0)
        return files_field(c, v, s);
    if (strcasecmp(key, "options") == 0)
        return string_field(c, v, &s->options);
    if (strcasecmp(key, "query") == 0)
        return string_field(c, v, &s->query);
    if (strcasecmp(key, "regex") == 0)
        return string_field(c, v, &s->regex);
    if (strcasecmp(key, "regex_invert") == 0) {
        if (json_is_null(v))
            return 0;
        if (!json_is_boolean(v))
            return -1;
        s->regex_invert = json_is_true(v);
        return 0;
    }
    if (strcasecmp(key, "timeout") == 0)
        return int_field(v, &s->timeout);
    return 0;
}

/* validateSessionSpec, but for what needs the query parser or a regex
 * compiler, which the server checks. */
static int check_spec(const dt41_spec_t *s, err_t *e)
{
    switch (s->mode) {
    case DT41_MODE_TAIL:
    case DT41_MODE_CAT:
    case DT41_MODE_GREP:
    case DT41_MODE_MAP:
    case DT41_MODE_HEALTH:
        break;
    default:
        return err_set(e, ERR_INPUT, "unsupported session mode");
    }
    if (s->query.n && s->mode != DT41_MODE_MAP && s->mode != DT41_MODE_TAIL)
        return err_set(e, ERR_INPUT, "query sessions require map or tail mode");
    if (!s->query.n && s->mode == DT41_MODE_MAP)
        return err_set(e, ERR_INPUT, "missing session query");
    dt41_opts_t o;
    err_t oe;
    if (go_trim(s->options).n && dt41_opts_parse(s->options.p, s->options.n, &o, &oe) < 0)
        return invalid_spec(e);
    return 0;
}

int dt41_session_decode(dt41_cmd_t *c, dt41_str_t json, err_t *e)
{
    dt41_spec_t *s = &c->spec;
    memset(s, 0, sizeof *s);
    json_error_t je;
    json_t *root = json_loadb(json.p, json.n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    if (!root)
        return invalid_spec(e);
    int rc = 0;
    if (json_is_object(root)) {
        const char *key;
        json_t *v;
        json_object_foreach(root, key, v) {
            if (spec_field(c, key, v, s) < 0) {
                rc = -1;
                break;
            }
        }
    } else if (!json_is_null(root)) {   /* null unmarshals into nothing */
        rc = -1;
    }
    json_decref(root);
    if (rc < 0)
        return invalid_spec(e);
    return check_spec(s, e);
}

/* ---- encoding ---------------------------------------------------------------- */

/* A JSON string as Go writes it with HTML escaping (json.Marshal). */
static void put_json_string(wire_buf_t *b, dt41_str_t s)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s.p, *end = p + s.n;
    wire_put_bytes(b, "\"", 1);
    while (p < end) {
        unsigned c = *p;
        if (c < 0x80) {
            const char *esc = c == '"' ? "\\\"" : c == '\\' ? "\\\\" : c == '\b' ? "\\b" : c == '\f' ? "\\f"
                            : c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t" : NULL;
            if (esc) {
                wire_put_bytes(b, esc, 2);
            } else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
                char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
                wire_put_bytes(b, u, 6);
            } else {
                wire_put_bytes(b, p, 1);
            }
            p++;
            continue;
        }
        size_t n = go_utf8_len(p, end);
        if (n == 0) {
            wire_put_bytes(b, "\\ufffd", 6);
            p++;
        } else if (n == 3 && p[0] == 0xE2 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)) {
            wire_put_bytes(b, p[2] == 0xA8 ? "\\u2028" : "\\u2029", 6);
            p += 3;
        } else {
            wire_put_bytes(b, p, n);
            p += n;
        }
    }
    wire_put_bytes(b, "\"", 1);
}

static void put_json_key(wire_buf_t *b, const char *key)
{
    wire_put_bytes(b, ",\"", 2);
    wire_put_bytes(b, key, strlen(key));
    wire_put_bytes(b, "\":", 2);
}

void dt41_spec_json(wire_buf_t *b, const dt41_spec_t *s)
{
    char num[32];
    int n = snprintf(num, sizeof num, "%lld", s->mode);
    wire_put_bytes(b, "{\"mode\":", 8);
    wire_put_bytes(b, num, (size_t)n);
    put_json_key(b, "files");
    if (!s->files) {
        wire_put_bytes(b, "null", 4);
    } else {
        wire_put_bytes(b, "[", 1);
        for (size_t i = 0; i < s->nfiles; i++) {
            if (i)
                wire_put_bytes(b, ",", 1);
            put_json_string(b, s->files[i]);
        }
        wire_put_bytes(b, "]", 1);
    }
    /* omitempty */
    if (s->options.n) {
        put_json_key(b, "options");
        put_json_string(b, s->options);
    }
    if (s->query.n) {
        put_json_key(b, "query");
        put_json_string(b, s->query);
    }
    if (s->regex.n) {
        put_json_key(b, "regex");
        put_json_string(b, s->regex);
    }
    if (s->regex_invert) {
        put_json_key(b, "regex_invert");
        wire_put_bytes(b, "true", 4);
    }
    if (s->timeout) {
        put_json_key(b, "timeout");
        n = snprintf(num, sizeof num, "%lld", s->timeout);
        wire_put_bytes(b, num, (size_t)n);
    }
    wire_put_bytes(b, "}", 1);
}
