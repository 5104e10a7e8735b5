/* query.c: see query.h. */
#include "client/serverless/query.h"
#include "client/serverless/map_run.h"
#include "client/tools/table_print.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/grow.h"
#include "base/log.h"
#include "base/outbuf.h"
#include "exec/follow_plan.h"
#include "exec/mapscan.h"
#include "client/remote/session.h"
#include "client/tools/request.h"
#include "exec/run/plan.h"
#include "exec/sink/outfile.h"
#include "exec/sink/result.h"
#include "parser/parser.h"


struct dtail_query {
    exec_plan_t p;              /* the request's plan: p.mo for each input's scan */
    const plan_t *plan;         /* its query's plan */
    const char *text;           /* the query as given */
    const volatile int *stop;   /* the run ends */
    pthread_mutex_t mu;         /* guards scans */
    mapscan_t **scans;          /* one per input */
    size_t n_scans, cap_scans;
    agg_spec_t *specs;          /* the plan's aggregate specs */
    agg_table_t remote;         /* servers' deltas not yet reported (or, when
                                   cumulative, all of them), under mu */
    int have_remote;            /* remote is initialised */
    pthread_t reporter;
    int reporting;
    table_printer_t tp;         /* the terminal table (the query always above
                                   it, as DTail's dtail), and what it printed last */
    struct timespec start;      /* wall clock of the start */
    client_run_t *rs;           /* for errors of the reporter, set at close */
    err_t report_err;           /* first reporter error */
    int report_failed;
};

static int cumulative(const dtail_query_t *d)
{
    return d->plan->outfile && !d->plan->outfile_append;
}

/* Everything read (cumulative) or read since the last report. */
static int collect(dtail_query_t *d, agg_table_t *t, err_t *e)
{
    if (agg_table_init(t, d->specs, d->plan->n_select, e) < 0)
        return -1;
    int rc = 0;
    pthread_mutex_lock(&d->mu);
    for (size_t i = 0; i < d->n_scans; i++)
        rc |= cumulative(d) ? mapscan_snapshot(d->scans[i], t) : mapscan_take(d->scans[i], t);
    if (d->have_remote) {
        agg_table_merge(t, &d->remote);
        if (!cumulative(d))
            agg_table_clear(&d->remote);
        rc |= t->failed ? -1 : 0;
    }
    pthread_mutex_unlock(&d->mu);
    if (rc < 0) {
        agg_table_free(t);
        return err_set(e, ERR_NOMEM, "out of memory aggregating groups");
    }
    return 0;
}

static void report(dtail_query_t *d)
{
    agg_table_t t;
    err_t e;
    err_clear(&e);
    if (collect(d, &t, &e) < 0)
        goto failed;
    const plan_t *plan = d->plan;
    long long limit = plan->outfile && !plan->limit_given ? -1 : table_printer_limit(&d->tp);
    result_t r;
    if (result_build(plan, &t, limit, &r, &e) < 0) {
        agg_table_free(&t);
        goto failed;
    }
    if (plan->outfile) {
        outfile_info_t info = {.query = d->text, .start = d->start};
        clock_gettime(CLOCK_REALTIME, &info.end);
        if ((r.n_rows > 0 || !plan->outfile_append) && outfile_write(plan, &r, &info, &e) < 0) {
            result_free(&r);
            agg_table_free(&t);
            goto failed;
        }
    } else if (!table_printer_idle(&d->tp, &r)) {
        table_printer_show(&d->tp, &r);
    }
    result_free(&r);
    agg_table_free(&t);
    return;
failed:
    if (!d->report_failed) {
        d->report_failed = 1;
        d->report_err = e;
    }
}

/* As DTail: a first report after half an interval, then one per interval. */
static void *reporter(void *arg)
{
    dtail_query_t *d = arg;
    long long wait = d->plan->interval * 500LL;
    while (!*d->stop) {
        for (long long slept = 0; slept < wait && !*d->stop; slept += 50)
            clock_sleep_ms(50);
        if (*d->stop)
            break;
        report(d);
        wait = d->plan->interval * 1000LL;
    }
    return NULL;
}

int dtail_query_open(dtail_query_t **out, const cli_opts_t *o, const config_t *cfg,
                     const char *host, const volatile int *stop, err_t *e)
{
    dtail_query_t *d = calloc(1, sizeof *d);
    if (!d)
        return err_set(e, ERR_NOMEM, "out of memory");
    d->text = o->query;
    exec_env_t env = client_env(o, cfg, host);
    /* Interval reports take every group back (mapscan_take), spilled
     * ones too: the limit bounds the tables between two reports. One
     * thread reads every file. */
    env.n_threads = 1;
    exec_request_t rq = {.kind = EXEC_TAIL, .query = d->text};   /* the run keeps the deadline */
    if (client_plan(&d->p, &rq, &env, e) < 0) {
        free(d);
        return -1;
    }
    d->plan = d->p.map;
    /* Every interval rewrites the outfile: refuse a bad one before following. */
    if (outfile_check(d->plan, e) < 0) {
        exec_plan_free(&d->p);
        free(d);
        return -1;
    }
    d->specs = calloc(d->plan->n_select ? d->plan->n_select : 1, sizeof *d->specs);
    if (!d->specs) {
        exec_plan_free(&d->p);
        free(d);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    eval_specs(d->plan, d->specs);
    if (client_output_check(o, d->plan, e) < 0 ||
        table_printer_init(&d->tp, d->plan, d->text, o->form, client_palette(o, cfg), 1, e) < 0) {
        free(d->specs);
        exec_plan_free(&d->p);
        free(d);
        return -1;
    }
    d->stop = stop;
    clock_gettime(CLOCK_REALTIME, &d->start);
    pthread_mutex_init(&d->mu, NULL);
    for (size_t i = 0; i < d->plan->n_warnings && log_level >= LOG_WARN; i++)
        fprintf(stderr, "dtail: warning: %s\n", d->plan->warnings[i].msg);
    d->reporting = pthread_create(&d->reporter, NULL, reporter, d) == 0;
    *out = d;
    return 0;
}

mapscan_t *dtail_query_scan(dtail_query_t *d, err_t *e)
{
    mapscan_t *ms = follow_scan_new(&d->p.mo, e);
    if (!ms)
        return NULL;
    pthread_mutex_lock(&d->mu);
    if (GROW_ARRAY(d->scans, d->cap_scans, d->n_scans + 1, 8) < 0) {
        pthread_mutex_unlock(&d->mu);
        follow_scan_free(ms);
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    d->scans[d->n_scans++] = ms;
    pthread_mutex_unlock(&d->mu);
    return ms;
}

int dtail_query_follow(dtail_query_t *d, input_t *in, const char *name, const char *source_id,
                       err_t *e)
{
    mapscan_t *ms = dtail_query_scan(d, e);
    return ms ? mapscan_run(ms, in, name, source_id, 0, e) : -1;
}

int dtail_query_add_delta(dtail_query_t *d, const unsigned char *p, size_t len, err_t *e)
{
    pthread_mutex_lock(&d->mu);
    int rc = 0;
    if (!d->have_remote) {
        rc = agg_table_init(&d->remote, d->specs, d->plan->n_select, e);
        d->have_remote = rc == 0;
    }
    if (rc == 0)
        rc = agg_table_merge_serialized(&d->remote, p, len, e);
    pthread_mutex_unlock(&d->mu);
    return rc;
}

void dtail_query_close(dtail_query_t *d, client_run_t *rs)
{
    if (d->reporting)
        pthread_join(d->reporter, NULL);
    report(d);   /* what came in after the last report */
    if (d->report_failed)
        client_report(rs, &d->report_err);
    for (size_t i = 0; i < d->n_scans; i++) {
        follow_scan_free(d->scans[i]);
    }
    free(d->scans);
    if (d->have_remote)
        agg_table_free(&d->remote);
    free(d->specs);
    table_printer_free(&d->tp);
    pthread_mutex_destroy(&d->mu);
    exec_plan_free(&d->p);
    free(d);
}
