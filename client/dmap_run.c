/* dmap_run.c: run a plan over inputs, then render or write the result. */
#include "client/dmap_run.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "base/outbuf.h"
#include "exec/mapscan.h"
#include "exec/sink/outfile.h"

#define TERMINAL_DEFAULT_ROWS 10

typedef struct dmap_state {
    const dmap_job_t *job;      /* what runs */
    client_run_t *run;          /* tool name and exit status */
    mapscan_t ms;               /* the engine */
    pthread_mutex_t mu;         /* reporter vs main */
    pthread_cond_t cv;          /* wakes the reporter at the end */
    int done;                   /* all inputs read */
    unsigned char *group_key;   /* per select item: a group-by column */
    char *last_table;           /* the table text printed last */
    size_t last_len;            /* its length */
} dmap_state_t;

static void write_stdout(outbuf_t *text)
{
    outbuf_t out = {.fd = STDOUT_FILENO, .data = text->data, .len = text->len, .cap = text->cap};
    outbuf_flush(&out);
}

/* Renders table t to stdout (terminal form). As DTail, a table identical
 * to the one printed last is not printed again (an interim table that
 * already showed the final result is not repeated at the end). */
static void print_table(dmap_state_t *rs, const agg_table_t *t, int final)
{
    const plan_t *plan = rs->job->plan;
    int table = rs->job->show == DMAP_SHOW_TABLE;
    long long limit = plan->limit_given ? plan->limit : table ? TERMINAL_DEFAULT_ROWS : -1;
    result_t r;
    err_t e;
    if (result_build(plan, t, limit, &r, &e) < 0) {
        client_report(rs->run, &e);
        return;
    }
    outbuf_t text;
    if (outbuf_init_mem(&text, 64 * 1024, &e) == 0) {
        if (!table) {
            dmap_show_text(&r, plan, rs->job->show, &text);
        } else {
            if (rs->job->color) {
                /* DTail shows the query above each table, cyan on black, dim. */
                static const char open_q[] = "\033[36m\033[40m\033[2m";
                static const char close_q[] = "\033[0m\033[49m\033[39m\n";
                outbuf_append(&text, open_q, sizeof open_q - 1);
                outbuf_append(&text, rs->job->query, strlen(rs->job->query));
                outbuf_append(&text, close_q, sizeof close_q - 1);
            }
            result_render_table(&r, &text, rs->job->color, plan->order_index, rs->group_key);
        }
        if (!text.failed && !(rs->last_table && rs->last_len == text.len &&
                              memcmp(rs->last_table, text.data, text.len) == 0)) {
            write_stdout(&text);
            free(rs->last_table);
            rs->last_table = text.data;   /* keep it for the next comparison */
            rs->last_len = text.len;
            text.data = NULL;
        }
        outbuf_free(&text);
    }
    if (final && table && !plan->limit_given && r.n_groups > TERMINAL_DEFAULT_ROWS)
        fprintf(stderr, "Got %zu results but limited terminal output to %d rows! "
                        "Use 'limit' clause to override!\n", r.n_groups, TERMINAL_DEFAULT_ROWS);
    result_free(&r);
}

/* Interim tables every interval while inputs are read (DTail prints the
 * table each interval); only to a terminal or when `interval` was given. */
static void *reporter(void *arg)
{
    dmap_state_t *rs = arg;
    pthread_mutex_lock(&rs->mu);
    for (;;) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += rs->job->plan->interval;
        while (!rs->done && pthread_cond_timedwait(&rs->cv, &rs->mu, &until) == 0)
            ;
        if (rs->done)
            break;
        pthread_mutex_unlock(&rs->mu);
        agg_table_t snap;
        err_t e;
        if (agg_table_init(&snap, rs->ms.specs, rs->job->plan->n_select, &e) == 0) {
            if (mapscan_snapshot(&rs->ms, &snap) == 0)
                print_table(rs, &snap, 0);
            agg_table_free(&snap);
        }
        pthread_mutex_lock(&rs->mu);
    }
    pthread_mutex_unlock(&rs->mu);
    return NULL;
}

void dmap_local_zone(char *name, size_t name_cap, char *offset, size_t off_cap)
{
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    snprintf(name, name_cap, "%s", tm.tm_zone ? tm.tm_zone : "UTC");
    snprintf(offset, off_cap, "%ld", (long)tm.tm_gmtoff);
}

static void print_summary(dmap_state_t *rs, const map_stats_t *st, double seconds)
{
    int quiet = rs->job->quiet;
    if (!quiet && log_level >= LOG_WARN) {
        char table[300] = "";
        if (rs->ms.has_filter)
            snprintf(table, sizeof table, " (%s)", rs->ms.filter.pattern);
        fprintf(stderr, "dmap: %llu lines read, %llu matched%s, %llu parsed, %llu not for this "
                        "format, %llu unparsed, %llu selected, %zu groups, %.3f s\n",
                st->lines_read, st->lines_matched, table, st->lines_parsed, st->lines_skipped,
                st->lines_unparsed, st->lines_selected, rs->ms.result.n_groups, seconds);
    }
    if (st->lines_unparsed && log_level >= LOG_WARN && !quiet && log_level < LOG_DEBUG)
        fprintf(stderr, "dmap: %llu lines could not be parsed as log format %s "
                        "(--logLevel debug shows examples)\n",
                st->lines_unparsed, rs->job->plan->logformat->name);
    for (int i = 0; i < st->n_examples && log_level >= LOG_DEBUG; i++)
        fprintf(stderr, "dmap: unparsed: %s\n", st->examples[i]);
}

/* Every input folded into rs->ms.result; returns 1 when cancelled. */
static int read_inputs(dmap_state_t *rs)
{
    const dmap_job_t *job = rs->job;
    for (size_t i = 0; i < job->n_targets; i++) {
        if (job->cancel && *job->cancel)
            return 1;
        const target_t *t = &job->targets[i];
        err_t e;
        err_clear(&e);
        int fd = job->mem_fds ? job->mem_fds[i] : -1;
        input_t *in = fd >= 0 ? input_open_fd(fd, t->path, &e) : input_open(t->path, &e);
        if (!in) {
            client_report(rs->run, &e);
            continue;
        }
        int rc = mapscan_run(&rs->ms, in, t->path, t->source_id, (unsigned)i, &e);
        input_close(in);
        if (rc < 0 && job->cancel && *job->cancel)
            return 1;
        if (rc < 0)
            client_report(rs->run, &e);
    }
    return job->cancel && *job->cancel;
}

static void write_outfile(dmap_state_t *rs, const map_stats_t *st, struct timespec start)
{
    const dmap_job_t *job = rs->job;
    const plan_t *plan = job->plan;
    outfile_info_t info = {.query = job->query, .start = start, .files = job->targets,
                           .n_files = job->n_targets, .stats = st};
    clock_gettime(CLOCK_REALTIME, &info.end);
    result_t r;
    err_t e;
    err_clear(&e);
    if (result_build(plan, &rs->ms.result, plan->limit_given ? plan->limit : -1, &r, &e) < 0 ||
        outfile_write(plan, &r, &info, &e) < 0)
        client_report(rs->run, &e);
    else
        LOG_INFO("%s to outfile|%s", plan->outfile_append ? "Appended" : "Wrote", plan->outfile);
    result_free(&r);
}

int dmap_run(const dmap_job_t *job, client_run_t *run)
{
    const plan_t *plan = job->plan;
    dmap_state_t rs = {.job = job, .run = run};
    err_t e;
    err_clear(&e);
    char tz[64], tzoff[32];
    dmap_local_zone(tz, sizeof tz, tzoff, sizeof tzoff);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    map_opts_t mo = {
        .plan = plan,
        .max_line_len = job->max_line_len,
        .env = {.hostname = job->host, .timezone = tz, .timeoffset = tzoff},
        .n_threads = ncpu > 0 ? (int)ncpu : 1,
        .cancel = job->cancel,
    };
    rs.group_key = calloc(plan->n_select ? plan->n_select : 1, 1);
    if (!rs.group_key || mapscan_init(&rs.ms, &mo, &e) < 0) {
        if (rs.group_key)
            mapscan_free(&rs.ms);
        else
            err_set(&e, ERR_NOMEM, "out of memory");
        free(rs.group_key);
        client_report(run, &e);
        return 0;
    }
    for (size_t i = 0; i < plan->n_select; i++)
        rs.group_key[i] = plan->select[i].group_key;
    pthread_mutex_init(&rs.mu, NULL);
    pthread_cond_init(&rs.cv, NULL);
    pthread_t rep;
    int reporting = !plan->outfile && (plan->interval_given || isatty(STDOUT_FILENO)) &&
                    pthread_create(&rep, NULL, reporter, &rs) == 0;
    struct timespec t0, t1, start;
    clock_gettime(CLOCK_REALTIME, &start);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int cancelled = read_inputs(&rs);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (reporting) {
        pthread_mutex_lock(&rs.mu);
        rs.done = 1;
        pthread_cond_signal(&rs.cv);
        pthread_mutex_unlock(&rs.mu);
        pthread_join(rep, NULL);
    }
    if (!cancelled) {
        if (rs.ms.result.failed) {
            err_set(&e, ERR_NOMEM, "out of memory: the result is incomplete");
            client_report(run, &e);
        }
        map_stats_t st;
        mapscan_stats(&rs.ms, &st);
        if (plan->outfile)
            write_outfile(&rs, &st, start);
        else
            print_table(&rs, &rs.ms.result, 1);
        print_summary(&rs, &st, (double)(t1.tv_sec - t0.tv_sec) +
                                    (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
    }
    mapscan_free(&rs.ms);
    free(rs.group_key);
    free(rs.last_table);
    pthread_mutex_destroy(&rs.mu);
    pthread_cond_destroy(&rs.cv);
    return cancelled;
}
