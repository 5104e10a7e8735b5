/* targets.c: --servers and --discovery into a de-duplicated list. */
#include "client/remote/targets.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/grow.h"
#include "client/remote/ssh.h"
#include "exec/filter/matcher.h"

void fanout_targets_free(fanout_targets_t *t)
{
    free(t->items);
    memset(t, 0, sizeof *t);
}

static int same(const fanout_target_t *a, const fanout_target_t *b)
{
    return a->port == b->port && strcasecmp(a->host, b->host) == 0;
}

/* Adds one entry (already trimmed, not empty); `where` names it in errors. */
static int add_one(fanout_targets_t *t, const char *spec, int def_port, const char *where,
                   err_t *e)
{
    fanout_target_t x;
    memset(&x, 0, sizeof x);
    if (ssh_client_parse_server(spec, def_port, x.host, sizeof x.host, &x.port, e) < 0) {
        char why[sizeof e->msg];
        snprintf(why, sizeof why, "%s", e->msg);
        return err_set(e, ERR_USAGE, "%s: %s", where, why);
    }
    snprintf(x.name, sizeof x.name, strchr(x.host, ':') ? "[%s]:%d" : "%s:%d", x.host, x.port);
    for (size_t i = 0; i < t->n; i++)
        if (same(&t->items[i], &x))
            return 0;
    if (GROW_ARRAY(t->items, t->cap, t->n + 1, 16) < 0)
        return err_set(e, ERR_NOMEM, "out of memory");
    t->items[t->n++] = x;
    return 0;
}

/* Strips blanks at both ends in place; returns the start. */
static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

static int from_comma(fanout_targets_t *t, const char *list, int def_port, err_t *e)
{
    char *copy = strdup(list);
    if (!copy)
        return err_set(e, ERR_NOMEM, "out of memory");
    int rc = 0;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
        char *s = trim(tok);
        if (*s) {
            char where[300];
            snprintf(where, sizeof where, "--servers entry \"%.200s\"", s);
            rc = add_one(t, s, def_port, where, e);
        }
    }
    free(copy);
    return rc;
}

static int from_file(fanout_targets_t *t, const char *path, int def_port, err_t *e)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return err_set(e, ERR_USAGE, "server list %s: cannot open: %m", path);
    char line[1024];
    int rc = 0;
    long lineno = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *s = trim(line);
        if (!*s)
            continue;
        char where[1400];
        snprintf(where, sizeof where, "server list %.1000s line %ld", path, lineno);
        rc = add_one(t, s, def_port, where, e);
    }
    if (rc == 0 && ferror(f))
        rc = err_set(e, ERR_USAGE, "server list %s: read error", path);
    fclose(f);
    return rc;
}

/* Keeps the servers whose host:port the regex matches. */
static int filter(fanout_targets_t *t, const char *servers, err_t *e)
{
    size_t len = strlen(servers);
    char *pat = strndup(servers + 1, len - 2);
    if (!pat)
        return err_set(e, ERR_NOMEM, "out of memory");
    matcher_t m;
    int rc = matcher_init(&m, pat, e);
    free(pat);
    if (rc < 0) {
        char why[sizeof e->msg];
        snprintf(why, sizeof why, "%s", e->msg);
        return err_set(e, ERR_USAGE, "--servers %s: %s", servers, why);
    }
    size_t k = 0;
    for (size_t i = 0; i < t->n; i++)
        if (matcher_line_matches(&m, t->items[i].name, strlen(t->items[i].name)))
            t->items[k++] = t->items[i];
    t->n = k;
    matcher_free(&m);
    return 0;
}

int fanout_targets_parse(fanout_targets_t *out, const char *servers, const char *discovery,
                         int def_port, err_t *e)
{
    memset(out, 0, sizeof *out);
    if (!servers)
        servers = "";
    size_t slen = strlen(servers);
    int is_regex = slen >= 2 && servers[0] == '/' && servers[slen - 1] == '/';
    int rc;
    if (discovery && *discovery) {
        char module[32];
        const char *colon = strchr(discovery, ':');
        size_t mlen = colon ? (size_t)(colon - discovery) : strlen(discovery);
        snprintf(module, sizeof module, "%.*s", (int)(mlen < 31 ? mlen : 31), discovery);
        const char *opts = colon && colon[1] ? colon + 1 : is_regex ? "" : servers;
        if (strcasecmp(module, "COMMA") == 0) {
            rc = from_comma(out, opts, def_port, e);
        } else if (strcasecmp(module, "FILE") == 0) {
            if (!*opts)
                return err_set(e, ERR_USAGE, "--discovery FILE needs a file: FILE:PATH or "
                                             "--servers PATH");
            rc = from_file(out, opts, def_port, e);
        } else {
            return err_set(e, ERR_USAGE, "--discovery %s: unknown module \"%s\" (COMMA or FILE)",
                           discovery, module);
        }
        if (rc == 0 && is_regex)
            rc = filter(out, servers, e);
    } else if (is_regex) {
        return err_set(e, ERR_USAGE, "--servers %s: a /regex/ filters the list of a discovery "
                                     "module; give --discovery COMMA:LIST or FILE:PATH",
                       servers);
    } else if (access(servers, F_OK) == 0) {
        rc = from_file(out, servers, def_port, e);
    } else {
        rc = from_comma(out, servers, def_port, e);
    }
    if (rc == 0 && out->n == 0)
        rc = err_set(e, ERR_USAGE, "no server to connect to (--servers \"%s\"%s%s)", servers,
                     discovery ? ", --discovery " : "", discovery ? discovery : "");
    if (rc < 0)
        fanout_targets_free(out);
    return rc;
}
