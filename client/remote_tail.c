/* remote_tail.c: dtail through servers. Each server follows the files
 * (TAIL request, docs/protocol.md "Tail") and sends the selected lines as
 * they are written; they go to stdout by whole frames. A server that
 * cannot be reached, breaks the connection or restarts is connected again
 * with backoff (2 s doubling to 60 s, ±20 %) until the run ends at
 * --timeout / --shutdownAfter (default 86400 s) or a signal. */
#include <stdlib.h>

#include "client/fanout.h"
#include "client/remote.h"

#define DEFAULT_SHUTDOWN_AFTER 86400

typedef struct tail_req {
    wire_request_t rq;
    int compress;
} tail_req_t;

static int on_lines(void *ctx, const char *p, size_t len, err_t *e)
{
    return fanout_write_lines(ctx, p, len, e);
}

static int run_tail(void *ctx, fanout_host_t *h, err_t *e)
{
    tail_req_t *tr = ctx;
    wire_request_t rq = tr->rq;
    if (remote_wants_zstd(&h->c, tr->compress))
        rq.flags |= WIRE_REQ_ZSTD;
    remote_handler_t hd = {.ctx = h, .on_lines = on_lines};
    return remote_request(&h->c, &rq, NULL, &hd, &h->rs, e);
}

int remote_tail_main(const cli_opts_t *o, const config_t *cfg, client_run_t *rs)
{
    err_t e;
    err_clear(&e);
    if (o->query && *o->query) {
        err_set(&e, ERR_USAGE, "dtail --query through servers is not available yet in this build; "
                               "run it serverless or use dmap --servers");
        return client_usage_error(rs->tool, &e);
    }
    char *files = remote_files(o, -1, &e);
    if (!files)
        return client_usage_error(rs->tool, &e);
    tail_req_t *tr = calloc(1, sizeof *tr);
    if (!tr) {
        free(files);
        return 1;
    }
    tr->compress = o->compress;
    tr->rq = (wire_request_t){
        .kind = WIRE_KIND_TAIL,
        .render = o->plain ? WIRE_RENDER_PLAIN
                           : client_colors(o, cfg) ? WIRE_RENDER_COLOR : WIRE_RENDER_REMOTE,
        .flags = (o->invert ? WIRE_REQ_INVERT : 0) | (o->quiet ? WIRE_REQ_QUIET : 0),
        .before = (uint64_t)o->before,
        .after = (uint64_t)o->after,
        .max = (uint64_t)o->max,
        .files = files,
        .regex = (char *)(o->regex ? o->regex : ""),
        .query = "",
    };
    long long limit = o->shutdown_after ? o->shutdown_after : DEFAULT_SHUTDOWN_AFTER;
    if (o->timeout > 0 && o->timeout < limit)
        limit = o->timeout;
    fanout_opts_t fo = {.o = o, .cfg = cfg, .deadline_s = limit, .deadline_is_end = 1};
    fanout_ops_t ops = {.ctx = tr, .run = run_tail, .retry = 1};
    int abandoned;
    int status = fanout_run(&fo, &ops, rs, &abandoned);
    if (!abandoned) {
        free(files);
        free(tr);
    }
    return status;
}
