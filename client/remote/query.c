/* query.c: dtail --query through servers. Every server follows the
 * files with the query (TAIL request with a query, docs/protocol.md "Tail")
 * and sends what its files gave since its previous report as an AGGREGATE
 * delta every interval. The deltas go into the same reporter as serverless
 * dtail --query (client/serverless/query.h): each report holds the merged
 * deltas of its interval, or everything so far when the query has an
 * outfile (shared reference §2.11). Servers are connected again with
 * backoff, as plain dtail does. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "client/serverless/query.h"
#include "client/remote/fanout.h"
#include "client/remote/session.h"
#include "client/tools/request.h"

typedef struct remote_query {
    pthread_mutex_t mu;          /* guards dq */
    dtail_query_t *dq;           /* the reporter; NULL once closed */
    wire_request_t rq;           /* the same request for every server */
} remote_query_t;

static int on_aggregate(void *ctx, const unsigned char *p, size_t len, int final, err_t *e)
{
    (void)final;   /* a delta like the others: what came since the last one */
    fanout_host_t *h = ctx;
    remote_query_t *rq = h->f->ops->ctx;
    pthread_mutex_lock(&rq->mu);
    int rc = rq->dq ? dtail_query_add_delta(rq->dq, p, len, e) : 0;
    pthread_mutex_unlock(&rq->mu);
    return rc;
}

static int run_query(void *ctx, fanout_host_t *h, err_t *e)
{
    remote_query_t *rq = ctx;
    remote_handler_t hd = {.ctx = h, .on_aggregate = on_aggregate};
    return remote_request(&h->c, &rq->rq, NULL, &hd, &h->rs, e);
}

int remote_query_main(const cli_opts_t *o, const config_t *cfg, client_run_t *rs)
{
    err_t e;
    err_clear(&e);
    char *files;
    fanout_targets_t tl;
    if (fanout_files_and_targets(o, cfg, -1, &files, &tl, &e) < 0)
        return client_usage_error(rs->tool, &e);
    remote_query_t *rq = calloc(1, sizeof *rq);
    if (!rq) {
        free(files);
        fanout_targets_free(&tl);
        return 1;
    }
    char host[256];
    cli_host_name(host, sizeof host);
    static volatile int reporter_stop;   /* the run ended */
    if (dtail_query_open(&rq->dq, o, cfg, host, &reporter_stop, &e) < 0) {
        free(files);
        free(rq);
        fanout_targets_free(&tl);
        return client_usage_error(rs->tool, &e);
    }
    pthread_mutex_init(&rq->mu, NULL);
    rq->rq = (wire_request_t){
        .kind = WIRE_KIND_TAIL,
        .render = WIRE_RENDER_PLAIN,
        .files = files,
        .regex = "",
        .query = (char *)o->query,
    };
    const char *tz = client_timezone(o);
    if (tz) {
        rq->rq.flags |= WIRE_REQ_TIMEZONE;
        rq->rq.timezone = (char *)tz;
    }
    /* dtail --query --multiline: the servers' scans read the records. */
    if (o->multiline && *o->multiline) {
        rq->rq.flags |= WIRE_REQ_MULTILINE;
        rq->rq.multiline = (char *)o->multiline;
    }
    fanout_opts_t fo = {.o = o, .cfg = cfg, .targets = &tl, .deadline_s = client_follow_limit_s(o),
                        .deadline_is_end = 1};
    fanout_ops_t ops = {.ctx = rq, .run = run_query, .retry = 1, .early = &rq->rq};
    int abandoned;
    int status = fanout_run(&fo, &ops, rs, &abandoned);
    reporter_stop = 1;
    pthread_mutex_lock(&rq->mu);
    dtail_query_t *dq = rq->dq;
    rq->dq = NULL;   /* a server still running adds nothing from here on */
    pthread_mutex_unlock(&rq->mu);
    dtail_query_close(dq, rs);
    if (rs->status > status)
        status = rs->status;
    if (!abandoned) {
        pthread_mutex_destroy(&rq->mu);
        free(rq);
        free(files);
        fanout_targets_free(&tl);
    } else {
        /* Servers still reading use rq until the process exits. */
        static remote_query_t *volatile left;
        left = rq;
        (void)left;
    }
    return status;
}
