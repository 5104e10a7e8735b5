/* dt41_encode.c: the client side of DTail 4.1 commands: the frames a Go
 * client sends, byte for byte (baseclient.go, session/spec.go,
 * config/args.go, regex/regex.go at snonux/dtail 3004a71). */
#include <stdio.h>
#include <string.h>

#include "base/base64.h"
#include "wire/dt41.h"

void dt41_put_frame(wire_buf_t *b, const char *cmd, size_t n)
{
    static const char head[] = "protocol " DT41_VERSION " base64 ";
    wire_put_bytes(b, head, sizeof head - 1);
    char *dst = (char *)wire_buf_reserve(b, base64_encoded_len(n));
    if (!dst)
        return;
    base64_encode(dst, cmd, n);
    b->len += base64_encoded_len(n);
    wire_put_bytes(b, ";", 1);
}

static void put_str(wire_buf_t *b, dt41_str_t s)
{
    wire_put_bytes(b, s.p, s.n);
}

static void put_cstr(wire_buf_t *b, const char *s)
{
    wire_put_bytes(b, s, strlen(s));
}

static const char *mode_name(long long mode)
{
    switch (mode) {
    case DT41_MODE_SERVER: return "server";
    case DT41_MODE_TAIL: return "tail";
    case DT41_MODE_CAT: return "cat";
    case DT41_MODE_GREP: return "grep";
    case DT41_MODE_MAP: return "map";
    case DT41_MODE_HEALTH: return "health";
    default: return "unknown";
    }
}

/* Hands the command built in cmd to each and empties cmd. */
static int emit(wire_buf_t *cmd, int (*each)(void *, const char *, size_t, err_t *), void *ctx, err_t *e)
{
    if (cmd->failed)
        return err_set(e, ERR_NOMEM, "out of memory building a command");
    int rc = each(ctx, (const char *)cmd->p, cmd->len, e);
    cmd->len = 0;
    return rc;
}

/* "<mode>:<opts> <file> <regex>", or with a timeout "timeout N <mode> <file> <regex>". */
static void read_command(wire_buf_t *cmd, const dt41_spec_t *s, const char *mode, dt41_str_t file,
                         bool timeout)
{
    if (timeout) {
        char num[32];
        snprintf(num, sizeof num, "timeout %lld ", s->timeout);
        put_cstr(cmd, num);
        put_cstr(cmd, mode);
    } else {
        put_cstr(cmd, mode);
        wire_put_bytes(cmd, ":", 1);
        put_str(cmd, s->options);
    }
    wire_put_bytes(cmd, " ", 1);
    put_str(cmd, file);
    wire_put_bytes(cmd, " ", 1);
    dt41_regex_encode(cmd, s->regex.p, s->regex.n, s->regex_invert);
}

int dt41_spec_commands(const dt41_spec_t *s, int (*each)(void *ctx, const char *cmd, size_t n, err_t *e),
                       void *ctx, err_t *e)
{
    wire_buf_t cmd = {0};
    int rc = 0;
    if (s->mode == DT41_MODE_HEALTH) {
        put_cstr(&cmd, "health");
        rc = emit(&cmd, each, ctx, e);
    } else if (s->query.n) {
        if (s->mode != DT41_MODE_MAP && s->mode != DT41_MODE_TAIL) {
            wire_buf_free(&cmd);
            return err_set(e, ERR_USAGE, "session spec query mode requires map or tail mode, got %s",
                           mode_name(s->mode));
        }
        put_cstr(&cmd, "map:");
        put_str(&cmd, s->options);
        wire_put_bytes(&cmd, " ", 1);
        put_str(&cmd, s->query);
        rc = emit(&cmd, each, ctx, e);
        const char *mode = s->mode == DT41_MODE_TAIL ? "tail" : "cat";
        for (size_t i = 0; rc == 0 && i < s->nfiles; i++) {
            read_command(&cmd, s, mode, s->files[i], s->timeout > 0);
            rc = emit(&cmd, each, ctx, e);
        }
    } else if (s->mode == DT41_MODE_TAIL || s->mode == DT41_MODE_CAT || s->mode == DT41_MODE_GREP) {
        /* no timeout form without a query: Go drops --timeout there */
        for (size_t i = 0; rc == 0 && i < s->nfiles; i++) {
            read_command(&cmd, s, mode_name(s->mode), s->files[i], false);
            rc = emit(&cmd, each, ctx, e);
        }
    } else {
        rc = err_set(e, ERR_USAGE, "unsupported session mode %s", mode_name(s->mode));
    }
    wire_buf_free(&cmd);
    return rc;
}

static int put_frame_cb(void *ctx, const char *cmd, size_t n, err_t *e)
{
    (void)e;
    dt41_put_frame(ctx, cmd, n);
    return 0;
}

int dt41_put_spec_frames(wire_buf_t *b, const dt41_spec_t *s, err_t *e)
{
    return dt41_spec_commands(s, put_frame_cb, b, e);
}

void dt41_put_session_frame(wire_buf_t *b, bool update, uint64_t generation, const dt41_spec_t *s)
{
    wire_buf_t json = {0}, cmd = {0};
    dt41_spec_json(&json, s);
    if (!update) {
        put_cstr(&cmd, "SESSION START ");
    } else if (generation) {
        char head[48];
        snprintf(head, sizeof head, "SESSION UPDATE %llu ", (unsigned long long)generation);
        put_cstr(&cmd, head);
    } else {
        put_cstr(&cmd, "SESSION UPDATE ");
    }
    char *dst = (char *)wire_buf_reserve(&cmd, base64_encoded_len(json.len));
    if (dst && !json.failed) {
        base64_encode(dst, json.p, json.len);
        cmd.len += base64_encoded_len(json.len);
        dt41_put_frame(b, (const char *)cmd.p, cmd.len);
    } else {
        b->failed = 1;
    }
    wire_buf_free(&json);
    wire_buf_free(&cmd);
}

void dt41_put_authkey_frame(wire_buf_t *b, const char *blob_b64, size_t n)
{
    wire_buf_t cmd = {0};
    put_cstr(&cmd, "AUTHKEY ");
    wire_put_bytes(&cmd, blob_b64, n);
    if (cmd.failed)
        b->failed = 1;
    else
        dt41_put_frame(b, (const char *)cmd.p, cmd.len);
    wire_buf_free(&cmd);
}

void dt41_put_ack_close_frame(wire_buf_t *b)
{
    static const char ack[] = ".ack close connection";
    dt41_put_frame(b, ack, sizeof ack - 1);
}
