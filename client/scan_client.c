/* scan_client.c: the serverless cat/grep client. */
#include "client/scan_client.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "client/client_common.h"
#include "client/interactive.h"
#include "client/remote.h"
#include "base/outbuf.h"
#include "exec/linescan.h"
#include "exec/scan/targets.h"

#define OUTPUT_BLOCK (1024 * 1024)

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
    int status;
    if (client_parse_args(&o, tool, argc, argv, &status))
        return status;
    char host[256];
    config_t cfg;
    if (client_setup(&o, &cfg, host, sizeof host, &e) < 0 ||
        interactive_check(&o, remote_wanted(&o), &e) < 0) {
        cli_free(&o);
        return client_usage_error(name, &e);
    }

    matcher_t m;
    if (matcher_init(&m, tool == CLI_DGREP && o.regex ? o.regex : "", &e) < 0) {
        cli_free(&o);
        return client_usage_error(name, &e);
    }
    LOG_DEBUG("Using %s matching for pattern:|%s", matcher_strategy(&m), m.pattern);

    client_run_t rs = {.tool = name, .status = 0};
    if (remote_wanted(&o)) {   /* the pattern was checked here, it runs there */
        status = remote_scan_main(&o, tool, &cfg, &rs);
        matcher_free(&m);
        cli_free(&o);
        return status;
    }
    target_list_t targets;
    target_list_init(&targets);
    if (client_targets(&o, -1, 1, &targets, &rs, &e) < 0)
        goto fatal;

    outbuf_t out;
    if (outbuf_init(&out, STDOUT_FILENO, OUTPUT_BLOCK, &e) < 0)
        goto fatal;
    grow_stdout_pipe();
    line_sink_t sink;
    if (line_sink_init(&sink, &out, client_line_format(&o, &cfg), host) < 0) {
        outbuf_free(&out);
        err_set(&e, ERR_NOMEM, "out of memory");
        goto fatal;
    }
    linescan_opts_t lo = {
        .matcher = &m,
        .invert = o.invert,
        .before = linescan_context(o.before),
        .after = linescan_context(o.after),
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
    int n_threads = client_cpu_count();
    for (size_t i = 0; i < targets.n && !out.failed; i++) {
        const target_t *t = &targets.items[i];
        input_t *in = input_open(t->path, &e);
        if (!in) {
            client_report(&rs, &e);
            continue;
        }
        line_sink_set_source(&sink, t->source_id);
        int rc = linescan_run_auto(&scan, in, t->path, &sink, n_threads, &stats, &e);
        if (rc < 0)
            client_report(&rs, &e);
        input_close(in);
    }
    outbuf_flush(&out);
    if (out.failed) {
        err_set(&e, ERR_IO, "writing output failed: %s", strerror(out.write_errno));
        client_report(&rs, &e);
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
    return client_usage_error(name, &e);
}
