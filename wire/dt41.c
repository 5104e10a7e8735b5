/* dt41.c: the server side of DTail 4.1: splitting the byte stream, and
 * parsing a command frame as the Go dserver does (protocol_codec.go,
 * basehandler.go, serverhandler.go, readcommand.go at snonux/dtail
 * 3004a71), with its texts for everything it refuses. */
#include "wire/dt41.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base64.h"
#include "wire/dt41_go.h"

/* ---- splitting ------------------------------------------------------------ */

static void splitter_init(dt41_splitter_t *s, unsigned char delim, size_t max)
{
    memset(s, 0, sizeof *s);
    s->delim = delim;
    s->max = max;
}

void dt41_framer_init(dt41_splitter_t *s, size_t max)
{
    splitter_init(s, ';', max ? max : DT41_MAX_FRAME);
}

void dt41_msgsplit_init(dt41_splitter_t *s, size_t max)
{
    splitter_init(s, DT41_DELIM, max ? max : DT41_MAX_MESSAGE);
}

void dt41_splitter_free(dt41_splitter_t *s)
{
    free(s->buf);
    memset(s, 0, sizeof *s);
}

static int too_long(dt41_splitter_t *s, size_t size, err_t *e)
{
    unsigned long long at = s->start;
    s->len = 0;
    if (s->delim == ';')
        return err_set_at(e, ERR_INPUT, (long)at,
                          "command frame at byte %llu exceeds the maximum of %zu bytes: %zu bytes and no ';'",
                          at, s->max, size);
    return err_set_at(e, ERR_INPUT, (long)at,
                      "server message at byte %llu exceeds the maximum of %zu bytes: %zu bytes and no 0xAC",
                      at, s->max, size);
}

int dt41_split(dt41_splitter_t *s, const char *p, size_t n, size_t *used, dt41_str_t *piece,
               unsigned long long *at, err_t *e)
{
    const char *d = n ? memchr(p, s->delim, n) : NULL;
    size_t take = d ? (size_t)(d - p) : n;
    if (s->len == 0)
        s->start = s->pos;
    *used = 0;
    if (take > s->max - s->len)
        return too_long(s, s->len + take, e);
    if (d && s->len == 0) {   /* whole in the caller's bytes: no copy */
        *piece = (dt41_str_t){p, take};
        *at = s->start;
        *used = take + 1;
        s->pos += take + 1;
        return 1;
    }
    if (take > s->cap - s->len) {
        size_t cap = s->cap ? s->cap : 4096;
        while (cap - s->len < take)
            cap *= 2;
        char *nb = realloc(s->buf, cap);
        if (!nb)
            return err_set(e, ERR_NOMEM, "out of memory buffering %zu bytes", s->len + take);
        s->buf = nb;
        s->cap = cap;
    }
    if (take)
        memcpy(s->buf + s->len, p, take);
    s->len += take;
    if (!d) {
        *used = n;
        s->pos += n;
        return 0;
    }
    *piece = (dt41_str_t){s->buf, s->len};
    *at = s->start;
    *used = take + 1;
    s->pos += take + 1;
    s->len = 0;   /* the bytes stay until the next call */
    return 1;
}

/* ---- the version word ------------------------------------------------------ */

int dt41_version_check(const char *v, size_t n, bool *newline, err_t *e)
{
    *newline = false;
    if (n == 3 && memcmp(v, DT41_VERSION, 3) == 0)
        return 0;
    /* Go reads "major.minor" with errors ignored: a part that is not a
     * number counts 0, one out of range its clamped value. */
    const char *dot = memchr(v, '.', n);
    long long major = 0, minor = 0;
    go_atoi(v, dot ? (size_t)(dot - v) : n, &major);
    if (dot)
        go_atoi(dot + 1, n - (size_t)(dot + 1 - v), &minor);
    *newline = major <= 3;   /* protocol 3 clients end messages in '\n' */
    bool newer = major > 4 || (major == 4 && minor > 1);
    return err_set_at(e, ERR_INPUT, 0,
                      "the DTail server protocol version '" DT41_VERSION "' does not match client "
                      "protocol version '%.*s', please update DTail %s",
                      (int)n, v, newer ? "server" : "client");
}

/* ---- options ----------------------------------------------------------------- */

/* Decodes a "base64%..." option value into buf, or into *heap when it is
 * larger (the caller frees it). */
static int option_value(dt41_str_t v, char *buf, size_t cap, char **heap, dt41_str_t *out, err_t *e)
{
    if (!go_prefix(v, "base64%")) {
        *out = v;
        return 0;
    }
    const char *b = v.p + 7;
    size_t bn = v.n - 7, len, bad;
    char *dst = buf;
    if (base64_decoded_max(bn) > cap && !(dst = *heap = malloc(base64_decoded_max(bn))))
        return err_set(e, ERR_NOMEM, "out of memory for an option value of %zu bytes", bn);
    if (base64_decode(dst, &len, b, bn, &bad) < 0)
        return err_set_at(e, ERR_INPUT, (long)(7 + bad), "illegal base64 data at input byte %zu", bad);
    *out = (dt41_str_t){dst, len};
    return 0;
}

static int int_option(dt41_str_t v, long long *out, err_t *e)
{
    enum go_num r = go_atoi(v.p, v.n, out);
    if (r == GO_NUM_OK)
        return 0;
    char msg[700];
    go_num_error(msg, sizeof msg, "Atoi", v.p, v.n, r);
    return err_set(e, ERR_INPUT, "%s", msg);
}

static int set_option(dt41_opts_t *o, dt41_str_t k, dt41_str_t v, err_t *e)
{
    if (go_eq(k, "before"))
        return int_option(v, &o->before, e);
    if (go_eq(k, "after"))
        return int_option(v, &o->after, e);
    if (go_eq(k, "max"))
        return int_option(v, &o->max, e);
    if (go_eq(k, "quiet"))
        o->quiet = go_eq(v, "true");
    else if (go_eq(k, "plain"))
        o->plain = go_eq(v, "true");
    else if (go_eq(k, "serverless"))
        o->serverless = go_eq(v, "true");
    return 0;   /* Go keeps other keys and never reads them */
}

int dt41_opts_parse(const char *p, size_t n, dt41_opts_t *o, err_t *e)
{
    memset(o, 0, sizeof *o);
    if (n == 0)
        return 0;
    dt41_str_t raw = go_trim((dt41_str_t){p, n});
    const char *end = raw.p + raw.n;
    char buf[1024];
    for (const char *at = raw.p; raw.n && at <= end;) {
        const char *colon = memchr(at, ':', (size_t)(end - at));
        dt41_str_t item = {at, (size_t)((colon ? colon : end) - at)};
        const char *eq = memchr(item.p, '=', item.n);
        if (!eq)   /* Go prints the one-element split: [item] */
            return err_set_at(e, ERR_INPUT, (long)(item.p - p), "Unable to parse options: [%.*s]",
                              (int)item.n, item.p);
        dt41_str_t k = {item.p, (size_t)(eq - item.p)}, v = {eq + 1, (size_t)(item.p + item.n - eq - 1)};
        char *heap = NULL;
        int rc = option_value(v, buf, sizeof buf, &heap, &v, e) < 0 || set_option(o, k, v, e) < 0 ? -1 : 0;
        free(heap);
        if (rc < 0) {
            e->offset = (long)(item.p - p);
            return -1;
        }
        if (!colon)
            break;
        at = colon + 1;
    }
    return 0;
}

/* Go escapes a value only when the server could not read it back. */
static void option_put(wire_buf_t *b, bool *first, const char *k, const char *v)
{
    if (!*first)
        wire_put_bytes(b, ":", 1);
    *first = false;
    wire_put_bytes(b, k, strlen(k));
    wire_put_bytes(b, "=", 1);
    size_t n = strlen(v);
    if (strpbrk(v, ":=|") || strncmp(v, "base64%", 7) == 0) {
        char *dst = (char *)wire_buf_reserve(b, 7 + base64_encoded_len(n));
        if (!dst)
            return;
        memcpy(dst, "base64%", 7);
        base64_encode(dst + 7, v, n);
        b->len += 7 + base64_encoded_len(n);
        return;
    }
    wire_put_bytes(b, v, n);
}

void dt41_opts_encode(wire_buf_t *b, const dt41_opts_t *o)
{
    char num[32];
    bool first = true;
    /* sort.Strings order of the keys */
    if (o->after) {
        snprintf(num, sizeof num, "%lld", o->after);
        option_put(b, &first, "after", num);
    }
    if (o->before) {
        snprintf(num, sizeof num, "%lld", o->before);
        option_put(b, &first, "before", num);
    }
    if (o->max) {
        snprintf(num, sizeof num, "%lld", o->max);
        option_put(b, &first, "max", num);
    }
    if (o->plain)
        option_put(b, &first, "plain", "true");
    if (o->quiet)
        option_put(b, &first, "quiet", "true");
    if (o->serverless)
        option_put(b, &first, "serverless", "true");
}

/* ---- the pattern --------------------------------------------------------------- */

int dt41_regex_parse(const char *p, size_t n, dt41_regex_t *r, err_t *e)
{
    r->match = DT41_MATCH_NOOP;
    r->literal = false;
    r->pattern = (dt41_str_t){p + n, 0};
    const char *sp = memchr(p, ' ', n);
    if (!sp)
        return 0;   /* no pattern: Go matches everything */
    dt41_str_t flags = {p, (size_t)(sp - p)};
    r->pattern = (dt41_str_t){sp + 1, n - flags.n - 1};
    if (!go_prefix(flags, "regex"))
        return err_set_at(e, ERR_PATTERN, 0,
                          "unable to deserialize regex '%.*s': should start with string 'regex'", (int)n, p);
    r->match = DT41_MATCH_DEFAULT;
    const char *colon = memchr(flags.p, ':', flags.n);
    if (!colon)
        return 0;
    bool first = true;
    const char *end = flags.p + flags.n;
    for (const char *at = colon + 1;;) {
        const char *comma = memchr(at, ',', (size_t)(end - at));
        dt41_str_t f = {at, (size_t)((comma ? comma : end) - at)};
        enum dt41_match m = go_eq(f, "default") ? DT41_MATCH_DEFAULT
                          : go_eq(f, "invert")  ? DT41_MATCH_INVERT
                          : go_eq(f, "noop")    ? DT41_MATCH_NOOP : 0;
        if (go_eq(f, "literal")) {
            r->literal = true;   /* a hint, not a flag */
        } else if (!m) {
            return err_set_at(e, ERR_PATTERN, (long)(f.p - p),
                              "unknown regex flag \"%.*s\": unknown regex flag '%.*s', setting to 'undefined'",
                              (int)f.n, f.p, (int)f.n, f.p);
        } else if (first) {
            r->match = m;   /* Go matches by the first flag only */
            first = false;
        }
        if (!comma)
            break;
        at = comma + 1;
    }
    return 0;
}

void dt41_regex_encode(wire_buf_t *b, const char *pattern, size_t n, bool invert)
{
    if (n == 0 || (n == 1 && pattern[0] == '.') || (n == 2 && memcmp(pattern, ".*", 2) == 0)) {
        wire_put_bytes(b, "regex:noop ", 11);   /* Go drops the pattern and the inversion */
        return;
    }
    static const char meta[] = ".+*?^$[]{}()|\\";   /* Go's isLiteralPattern */
    bool literal = true;
    for (size_t i = 0; i < n && literal; i++)
        literal = !memchr(meta, pattern[i], sizeof meta - 1);
    const char *flags = invert ? (literal ? "regex:invert,literal " : "regex:invert ")
                               : (literal ? "regex:default,literal " : "regex:default ");
    wire_put_bytes(b, flags, strlen(flags));
    wire_put_bytes(b, pattern, n);
}

/* ---- commands -------------------------------------------------------------------- */

void dt41_cmd_init(dt41_cmd_t *c)
{
    memset(c, 0, sizeof *c);
}

void dt41_cmd_free(dt41_cmd_t *c)
{
    free(c->store);
    free(c->args);
    free(c->files);
    memset(c, 0, sizeof *c);
}

/* The store holds everything a parse derives; reserved once per parse so
 * that spans into it never move. */
static int store_reserve(dt41_cmd_t *c, size_t need, err_t *e)
{
    c->store_len = 0;
    if (need <= c->store_cap)
        return 0;
    char *nb = realloc(c->store, need);
    if (!nb)
        return err_set(e, ERR_NOMEM, "out of memory for a command of %zu bytes", need);
    c->store = nb;
    c->store_cap = need;
    return 0;
}

char *dt41_store_take(dt41_cmd_t *c, size_t n)
{
    char *p = c->store + c->store_len;
    c->store_len += n;
    return p;
}

/* What a parse may add to the store for text of n bytes: joined words,
 * a decoded key or payload, the payload's JSON strings. */
static size_t store_need(size_t n)
{
    return 4 * n + 64;
}

static int reject(dt41_reject_t *r, enum dt41_reply reply, bool newline, bool finishes)
{
    r->reply = reply;
    r->newline = newline;
    r->finishes = finishes;
    return -1;
}

static int add_word(dt41_cmd_t *c, const char *p, size_t n, err_t *e)
{
    if (c->nargs == c->args_cap) {
        size_t cap = c->args_cap ? c->args_cap * 2 : 16;
        dt41_str_t *na = realloc(c->args, cap * sizeof *na);
        if (!na)
            return err_set(e, ERR_NOMEM, "out of memory splitting a command");
        c->args = na;
        c->args_cap = cap;
    }
    c->args[c->nargs++] = (dt41_str_t){p, n};
    return 0;
}

/* strings.Split(text, " "), or strings.Fields(text). */
static int split_words(dt41_cmd_t *c, const char *p, size_t n, bool fields, err_t *e)
{
    const char *end = p + n, *at = p;
    c->nargs = 0;
    if (!fields) {
        for (;;) {
            const char *sp = memchr(at, ' ', (size_t)(end - at));
            if (add_word(c, at, (size_t)((sp ? sp : end) - at), e) < 0)
                return -1;
            if (!sp)
                return 0;
            at = sp + 1;
        }
    }
    while (at < end) {
        size_t s;
        while (at < end && (s = go_space_len(at, end)))
            at += s;
        const char *w = at;
        while (at < end && !go_space_len(at, end))
            at++;
        if (at > w && add_word(c, w, (size_t)(at - w), e) < 0)
            return -1;
    }
    return 0;
}

/* strings.Join(args[from:], " "): a span of the text when the words are
 * still joined by single spaces there, else a copy in the store. */
static dt41_str_t join_words(dt41_cmd_t *c, size_t from)
{
    if (from >= c->nargs)
        return (dt41_str_t){c->text.p + c->text.n, 0};
    const dt41_str_t *a = c->args + from;
    size_t k = c->nargs - from, total = k - 1;
    bool contiguous = true;
    for (size_t i = 0; i < k; i++) {
        total += a[i].n;
        if (i + 1 < k && a[i].p + a[i].n + 1 != a[i + 1].p)
            contiguous = false;
    }
    if (contiguous)
        return (dt41_str_t){a[0].p, total};
    char *dst = dt41_store_take(c, total), *o = dst;
    for (size_t i = 0; i < k; i++) {
        if (i)
            *o++ = ' ';
        memcpy(o, a[i].p, a[i].n);
        o += a[i].n;
    }
    return (dt41_str_t){dst, total};
}

/* The offset of s in the command's text; 0 for a span of the store (a
 * word joined again). */
static long offset_of(const dt41_cmd_t *c, dt41_str_t s)
{
    uintptr_t p = (uintptr_t)s.p, t = (uintptr_t)c->text.p;
    return p >= t && p <= t + c->text.n ? (long)(p - t) : 0;
}

/* Go's "what|[a b c]|3": the words as fmt's %v prints them, then their count. */
static int words_error(dt41_cmd_t *c, err_t *e, const char *what, size_t from)
{
    dt41_str_t all = join_words(c, from);
    return err_set_at(e, ERR_INPUT, 0, "%s|[%.*s]|%zu", what, (int)all.n, all.p, c->nargs - from);
}

/* "timeout N <cmd>...": N seconds for the command (basehandler.go). */
static int timeout_prefix(dt41_cmd_t *c, size_t *first, dt41_reject_t *r, err_t *e)
{
    if (c->nargs < 3 || !go_eq(c->args[0], "timeout"))
        return 0;
    dt41_str_t v = c->args[1];
    long long secs;
    enum go_num g = go_atoi(v.p, v.n, &secs);
    if (g != GO_NUM_OK) {
        char q[512], num[700];
        go_quote(q, sizeof q, v.p, v.n);
        go_num_error(num, sizeof num, "Atoi", v.p, v.n, g);
        err_set_at(e, ERR_INPUT, offset_of(c, v), "invalid timeout value %s: %s", q, num);
        return reject(r, DT41_REPLY_ERROR, true, false);
    }
    if (secs > DT41_MAX_TIMEOUT) {
        err_set_at(e, ERR_INPUT, offset_of(c, v), "timeout value %lld exceeds maximum of %d seconds", secs,
                   DT41_MAX_TIMEOUT);
        return reject(r, DT41_REPLY_ERROR, true, false);
    }
    c->has_timeout = secs > 0;
    c->timeout = secs > 0 ? secs : 0;
    *first = 2;
    return 0;
}

static int read_command(dt41_cmd_t *c, size_t first, dt41_reject_t *r, err_t *e)
{
    size_t argc = c->nargs - first;
    if (argc >= 4) {
        dt41_str_t re = join_words(c, first + 2);
        if (dt41_regex_parse(re.p, re.n, &c->regex, e) < 0) {
            char why[sizeof e->msg];
            snprintf(why, sizeof why, "%s", e->msg);
            err_set_at(e, ERR_INPUT, offset_of(c, re) + e->offset, "Unable to parse command|%s", why);
            return reject(r, DT41_REPLY_ERROR, true, true);
        }
        c->has_regex = true;
    }
    if (argc < 3) {
        words_error(c, e, "Unable to parse command", first);
        return reject(r, DT41_REPLY_WARN, true, true);
    }
    c->path = c->args[first + 1];
    return 0;
}

static int authkey_command(dt41_cmd_t *c, size_t first)
{
    size_t argc = c->nargs - first;
    c->authkey = argc >= 2 ? c->args[first + 1] : (dt41_str_t){c->text.p + c->text.n, 0};
    if (go_trim(c->authkey).n == 0) {
        c->authkey_err = "missing public key";
        return 0;
    }
    char *dst = dt41_store_take(c, base64_decoded_max(c->authkey.n));
    size_t len, bad;
    if (base64_decode(dst, &len, c->authkey.p, c->authkey.n, &bad) < 0) {
        c->authkey_err = "invalid base64";
        return 0;
    }
    c->authkey_blob = (dt41_str_t){dst, len};
    return 0;
}

static int session_error(dt41_reject_t *r, err_t *e, long at, const char *msg)
{
    err_set_at(e, ERR_INPUT, at, "%s", msg);
    return reject(r, DT41_REPLY_SESSION_ERR, false, false);
}

/* "SESSION START <b64>" | "SESSION UPDATE [gen] <b64>" (sessioncommand.go). */
static int session_command(dt41_cmd_t *c, size_t first, dt41_reject_t *r, err_t *e)
{
    size_t argc = c->nargs - first;
    const dt41_str_t *a = c->args + first;
    if (argc < 3)
        return session_error(r, e, 0, "invalid SESSION command");
    dt41_str_t action = go_trim(a[1]);
    bool start = action.n == 5 && strncasecmp(action.p, "START", 5) == 0;
    bool update = action.n == 6 && strncasecmp(action.p, "UPDATE", 6) == 0;
    size_t payload = 2;
    if (update && argc >= 4) {
        if (go_parse_u64(a[2].p, a[2].n, &c->generation) != GO_NUM_OK)
            return session_error(r, e, offset_of(c, a[2]), "invalid session generation");
        payload = 3;
    }
    dt41_str_t b64 = a[payload];
    char *json = dt41_store_take(c, base64_decoded_max(b64.n));
    size_t len, bad;
    if (base64_decode(json, &len, b64.p, b64.n, &bad) < 0)
        return session_error(r, e, offset_of(c, b64) + (long)bad, "invalid session payload");
    if (dt41_session_decode(c, (dt41_str_t){json, len}, e) < 0) {
        e->offset = offset_of(c, b64);
        return reject(r, DT41_REPLY_SESSION_ERR, false, false);
    }
    if (!start && !update)   /* Go validates the spec before it looks at the action */
        return session_error(r, e, offset_of(c, a[1]), "unknown action");
    c->kind = start ? DT41_CMD_SESSION_START : DT41_CMD_SESSION_UPDATE;
    return 0;
}

static const struct {
    const char *name;
    enum dt41_kind kind;
} user_commands[] = {
    {"grep", DT41_CMD_GREP}, {"cat", DT41_CMD_CAT}, {"tail", DT41_CMD_TAIL}, {"map", DT41_CMD_MAP},
    {".ack", DT41_CMD_ACK}, {"AUTHKEY", DT41_CMD_AUTHKEY}, {"authkey", DT41_CMD_AUTHKEY},
    {"SESSION", DT41_CMD_SESSION_START}, {"session", DT41_CMD_SESSION_START},
};

/* The handler's table: the user one, or the health handler's ("health"
 * and ".ack", healthhandler.go). */
static int command_kind(const dt41_cmd_t *c, dt41_str_t name, enum dt41_kind *k)
{
    if (c->health_handler) {
        *k = go_eq(name, "health") ? DT41_CMD_HEALTH : DT41_CMD_ACK;
        return go_eq(name, "health") || go_eq(name, ".ack") ? 0 : -1;
    }
    for (size_t i = 0; i < sizeof user_commands / sizeof user_commands[0]; i++)
        if (go_eq(name, user_commands[i].name)) {
            *k = user_commands[i].kind;
            return 0;
        }
    return -1;
}

static int unknown_command(dt41_cmd_t *c, dt41_str_t name, size_t first, dt41_reject_t *r, err_t *e)
{
    /* Go logs the name, the word count, then the words: name|argc|[words] */
    dt41_str_t all = join_words(c, first);
    err_set_at(e, ERR_INPUT, 0, "Received unknown %s command|%.*s|%zu|[%.*s]",
               c->health_handler ? "health" : "user", (int)name.n, name.p, c->nargs - first, (int)all.n, all.p);
    /* the health handler sends it without the newline */
    return reject(r, DT41_REPLY_ERROR, !c->health_handler, true);
}

/* Clears the results of the previous parse, keeping the storage. */
static void reset_command(dt41_cmd_t *c)
{
    dt41_cmd_t keep = *c;
    memset(c, 0, sizeof *c);
    c->health_handler = keep.health_handler;
    c->store = keep.store;
    c->store_len = keep.store_len;
    c->store_cap = keep.store_cap;
    c->args = keep.args;
    c->args_cap = keep.args_cap;
    c->files = keep.files;
    c->files_cap = keep.files_cap;
    c->regex.match = DT41_MATCH_NOOP;
}

/* The decoded command (in c->text), as dispatchCommand and the handlers
 * take it. */
static int parse_words(dt41_cmd_t *c, bool fields, dt41_reject_t *r, err_t *e)
{
    if (split_words(c, c->text.p, c->text.n, fields, e) < 0)
        return reject(r, DT41_REPLY_ERROR, true, false);
    if (c->nargs == 0) {   /* only from Fields: Go's raw-command error */
        err_set_at(e, ERR_INPUT, 0, "empty command");
        return reject(r, DT41_REPLY_ERROR, true, false);
    }
    size_t first = 0;
    if (timeout_prefix(c, &first, r, e) < 0)
        return -1;
    dt41_str_t w = c->args[first];
    const char *colon = memchr(w.p, ':', w.n);
    dt41_str_t name = {w.p, colon ? (size_t)(colon - w.p) : w.n};
    dt41_str_t opts = colon ? (dt41_str_t){colon + 1, w.n - name.n - 1} : (dt41_str_t){w.p + w.n, 0};
    if (opts.n) {
        if (dt41_opts_parse(opts.p, opts.n, &c->opts, e) < 0) {
            e->offset += offset_of(c, opts);
            return reject(r, DT41_REPLY_ERROR, true, false);
        }
        c->has_opts = true;
    }
    enum dt41_kind kind;
    if (command_kind(c, name, &kind) < 0)
        return unknown_command(c, name, first, r, e);
    c->kind = kind;
    switch (kind) {
    case DT41_CMD_CAT:
    case DT41_CMD_GREP:
    case DT41_CMD_TAIL:
        return read_command(c, first, r, e);
    case DT41_CMD_MAP:
        c->query = join_words(c, first + 1);
        return 0;
    case DT41_CMD_HEALTH:
        return 0;
    case DT41_CMD_ACK:
        if (c->nargs - first < 3) {
            words_error(c, e, "Unable to parse command", first);
            return reject(r, DT41_REPLY_WARN, true, true);   /* Go drops it when quiet */
        }
        c->close = go_eq(c->args[first + 1], "close") && go_eq(c->args[first + 2], "connection");
        return 0;
    case DT41_CMD_AUTHKEY:
        return authkey_command(c, first);
    default:
        return session_command(c, first, r, e);
    }
}

int dt41_cmd_parse_text(dt41_cmd_t *c, const char *text, size_t n, bool fields, dt41_reject_t *r,
                        err_t *e)
{
    reset_command(c);
    if (store_reserve(c, store_need(n), e) < 0)
        return reject(r, DT41_REPLY_ERROR, true, false);
    c->text = (dt41_str_t){text, n};
    return parse_words(c, fields, r, e);
}

static int frame_error(dt41_reject_t *r, err_t *e, long at, bool newline, const char *msg)
{
    err_set_at(e, ERR_INPUT, at, "%s", msg);
    return reject(r, DT41_REPLY_ERROR, newline, false);
}

int dt41_cmd_parse(dt41_cmd_t *c, const char *frame, size_t n, dt41_reject_t *r, err_t *e)
{
    reset_command(c);
    /* "protocol <version> base64 <b64>", split on single spaces */
    dt41_str_t w[4];
    size_t nw = 0;
    const char *at = frame, *end = frame + n;
    for (;;) {
        const char *sp = memchr(at, ' ', (size_t)(end - at));
        if (nw < 4)
            w[nw] = (dt41_str_t){at, (size_t)((sp ? sp : end) - at)};
        nw++;
        if (!sp)
            break;
        at = sp + 1;
    }
    if (nw <= 2 || !go_eq(w[0], "protocol"))
        return frame_error(r, e, 0, false, "unable to determine protocol version");
    bool newline;
    if (dt41_version_check(w[1].p, w[1].n, &newline, e) < 0) {
        e->offset = (long)(w[1].p - frame);
        return reject(r, DT41_REPLY_ERROR, newline, false);
    }
    if (nw != 4 || !go_eq(w[2], "base64"))
        return frame_error(r, e, (long)(w[2].p - frame), true,
                           "unable to decode client message, DTail server and client versions may not "
                           "be compatible");
    size_t dn = base64_decoded_max(w[3].n);
    if (store_reserve(c, dn + store_need(dn), e) < 0)
        return reject(r, DT41_REPLY_ERROR, true, false);
    char *text = dt41_store_take(c, dn);
    size_t len, bad;
    if (base64_decode(text, &len, w[3].p, w[3].n, &bad) < 0) {
        char msg[64];
        snprintf(msg, sizeof msg, "illegal base64 data at input byte %zu", bad);
        return frame_error(r, e, (long)(w[3].p - frame + (long)bad), true, msg);
    }
    c->text = (dt41_str_t){text, len};
    return parse_words(c, false, r, e);
}
