/* map.c: dmap through servers. An interim AGGREGATE is one
 * server's whole result so far, so it replaces that server's previous
 * table; interim merges of them are printed every interval as serverless
 * dmap prints them. The final result is the merge of every server's final
 * table (count, sum, min, max, avg, percentage, percentile merge exactly,
 * quantiles through their sketches; last() is order dependent across
 * servers, as in DTail), rendered or written to the outfile.
 *
 * Memory is bounded by --memory-limit (default: a quarter of RAM), as
 * serverless: a final table comes in parts, each folded as it arrives into
 * the server's staging accumulator (exec/agg/accum.h, which spills past its
 * share), and once the server's last part is in, into the run's
 * accumulator, which spills past half the limit; a spilled result is
 * rendered from the spill. A server that fails before its last part
 * contributes nothing. Interim tables are kept only when they are shown,
 * and no longer once they pass a quarter of the limit. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "client/tools/request.h"
#include "base/grow.h"
#include "base/log.h"
#include "base/term.h"
#include "client/remote/fanout.h"
#include "exec/scan/targets.h"
#include "client/remote/session.h"
#include "client/tools/table_print.h"
#include "exec/agg/accum.h"
#include "exec/agg/fill.h"
#include "exec/extract/logzone.h"
#include "exec/agg/eval.h"
#include "exec/agg/spill_result.h"
#include "exec/fieldreport.h"
#include "exec/sink/outfile.h"
#include "exec/sink/result.h"


typedef struct host_table {
    agg_table_t table;           /* the server's latest interim result */
    size_t table_bytes;          /* what it holds (counted in interim_bytes) */
    int have;                    /* an interim table arrived whole */
    int interim_open;            /* parts of an interim table are arriving */
    agg_accum_t fin;             /* the parts of its final table so far */
    int fin_open;                /* ... fin is initialised */
    int final;                   /* the final table arrived whole (and is in acc) */
    int have_fields;             /* its field report arrived */
    outfile_input_t *files;      /* its FILE_STATUS reports, in order (file
                                  * and error malloc'd; server unset) */
    size_t n_files, cap_files;
    int ok;                      /* the fan-out counted the server as ok */
    char *why;                   /* why not (malloc'd), NULL when ok */
} host_table_t;

typedef struct remote_map {
    const plan_t *plan;
    const char *query;
    agg_spec_t *specs;           /* of plan */
    wire_request_t rq;           /* the same request for every server */
    pthread_mutex_t mu;          /* the host tables */
    host_table_t *hosts;         /* per target, indexed like the fan-out's hosts */
    size_t n_hosts;
    const fanout_target_t *first;/* for the outfile's server */
    int interim;                 /* print a table every interval */
    long long next_report_ms;    /* when the next interim table is due */
    table_printer_t tp;          /* the terminal table, and what it printed last */
    client_run_t *rs;            /* the run's status */
    field_report_t fields;       /* every server's field report, merged */
    agg_accum_t acc;             /* the final tables merged */
    size_t mem_limit;            /* --memory-limit in bytes */
    size_t stage_budget;         /* a server's staging accumulator's share */
    size_t interim_bytes;        /* held by the hosts' interim tables */
    int closed;                  /* the run is over: late frames are dropped */
    struct {
        char **v;                /* the entries of the file list asked for */
        size_t n;
    } asked;
} remote_map_t;

static int on_fields(void *ctx, const unsigned char *p, size_t len, err_t *e)
{
    fanout_host_t *h = ctx;
    remote_map_t *rm = h->f->ops->ctx;
    host_table_t *ht = h->user;
    pthread_mutex_lock(&rm->mu);
    int rc = field_report_merge_encoded(&rm->fields, p, len, e);
    ht->have_fields = rc == 0;
    pthread_mutex_unlock(&rm->mu);
    return rc;
}

/* rm->asked from the comma list files (what target_spec_next gives). */
static int split_specs(remote_map_t *rm, const char *files)
{
    const char *p = files, *s;
    size_t len, n = 0;
    while (target_spec_next(&p, &s, &len))
        n++;
    rm->asked.v = calloc(n ? n : 1, sizeof *rm->asked.v);
    if (!rm->asked.v)
        return -1;
    for (p = files; target_spec_next(&p, &s, &len); rm->asked.n++)
        if (!(rm->asked.v[rm->asked.n] = strndup(s, len)))
            return -1;
    return 0;
}

/* Interim tables are no longer kept or shown (rm->mu held). */
static void stop_interim(remote_map_t *rm, const char *why)
{
    if (!rm->interim)
        return;
    rm->interim = 0;
    for (size_t i = 0; i < rm->n_hosts; i++) {
        agg_table_clear(&rm->hosts[i].table);
        rm->hosts[i].have = rm->hosts[i].interim_open = 0;
        rm->hosts[i].table_bytes = 0;
    }
    rm->interim_bytes = 0;
    LOG_WARN("Interim tables are no longer shown: %s", why);
}

static int interim_part(remote_map_t *rm, host_table_t *ht, const unsigned char *p, size_t len,
                        uint8_t flags, err_t *e)
{
    if (!rm->interim)
        return 0;
    if (!ht->interim_open) {   /* a new table replaces the last one */
        agg_table_clear(&ht->table);
        rm->interim_bytes -= ht->table_bytes;
        ht->table_bytes = 0;
        ht->have = 0;
        ht->interim_open = 1;
    }
    if (agg_table_merge_serialized(&ht->table, p, len, e) < 0)
        return -1;
    size_t now = agg_accum_table_bytes(&ht->table);
    rm->interim_bytes += now - ht->table_bytes;
    ht->table_bytes = now;
    if (!(flags & WIRE_AGG_MORE)) {
        ht->interim_open = 0;
        ht->have = 1;
    }
    if (rm->interim_bytes > rm->mem_limit / 4)
        stop_interim(rm, "the servers' results are over a quarter of --memory-limit");
    return 0;
}

static int final_part(remote_map_t *rm, host_table_t *ht, const unsigned char *p, size_t len,
                      uint8_t flags, err_t *e)
{
    if (!ht->fin_open) {
        /* The final table supersedes the interim ones. */
        agg_table_clear(&ht->table);
        rm->interim_bytes -= ht->table_bytes;
        ht->table_bytes = 0;
        ht->have = ht->interim_open = 0;
        if (agg_accum_init(&ht->fin, rm->specs, rm->plan->n_select, rm->stage_budget, e) < 0)
            return -1;
        ht->fin_open = 1;
    }
    if (agg_accum_add_serialized(&ht->fin, p, len, e) < 0)
        return -1;
    if (flags & WIRE_AGG_MORE)
        return 0;
    int rc = agg_accum_drain_into(&rm->acc, &ht->fin, e);
    agg_accum_free(&ht->fin);
    ht->fin_open = 0;
    ht->final = rc == 0;
    if (rm->acc.spill)   /* an interim merge would load the spill back */
        stop_interim(rm, "the result spilled to disk (--memory-limit)");
    return rc;
}

static int on_aggregate_part(void *ctx, const unsigned char *p, size_t len, uint8_t flags,
                             err_t *e)
{
    fanout_host_t *h = ctx;
    remote_map_t *rm = h->f->ops->ctx;
    host_table_t *ht = h->user;
    pthread_mutex_lock(&rm->mu);
    int rc = rm->closed   ? err_set(e, ERR_IO, "the run is over")
             : ht->final  ? err_set(e, ERR_INPUT, "a table after the server's final one")
             : (flags & WIRE_AGG_FINAL) ? final_part(rm, ht, p, len, flags, e)
                                        : interim_part(rm, ht, p, len, flags, e);
    pthread_mutex_unlock(&rm->mu);
    return rc;
}

/* One file of the server: what FILE_STATUS said (its statuses are the
 * outfile's first ones, in the same order). */
static void on_file(void *ctx, const wire_msg_t *m, int counted)
{
    fanout_host_t *h = ctx;
    remote_map_t *rm = h->f->ops->ctx;
    host_table_t *ht = h->user;
    pthread_mutex_lock(&rm->mu);
    if (GROW_ARRAY(ht->files, ht->cap_files, ht->n_files + 1, 8) == 0) {
        outfile_input_t *in = &ht->files[ht->n_files];
        *in = (outfile_input_t){
            .file = strndup(m->name.p, m->name.len),
            .status = m->status,
            .error = m->status != WIRE_FILE_OK ? strndup(m->text.p, m->text.len) : NULL,
            .bytes = counted && m->bytes != WIRE_COUNT_NONE ? (long long)m->bytes : -1,
            .lines = counted && m->lines != WIRE_COUNT_NONE ? (long long)m->lines : -1,
        };
        if (in->file)
            ht->n_files++;
        else
            free((char *)in->error);
    }
    pthread_mutex_unlock(&rm->mu);
}

static void host_done(void *ctx, const fanout_host_t *h)
{
    remote_map_t *rm = ctx;
    host_table_t *ht = &rm->hosts[h - h->f->hosts];
    pthread_mutex_lock(&rm->mu);
    ht->ok = h->ok;
    free(ht->why);
    ht->why = h->ok ? NULL : strdup(h->why[0] ? h->why : "failed");
    pthread_mutex_unlock(&rm->mu);
}

static int run_map(void *ctx, fanout_host_t *h, err_t *e)
{
    remote_map_t *rm = ctx;
    size_t i = (size_t)(h - h->f->hosts);
    h->user = &rm->hosts[i];
    remote_handler_t hd = {.ctx = h, .on_aggregate_part = on_aggregate_part,
                           .on_fields = on_fields, .on_file = on_file};
    return remote_request(&h->c, &rm->rq, NULL, &hd, &h->rs, e);
}

/* The interim merge: every server's latest interim table, and the final
 * tables merged so far (rm->mu held). */
static int merged_interim(remote_map_t *rm, agg_table_t *out, err_t *e)
{
    if (agg_table_init(out, rm->specs, rm->plan->n_select, e) < 0)
        return -1;
    for (size_t i = 0; i < rm->n_hosts; i++)
        if (rm->hosts[i].have)
            agg_table_merge(out, &rm->hosts[i].table);
    agg_table_merge(out, &rm->acc.table);
    if (out->failed) {
        agg_table_free(out);
        return err_set(e, ERR_NOMEM, "out of memory: the merged result is incomplete");
    }
    return 0;
}

/* The table as serverless dmap prints it (table_print.h); an empty
 * interim table is not printed. */
static void print_table(remote_map_t *rm, const agg_table_t *t, spill_t *sp, int final)
{
    const plan_t *plan = rm->plan;
    err_t e;
    result_t r;
    long long limit = table_printer_limit(&rm->tp);
    if ((sp ? spill_result_build(plan, sp, limit, &r, &e) : result_build(plan, t, limit, &r, &e)) < 0) {
        client_report(rm->rs, &e);
        return;
    }
    if (final || r.n_groups)
        table_printer_show(&rm->tp, &r);
    if (final) {
        table_printer_note_limit(&rm->tp, r.n_groups);
        table_printer_note_approx_result(plan, &r);
        rm->fields.divzero += r.n_divzero;
    }
    result_free(&r);
}

static void tick(void *ctx)
{
    remote_map_t *rm = ctx;
    if (!rm->interim || clock_now_ms() < rm->next_report_ms)
        return;
    rm->next_report_ms = clock_now_ms() + rm->plan->interval * 1000LL;
    agg_table_t t;
    err_t e;
    pthread_mutex_lock(&rm->mu);
    int got = rm->interim && merged_interim(rm, &t, &e) == 0;
    pthread_mutex_unlock(&rm->mu);
    if (got) {
        print_table(rm, &t, NULL, 0);
        agg_table_free(&t);
    }
}

/* What became of every (server, file), servers in their order: each
 * file as its server reported it, except that a server which failed
 * before its final table contributed none of them (a server that
 * reported no file gets one row per file asked for). Strings point into
 * the host tables; the array is the caller's to free. */
static outfile_input_t *collect_inputs(remote_map_t *rm, size_t *n_out)
{
    size_t n_specs = rm->asked.n, n = 0, cap = 0;
    pthread_mutex_lock(&rm->mu);
    for (size_t i = 0; i < rm->n_hosts; i++)
        cap += rm->hosts[i].n_files ? rm->hosts[i].n_files : n_specs;
    outfile_input_t *v = calloc(cap ? cap : 1, sizeof *v);
    for (size_t i = 0; v && i < rm->n_hosts; i++) {
        host_table_t *ht = &rm->hosts[i];
        int failed = !ht->final;
        const char *why = ht->why ? ht->why : "no final result";
        for (size_t k = 0; k < ht->n_files; k++) {
            v[n] = ht->files[k];
            v[n].server = rm->first[i].name;
            if (failed && v[n].status == OUTFILE_INPUT_OK) {
                v[n].status = OUTFILE_INPUT_SERVER_FAILED;
                v[n].error = why;
            }
            n++;
        }
        for (size_t k = 0; failed && !ht->n_files && k < n_specs; k++)
            v[n++] = (outfile_input_t){.server = rm->first[i].name, .file = rm->asked.v[k],
                                       .status = OUTFILE_INPUT_SERVER_FAILED, .error = why,
                                       .bytes = -1, .lines = -1};
    }
    pthread_mutex_unlock(&rm->mu);
    *n_out = n;
    return v;
}

static void write_outfile(remote_map_t *rm, const outfile_info_t *given)
{
    const plan_t *plan = rm->plan;
    err_t e;
    err_clear(&e);
    const char **names = calloc(rm->n_hosts ? rm->n_hosts : 1, sizeof *names);
    outfile_info_t info = *given;
    info.servers = names;
    info.n_servers = names ? rm->n_hosts : 0;
    for (size_t i = 0; names && i < rm->n_hosts; i++)
        names[i] = rm->first[i].name;
    clock_gettime(CLOCK_REALTIME, &info.end);
    size_t n_groups;
    info.approx = calloc(plan->n_select ? plan->n_select : 1, sizeof *info.approx);
    uint64_t n_divzero = 0;
    int rc = outfile_write_merged(plan, &rm->acc.table, rm->acc.spill, &info, &n_groups,
                                  &n_divzero, &e);
    rm->fields.divzero += n_divzero;
    if (rc < 0)
        client_report(rm->rs, &e);
    else {
        LOG_INFO("%s to outfile|%s", plan->outfile_append ? "Appended" : "Wrote", plan->outfile);
        table_printer_note_approx(plan, info.approx);
    }
    free(info.approx);
    free(names);
}

/* agg_fill in the zone the servers wrote the buckets in (tz, as sent;
 * NULL: as written): its days follow that zone's DST changes, as the
 * serverless run's do (its plan carries the zone). */
static long fill_in_zone(const plan_t *plan, const char *tz, agg_table_t *t, err_t *e)
{
    if (!tz || plan->time_zone)
        return agg_fill(plan, t, e);
    logzone_t *z = malloc(sizeof *z);
    if (!z)
        return err_set(e, ERR_NOMEM, "out of memory reading the time zone");
    long r = -1;
    if (logzone_load(z, tz, e) == 0) {
        plan_t zoned = *plan;
        zoned.time_zone = z;
        r = agg_fill(&zoned, t, e);
    }
    free(z);
    return r;
}

int remote_map_main(const cli_opts_t *o, const config_t *cfg, const plan_t *plan,
                    const char *query, int query_pos, const palette_t *color,
                    client_run_t *rs)
{
    enum result_form form = o->form;
    err_t e;
    err_clear(&e);
    /* Before any server is asked: the client writes the outfile. */
    if (outfile_check(plan, &e) < 0) {
        client_report(rs, &e);
        return rs->status;
    }
    char *files;
    fanout_targets_t tl;
    if (fanout_files_and_targets(o, cfg, query_pos, &files, &tl, &e) < 0)
        return client_usage_error(rs->tool, &e);
    remote_map_t *rm = calloc(1, sizeof *rm);
    if (!rm || !(rm->specs = calloc(plan->n_select ? plan->n_select : 1, sizeof *rm->specs)) ||
        !(rm->hosts = calloc(tl.n, sizeof *rm->hosts)) || split_specs(rm, files) < 0) {
        err_set(&e, ERR_NOMEM, "out of memory");
        return client_usage_error(rs->tool, &e);
    }
    eval_specs(plan, rm->specs);
    if (field_report_init(&rm->fields, plan, &e) < 0)
        return client_usage_error(rs->tool, &e);
    rm->mem_limit = o->memory_limit_bytes ? (size_t)o->memory_limit_bytes
                                          : mapscan_default_memory_limit();
    rm->stage_budget = rm->mem_limit / (4 * (tl.n ? tl.n : 1));
    if (rm->stage_budget < ((size_t)1 << 20))
        rm->stage_budget = (size_t)1 << 20;
    if (agg_accum_init(&rm->acc, rm->specs, plan->n_select, rm->mem_limit / 2, &e) < 0)
        return client_usage_error(rs->tool, &e);
    for (size_t i = 0; i < tl.n; i++)
        if (agg_table_init(&rm->hosts[i].table, rm->specs, plan->n_select, &e) < 0)
            return client_usage_error(rs->tool, &e);
    if (table_printer_init(&rm->tp, plan, query, form, color, 0, &e) < 0)
        return client_usage_error(rs->tool, &e);
    rm->plan = plan;
    rm->query = query;
    rm->rs = rs;
    rm->n_hosts = tl.n;
    rm->first = tl.items;
    rm->interim = !plan->outfile && form == RESULT_FORM_TABLE &&
                  (plan->interval_given || isatty(STDOUT_FILENO));
    rm->next_report_ms = clock_now_ms() + plan->interval * 500LL;   /* DTail: first after interval/2 */
    pthread_mutex_init(&rm->mu, NULL);
    const char *tz = client_timezone(o);
    rm->rq = (wire_request_t){.kind = WIRE_KIND_MAP, .files = files, .regex = "",
                              .query = (char *)query, .timeout_s = (uint32_t)o->timeout,
                              .flags = tz ? WIRE_REQ_TIMEZONE : 0, .timezone = (char *)tz};
    struct timespec start;
    clock_gettime(CLOCK_REALTIME, &start);
    /* The server ends its read at --timeout and still sends its final
     * table; the client waits a little longer for it. */
    fanout_opts_t fo = {.o = o, .cfg = cfg, .targets = &tl, .deadline_s = o->timeout ? o->timeout + 5 : 0};
    fanout_ops_t ops = {.ctx = rm, .run = run_map, .tick = tick, .done = host_done,
                        .early = &rm->rq};
    int abandoned;
    int status = fanout_run(&fo, &ops, rs, &abandoned);
    pthread_mutex_lock(&rm->mu);
    rm->closed = 1;   /* an abandoned host's late frames no longer touch acc */
    size_t n_final = 0;
    for (size_t i = 0; i < tl.n; i++)
        n_final += rm->hosts[i].final != 0;
    pthread_mutex_unlock(&rm->mu);
    /* A server that sent a table but no field report (an older one) may
     * have had the fields no other server had: no word about them then. */
    for (size_t i = 0; i < tl.n; i++)
        if (rm->hosts[i].final && !rm->hosts[i].have_fields)
            rm->fields.unknown = true;
    outfile_info_t info = {.query = query, .start = start};
    info.inputs = collect_inputs(rm, &info.n_inputs);
    if (!info.inputs)
        info.partial = 1;   /* out of memory: what failed is not known */
    if (status != 2 && rm->acc.table.failed) {
        err_set(&e, ERR_NOMEM, "out of memory: the merged result is incomplete");
        client_report(rs, &e);
    } else if (status != 2 && agg_accum_finish(&rm->acc, &e) == 0) {
        if (rm->acc.spill)
            LOG_INFO("spill|%zu runs, %llu group rows of the merged result in a temporary database",
                     spill_total_runs(rm->acc.spill), (unsigned long long)spill_n_rows(rm->acc.spill));
        field_report_mark_null(&rm->fields, plan,
                               rm->acc.spill ? spill_specs_mut(rm->acc.spill) : rm->acc.table.specs);
        /* No server sent its final table (all failed, or the run was
         * interrupted first): there is no result, and an empty table or
         * outfile would claim one. The summary says why. */
        long filled = 0;
        if (n_final > 0 && plan->fill) {
            if (rm->acc.spill)
                LOG_WARN("fill: the result spilled to disk (--memory-limit): its buckets are "
                         "not filled");
            else
                filled = fill_in_zone(plan, tz, &rm->acc.table, &e);
        }
        if (n_final == 0) {
            if (status < 1)
                status = 1;
        } else if (filled < 0) {
            client_report(rs, &e);
        } else if (plan->outfile) {
            write_outfile(rm, &info);
        } else {
            print_table(rm, &rm->acc.table, rm->acc.spill, 1);
        }
    } else if (status != 2) {
        client_report(rs, &e);
    }
    if (status != 2 && log_level >= LOG_WARN)
        field_report_warn(&rm->fields, plan, rs->tool, stderr);
    if (status != 2 && log_level >= LOG_WARN && !o->quiet)
        field_report_warn_parsing(&rm->fields.parsing, plan->logformat->name, rs->tool, stderr);
    if (status != 2 && outfile_info_partial(&info) && log_level >= LOG_WARN && !o->quiet &&
        !o->plain) {
        char text[2048];
        outfile_partial_text(&info, text, sizeof text);
        term_fprintf(stderr, "dmap: warning: %s\n", text);
    }
    if (rs->status > status)
        status = rs->status;
    /* The array is ours (its strings are the host tables'), abandoned
     * hosts or not: only what running host threads may touch is left to
     * the process exit. */
    free((void *)info.inputs);
    if (!abandoned) {
        field_report_free(&rm->fields);
        agg_accum_free(&rm->acc);
        for (size_t i = 0; i < tl.n; i++) {
            host_table_t *ht = &rm->hosts[i];
            agg_table_free(&ht->table);
            if (ht->fin_open)
                agg_accum_free(&ht->fin);
            for (size_t k = 0; k < ht->n_files; k++) {
                free((char *)ht->files[k].file);
                free((char *)ht->files[k].error);
            }
            free(ht->files);
            free(ht->why);
        }
        for (size_t k = 0; k < rm->asked.n; k++)
            free(rm->asked.v[k]);
        free(rm->asked.v);
        pthread_mutex_destroy(&rm->mu);
        free(rm->hosts);
        free(rm->specs);
        table_printer_free(&rm->tp);
        free(rm);
        free(files);
        fanout_targets_free(&tl);
    }
    return status;
}
