/* reload.c: see reload.h. */
#include "client/interactive/reload.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fdio.h"
#include "base/term.h"
#include "client/tools/interrupt.h"

#define LINE_MAX_BYTES 65536
#define POLL_MS 100

unsigned interactive_allow(const cli_opts_t *o)
{
    unsigned a = ICMD_ALLOW_COMMON;
    if (o->tool == CLI_DTAIL && o->query && *o->query)   /* dmap: refused by interactive_check */
        a |= ICMD_ALLOW_QUERY;
    else if (o->tool == CLI_DTAIL || o->tool == CLI_DGREP)
        a |= ICMD_ALLOW_GREP;
    return a;
}

int interactive_check(const cli_opts_t *o, int through_servers, err_t *e)
{
    if (!o->interactive)
        return 0;
    if (o->tool == CLI_DMAP)
        return err_set(e, ERR_USAGE, "--interactive-query: dmap reloads are not available yet in "
                                     "this build; use dmap --repl (serverless) or dtail --query");
    if (!through_servers)
        return err_set(e, ERR_USAGE, "--interactive-query runs through servers only in this build "
                                     "(give --servers)");
    return 0;
}

int interactive_open(interactive_t *it, const cli_opts_t *o, err_t *e)
{
    memset(it, 0, sizeof *it);
    const char *path = o->control_tty && *o->control_tty ? o->control_tty : "/dev/tty";
    it->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (it->fd < 0)
        return err_set(e, ERR_IO, "--interactive-query: cannot open the control terminal %s: %s",
                       path, strerror(errno));
    it->cur = *o;
    it->allow = interactive_allow(o);
    return 0;
}

void interactive_say(interactive_t *it, const char *fmt, ...)
{
    char buf[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof buf - 2)
        n = (int)sizeof buf - 2;
    buf[n++] = '\n';
    /* Messages repeat the flags typed and the servers' errors. */
    char esc[sizeof buf * TERM_ESCAPE_MAX];
    const char *p = buf;
    if (term_escapes(STDOUT_FILENO)) {
        n = (int)term_escape(esc, buf, (size_t)n, 0);
        p = esc;
    }
    pthread_mutex_lock(it->out_mu);
    (void)fdio_write_all(STDOUT_FILENO, p, (size_t)n);   /* a gone terminal: nothing to tell */
    pthread_mutex_unlock(it->out_mu);
}

static const char *mode_name(const cli_opts_t *o)
{
    switch (o->tool) {
    case CLI_DCAT: return "cat";
    case CLI_DGREP: return "grep";
    default: return o->query && *o->query ? "map" : "tail";
    }
}

static void show(interactive_t *it)
{
    const cli_opts_t *o = &it->cur;
    size_t now = 0, all = 0;
    if (it->ops->capable)
        it->ops->capable(it->ops->ctx, &now, &all);
    const char *files = o->files ? o->files : o->n_positional ? o->positional[0] : "";
    interactive_say(it, "mode=%s files=%s query=\"%s\" regex=\"%s\" "
                        "options=\"after=%lld:before=%lld:invert=%s:max=%lld:plain=%s:quiet=%s\" "
                        "timeout=%lld capable=%zu/%zu",
                    mode_name(o), files, o->query ? o->query : "", o->regex ? o->regex : "",
                    o->after, o->before, o->invert ? "true" : "false", o->max,
                    o->plain ? "true" : "false", o->quiet ? "true" : "false", o->timeout, now, all);
}

static void reload(interactive_t *it, icmd_t *c)
{
    icmd_t *held = realloc(it->held, (it->n_held + 1) * sizeof *held);
    if (!held) {
        icmd_free(c);
        interactive_say(it, "interactive query error: out of memory");
        return;
    }
    it->held = held;
    cli_opts_t next = it->cur;
    icmd_apply(c, &next);
    err_t e;
    err_clear(&e);
    if (it->ops->reload(it->ops->ctx, &next, &e) < 0) {
        icmd_free(c);
        interactive_say(it, "interactive query error: %s", e.msg);
        return;
    }
    it->held[it->n_held++] = *c;   /* next points into its strings */
    it->cur = next;
    interactive_say(it, "reload applied successfully");
}

static void handle(interactive_t *it, const char *line)
{
    icmd_t c;
    err_t e;
    err_clear(&e);
    if (icmd_parse(line, it->allow, &c, &e) < 0) {
        interactive_say(it, "interactive query error: %s", e.msg);
        return;
    }
    switch (c.kind) {
    case ICMD_NONE:
        break;
    case ICMD_HELP:
        interactive_say(it, "Commands: :reload <flags>, :show, :help, :quit. Use quotes around "
                            "multi-word values such as --query \"select count(status) from stats\".");
        break;
    case ICMD_SHOW:
        show(it);
        break;
    case ICMD_QUIT:
        interactive_say(it, "quitting interactive session");
        interrupt_stop = 1;
        break;
    case ICMD_RELOAD:
        reload(it, &c);
        return;   /* c is held or freed */
    }
    icmd_free(&c);
}

static void *control_main(void *arg)
{
    interactive_t *it = arg;
    char *line = malloc(LINE_MAX_BYTES + 1);
    size_t len = 0;
    int overlong = 0;
    while (line && !it->stop && !interrupt_stop) {
        struct pollfd p = {.fd = it->fd, .events = POLLIN};
        int r = poll(&p, 1, POLL_MS);
        if (r < 0 && errno != EINTR)
            break;
        if (r <= 0)
            continue;
        ssize_t n = read(it->fd, line + len, LINE_MAX_BYTES - len);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0) {   /* the control input ended: as :quit */
            interrupt_stop = 1;
            break;
        }
        len += (size_t)n;
        char *nl;
        while ((nl = memchr(line, '\n', len))) {
            *nl = '\0';
            if (!overlong)
                handle(it, line);
            overlong = 0;
            size_t used = (size_t)(nl + 1 - line);
            memmove(line, nl + 1, len - used);
            len -= used;
        }
        if (len == LINE_MAX_BYTES) {   /* a line beyond any command: dropped */
            if (!overlong)
                interactive_say(it, "interactive query error: command longer than %d bytes",
                                LINE_MAX_BYTES);
            overlong = 1;
            len = 0;
        }
    }
    free(line);
    return NULL;
}

int interactive_start(interactive_t *it, const interactive_ops_t *ops, pthread_mutex_t *out_mu,
                      err_t *e)
{
    it->ops = ops;
    it->out_mu = out_mu;
    interactive_say(it, "Interactive query control enabled. Commands: :reload <flags>, :show, "
                        ":help, :quit");
    if (pthread_create(&it->thread, NULL, control_main, it) != 0)
        return err_set(e, ERR_NOMEM, "cannot start the control thread");
    it->running = 1;
    return 0;
}

void interactive_close(interactive_t *it)
{
    it->stop = 1;
    if (it->running)
        pthread_join(it->thread, NULL);
    it->running = 0;
    if (it->fd >= 0)
        close(it->fd);
    it->fd = -1;
    for (size_t i = 0; i < it->n_held; i++)
        icmd_free(&it->held[i]);
    free(it->held);
    it->held = NULL;
    it->n_held = 0;
}
