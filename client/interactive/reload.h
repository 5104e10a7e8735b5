/* reload.h: --interactive-query (shared reference §6.6). A thread
 * reads command lines from the control terminal (--control-tty, default
 * /dev/tty) and drives the run through interactive_ops_t: `:reload
 * <flags>` stops the running request and starts one with the changed
 * options (on the open connections, for runs through servers), `:show`
 * prints what runs, `:help` the commands, `:quit` (or the end of the
 * control input) ends the run as a signal would (interrupt_stop).
 *
 * Messages go to stdout, under the lock the run's output takes, so they
 * never split a line of output: the banner, `reload applied successfully`,
 * `interactive query error: …`, `quitting interactive session`. */
#ifndef DTAIL_CLIENT_INTERACTIVE_H
#define DTAIL_CLIENT_INTERACTIVE_H

#include <pthread.h>
#include <stddef.h>

#include "base/err.h"
#include "client/tools/cli.h"
#include "client/interactive/cmd.h"

typedef struct interactive_ops {
    void *ctx;
    /* Replaces the running request with one for o (valid until the next
     * reload): once it returns 0, nothing of the old request is printed
     * any more. -1 with e set (nothing changed). */
    int (*reload)(void *ctx, const cli_opts_t *o, err_t *e);
    /* Connections that can take a reload now, and all (`capable=X/Y`). */
    void (*capable)(void *ctx, size_t *now, size_t *all);
} interactive_ops_t;

typedef struct interactive {
    int fd;                      /* the control terminal */
    cli_opts_t cur;              /* the options running now */
    icmd_t *held;                /* reloads whose strings cur points to */
    size_t n_held;
    unsigned allow;              /* enum icmd_allow for this run */
    const interactive_ops_t *ops;
    pthread_mutex_t *out_mu;     /* the run's stdout lock */
    pthread_t thread;
    int running;                 /* thread started */
    volatile int stop;           /* the thread ends */
} interactive_t;

/* Whether this build runs --interactive-query for o: through servers for
 * dcat, dgrep and dtail (with or without a query). Else ERR_USAGE saying
 * so (a flag that is not read must not be a silent no-op). */
int interactive_check(const cli_opts_t *o, int through_servers, err_t *e);
/* The flags :reload accepts for o's tool (and its query). */
unsigned interactive_allow(const cli_opts_t *o);
/* Opens o->control_tty (or /dev/tty); ERR_IO naming it when it cannot be
 * opened (the client exits 1). */
int interactive_open(interactive_t *it, const cli_opts_t *o, err_t *e);
/* Prints the banner and starts reading commands. */
int interactive_start(interactive_t *it, const interactive_ops_t *ops, pthread_mutex_t *out_mu,
                      err_t *e);
/* Stops reading, closes the terminal, frees the reloads' strings. */
void interactive_close(interactive_t *it);
/* A message line on stdout under the output lock. */
void interactive_say(interactive_t *it, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
