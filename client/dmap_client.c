/* dmap_client.c: the serverless mapreduce client. */
#include "client/dmap_client.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/config.h"
#include "base/outbuf.h"
#include "client/cli.h"
#include "client/client_common.h"
#include "client/remote.h"
#include "exec/mapscan.h"
#include "exec/scan/targets.h"
#include "exec/sink/outfile.h"
#include "exec/sink/result.h"
#include "parser/parser.h"

#define TERMINAL_DEFAULT_ROWS 10

typedef struct dmap_run {
    client_run_t run;           /* tool name and exit status */
    const plan_t *plan;         /* the query's plan */
    const char *query;          /* its text as given */
    mapscan_t ms;               /* the engine */
    pthread_mutex_t mu;         /* reporter vs main */
    pthread_cond_t cv;          /* wakes the reporter at the end */
    int done;                   /* all inputs read */
    int quiet;                  /* --quiet */
    int color;                  /* paint the table and the query line */
    unsigned char *group_key;   /* per select item: a group-by column */
    char *last_table;           /* the table text printed last */
    size_t last_len;            /* its length */
} dmap_run_t;

/* Renders table t to stdout (terminal form). As DTail, a table identical
 * to the one printed last is not printed again (an interim table that
 * already showed the final result is not repeated at the end). */
static void print_table(dmap_run_t *rs, const agg_table_t *t, int final)
{
    long long limit = rs->plan->limit_given ? rs->plan->limit : TERMINAL_DEFAULT_ROWS;
    result_t r;
    err_t e;
    if (result_build(rs->plan, t, limit, &r, &e) < 0) {
        client_report(&rs->run, &e);
        return;
    }
    outbuf_t text;
    if (outbuf_init_mem(&text, 64 * 1024, &e) == 0) {
        if (rs->color) {
            /* DTail shows the query above each table, cyan on black, dim. */
            static const char open_q[] = "\033[36m\033[40m\033[2m";
            static const char close_q[] = "\033[0m\033[49m\033[39m\n";
            outbuf_append(&text, open_q, sizeof open_q - 1);
            outbuf_append(&text, rs->query, strlen(rs->query));
            outbuf_append(&text, close_q, sizeof close_q - 1);
        }
        result_render_table(&r, &text, rs->color, rs->plan->order_index, rs->group_key);
        if (!text.failed && !(rs->last_table && rs->last_len == text.len &&
                              memcmp(rs->last_table, text.data, text.len) == 0)) {
            outbuf_t out = {.fd = STDOUT_FILENO, .data = text.data, .len = text.len, .cap = text.cap};
            outbuf_flush(&out);
            free(rs->last_table);
            rs->last_table = text.data;   /* keep it for the next comparison */
            rs->last_len = text.len;
            text.data = NULL;
        }
        outbuf_free(&text);
    }
    if (final && !rs->plan->limit_given && r.n_groups > TERMINAL_DEFAULT_ROWS)
        fprintf(stderr, "Got %zu results but limited terminal output to %d rows! "
                        "Use 'limit' clause to override!\n", r.n_groups, TERMINAL_DEFAULT_ROWS);
    result_free(&r);
}

/* Interim tables every interval while inputs are read (DTail prints the
 * table each interval); only to a terminal or when `interval` was given. */
static void *reporter(void *arg)
{
    dmap_run_t *rs = arg;
    pthread_mutex_lock(&rs->mu);
    for (;;) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += rs->plan->interval;
        while (!rs->done && pthread_cond_timedwait(&rs->cv, &rs->mu, &until) == 0)
            ;
        if (rs->done)
            break;
        pthread_mutex_unlock(&rs->mu);
        agg_table_t snap;
        err_t e;
        if (agg_table_init(&snap, rs->ms.specs, rs->plan->n_select, &e) == 0) {
            if (mapscan_snapshot(&rs->ms, &snap) == 0)
                print_table(rs, &snap, 0);
            agg_table_free(&snap);
        }
        pthread_mutex_lock(&rs->mu);
    }
    pthread_mutex_unlock(&rs->mu);
    return NULL;
}

static void local_zone(char *name, size_t name_cap, char *offset, size_t off_cap)
{
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    snprintf(name, name_cap, "%s", tm.tm_zone ? tm.tm_zone : "UTC");
    snprintf(offset, off_cap, "%ld", (long)tm.tm_gmtoff);
}

static void print_summary(dmap_run_t *rs, double seconds)
{
    map_stats_t st;
    mapscan_stats(&rs->ms, &st);
    if (!rs->quiet && log_level >= LOG_WARN) {
        char table[300] = "";
        if (rs->ms.has_filter)
            snprintf(table, sizeof table, " (%s)", rs->ms.filter.pattern);
        fprintf(stderr, "dmap: %llu lines read, %llu matched%s, %llu parsed, %llu not for this "
                        "format, %llu unparsed, %llu selected, %zu groups, %.3f s\n",
                st.lines_read, st.lines_matched, table, st.lines_parsed, st.lines_skipped,
                st.lines_unparsed, st.lines_selected, rs->ms.result.n_groups, seconds);
    }
    if (st.lines_unparsed && log_level >= LOG_WARN && !rs->quiet && log_level < LOG_DEBUG)
        fprintf(stderr, "dmap: %llu lines could not be parsed as log format %s "
                        "(--logLevel debug shows examples)\n",
                st.lines_unparsed, rs->plan->logformat->name);
    for (int i = 0; i < st.n_examples && log_level >= LOG_DEBUG; i++)
        fprintf(stderr, "dmap: unparsed: %s\n", st.examples[i]);
}

int dmap_client_main(int argc, char **argv)
{
    err_t e;
    err_clear(&e);
    cli_opts_t o;
    if (cli_parse(&o, CLI_DMAP, argc, argv, &e) < 0) {
        cli_free(&o);
        return client_usage_error("dmap", &e);
    }
    if (o.help || o.version) {
        if (o.help)
            cli_print_help(CLI_DMAP, argv[0]);
        else
            cli_print_version();
        cli_free(&o);
        return 0;
    }
    /* DTail: the first positional containing "select " is the query. */
    const char *query = o.query;
    int query_pos = -1;
    for (int i = 0; !query && i < o.n_positional; i++) {
        if (strcasestr(o.positional[i], "select ")) {
            query = o.positional[i];
            query_pos = i;
        }
    }
    if (!query) {
        err_set(&e, ERR_USAGE, "No mapreduce query specified, use '-query' flag");
        cli_free(&o);
        return client_usage_error("dmap", &e);
    }
    query_t *q = NULL;
    if (query_parse(query, strlen(query), NULL, &q, &e) < 0) {
        char buf[8192];
        query_error_format(query, strlen(query), &e, buf, sizeof buf);
        fprintf(stderr, "dmap: invalid query: %s\n", buf);
        cli_free(&o);
        return err_exit_status(e.code);
    }
    const plan_t *plan = query_plan(q);
    char host[256];
    config_t cfg;
    if (client_setup(&o, &cfg, host, sizeof host, &e) < 0) {
        query_free(q);
        cli_free(&o);
        return client_usage_error("dmap", &e);
    }
    LOG_DEBUG("query|%s", query_canonical(q));
    for (size_t i = 0; i < plan->n_warnings && log_level >= LOG_WARN; i++)
        fprintf(stderr, "dmap: warning: %s\n", plan->warnings[i].msg);

    if (remote_wanted(&o)) {   /* parsed here, run on the server */
        client_run_t run = {"dmap", 0};
        int status = remote_map_main(&o, &cfg, plan, query, query_pos, client_colors(&o, &cfg), &run);
        query_free(q);
        cli_free(&o);
        return status;
    }
    dmap_run_t rs = {.run = {"dmap", 0}, .plan = plan, .query = query, .quiet = o.quiet || o.plain};
    rs.color = client_colors(&o, &cfg);
    rs.group_key = calloc(plan->n_select ? plan->n_select : 1, 1);
    for (size_t i = 0; rs.group_key && i < plan->n_select; i++)
        rs.group_key[i] = plan->select[i].group_key;
    target_list_t targets;
    target_list_init(&targets);
    int fatal = client_targets(&o, query_pos, &targets, &rs.run, &e) < 0;
    char tz[64], tzoff[32];
    local_zone(tz, sizeof tz, tzoff, sizeof tzoff);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    map_opts_t mo = {
        .plan = plan,
        .max_line_len = cfg.max_line_len,
        .env = {.hostname = host, .timezone = tz, .timeoffset = tzoff},
        .n_threads = ncpu > 0 ? (int)ncpu : 1,
    };
    if (fatal || mapscan_init(&rs.ms, &mo, &e) < 0) {
        if (!fatal)
            mapscan_free(&rs.ms);
        free(rs.group_key);
        target_list_free(&targets);
        query_free(q);
        cli_free(&o);
        return client_usage_error("dmap", &e);
    }
    pthread_mutex_init(&rs.mu, NULL);
    pthread_cond_init(&rs.cv, NULL);
    pthread_t rep;
    int reporting = !plan->outfile && (plan->interval_given || isatty(STDOUT_FILENO)) &&
                    pthread_create(&rep, NULL, reporter, &rs) == 0;
    struct timespec t0, t1, wall0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    clock_gettime(CLOCK_REALTIME, &wall0);   /* the outfile records when the run began */
    for (size_t i = 0; i < targets.n; i++) {
        const target_t *t = &targets.items[i];
        input_t *in = input_open(t->path, &e);
        if (!in) {
            client_report(&rs.run, &e);
            continue;
        }
        if (mapscan_run(&rs.ms, in, t->path, t->source_id, (unsigned)i, &e) < 0)
            client_report(&rs.run, &e);
        input_close(in);
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (reporting) {
        pthread_mutex_lock(&rs.mu);
        rs.done = 1;
        pthread_cond_signal(&rs.cv);
        pthread_mutex_unlock(&rs.mu);
        pthread_join(rep, NULL);
    }
    if (rs.ms.result.failed) {
        err_set(&e, ERR_NOMEM, "out of memory: the result is incomplete");
        client_report(&rs.run, &e);
    }
    if (plan->outfile) {
        result_t r;
        map_stats_t st;
        mapscan_stats(&rs.ms, &st);
        outfile_info_t info = {.query = query, .start = wall0, .files = targets.items,
                               .n_files = targets.n, .stats = &st};
        clock_gettime(CLOCK_REALTIME, &info.end);
        if (result_build(plan, &rs.ms.result, plan->limit_given ? plan->limit : -1, &r, &e) < 0 ||
            outfile_write(plan, &r, &info, &e) < 0)
            client_report(&rs.run, &e);
        else
            LOG_INFO("%s to outfile|%s", plan->outfile_append ? "Appended" : "Wrote", plan->outfile);
        result_free(&r);
    } else {
        print_table(&rs, &rs.ms.result, 1);
    }
    print_summary(&rs, (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    mapscan_free(&rs.ms);
    free(rs.group_key);
    free(rs.last_table);
    pthread_mutex_destroy(&rs.mu);
    pthread_cond_destroy(&rs.cv);
    target_list_free(&targets);
    query_free(q);
    cli_free(&o);
    return rs.run.status;
}
