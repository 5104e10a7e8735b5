/* scan.c: dcat and dgrep through servers. Each server renders the
 * lines in the format this client would use locally, so output is byte
 * for byte the serverless output but for the host name; every LINES frame
 * (whole lines) goes to stdout as one block, so the lines of different
 * servers interleave by whole batches, never inside a line. */
#include <stdlib.h>
#include <unistd.h>

#include "client/remote/fanout.h"
#include "client/remote/session.h"

static int on_lines(void *ctx, const char *p, size_t len, err_t *e)
{
    return fanout_write_lines(ctx, p, len, e);
}

static int run_scan(void *ctx, fanout_host_t *h, err_t *e)
{
    const wire_request_t *rq = ctx;   /* the same request for every server */
    remote_handler_t hd = {.ctx = h, .on_lines = on_lines};
    return remote_request(&h->c, rq, NULL, &hd, &h->rs, e);
}

int remote_lines_run(const cli_opts_t *o, const exec_request_t *x, const config_t *cfg,
                     long long deadline_s, int follow, client_run_t *rs)
{
    err_t e;
    err_clear(&e);
    char *files;
    fanout_targets_t tl;
    if (fanout_files_and_targets(o, cfg, -1, &files, &tl, &e) < 0)
        return client_usage_error(rs->tool, &e);
    wire_request_t *rq = calloc(1, sizeof *rq);
    if (!rq) {
        free(files);
        fanout_targets_free(&tl);
        return 1;
    }
    *rq = remote_build_request(x, files);
    fanout_opts_t fo = {.o = o, .cfg = cfg, .targets = &tl, .deadline_s = deadline_s,
                        .deadline_is_end = follow};
    fanout_ops_t ops = {.ctx = rq, .run = run_scan, .retry = follow, .early = rq};
    int abandoned;
    int status = fanout_run(&fo, &ops, rs, &abandoned);
    if (!abandoned) {
        free(files);
        free(rq);
        fanout_targets_free(&tl);
    }
    return status;
}

int remote_scan_main(const cli_opts_t *o, const exec_request_t *rq, const config_t *cfg,
                     client_run_t *rs)
{
    if (o->interactive)
        return interactive_remote_main(o, cfg, rs);
    return remote_lines_run(o, rq, cfg, 0, 0, rs);
}
