/* scan.c: the serverless cat/grep client. */
#include "client/serverless/scan.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "client/tools/common.h"
#include "client/serverless/inputs.h"
#include "client/tools/request.h"
#include "client/interactive/reload.h"
#include "client/remote/session.h"
#include "base/outbuf.h"
#include "exec/run/runner.h"
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

    exec_request_t rq = client_request(&o, &cfg);
    exec_env_t env = client_env(&o, &cfg, host);
    exec_plan_t p;   /* the pattern is checked here, also when it runs there */
    if (client_plan(&p, &rq, &env, &e) < 0) {
        cli_free(&o);
        return client_usage_error(name, &e);
    }
    LOG_DEBUG("Using %s matching for pattern:|%s", matcher_strategy(&p.m), p.m.pattern);

    client_run_t rs = {.tool = name, .status = 0};
    if (remote_wanted(&o)) {
        status = remote_scan_main(&o, &rq, &cfg, &rs);
        exec_plan_free(&p);
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
    if (line_sink_init(&sink, &out, rq.render, host, rq.palette) < 0) {
        outbuf_free(&out);
        err_set(&e, ERR_NOMEM, "out of memory");
        goto fatal;
    }
    client_inputs_t ci = {.targets = targets.items, .n_targets = targets.n, .run = &rs};
    run_inputs_t ins = client_inputs(&ci);
    if (run_lines(&p, &ins, &sink, env.n_threads, NULL, &e) < 0 && !out.failed)
        client_report(&rs, &e);
    outbuf_flush(&out);
    if (out.failed) {
        err_set(&e, ERR_IO, "writing output failed: %s", strerror(out.write_errno));
        client_report(&rs, &e);
    }
    line_sink_free(&sink);
    outbuf_free(&out);
    target_list_free(&targets);
    exec_plan_free(&p);
    cli_free(&o);
    return rs.status;

fatal:
    target_list_free(&targets);
    exec_plan_free(&p);
    cli_free(&o);
    return client_usage_error(name, &e);
}
