/* map.c: the serverless mapreduce client. */
#include "exec/run/request.h"
#include "client/serverless/map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/config.h"
#include "base/log.h"
#include "client/tools/cli.h"
#include "client/tools/common.h"
#include "client/tools/request.h"
#include "client/remote/session.h"
#include "client/serverless/map_run.h"
#include "client/interactive/reload.h"
#include "client/repl/repl.h"
#include "base/term.h"
#include "exec/run/detect_plan.h"
#include "exec/scan/targets.h"
#include "parser/parser.h"

/* The REPL opens for inputs without a query when stdin is a terminal, or
 * with --repl. It needs files: stdin is the terminal it reads. */
static int start_repl(const cli_opts_t *o)
{
    err_t e;
    char host[256];
    config_t cfg;
    if (client_setup(o, &cfg, host, sizeof host, &e) < 0)
        return client_usage_error("dmap", &e);
    target_list_t targets;
    target_list_init(&targets);
    client_run_t run = {"dmap", 0};
    if (client_targets(o, -1, 1, &targets, &run, &e) < 0) {
        target_list_free(&targets);
        return client_usage_error("dmap", &e);
    }
    int status = run.status;
    for (size_t i = 0; i < targets.n && !status; i++) {
        if (!strcmp(targets.items[i].path, "-")) {
            err_set(&e, ERR_USAGE, "the prompt reads queries from the terminal; "
                                   "give the inputs as files, not stdin");
            status = client_usage_error("dmap", &e);
        }
    }
    if (!status && targets.n == 0) {
        err_set(&e, ERR_USAGE, "--repl: no input file");
        status = client_usage_error("dmap", &e);
    }
    if (!status)
        status = repl_main(o, &cfg, host, &targets);
    target_list_free(&targets);
    return status;
}

/* The plan of rq for the format of the targets' first lines
 * (exec/run/detect_plan.h); stdin is read once, so it is not sampled. */
static int plan_detected(const exec_request_t *rq, const exec_env_t *env,
                         const target_list_t *targets, exec_plan_t *p, exec_detection_t *d,
                         err_t *e)
{
    const char **paths = calloc(targets->n + 1, sizeof *paths);
    if (!paths)
        return err_set(e, ERR_NOMEM, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < targets->n; i++)
        if (strcmp(targets->items[i].path, "-") != 0)
            paths[n++] = targets->items[i].path;
    int rc = exec_plan_init_detect(p, rq, env, paths, NULL, n, d, e);
    free(paths);
    return rc;
}

int dmap_client_main(int argc, char **argv)
{
    err_t e;
    err_clear(&e);
    cli_opts_t o;
    int status;
    if (client_parse_args(&o, CLI_DMAP, argc, argv, &status))
        return status;
    /* DTail: the first positional containing "select " is the query. */
    const char *query = o.query;
    int query_pos = -1;
    for (int i = 0; (!query || o.query_file) && query_pos < 0 && i < o.n_positional; i++) {
        if (strcasestr(o.positional[i], "select ")) {
            query = query ? query : o.positional[i];
            query_pos = i;
        }
    }
    if (o.query_file && query_pos >= 0) {
        err_set(&e, ERR_USAGE, "-query-file %s and the argument '%s' both give the query: use one",
                o.query_file, o.positional[query_pos]);
        cli_free(&o);
        return client_usage_error("dmap", &e);
    }
    /* One that misspells it (`selct count($line)`), and is no file, gets
     * its parse error ("did you mean select?") rather than "no query". */
    for (int i = 0; !query && !o.query_file && i < o.n_positional; i++) {
        if (query_looks_like(o.positional[i]) && access(o.positional[i], F_OK) != 0) {
            query = o.positional[i];
            query_pos = i;
        }
    }
    if (interactive_check(&o, remote_wanted(&o), &e) < 0) {
        cli_free(&o);
        return client_usage_error("dmap", &e);
    }
    if (o.repl && query) {
        err_set(&e, ERR_USAGE, "--repl takes no query: type queries at the prompt");
        cli_free(&o);
        return client_usage_error("dmap", &e);
    }
    if (!query && (o.repl || ((o.files || o.n_positional) && isatty(STDIN_FILENO)))) {
        status = start_repl(&o);
        cli_free(&o);
        return status;
    }
    if (!query) {
        err_set(&e, ERR_USAGE, "No mapreduce query specified, use '-query' flag");
        cli_free(&o);
        return client_usage_error("dmap", &e);
    }
    char host[256];
    config_t cfg;
    if (client_setup(&o, &cfg, host, sizeof host, &e) < 0) {
        cli_free(&o);
        return client_usage_error("dmap", &e);
    }
    /* Serverless the run is ours, with our config's log format; through
     * servers each uses its own (as DTail's client assumes default). */
    exec_request_t rq = client_request(&o, &cfg);
    rq.query = query;
    exec_env_t env = client_env(&o, &cfg, host);
    exec_plan_t p;
    exec_detection_t det;
    client_run_t run = {"dmap", 0};
    target_list_t targets;
    target_list_init(&targets);
    int remote = remote_wanted(&o);
    int planned = remote ? exec_plan_init_detect(&p, &rq, &env, NULL, NULL, 0, &det, &e)
                         : exec_plan_init(&p, &rq, &env, &e);
    /* Serverless, a query without logformat and from (or one valid only
     * with a format's variables) reads the format of its files. */
    if (!remote && (planned == 0 ? exec_plan_detects(&p) : e.code == ERR_QUERY)) {
        if (planned == 0)
            exec_plan_free(&p);
        if (client_targets(&o, query_pos, 1, &targets, &run, &e) < 0) {
            target_list_free(&targets);
            cli_free(&o);
            return client_usage_error("dmap", &e);
        }
        planned = plan_detected(&rq, &env, &targets, &p, &det, &e);
        if (planned == 0 && det.first && !o.quiet) {
            char text[4400];
            exec_detection_text(&det, text, sizeof text);
            term_fprintf(stderr, "dmap: %s\n", text);
        }
    }
    if (planned < 0) {
        char buf[8192];
        exec_plan_error(&rq, &e, buf, sizeof buf);
        fprintf(stderr, "dmap: %s%s\n", e.code == ERR_QUERY ? "invalid query: " : "", buf);
        target_list_free(&targets);
        cli_free(&o);
        return err_exit_status(e.code);
    }
    const plan_t *plan = p.map;
    if (client_output_check(&o, plan, &e) < 0) {
        exec_plan_free(&p);
        target_list_free(&targets);
        cli_free(&o);
        return client_usage_error("dmap", &e);
    }
    LOG_DEBUG("query|%s", query_canonical(p.query));
    /* Through servers, a plan whose format is to be detected warns there. */
    if (!remote || !exec_plan_detects(&p)) {
        for (size_t i = 0; i < plan->n_warnings && log_level >= LOG_WARN; i++)
            fprintf(stderr, "dmap: warning: %s\n", plan->warnings[i].msg);
    }
    if (o.form != RESULT_FORM_TABLE && plan->interval_given && log_level >= LOG_WARN)
        fprintf(stderr, "dmap: warning: interval: with -output %s only the final result is "
                        "printed (interim tables are for the terminal)\n", o.output);

    if (remote) {   /* parsed here, run on the server */
        status = remote_map_main(&o, &cfg, plan, query, query_pos, client_palette(&o, &cfg), &run);
        exec_plan_free(&p);
        cli_free(&o);
        return status;
    }
    if (!targets.n && client_targets(&o, query_pos, 1, &targets, &run, &e) < 0) {
        target_list_free(&targets);
        exec_plan_free(&p);
        cli_free(&o);
        return client_usage_error("dmap", &e);
    }
    dmap_job_t job = {
        .plan = &p,
        .query = query,
        .targets = targets.items,
        .n_targets = targets.n,
        .quiet = o.quiet || o.plain,
        .color = client_palette(&o, &cfg),
        .form = o.form,
        .timeout_s = o.timeout,
    };
    dmap_run(&job, &run);
    target_list_free(&targets);
    exec_plan_free(&p);
    cli_free(&o);
    return run.status;
}
