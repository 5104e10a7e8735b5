/* cmd.c: see cmd.h. */
#include "client/interactive/cmd.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/flagparse.h"
#include "base/grow.h"

/* ---- tokens ---------------------------------------------------------------- */

typedef struct tokbuf {
    char **v;
    int n;
    size_t cap;
    char *cur;                   /* the token being built */
    size_t len, cur_cap;
    int in_token;                /* cur is a token (possibly empty: "") */
} tokbuf_t;

static int put_char(tokbuf_t *t, char c)
{
    if (GROW_ARRAY(t->cur, t->cur_cap, t->len + 2, 32) < 0)
        return -1;
    t->cur[t->len++] = c;
    t->in_token = 1;
    return 0;
}

static int end_token(tokbuf_t *t)
{
    if (!t->in_token)
        return 0;
    /* Room for the token and the NULL that ends the vector. */
    if (GROW_ARRAY(t->v, t->cap, (size_t)t->n + 2, 8) < 0)
        return -1;
    char *s = malloc(t->len + 1);
    if (!s)
        return -1;
    memcpy(s, t->cur ? t->cur : "", t->len);
    s[t->len] = '\0';
    t->v[t->n++] = s;
    t->v[t->n] = NULL;
    t->len = 0;
    t->in_token = 0;
    return 0;
}

void icmd_free_tokens(char **argv)
{
    for (char **p = argv; p && *p; p++)
        free(*p);
    free(argv);
}

int icmd_tokenize(const char *line, char ***argv, int *argc, err_t *e)
{
    tokbuf_t t = {0};
    char quote = 0;               /* the open quote, or 0 */
    int rc = 0;
    for (const char *p = line; *p && rc == 0; p++) {
        char c = *p;
        if (quote == '\'') {
            if (c == '\'')
                quote = 0;
            else
                rc = put_char(&t, c);
        } else if (c == '\\') {
            if (!p[1]) {
                free(t.cur);
                icmd_free_tokens(t.v);
                return err_set(e, ERR_USAGE, "unterminated escape sequence");
            }
            rc = put_char(&t, *++p);
        } else if (quote == '"') {
            if (c == '"')
                quote = 0;
            else
                rc = put_char(&t, c);
        } else if (c == '\'' || c == '"') {
            quote = c;
            t.in_token = 1;       /* '' is an empty token */
        } else if (isspace((unsigned char)c)) {
            rc = end_token(&t);
        } else {
            rc = put_char(&t, c);
        }
    }
    if (rc == 0 && quote) {
        free(t.cur);
        icmd_free_tokens(t.v);
        return err_set(e, ERR_USAGE, "unterminated quoted string");
    }
    if (rc == 0)
        rc = end_token(&t);
    free(t.cur);
    if (rc == 0 && !t.v && !(t.v = calloc(1, sizeof *t.v)))
        rc = -1;
    if (rc < 0) {
        icmd_free_tokens(t.v);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    *argv = t.v;
    *argc = t.n;
    return 0;
}

/* ---- :reload flags ----------------------------------------------------------- */

/* What a :reload gives, before it is copied into icmd_t: -1 and NULL are
 * "not given". Strings borrow the tokens. */
typedef struct reload_args {
    const char *files, *query, *regex;
    int plain, quiet, invert;
    long long timeout, before, after, max;
} reload_args_t;

/* The mask is enum icmd_allow: a run sees the flags it may change. */
#define R(field) offsetof(reload_args_t, field)
static const flagparse_def_t rflags[] = {
    {"files", FP_STRING, ICMD_ALLOW_COMMON, R(files), NULL, NULL},
    {"plain", FP_BOOL, ICMD_ALLOW_COMMON, R(plain), NULL, NULL},
    {"quiet", FP_BOOL, ICMD_ALLOW_COMMON, R(quiet), NULL, NULL},
    {"timeout", FP_INT, ICMD_ALLOW_COMMON, R(timeout), NULL, NULL},
    {"query", FP_STRING, ICMD_ALLOW_QUERY, R(query), NULL, NULL},
    {"regex", FP_STRING, ICMD_ALLOW_GREP, R(regex), NULL, NULL},
    {"grep", FP_STRING, ICMD_ALLOW_GREP, R(regex), NULL, NULL},
    {"invert", FP_BOOL, ICMD_ALLOW_GREP, R(invert), NULL, NULL},
    {"before", FP_INT, ICMD_ALLOW_GREP, R(before), NULL, NULL},
    {"after", FP_INT, ICMD_ALLOW_GREP, R(after), NULL, NULL},
    {"max", FP_INT, ICMD_ALLOW_GREP, R(max), NULL, NULL},
};
#undef R

/* The prompt has its own words for these (§6.6), and no --help to point
 * to; a missing value reads as the parser words it. */
static int reword(const flagparse_failure_t *f, err_t *e)
{
    if (f->fault == FP_FAULT_UNKNOWN)
        return err_set(e, ERR_USAGE, "flag provided but not defined: -%.*s", (int)f->name_len, f->name);
    if (f->fault == FP_FAULT_BAD_VALUE && f->def->type == FP_BOOL)
        return err_set(e, ERR_USAGE, "invalid boolean value \"%s\" for -%s", f->value, f->def->name);
    if (f->fault == FP_FAULT_BAD_VALUE)
        return err_set(e, ERR_USAGE, "invalid value \"%s\" for flag -%s", f->value, f->def->name);
    return -1;
}

static void take_bool(int v, int *dst, unsigned bit, unsigned *has)
{
    if (v >= 0) {
        *dst = v;
        *has |= bit;
    }
}

static void take_int(long long v, long long *dst, unsigned bit, unsigned *has)
{
    if (v >= 0) {
        *dst = v;
        *has |= bit;
    }
}

static int take_string(const char *v, char **dst, unsigned bit, unsigned *has, err_t *e)
{
    if (!v)
        return 0;
    if (!(*dst = strdup(v)))
        return err_set(e, ERR_NOMEM, "out of memory");
    *has |= bit;
    return 0;
}

static int take_reload(const reload_args_t *r, icmd_t *c, err_t *e)
{
    take_bool(r->plain, &c->plain, ICMD_HAS_PLAIN, &c->has);
    take_bool(r->quiet, &c->quiet, ICMD_HAS_QUIET, &c->has);
    take_bool(r->invert, &c->invert, ICMD_HAS_INVERT, &c->has);
    take_int(r->timeout, &c->timeout, ICMD_HAS_TIMEOUT, &c->has);
    take_int(r->before, &c->before, ICMD_HAS_BEFORE, &c->has);
    take_int(r->after, &c->after, ICMD_HAS_AFTER, &c->has);
    take_int(r->max, &c->max, ICMD_HAS_MAX, &c->has);
    if (take_string(r->files, &c->files, ICMD_HAS_FILES, &c->has, e) < 0 ||
        take_string(r->query, &c->query, ICMD_HAS_QUERY, &c->has, e) < 0 ||
        take_string(r->regex, &c->regex, ICMD_HAS_REGEX, &c->has, e) < 0)
        return -1;
    return 0;
}

/* Appends "a b c" of argv[from..] to the message. */
static int unexpected(char **argv, int from, int argc, err_t *e)
{
    char buf[sizeof e->msg];
    size_t n = 0;
    for (int i = from; i < argc && n < sizeof buf - 1; i++) {
        int w = snprintf(buf + n, sizeof buf - n, "%s%s", i > from ? " " : "", argv[i]);
        if (w < 0)
            break;
        n += (size_t)w;
    }
    return err_set(e, ERR_USAGE, "unexpected arguments: %s", buf);
}

static int parse_reload(char **argv, int argc, unsigned allow, icmd_t *c, err_t *e)
{
    reload_args_t r = {.plain = -1, .quiet = -1, .invert = -1,
                       .timeout = -1, .before = -1, .after = -1, .max = -1};
    char **rest = malloc((size_t)argc * sizeof *rest);
    if (!rest)
        return err_set(e, ERR_NOMEM, "out of memory");
    flagparse_t p = {.defs = rflags, .n_defs = sizeof rflags / sizeof *rflags, .select = allow,
                     .tool = ":reload", .positional = rest, .first_ends_flags = 1};
    int rc = 0;
    if (flagparse(&p, &r, argc, argv, e) < 0)
        rc = reword(&p.failure, e);
    else if (p.n_positional)
        rc = unexpected(rest, 0, p.n_positional, e);
    else
        rc = take_reload(&r, c, e);
    free(rest);
    if (rc == 0 && !c->has)
        rc = err_set(e, ERR_USAGE, "reload requires flags to change");
    return rc;
}

int icmd_parse(const char *line, unsigned allow, icmd_t *out, err_t *e)
{
    memset(out, 0, sizeof *out);
    size_t len = strlen(line);
    while (len && isspace((unsigned char)line[len - 1]))
        len--;
    while (len && isspace((unsigned char)*line)) {
        line++;
        len--;
    }
    if (len == 0)
        return 0;
    char *copy = strndup(line, len);
    if (!copy)
        return err_set(e, ERR_NOMEM, "out of memory");
    char **argv;
    int argc, rc = -1;
    if (icmd_tokenize(copy, &argv, &argc, e) < 0) {
        free(copy);
        return -1;
    }
    const char *cmd = argc ? argv[0] : "";
    if (!strcmp(cmd, ":reload")) {
        out->kind = ICMD_RELOAD;
        rc = parse_reload(argv, argc, allow, out, e);
    } else if (!strcmp(cmd, ":show") || !strcmp(cmd, ":help") || !strcmp(cmd, ":quit")) {
        out->kind = cmd[1] == 's' ? ICMD_SHOW : cmd[1] == 'h' ? ICMD_HELP : ICMD_QUIT;
        rc = argc > 1 ? unexpected(argv, 1, argc, e) : 0;
    } else {
        rc = err_set(e, ERR_USAGE, "unknown command \"%s\"", copy);
    }
    icmd_free_tokens(argv);
    free(copy);
    if (rc < 0)
        icmd_free(out);
    return rc;
}

void icmd_free(icmd_t *c)
{
    free(c->files);
    free(c->query);
    free(c->regex);
    memset(c, 0, sizeof *c);
}

void icmd_apply(const icmd_t *c, cli_opts_t *o)
{
    if (c->has & ICMD_HAS_FILES) {
        o->files = c->files;
        o->n_positional = 0;      /* the new list replaces the arguments too */
    }
    if (c->has & ICMD_HAS_QUERY)
        o->query = c->query;
    if (c->has & ICMD_HAS_REGEX)
        o->regex = c->regex;
    if (c->has & ICMD_HAS_PLAIN)
        o->plain = c->plain;
    if (c->has & ICMD_HAS_QUIET)
        o->quiet = c->quiet;
    if (c->has & ICMD_HAS_INVERT)
        o->invert = c->invert;
    if (c->has & ICMD_HAS_TIMEOUT)
        o->timeout = c->timeout;
    if (c->has & ICMD_HAS_BEFORE)
        o->before = c->before;
    if (c->has & ICMD_HAS_AFTER)
        o->after = c->after;
    if (c->has & ICMD_HAS_MAX)
        o->max = c->max;
}
