/* cmd.c: see cmd.h. */
#include "client/interactive/cmd.h"

#include <ctype.h>
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

enum ftype { F_STR, F_BOOL, F_INT };

typedef struct rflag {
    const char *name;
    enum ftype type;
    unsigned allow;               /* enum icmd_allow */
    unsigned has;                 /* ICMD_HAS_* */
} rflag_t;

static const rflag_t rflags[] = {
    {"files", F_STR, ICMD_ALLOW_COMMON, ICMD_HAS_FILES},
    {"plain", F_BOOL, ICMD_ALLOW_COMMON, ICMD_HAS_PLAIN},
    {"quiet", F_BOOL, ICMD_ALLOW_COMMON, ICMD_HAS_QUIET},
    {"timeout", F_INT, ICMD_ALLOW_COMMON, ICMD_HAS_TIMEOUT},
    {"query", F_STR, ICMD_ALLOW_QUERY, ICMD_HAS_QUERY},
    {"regex", F_STR, ICMD_ALLOW_GREP, ICMD_HAS_REGEX},
    {"grep", F_STR, ICMD_ALLOW_GREP, ICMD_HAS_REGEX},
    {"invert", F_BOOL, ICMD_ALLOW_GREP, ICMD_HAS_INVERT},
    {"before", F_INT, ICMD_ALLOW_GREP, ICMD_HAS_BEFORE},
    {"after", F_INT, ICMD_ALLOW_GREP, ICMD_HAS_AFTER},
    {"max", F_INT, ICMD_ALLOW_GREP, ICMD_HAS_MAX},
};

static int set_flag(icmd_t *c, const rflag_t *f, const char *v, err_t *e)
{
    if (f->type == F_BOOL) {
        int *slot = f->has == ICMD_HAS_PLAIN ? &c->plain : f->has == ICMD_HAS_QUIET ? &c->quiet
                                                                                  : &c->invert;
        if (flagparse_bool(v, slot) < 0)
            return err_set(e, ERR_USAGE, "invalid boolean value \"%s\" for -%s", v, f->name);
    } else if (f->type == F_INT) {
        long long *slot = f->has == ICMD_HAS_TIMEOUT ? &c->timeout
                          : f->has == ICMD_HAS_BEFORE ? &c->before
                          : f->has == ICMD_HAS_AFTER  ? &c->after
                                                      : &c->max;
        if (flagparse_int(v, slot) < 0)
            return err_set(e, ERR_USAGE, "invalid value \"%s\" for flag -%s", v, f->name);
    } else {
        char **slot = f->has == ICMD_HAS_FILES ? &c->files : f->has == ICMD_HAS_QUERY ? &c->query
                                                                                    : &c->regex;
        free(*slot);
        if (!(*slot = strdup(v)))
            return err_set(e, ERR_NOMEM, "out of memory");
    }
    c->has |= f->has;
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
    int i = 1;
    while (i < argc) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0')
            break;
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        const char *name = a + 1 + (a[1] == '-');
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const rflag_t *f = NULL;
        for (size_t k = 0; k < sizeof rflags / sizeof *rflags; k++)
            if (strlen(rflags[k].name) == len && !strncmp(rflags[k].name, name, len) &&
                (rflags[k].allow & allow))
                f = &rflags[k];
        if (!f)
            return err_set(e, ERR_USAGE, "flag provided but not defined: -%.*s", (int)len, name);
        const char *v = eq ? eq + 1 : NULL;
        if (!v && f->type == F_BOOL)
            v = "true";
        if (!v) {
            if (i + 1 >= argc)
                return err_set(e, ERR_USAGE, "flag needs an argument: -%s", f->name);
            v = argv[++i];
        }
        if (set_flag(c, f, v, e) < 0)
            return -1;
        i++;
    }
    if (i < argc)
        return unexpected(argv, i, argc, e);
    if (!c->has)
        return err_set(e, ERR_USAGE, "reload requires flags to change");
    return 0;
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
