/* remote_map.c: dmap through a server. Each AGGREGATE is the server's
 * whole result so far, so the table is replaced, not added to; the final
 * one is rendered as serverless dmap renders its result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "client/remote.h"
#include "exec/agg/eval.h"
#include "exec/sink/outfile.h"
#include "exec/sink/result.h"

#define TERMINAL_DEFAULT_ROWS 10

typedef struct remote_map {
    agg_table_t table;           /* the server's latest result */
    int final;                   /* the final one arrived */
} remote_map_t;

static int on_aggregate(void *ctx, const remote_conn_t *c, const unsigned char *p, size_t len,
                        int final, err_t *e)
{
    remote_map_t *rm = ctx;
    agg_table_clear(&rm->table);
    if (agg_table_merge_serialized(&rm->table, p, len, e) < 0) {
        char why[sizeof e->msg];
        snprintf(why, sizeof why, "%s", e->msg);
        return err_set(e, ERR_IO, "%s: partial result: %s", c->name, why);
    }
    rm->final |= final;
    return 0;
}

static void render(const plan_t *plan, const agg_table_t *t, const char *query, int color,
                   const char *server, client_run_t *rs)
{
    err_t e;
    err_clear(&e);
    result_t r;
    long long limit = plan->limit_given ? plan->limit : plan->outfile ? -1 : TERMINAL_DEFAULT_ROWS;
    if (result_build(plan, t, limit, &r, &e) < 0) {
        client_report(rs, &e);
        return;
    }
    if (plan->outfile) {
        outfile_info_t info = {.query = query, .server = server};
        clock_gettime(CLOCK_REALTIME, &info.end);
        info.start = info.end;
        if (outfile_write(plan, &r, &info, &e) < 0)
            client_report(rs, &e);
        else
            LOG_INFO("%s to outfile|%s", plan->outfile_append ? "Appended" : "Wrote", plan->outfile);
    } else {
        unsigned char *group_key = calloc(plan->n_select ? plan->n_select : 1, 1);
        outbuf_t out;
        if (group_key && outbuf_init(&out, STDOUT_FILENO, 64 * 1024, &e) == 0) {
            for (size_t i = 0; i < plan->n_select; i++)
                group_key[i] = plan->select[i].group_key;
            result_render_table(&r, &out, color, plan->order_index, group_key);
            outbuf_flush(&out);
            outbuf_free(&out);
        }
        free(group_key);
        if (!plan->limit_given && r.n_groups > TERMINAL_DEFAULT_ROWS)
            fprintf(stderr, "Got %zu results but limited terminal output to %d rows! "
                            "Use 'limit' clause to override!\n", r.n_groups, TERMINAL_DEFAULT_ROWS);
    }
    result_free(&r);
}

int remote_map_main(const cli_opts_t *o, const config_t *cfg, const plan_t *plan,
                    const char *query, int query_pos, int color, client_run_t *rs)
{
    err_t e;
    err_clear(&e);
    char *files = remote_files(o, query_pos, &e);
    if (!files)
        return client_usage_error(rs->tool, &e);
    remote_map_t rm = {0};
    agg_spec_t *specs = calloc(plan->n_select ? plan->n_select : 1, sizeof *specs);
    if (!specs) {
        free(files);
        err_set(&e, ERR_NOMEM, "out of memory");
        return client_usage_error(rs->tool, &e);
    }
    eval_specs(plan, specs);
    outbuf_t out;
    remote_conn_t c = {0};
    if (agg_table_init(&rm.table, specs, plan->n_select, &e) < 0 ||
        outbuf_init(&out, STDOUT_FILENO, 64 * 1024, &e) < 0) {
        free(specs);
        free(files);
        return client_usage_error(rs->tool, &e);
    }
    wire_request_t rq = {.kind = WIRE_KIND_MAP, .files = files, .regex = "",
                         .query = (char *)query, .timeout_s = (uint32_t)o->timeout};
    remote_handler_t h = {.ctx = &rm, .on_aggregate = on_aggregate};
    if (remote_connect(&c, o, cfg, &e) < 0 || remote_request(&c, &rq, &out, &h, rs, &e) < 0) {
        client_report(rs, &e);
        if (rs->status < 1)
            rs->status = 1;
    }
    if (rm.final)
        render(plan, &rm.table, query, color, c.server.host, rs);
    remote_close(&c);
    outbuf_free(&out);
    agg_table_free(&rm.table);
    free(specs);
    free(files);
    return rs->status;
}
