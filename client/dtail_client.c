/* dtail_client.c: dtail, serverless: follow files as they grow, printing
 * the lines that match (the cat/grep plan over followed inputs), or run a
 * mapreduce query over them with a report every interval.
 *
 * One thread per followed file, each with its own plan state and output
 * block; blocks go to stdout whole, under one lock, when a file has nothing
 * more to read for now (never per line). A watcher re-expands the file
 * specs every second and follows files that appear later from their start.
 * The run ends on --timeout, --shutdownAfter, or a signal (a first Ctrl-C
 * only prints a hint, as DTail). */
#include "client/dtail_client.h"

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
#include "client/client_common.h"
#include "client/dtail_query.h"
#include "client/interactive.h"
#include "client/interrupt.h"
#include "client/remote.h"
#include "exec/linescan.h"
#include "exec/scan/follow.h"
#include "exec/scan/followset.h"
#include "exec/scan/targets.h"
#include "exec/sink/lines.h"

#define OUTPUT_BLOCK (256 * 1024)
#define RESCAN_MS 1000

/* ---- the colour table -------------------------------------------------- */

static void print_color_table(int wide)
{
    static const char *colors[] = {"Black", "Red", "Green", "Yellow", "Blue",
                                   "Magenta", "Cyan", "White", "Default"};
    static const int fg_code[] = {30, 31, 32, 33, 34, 35, 36, 37, 39};
    static const int bg_code[] = {40, 41, 42, 43, 44, 45, 46, 47, 49};
    static const char *attrs[] = {"Bold", "Dim", "Italic", "Underline", "Blink",
                                  "RapidBlink", "Reverse", "None"};
    static const int attr_code[] = {1, 2, 3, 4, 5, 6, 7, -1};
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
                size_t len = color_paint(line, text, (size_t)n, fg_code[f], bg_code[b], attr_code[a]);
                outbuf_append(&out, line, len);
                outbuf_putc(&out, '\n');
                if (wide) {
                    static const char sample[] =
                        " The quick brown fox jumps over the lazy dog. 0123456789 ";
                    len = color_paint(line, sample, sizeof sample - 1, fg_code[f], bg_code[b],
                                      attr_code[a]);
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

typedef struct tail_run tail_run_t;

typedef struct follower {
    tail_run_t *run;        /* the whole run */
    char *path;             /* the followed path */
    char *source_id;        /* shown in REMOTE lines */
    int from_start;         /* appeared after the start */
    pthread_t thread;
    int started;
} follower_t;

struct tail_run {
    const cli_opts_t *o;
    long long deadline_ms;  /* --timeout or --shutdownAfter (clock_now_ms()) */
    const config_t *cfg;
    const char *host;
    enum line_format format;
    shared_out_t out;
    client_run_t rs;
    pthread_mutex_t rs_mu;  /* guards rs */
    follower_t **followers;
    size_t n_followers, cap_followers;
    followset_t set;        /* which paths and files are followed */
    dtail_query_t *query;   /* --query: the mapreduce side, else NULL */
};

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

static void flush_idle(void *ctx)
{
    outbuf_flush(ctx);
}

static void report(tail_run_t *t, const err_t *e)
{
    pthread_mutex_lock(&t->rs_mu);
    client_report(&t->rs, e);
    pthread_mutex_unlock(&t->rs_mu);
}

/* The cat/grep plan over one input (a followed file, or a piped stdin),
 * its output flushed whenever the input waits. */
static void scan_lines(tail_run_t *t, const char *path, const char *source_id, int from_start)
{
    err_t e;
    err_clear(&e);
    outbuf_t out;
    if (outbuf_init_sink(&out, OUTPUT_BLOCK, write_stdout, &t->out, &e) < 0) {
        report(t, &e);
        return;
    }
    out.escape_data = term_escapes(STDOUT_FILENO);
    /* A matcher per thread: PCRE2's match data is not shared. */
    matcher_t m;
    if (matcher_init(&m, t->o->regex ? t->o->regex : "", &e) < 0) {
        outbuf_free(&out);
        report(t, &e);
        return;
    }
    line_sink_t sink;
    linescan_t scan;
    linescan_opts_t lo = {
        .matcher = &m,
        .invert = t->o->invert,
        .before = linescan_context(t->o->before),
        .after = linescan_context(t->o->after),
        .max = (unsigned long long)t->o->max,
        .max_line_len = t->cfg->max_line_len,
    };
    if (line_sink_init(&sink, &out, t->format, t->host) < 0) {
        matcher_free(&m);
        outbuf_free(&out);
        err_set(&e, ERR_NOMEM, "out of memory");
        report(t, &e);
        return;
    }
    line_sink_set_source(&sink, source_id);
    follow_opts_t fo = {.from_start = from_start, .stop = &interrupt_stop,
                        .idle = flush_idle, .idle_ctx = &out};
    input_t *in = NULL;
    if (linescan_init(&scan, &lo, &e) == 0) {
        in = strcmp(path, "-") == 0 ? input_open_until("-", t->deadline_ms, &e)
                                    : follow_open(path, &fo, &e);
        linescan_stats_t stats = {0};
        if (!in || linescan_run(&scan, in, path, &sink, &stats, &e) < 0)
            report(t, &e);
        linescan_free(&scan);
    } else {
        report(t, &e);
    }
    input_close(in);
    outbuf_flush(&out);
    line_sink_free(&sink);
    outbuf_free(&out);
    matcher_free(&m);
}

static void *follow_lines(void *arg)
{
    follower_t *f = arg;
    scan_lines(f->run, f->path, f->source_id, f->from_start);
    return NULL;
}

static void *follow_query(void *arg)
{
    follower_t *f = arg;
    err_t e;
    err_clear(&e);
    follow_opts_t fo = {.from_start = f->from_start, .stop = &interrupt_stop};
    input_t *in = follow_open(f->path, &fo, &e);
    if (!in || dtail_query_follow(f->run->query, in, f->path, f->source_id, &e) < 0)
        report(f->run, &e);
    input_close(in);
    return NULL;
}

/* Starts following target tg unless its path or its file is followed. */
static void start_follower(tail_run_t *t, const target_t *tg, int from_start)
{
    if (!followset_claim(&t->set, tg->path))
        return;
    if (t->n_followers == t->cap_followers) {
        size_t cap = t->cap_followers ? t->cap_followers * 2 : 16;
        follower_t **fs = realloc(t->followers, cap * sizeof *fs);
        if (!fs)
            return;
        t->followers = fs;
        t->cap_followers = cap;
    }
    follower_t *f = calloc(1, sizeof *f);
    if (!f || !(f->path = strdup(tg->path)) || !(f->source_id = strdup(tg->source_id))) {
        if (f)
            free(f->path);
        free(f);
        return;
    }
    f->run = t;
    f->from_start = from_start;
    f->started = pthread_create(&f->thread, NULL, t->query ? follow_query : follow_lines, f) == 0;
    t->followers[t->n_followers++] = f;
}

/* Which files the specs name now; unmatched globs are quiet after the
 * start (report_missing 0). */
static void expand(tail_run_t *t, target_list_t *tl, int report_missing)
{
    err_t e;
    pthread_mutex_lock(&t->rs_mu);
    if (client_targets(t->o, -1, report_missing, tl, &t->rs, &e) < 0)
        client_report(&t->rs, &e);
    pthread_mutex_unlock(&t->rs_mu);
}

/* Watches the specs until the run ends. */
static void supervise(tail_run_t *t, long long deadline_ms)
{
    long long next_scan = clock_now_ms() + RESCAN_MS;
    while (!interrupt_stop) {
        if (interrupt_take_stats_request())
            interrupt_print_hint();
        long long now = clock_now_ms();
        if (deadline_ms > 0 && now >= deadline_ms)
            break;
        if (now >= next_scan) {
            followset_note_current(&t->set);
            target_list_t tl;
            target_list_init(&tl);
            expand(t, &tl, 0);
            for (size_t i = 0; i < tl.n; i++)
                if (strcmp(tl.items[i].path, "-") != 0)
                    start_follower(t, &tl.items[i], 1);
            target_list_free(&tl);
            next_scan = now + RESCAN_MS;
        }
        clock_sleep_ms(50);
    }
    interrupt_stop = 1;
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
    pthread_mutex_init(&t.out.mu, NULL);
    pthread_mutex_init(&t.rs_mu, NULL);
    followset_init(&t.set);
    matcher_t m;   /* the pattern checked once (exit 2); each follower compiles its own */
    if (matcher_init(&m, o.regex ? o.regex : "", &e) < 0) {
        cli_free(&o);
        return client_usage_error("dtail", &e);
    }
    if (remote_wanted(&o)) {   /* the pattern was checked here, it runs there */
        status = remote_tail_main(&o, &cfg, &t.rs);
        matcher_free(&m);
        cli_free(&o);
        return status;
    }
    t.format = client_line_format(&o, &cfg);
    if (o.query && dtail_query_open(&t.query, &o, &cfg, host, &interrupt_stop, &e) < 0) {
        matcher_free(&m);
        cli_free(&o);
        return client_usage_error("dtail", &e);
    }
    interrupt_install();
    long long deadline = clock_now_ms() + client_follow_limit_s(&o) * 1000;
    t.deadline_ms = deadline;

    if (!client_files_given(&o, -1)) {
        /* No file: a piped stdin is read to its end, as a cat stream. */
        if (isatty(STDIN_FILENO)) {
            err_set(&e, ERR_USAGE, "no files to follow: give --files or file arguments");
            client_report(&t.rs, &e);
        } else if (t.query) {
            input_t *in = input_open_until("-", deadline, &e);
            if (!in || dtail_query_follow(t.query, in, "-", "-", &e) < 0)
                client_report(&t.rs, &e);
            input_close(in);
        } else {
            scan_lines(&t, "-", "-", 1);
        }
    } else {
        target_list_t tl;
        target_list_init(&tl);
        expand(&t, &tl, 1);
        for (size_t i = 0; i < tl.n; i++)
            start_follower(&t, &tl.items[i], 0);
        target_list_free(&tl);
        supervise(&t, deadline);
    }
    interrupt_stop = 1;
    for (size_t i = 0; i < t.n_followers; i++) {
        follower_t *f = t.followers[i];
        if (f->started)
            pthread_join(f->thread, NULL);
        free(f->path);
        free(f->source_id);
        free(f);
    }
    if (t.query)
        dtail_query_close(t.query, &t.rs);
    free(t.followers);
    followset_free(&t.set);
    matcher_free(&m);
    cli_free(&o);
    return t.rs.status;
}
