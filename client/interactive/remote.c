/* remote.c: --interactive-query through servers (dcat, dgrep,
 * dtail, dtail --query). Every server gets the request over its SSH
 * session; a :reload sends the next REQUEST on the same session, which
 * ends the running one on the server (a tail ends on the client's next
 * frame; a cat or grep has ended, or ends before the next is served), so
 * no new connection is made.
 *
 * The server answers requests in order, each ending with END, so what a
 * frame belongs to is known without tagging it: per connection the client
 * counts REQUESTs sent and ENDs received, and frames arriving while
 * ENDs < sent - 1 belong to an earlier request and are dropped. The count
 * of sent requests is raised before the new REQUEST is written, and lines
 * are checked and written under the output lock, so once `reload applied
 * successfully` is printed nothing of the old request follows it.
 *
 * dtail --query: each reload opens a new reporter (client/serverless/query.h,
 * its timer and tables start afresh); the old one prints its last report
 * before the success message. */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fdio.h"
#include "client/tools/request.h"
#include "client/serverless/query.h"
#include "client/remote/fanout.h"
#include "client/interactive/reload.h"
#include "client/tools/interrupt.h"
#include "client/remote/session.h"
#include "exec/filter/matcher.h"

typedef struct ihost {
    pthread_mutex_t mu;          /* c, sent, ends */
    remote_conn_t *c;            /* while connected */
    unsigned sent, ends;         /* REQUESTs sent and ENDs received on c */
} ihost_t;

typedef struct iremote {
    pthread_mutex_t mu;          /* the current request; then a host's mu */
    const config_t *cfg;
    enum cli_tool tool;
    uint8_t kind;                /* WIRE_KIND_* */
    wire_request_t rq;           /* the current request */
    char *files;                 /* its file list */
    char host[256];              /* this client ($hostname of reports) */
    pthread_mutex_t q_mu;        /* dq */
    dtail_query_t *dq;           /* dtail --query: the current reporter */
    volatile int *q_stop;        /* ends dq's reporter (one flag per reporter) */
    pthread_mutex_t out_mu;      /* stdout */
    fanout_targets_t targets;    /* the servers */
    ihost_t *hosts;              /* per target, indexed like the fan-out's hosts */
    size_t n_hosts;
    interactive_t it;
} iremote_t;

/* The request for o into ir (replacing the previous one); e on bad input. */
static int build_request(iremote_t *ir, const cli_opts_t *o, err_t *e)
{
    char *files = remote_files(o, -1, e);
    if (!files)
        return -1;
    free(ir->files);
    ir->files = files;
    exec_request_t rq = client_request(o, ir->cfg);
    ir->rq = remote_build_request(&rq, files);
    ir->rq.timeout_s = (uint32_t)o->timeout;   /* a reloaded tail ends on the server */
    return 0;
}

/* Sends the current request to a connected host (ir->mu and ih->mu held). */
static int send_current(iremote_t *ir, ihost_t *ih, err_t *e)
{
    ih->sent++;   /* first: from now on frames of the previous request are old */
    return remote_send(ih->c, &ir->rq, e);
}

static ihost_t *host_of(fanout_host_t *h)
{
    iremote_t *ir = h->f->ops->ctx;
    return &ir->hosts[h - h->f->hosts];
}

/* Whether frames now belong to the current request (ih->mu held). */
static int current(const ihost_t *ih)
{
    return ih->ends + 1 == ih->sent;
}

static int accept_msg(void *ctx, uint8_t type)
{
    ihost_t *ih = host_of(ctx);
    pthread_mutex_lock(&ih->mu);
    int ok = current(ih);
    if (type == WIRE_END)
        ih->ends++;
    pthread_mutex_unlock(&ih->mu);
    return ok;
}

static int on_lines(void *ctx, const char *p, size_t n, err_t *e)
{
    fanout_host_t *h = ctx;
    iremote_t *ir = h->f->ops->ctx;
    ihost_t *ih = host_of(h);
    pthread_mutex_lock(&ir->out_mu);
    pthread_mutex_lock(&ih->mu);
    int ok = current(ih) && !fanout_stopping(h->f);
    pthread_mutex_unlock(&ih->mu);
    int rc = 0;
    if (ok && fdio_write_all(STDOUT_FILENO, p, n) < 0) {
        rc = err_set(e, ERR_IO, "writing output failed: %s", strerror(errno));
        interrupt_stop = 1;
    }
    pthread_mutex_unlock(&ir->out_mu);
    return rc;
}

static int on_aggregate(void *ctx, const unsigned char *p, size_t len, int final, err_t *e)
{
    (void)final;
    fanout_host_t *h = ctx;
    iremote_t *ir = h->f->ops->ctx;
    ihost_t *ih = host_of(h);
    pthread_mutex_lock(&ir->q_mu);
    pthread_mutex_lock(&ih->mu);
    int ok = current(ih);
    pthread_mutex_unlock(&ih->mu);
    int rc = ok && ir->dq ? dtail_query_add_delta(ir->dq, p, len, e) : 0;
    pthread_mutex_unlock(&ir->q_mu);
    return rc;
}

static int run_host(void *ctx, fanout_host_t *h, err_t *e)
{
    iremote_t *ir = ctx;
    ihost_t *ih = host_of(h);
    pthread_mutex_lock(&ir->mu);
    pthread_mutex_lock(&ih->mu);
    ih->c = &h->c;
    ih->sent = ih->ends = 0;
    int rc = send_current(ir, ih, e);
    pthread_mutex_unlock(&ih->mu);
    pthread_mutex_unlock(&ir->mu);
    if (rc == 0) {
        remote_handler_t hd = {.ctx = h, .on_lines = on_lines, .on_aggregate = on_aggregate,
                               .accept = accept_msg, .keep_open = 1};
        rc = remote_request(&h->c, NULL, NULL, &hd, &h->rs, e);
    }
    pthread_mutex_lock(&ih->mu);
    ih->c = NULL;
    pthread_mutex_unlock(&ih->mu);
    return rc;
}

/* ---- reload ---------------------------------------------------------------- */

/* Ends a reporter after its last report (rs: where its errors count; NULL:
 * printed only). */
static void close_query(dtail_query_t *dq, volatile int *stop, client_run_t *rs)
{
    if (!dq) {
        free((void *)stop);
        return;
    }
    *stop = 1;
    client_run_t local = {"dtail", 0};
    dtail_query_close(dq, rs ? rs : &local);
    free((void *)stop);
}

static int reload(void *ctx, const cli_opts_t *o, err_t *e)
{
    iremote_t *ir = ctx;
    int query = ir->kind == WIRE_KIND_TAIL && o->query && *o->query;
    if (!query) {   /* a bad pattern is refused here */
        exec_request_t rq = client_request(o, ir->cfg);
        exec_env_t env = client_env(o, ir->cfg, ir->host);
        exec_plan_t p;
        if (client_plan(&p, &rq, &env, e) < 0)
            return -1;
        exec_plan_free(&p);
    }
    dtail_query_t *next = NULL, *old = NULL;
    volatile int *next_stop = NULL, *old_stop = NULL;
    if (query && (!(next_stop = calloc(1, sizeof *next_stop)) ||
                  dtail_query_open(&next, o, ir->cfg, ir->host, next_stop, e) < 0)) {
        if (!next_stop)
            err_set(e, ERR_NOMEM, "out of memory");
        free((void *)next_stop);
        return -1;
    }
    pthread_mutex_lock(&ir->mu);
    if (build_request(ir, o, e) < 0) {
        pthread_mutex_unlock(&ir->mu);
        close_query(next, next_stop, NULL);
        return -1;
    }
    pthread_mutex_lock(&ir->q_mu);
    old = ir->dq;
    old_stop = ir->q_stop;
    ir->dq = next;
    ir->q_stop = next_stop;
    pthread_mutex_unlock(&ir->q_mu);
    for (size_t i = 0; i < ir->n_hosts; i++) {
        ihost_t *ih = &ir->hosts[i];
        pthread_mutex_lock(&ih->mu);
        err_t se;
        /* A failed write breaks that connection: its reader sees it and
         * the host is connected again, with the new request. */
        if (ih->c)
            send_current(ir, ih, &se);
        pthread_mutex_unlock(&ih->mu);
    }
    pthread_mutex_unlock(&ir->mu);
    close_query(old, old_stop, NULL);   /* its last report: before the success message */
    return 0;
}

static void capable(void *ctx, size_t *now, size_t *all)
{
    iremote_t *ir = ctx;
    *all = ir->n_hosts;
    *now = 0;
    for (size_t i = 0; i < ir->n_hosts; i++) {
        pthread_mutex_lock(&ir->hosts[i].mu);
        *now += ir->hosts[i].c != NULL;
        pthread_mutex_unlock(&ir->hosts[i].mu);
    }
}

/* Frees what interactive_remote_main set up before the hosts started. */
static int give_up(iremote_t *ir, int status)
{
    if (ir->q_stop)
        *ir->q_stop = 1;   /* the reporter ends before it is closed */
    if (ir->dq)
        dtail_query_close(ir->dq, &(client_run_t){"", 0});
    free((void *)ir->q_stop);
    free(ir->hosts);
    free(ir->files);
    fanout_targets_free(&ir->targets);
    free(ir);
    return status;
}

int interactive_remote_main(const cli_opts_t *o, const config_t *cfg, client_run_t *rs)
{
    err_t e;
    err_clear(&e);
    iremote_t *ir = calloc(1, sizeof *ir);
    if (!ir)
        return 1;
    ir->cfg = cfg;
    ir->tool = o->tool;
    ir->kind = o->tool == CLI_DTAIL ? WIRE_KIND_TAIL : o->tool == CLI_DGREP ? WIRE_KIND_GREP
                                                                             : WIRE_KIND_CAT;
    cli_host_name(ir->host, sizeof ir->host);
    pthread_mutex_init(&ir->mu, NULL);
    pthread_mutex_init(&ir->q_mu, NULL);
    pthread_mutex_init(&ir->out_mu, NULL);
    if (build_request(ir, o, &e) < 0 || fanout_targets_of(o, cfg, &ir->targets, &e) < 0)
        return give_up(ir, client_usage_error(rs->tool, &e));
    ir->n_hosts = ir->targets.n;
    ir->hosts = calloc(ir->n_hosts, sizeof *ir->hosts);
    if (!ir->hosts)
        return give_up(ir, 1);
    for (size_t i = 0; i < ir->n_hosts; i++)
        pthread_mutex_init(&ir->hosts[i].mu, NULL);
    if (ir->kind == WIRE_KIND_TAIL && o->query && *o->query &&
        (!(ir->q_stop = calloc(1, sizeof *ir->q_stop)) ||
         dtail_query_open(&ir->dq, o, cfg, ir->host, ir->q_stop, &e) < 0))
        return give_up(ir, client_usage_error(rs->tool, &e));
    if (interactive_open(&ir->it, o, &e) < 0) {
        client_report(rs, &e);
        return give_up(ir, 1);
    }
    interactive_ops_t iops = {.ctx = ir, .reload = reload, .capable = capable};
    if (interactive_start(&ir->it, &iops, &ir->out_mu, &e) < 0) {
        client_report(rs, &e);
        return 1;
    }
    /* The run ends on :quit, the end of the control input, a signal, or
     * (dtail) at --timeout / --shutdownAfter; servers that fail are
     * connected again with backoff. */
    fanout_opts_t fo = {.o = o, .cfg = cfg, .targets = &ir->targets,
                        .deadline_s = o->tool == CLI_DTAIL ? client_follow_limit_s(o) : 0,
                        .deadline_is_end = 1};
    fanout_ops_t ops = {.ctx = ir, .run = run_host, .retry = 1};
    int abandoned;
    int status = fanout_run(&fo, &ops, rs, &abandoned);
    interrupt_stop = 1;
    interactive_close(&ir->it);
    pthread_mutex_lock(&ir->q_mu);
    dtail_query_t *dq = ir->dq;
    volatile int *stop = ir->q_stop;
    ir->dq = NULL;
    ir->q_stop = NULL;
    pthread_mutex_unlock(&ir->q_mu);
    close_query(dq, stop, rs);
    if (rs->status > status)
        status = rs->status;
    /* Hosts still reading are left to the process exit (fanout.h), so ir
     * stays allocated (and reachable). */
    static iremote_t *volatile left;
    left = ir;
    (void)left;
    (void)abandoned;
    return status;
}
