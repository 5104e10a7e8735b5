/* tail.c: dtail, serverless: follow files as they grow, printing
 * the lines that match (the cat/grep plan over followed inputs), or run a
 * mapreduce query over them with a report every interval.
 *
 * The files are followed by exec's follow run (exec/follow_run.h), the
 * same supervisor dserver's TAIL uses: one thread reads every file, the
 * output goes to stdout in blocks after each round of reads (never per
 * line), rotations and truncations are told on stderr as tail -F does, and
 * the specs are expanded again every second (files that appear later are
 * followed from their start). The run ends on --timeout, --shutdownAfter,
 * or a signal (a first Ctrl-C only prints a hint, as DTail). */
#include "client/serverless/tail.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/config.h"
#include "base/fdio.h"
#include "base/log.h"
#include "base/outbuf.h"
#include "base/term.h"
#include "client/tools/common.h"
#include "client/tools/request.h"
#include "client/serverless/query.h"
#include "client/interactive/reload.h"
#include "client/tools/interrupt.h"
#include "client/remote/session.h"
#include "exec/follow_plan.h"
#include "exec/follow_run.h"
#include "exec/linescan.h"
#include "exec/scan/journal_spec.h"
#include "exec/scan/targets.h"
#include "exec/sink/lines.h"

#define OUTPUT_BLOCK (256 * 1024)

/* ---- the colour table -------------------------------------------------- */

static void print_color_table(int wide)
{
    static const char *colors[] = {"Black", "Red", "Green", "Yellow", "Blue",
                                   "Magenta", "Cyan", "White", "Default"};
    static const uint8_t fg_code[] = {30, 31, 32, 33, 34, 35, 36, 37, 39};
    static const uint8_t bg_code[] = {40, 41, 42, 43, 44, 45, 46, 47, 49};
    static const char *attrs[] = {"Bold", "Dim", "Italic", "Underline", "Blink",
                                  "RapidBlink", "Reverse", "None"};
    static const uint8_t attr_code[] = {1, 2, 3, 4, 5, 6, 7, PAINT_NO_ATTR};
    outbuf_t out;
    err_t e;
    if (outbuf_init(&out, STDOUT_FILENO, 64 * 1024, &e) < 0)
        return;
    for (size_t a = 0; a < 8; a++) {
        for (size_t f = 0; f < 9; f++) {
            for (size_t b = 0; b < 9; b++) {
                if (f == b)
                    continue;
                char text[160], line[256];
                int n = snprintf(text, sizeof text,
                                 " Foreground:%10s  |  Background:%10s  |  Attribute:%10s ",
                                 colors[f], colors[b], attrs[a]);
                paint_t c = {fg_code[f], bg_code[b], attr_code[a]};
                size_t len = paint_text(line, c, text, (size_t)n);
                outbuf_append(&out, line, len);
                outbuf_putc(&out, '\n');
                if (wide) {
                    static const char sample[] =
                        " The quick brown fox jumps over the lazy dog. 0123456789 ";
                    len = paint_text(line, c, sample, sizeof sample - 1);
                    outbuf_append(&out, line, len);
                    outbuf_putc(&out, '\n');
                }
            }
        }
    }
    outbuf_flush(&out);
    outbuf_free(&out);
}

/* ---- followed files ----------------------------------------------------- */

typedef struct shared_out {
    pthread_mutex_t mu;     /* one block at a time on stdout */
    int failed;             /* stdout is gone (EPIPE): everything stops */
} shared_out_t;

typedef struct tail_run {
    const cli_opts_t *o;
    long long deadline_ms;  /* --timeout or --shutdownAfter (clock_now_ms()) */
    const config_t *cfg;
    const char *host;
    shared_out_t so;
    client_run_t rs;
    pthread_mutex_t rs_mu;  /* guards rs (the query's reporter reports too) */
    dtail_query_t *query;   /* --query: the mapreduce side, else NULL */
    /* the follow run and its cat/grep plan */
    follow_run_t *run;
    follow_lines_t lines;   /* the request's cat/grep plan, its sink and follow plan */
    int have_lines;
    outbuf_t out;
} tail_run_t;

static int write_stdout(void *ctx, const char *p, size_t n, int *err)
{
    shared_out_t *so = ctx;
    pthread_mutex_lock(&so->mu);
    if (!so->failed && fdio_write_all(STDOUT_FILENO, p, n) < 0) {
        *err = errno;
        so->failed = 1;
    }
    int failed = so->failed;
    pthread_mutex_unlock(&so->mu);
    if (failed)
        interrupt_stop = 1;
    return failed ? -1 : 0;
}

static void report(tail_run_t *t, const err_t *e)
{
    pthread_mutex_lock(&t->rs_mu);
    client_report(&t->rs, e);
    pthread_mutex_unlock(&t->rs_mu);
}

/* A piped stdin is read to its end, as a cat stream, through the same
 * cat/grep plan. */
static void scan_stdin(tail_run_t *t)
{
    err_t e;
    err_clear(&e);
    linescan_t scan;
    input_t *in = NULL;
    if (linescan_init(&scan, &t->lines.plan.lo, &e) == 0) {
        in = input_open_until("-", t->deadline_ms, &e);
        linescan_stats_t stats = {0};
        if (!in || linescan_run(&scan, in, "-", &t->lines.sink, &stats, &e) < 0)
            report(t, &e);
        linescan_free(&scan);
    } else {
        report(t, &e);
    }
    input_close(in);
    outbuf_flush(&t->out);
}

/* follow.h's notice hook: tail -F's messages, after the lines before them. */
static void notice(void *ctx, const char *path, const char *what)
{
    tail_run_t *t = ctx;
    if (!t->query)
        outbuf_flush(&t->out);
    if (log_level >= LOG_WARN)
        term_fprintf(stderr, "dtail: %s: %s\n", path, what);
}

static void file_failed(void *ctx, const char *path, const err_t *e)
{
    (void)path;   /* the follow source names it in e */
    report(ctx, e);
}

/* Follows target tg unless its path or its file is followed. */
static void start_follower(tail_run_t *t, const target_t *tg, int from_start)
{
    /* a journal target is opened once, at the start: a later look (from
     * the start of a file that appeared) has nothing new to find */
    if (follow_run_has(t->run, tg->path) ||
        (from_start && journal_spec_is(tg->path, strlen(tg->path))))
        return;
    err_t e;
    err_clear(&e);
    mapscan_t *ms = NULL;
    if (t->query && !(ms = dtail_query_scan(t->query, &e))) {
        report(t, &e);
        return;
    }
    follow_file_t *ff = follow_file_new(&t->lines.plan, tg->path, tg->source_id, ms, &e);
    follow_opts_t fo = {.from_start = from_start, .notice = notice, .notice_ctx = t};
    int added = ff ? follow_run_add(t->run, tg->path, &fo, &follow_file_ops, ff, &e) : -1;
    if (added <= 0) {   /* else the run owns ff */
        if (added < 0)
            report(t, &e);
        follow_file_free(ff);
    }
}

/* Which files the specs name now; unmatched globs are quiet after the
 * start (report_missing 0). */
static void expand(tail_run_t *t, int report_missing, int from_start)
{
    err_t e;
    target_list_t tl;
    target_list_init(&tl);
    pthread_mutex_lock(&t->rs_mu);
    if (client_targets(t->o, -1, report_missing, &tl, &t->rs, &e) < 0)
        client_report(&t->rs, &e);
    pthread_mutex_unlock(&t->rs_mu);
    for (size_t i = 0; i < tl.n; i++)
        if (strcmp(tl.items[i].path, "-") != 0)
            start_follower(t, &tl.items[i], from_start);
    target_list_free(&tl);
}

static void rescan(void *ctx, follow_run_t *r)
{
    (void)r;
    expand(ctx, 0, 1);
}

static void print_summary(tail_run_t *t)
{
    char sum[512];
    follow_run_summary(t->run, sum, sizeof sum);
    term_fprintf(stderr, "dtail: %s\n", sum);
}

static int tick(void *ctx)
{
    tail_run_t *t = ctx;
    if (interrupt_take_stats_request()) {   /* a first Ctrl-C: the stats, and the hint */
        if (!t->query)
            outbuf_flush(&t->out);
        print_summary(t);
        interrupt_print_hint();
    }
    return interrupt_stop;
}

static void flush(void *ctx)
{
    tail_run_t *t = ctx;
    if (!t->query)
        outbuf_flush(&t->out);
}

static void run_warn(void *ctx, const char *msg)
{
    (void)ctx;
    if (log_level >= LOG_WARN)
        term_fprintf(stderr, "dtail: warning: %s\n", msg);
}

/* The cat/grep plan's parts: one matcher, sink and output block for every
 * file of the run (one thread reads them all). */
static int plan_init(tail_run_t *t, err_t *e)
{
    if (outbuf_init_sink(&t->out, OUTPUT_BLOCK, write_stdout, &t->so, e) < 0)
        return -1;
    t->out.escape_data = term_escapes(STDOUT_FILENO);
    exec_request_t rq = client_request(t->o, t->cfg);
    exec_env_t env = client_env(t->o, t->cfg, t->host);
    if (follow_lines_init(&t->lines, &rq, &env, &t->out, file_failed, t, e) < 0)
        return -1;
    t->have_lines = 1;
    return 0;
}

int dtail_client_main(int argc, char **argv)
{
    err_t e;
    err_clear(&e);
    cli_opts_t o;
    int status;
    if (client_parse_args(&o, CLI_DTAIL, argc, argv, &status))
        return status;
    if (o.check_health) {
        printf("WARN: DTail health check has moved to separate binary dtailhealth - "
               "please adjust the monitoring scripts!\n");
        cli_free(&o);
        return 1;
    }
    if ((o.color_table || o.wide_color_table) && !o.plain) {
        print_color_table(o.wide_color_table);
        cli_free(&o);
        return 0;
    }
    char host[256];
    config_t cfg;
    if (client_setup(&o, &cfg, host, sizeof host, &e) < 0 ||
        interactive_check(&o, remote_wanted(&o), &e) < 0) {
        cli_free(&o);
        return client_usage_error("dtail", &e);
    }
    tail_run_t t = {.o = &o, .cfg = &cfg, .host = host, .rs = {"dtail", 0}};
    pthread_mutex_init(&t.so.mu, NULL);
    pthread_mutex_init(&t.rs_mu, NULL);
    exec_request_t rq = client_request(&o, &cfg);
    exec_env_t env = client_env(&o, &cfg, host);
    exec_plan_t check;   /* the pattern and query checked once (exit 2) */
    if (client_plan(&check, &rq, &env, &e) < 0) {
        cli_free(&o);
        return client_usage_error("dtail", &e);
    }
    exec_plan_free(&check);
    if (remote_wanted(&o)) {   /* the pattern was checked here, it runs there */
        status = remote_tail_main(&o, &cfg, &t.rs);
        cli_free(&o);
        return status;
    }
    if (o.query && dtail_query_open(&t.query, &o, &cfg, host, &interrupt_stop, &e) < 0) {
        cli_free(&o);
        return client_usage_error("dtail", &e);
    }
    interrupt_install();
    t.deadline_ms = clock_now_ms() + client_follow_limit_s(&o) * 1000;
    follow_run_hooks_t hooks = {.ctx = &t, .rescan = rescan, .tick = tick, .flush = flush,
                                .warn = run_warn, .rescan_ms = cfg.glob_retry_ms};
    if (plan_init(&t, &e) < 0 || !(t.run = follow_run_new(&hooks, &interrupt_stop, &e))) {
        client_report(&t.rs, &e);
    } else if (!client_files_given(&o, -1)) {
        /* No file: a piped stdin is read to its end, as a cat stream. */
        if (isatty(STDIN_FILENO)) {
            err_set(&e, ERR_USAGE, "no files to follow: give --files or file arguments");
            client_report(&t.rs, &e);
        } else if (t.query) {
            input_t *in = input_open_until("-", t.deadline_ms, &e);
            if (!in || dtail_query_follow(t.query, in, "-", "-", &e) < 0)
                client_report(&t.rs, &e);
            input_close(in);
        } else {
            scan_stdin(&t);
        }
    } else {
        expand(&t, 1, 0);
        follow_run_loop(t.run, t.deadline_ms);
        outbuf_flush(&t.out);
        char sum[512];
        /* What could not be read is said at the end too, once, as a total. */
        if (follow_run_summary(t.run, sum, sizeof sum) && log_level >= LOG_WARN)
            term_fprintf(stderr, "dtail: %s\n", sum);
    }
    interrupt_stop = 1;
    if (t.query)
        dtail_query_close(t.query, &t.rs);
    follow_run_free(t.run);
    if (t.have_lines)
        follow_lines_free(&t.lines);
    outbuf_free(&t.out);
    cli_free(&o);
    return t.rs.status;
}
