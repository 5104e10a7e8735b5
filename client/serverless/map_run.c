/* map_run.c: run a plan over inputs, then render or write the result. */
#include "client/serverless/map_run.h"
#include "client/serverless/inputs.h"
#include "client/tools/table_print.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "base/outbuf.h"
#include "base/term.h"
#include "exec/agg/fill.h"
#include "exec/agg/spill_result.h"
#include "exec/mapscan.h"
#include "exec/run/runner.h"
#include "exec/sink/outfile.h"


typedef struct dmap_state {
    const dmap_job_t *job;      /* what runs */
    client_run_t *run;          /* tool name and exit status */
    mapscan_t ms;               /* the engine */
    table_printer_t tp;         /* the terminal form, and what it printed last */
    outfile_input_t *inputs;    /* per target read so far: what became of it
                                   (NULL when out of memory: none recorded) */
    size_t n_inputs;            /* targets tried */
    uint64_t divzero;           /* divisions by zero of the final result's
                                   arithmetic columns and having */
} dmap_state_t;

/* Rows stdout shows. */
static long long terminal_limit(const dmap_state_t *rs)
{
    return table_printer_limit(&rs->tp);
}

static void show_result(dmap_state_t *rs, result_t *r, int final);

/* Renders table t to stdout (terminal form). */
static void print_table(dmap_state_t *rs, const agg_table_t *t, int final)
{
    result_t r;
    err_t e;
    if (result_build(rs->job->plan->map, t, terminal_limit(rs), &r, &e) < 0) {
        client_report(rs->run, &e);
        return;
    }
    show_result(rs, &r, final);
}

/* Writes r to stdout in the job's form and frees it. As DTail, a table
 * identical to the one printed last is not printed again (an interim table
 * that already showed the final result is not repeated at the end). */
static void show_result(dmap_state_t *rs, result_t *r, int final)
{
    table_printer_show(&rs->tp, r);
    if (final) {
        table_printer_note_limit(&rs->tp, r->n_groups);
        table_printer_note_approx_result(rs->job->plan->map, r);
    }
    if (final)
        rs->divzero += r->n_divzero;
    result_free(r);
}

/* An interim table (DTail prints the table each interval). */
static void print_interim(const agg_table_t *snap, void *arg)
{
    print_table(arg, snap, 0);
}

/* divzero: the run's divisions by zero, per line and in the result. */
static void print_summary(dmap_state_t *rs, const map_stats_t *st, size_t n_groups,
                          uint64_t divzero, double seconds)
{
    int quiet = rs->job->quiet;
    if (!quiet && log_level >= LOG_WARN) {
        char table[300] = "", div[64] = "";
        if (rs->ms.has_filter)
            snprintf(table, sizeof table, " (%s)", rs->ms.filter.pattern);
        if (divzero)
            snprintf(div, sizeof div, ", %llu divided by zero", (unsigned long long)divzero);
        fprintf(stderr, "dmap: %llu lines read, %llu matched%s, %llu parsed, %llu not for this "
                        "format, %llu unparsed, %llu selected, %zu groups%s, %.3f s\n",
                st->lines_read, st->lines_matched, table, st->lines_parsed, st->lines_skipped,
                st->lines_unparsed, st->lines_selected, n_groups, div, seconds);
    }
    if (log_level >= LOG_WARN && !quiet) {
        parse_problems_t pp;
        parse_problems_of_stats(st, &pp);
        field_report_warn_parsing(&pp, rs->job->plan->map->logformat->name, "dmap", stderr);
    }
}

/* sp: the spill holding the whole result, or NULL when it is all in
 * ms.result. Sets *n_groups to the groups of the result. */
static void write_outfile(dmap_state_t *rs, outfile_info_t info, spill_t *sp, size_t *n_groups)
{
    const dmap_job_t *job = rs->job;
    const plan_t *plan = job->plan->map;
    clock_gettime(CLOCK_REALTIME, &info.end);
    err_t e;
    err_clear(&e);
    info.approx = calloc(plan->n_select ? plan->n_select : 1, sizeof *info.approx);
    uint64_t n_divzero = 0;
    int rc = outfile_write_merged(plan, &rs->ms.result, sp, &info, n_groups, &n_divzero, &e);
    rs->divzero += n_divzero;
    if (rc < 0)
        client_report(rs->run, &e);
    else
        LOG_INFO("%s to outfile|%s", plan->outfile_append ? "Appended" : "Wrote", plan->outfile);
    if (rc == 0)
        table_printer_note_approx(plan, info.approx);
    free(info.approx);
}

/* The final table of a spilled run: only the rows shown are rendered. */
static void print_spilled(dmap_state_t *rs, spill_t *sp, size_t *n_groups)
{
    result_t r;
    err_t e;
    err_clear(&e);
    if (spill_result_build(rs->job->plan->map, sp, terminal_limit(rs), &r, &e) < 0) {
        client_report(rs->run, &e);
        return;
    }
    *n_groups = r.n_groups;
    show_result(rs, &r, 1);
}

int dmap_run(const dmap_job_t *job, client_run_t *run)
{
    const plan_t *plan = job->plan->map;
    const map_opts_t *mo = &job->plan->mo;
    dmap_state_t rs = {.job = job, .run = run};
    err_t e;
    err_clear(&e);
    if (outfile_check(plan, &e) < 0 ||
        table_printer_init(&rs.tp, plan, job->query, job->form, job->color, 0, &e) < 0) {
        client_report(run, &e);
        return 0;
    }
    rs.inputs = calloc(job->n_targets ? job->n_targets : 1, sizeof *rs.inputs);
    if (mapscan_init(&rs.ms, mo, &e) < 0) {
        free(rs.inputs);
        mapscan_free(&rs.ms);
        table_printer_free(&rs.tp);
        client_report(run, &e);
        return 0;
    }
    /* Interim tables only to a terminal or when `interval` was given; the
     * machine forms print the final result alone (docs/dmap.md). */
    mapscan_reporter_t rep = {0};
    if (!plan->outfile && job->form == RESULT_FORM_TABLE &&
        (plan->interval_given || isatty(STDOUT_FILENO)))
        mapscan_reporter_start(&rep, &rs.ms, plan, plan->interval, print_interim, &rs);
    struct timespec t0, t1, start;
    clock_gettime(CLOCK_REALTIME, &start);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    client_inputs_t ci = {.targets = job->targets, .n_targets = job->n_targets,
                          .mem_fds = job->mem_fds, .deadline_ms = mo->deadline_ms, .run = run,
                          .records = rs.inputs};
    run_inputs_t ins = client_inputs(&ci);
    int stopped = run_map(&rs.ms, &ins) != RUN_END_ALL;
    rs.n_inputs = ci.n_tried;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    mapscan_reporter_stop(&rep);
    int timed_out = stopped && mapscan_timed_out(&rs.ms), cancelled = stopped && !timed_out;
    if (timed_out)
        LOG_WARN("--timeout %lld s reached: the result covers only what was read until then",
                 job->timeout_s);
    if (!cancelled) {
        if (rs.ms.result.failed) {
            err_set(&e, ERR_NOMEM, "out of memory: the result is incomplete");
            client_report(run, &e);
        }
        map_stats_t st;
        mapscan_stats(&rs.ms, &st);
        field_report_t fr;
        int have_fr = mapscan_fields(&rs.ms, &fr, &e) == 0;
        if (!have_fr)
            client_report(run, &e);
        else
            field_report_mark_null(&fr, plan, rs.ms.result.specs);
        size_t n_groups = rs.ms.result.n_groups;
        spill_t *sp = NULL;
        int lost = 0;   /* groups left split between memory and disk */
        if (mapscan_spilled(&rs.ms)) {
            sp = mapscan_spill_rest(&rs.ms, &e);
            lost = !sp;
            if (lost)
                client_report(run, &e);
            else
                LOG_INFO("spill|%zu runs, %llu group rows in a temporary database",
                         spill_total_runs(sp), (unsigned long long)spill_n_rows(sp));
            if (sp && have_fr)
                field_report_mark_null(&fr, plan, spill_specs_mut(sp));
        }
        if (!lost && plan->fill) {
            if (sp) {
                LOG_WARN("fill: the result spilled to disk (--memory-limit): its buckets are "
                         "not filled");
            } else if (agg_fill(plan, &rs.ms.result, &e) < 0) {
                client_report(run, &e);
                lost = 1;
            }
            n_groups = rs.ms.result.n_groups;
        }
        outfile_info_t info = {.query = job->query, .start = start, .inputs = rs.inputs,
                               .n_inputs = rs.inputs ? rs.n_inputs : 0, .stats = &st,
                               .partial = rs.ms.result.failed};
        if (!lost && plan->outfile)
            write_outfile(&rs, info, sp, &n_groups);
        else if (!lost && sp)
            print_spilled(&rs, sp, &n_groups);
        else if (!lost)
            print_table(&rs, &rs.ms.result, 1);
        if (have_fr)
            fr.divzero += rs.divzero;
        print_summary(&rs, &st, n_groups, have_fr ? fr.divzero : rs.divzero,
                      (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
        if (have_fr) {
            if (log_level >= LOG_WARN)
                field_report_warn(&fr, plan, "dmap", stderr);
            field_report_free(&fr);
        }
        if (outfile_info_partial(&info) && log_level >= LOG_WARN && !job->quiet) {
            char text[2048];
            outfile_partial_text(&info, text, sizeof text);
            term_fprintf(stderr, "dmap: warning: %s\n", text);
        }
    }
    for (size_t i = 0; rs.inputs && i < rs.n_inputs; i++)
        free((char *)rs.inputs[i].error);
    free(rs.inputs);
    mapscan_free(&rs.ms);
    table_printer_free(&rs.tp);
    return cancelled;
}
