/* scan_client.c: the serverless cat/grep client. */
#include "client/scan_client.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "base/outbuf.h"
#include "exec/linescan.h"
#include "exec/scan/targets.h"

#define OUTPUT_BLOCK (1024 * 1024)

typedef struct run_state {
    const char *tool;   /* program name for messages */
    int status;         /* exit status so far */
} run_state_t;

static void report(run_state_t *rs, const err_t *e)
{
    if (log_level >= LOG_ERROR)
        fprintf(stderr, "%s: error: %s\n", rs->tool, e->msg);
    int st = err_exit_status(e->code);
    if (st > rs->status)
        rs->status = st;
}

static void report_cb(void *ctx, const err_t *e)
{
    report(ctx, e);
}

static enum line_format choose_format(const cli_opts_t *o, const config_t *cfg)
{
    if (o->plain)
        return LINE_PLAIN;
    if (o->no_color || !cfg->term_colors_enable)
        return LINE_REMOTE;
    if (o->color && strcmp(o->color, "always") == 0)
        return LINE_COLOR;
    if (o->color && strcmp(o->color, "never") == 0)
        return LINE_REMOTE;
    const char *nc = getenv("NO_COLOR");
    if ((nc && *nc) || !isatty(STDOUT_FILENO))
        return LINE_REMOTE;
    return LINE_COLOR;
}

static int usage_error(const char *tool, const err_t *e)
{
    fprintf(stderr, "%s: %s\n", tool, e->msg);
    return err_exit_status(e->code);
}

/* Larger pipe buffers mean fewer wake-ups of the reader on the other end. */
static void grow_stdout_pipe(void)
{
#ifdef F_SETPIPE_SZ
    if (fcntl(STDOUT_FILENO, F_GETPIPE_SZ) > 0)
        fcntl(STDOUT_FILENO, F_SETPIPE_SZ, 1024 * 1024);
#endif
}

int scan_client_main(enum cli_tool tool, int argc, char **argv)
{
    const char *name = cli_tool_name(tool);
    err_t e;
    err_clear(&e);
    cli_opts_t o;
    if (cli_parse(&o, tool, argc, argv, &e) < 0) {
        cli_free(&o);
        return usage_error(name, &e);
    }
    if (o.help) {
        cli_print_help(tool, argv[0]);
        cli_free(&o);
        return 0;
    }
    if (o.version) {
        cli_print_version();
        cli_free(&o);
        return 0;
    }
    char host[256];
    cli_host_name(host, sizeof host);
    log_set_host(host);

    config_t cfg;
    config_defaults(&cfg);
    if (cli_integration_mode())
        cfg.max_line_len = 1024;
    if (config_load(&cfg, o.cfg, &e) < 0) {
        cli_free(&o);
        return usage_error(name, &e);
    }
    /* Serverless runs log at warn unless asked otherwise (as DTail). */
    log_level = LOG_WARN;
    if (cfg.log_level[0])
        log_level_parse(cfg.log_level, &log_level);
    if (o.log_level)
        log_level_parse(o.log_level, &log_level);
    if (o.max_line_len)
        cfg.max_line_len = (size_t)o.max_line_len;
    if (o.servers && *o.servers && strcasecmp(o.servers, "serverless") != 0) {
        err_set(&e, ERR_USAGE, "--servers: server mode is not available yet in this build; "
                               "run without --servers to read local files");
        cli_free(&o);
        return usage_error(name, &e);
    }

    matcher_t m;
    if (matcher_init(&m, tool == CLI_DGREP && o.regex ? o.regex : "", &e) < 0) {
        cli_free(&o);
        return usage_error(name, &e);
    }
    LOG_DEBUG("Using %s matching for pattern:|%s", matcher_strategy(&m), m.pattern);

    run_state_t rs = {.tool = name, .status = 0};
    target_list_t targets;
    target_list_init(&targets);
    if (o.files && target_list_add_spec(&targets, o.files, report_cb, &rs, &e) < 0)
        goto fatal;
    for (int i = 0; i < o.n_positional; i++)
        if (target_list_add_spec(&targets, o.positional[i], report_cb, &rs, &e) < 0)
            goto fatal;
    if (!o.files && o.n_positional == 0) {
        if (isatty(STDIN_FILENO)) {
            err_set(&e, ERR_USAGE, "no input: give files with --files or as arguments, or pipe into stdin");
            goto fatal;
        }
        if (target_list_add_spec(&targets, "-", NULL, NULL, &e) < 0)
            goto fatal;
    }

    outbuf_t out;
    if (outbuf_init(&out, STDOUT_FILENO, OUTPUT_BLOCK, &e) < 0)
        goto fatal;
    grow_stdout_pipe();
    line_sink_t sink;
    if (line_sink_init(&sink, &out, choose_format(&o, &cfg), host) < 0) {
        outbuf_free(&out);
        err_set(&e, ERR_NOMEM, "out of memory");
        goto fatal;
    }
    linescan_opts_t lo = {
        .matcher = &m,
        .invert = o.invert,
        .before = (unsigned)(o.before > 1000000 ? 1000000 : o.before),
        .after = (unsigned)(o.after > 1000000 ? 1000000 : o.after),
        .max = (unsigned long long)o.max,
        .max_line_len = cfg.max_line_len,
    };
    linescan_t scan;
    if (linescan_init(&scan, &lo, &e) < 0) {
        line_sink_free(&sink);
        outbuf_free(&out);
        goto fatal;
    }
    linescan_stats_t stats = {0};
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int n_threads = ncpu > 0 ? (int)ncpu : 1;
    for (size_t i = 0; i < targets.n && !out.failed; i++) {
        const target_t *t = &targets.items[i];
        input_t *in = input_open(t->path, &e);
        if (!in) {
            report(&rs, &e);
            continue;
        }
        line_sink_set_source(&sink, t->source_id);
        int rc = linescan_parallel_eligible(&lo, &sink, in)
            ? linescan_run_parallel(&lo, in, t->path, &sink, n_threads, &stats, &e)
            : linescan_run(&scan, in, t->path, &sink, &stats, &e);
        if (rc < 0)
            report(&rs, &e);
        input_close(in);
    }
    outbuf_flush(&out);
    if (out.failed) {
        err_set(&e, ERR_IO, "writing output failed: %s", strerror(out.write_errno));
        report(&rs, &e);
    }
    linescan_free(&scan);
    line_sink_free(&sink);
    outbuf_free(&out);
    target_list_free(&targets);
    matcher_free(&m);
    cli_free(&o);
    return rs.status;

fatal:
    target_list_free(&targets);
    matcher_free(&m);
    cli_free(&o);
    return usage_error(name, &e);
}
