/* common.c: shared set-up of the serverless clients. */
#include "exec/run/request.h"
#include "client/tools/common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/home.h"
#include "base/fdio.h"
#include "base/log.h"
#include "base/term.h"
#include "exec/scan/journal.h"

#define DEFAULT_SHUTDOWN_AFTER 86400

void client_report(client_run_t *rs, const err_t *e)
{
    if (log_level >= LOG_ERROR)
        term_fprintf(stderr, "%s: error: %s\n", rs->tool, e->msg);
    int st = err_exit_status(e->code);
    if (st > rs->status)
        rs->status = st;
}

void client_report_cb(void *ctx, const err_t *e)
{
    client_report(ctx, e);
}

int client_parse_args(cli_opts_t *o, enum cli_tool tool, int argc, char **argv, int *status)
{
    err_t e;
    err_clear(&e);
    *status = 0;
    if (cli_parse(o, tool, argc, argv, &e) < 0)
        *status = client_usage_error(cli_tool_name(tool), &e);
    else if (o->help)
        cli_print_help(tool, argv[0]);
    else if (o->version)
        cli_print_version();
    else
        return 0;
    cli_free(o);
    return 1;
}

int client_default_port(const cli_opts_t *o, const config_t *cfg)
{
    return o->port ? (int)o->port : cfg->ssh_port ? cfg->ssh_port : 2222;
}

int client_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int client_usage_error(const char *tool, const err_t *e)
{
    term_fprintf(stderr, "%s: %s\n", tool, e->msg);
    return err_exit_status(e->code);
}

/* dir with a leading ~/ made the home directory, as DTail expands --logDir
 * (what names the path in a message). */
static int expand_home_of(const char *what, const char *dir, char *out, size_t cap, err_t *e)
{
    const char *rest = dir;
    const char *home = "";
    if (strncmp(dir, "~/", 2) == 0 || strcmp(dir, "~") == 0) {
        home = home_dir();
        if (!home)
            return err_set(e, ERR_USAGE, "%s %s: no home directory (HOME is not set)", what, dir);
        rest = dir + 1;
    }
    if ((size_t)snprintf(out, cap, "%s%s", home, rest) >= cap)
        return err_set(e, ERR_USAGE, "%s %s: too long", what, dir);
    return 0;
}

static int expand_home(const char *dir, char *out, size_t cap, err_t *e)
{
    return expand_home_of("-logDir", dir, out, cap, e);
}

/* DTail's --logger, --logDir, --log-payload and Client.LogPayload. The
 * logger is the flag's, else stdout (DTail's default fout writes a file
 * on every run; here a file is asked for), else fout when --logDir or
 * the payload copy asks for the file. The file is DTail's: <dir>/
 * YYYYMMDD.log, or <dir>/<tool>.log with Common.LogRotation other than
 * daily, in ~/log by default. */
static int client_log_setup(const cli_opts_t *o, const config_t *cfg, err_t *e)
{
    int payload = o->log_payload || cfg->log_payload;
    unsigned outputs = o->logger ? o->log_outputs
                     : o->log_dir || payload ? LOG_OUT_TERMINAL | LOG_OUT_FILE
                                             : LOG_OUT_TERMINAL;
    if (payload && !(outputs & LOG_OUT_FILE))   /* the flag's case is refused by cli_parse */
        return err_set(e, ERR_CONFIG, "%s: Client.LogPayload copies the payload into the log "
                                      "file, but -logger %s writes none (use -logger file or "
                                      "fout, or -cfg none)", cfg->path, o->logger);
    if (outputs & LOG_OUT_FILE) {
        char dir[1024];
        const char *name = strcasecmp(cfg->log_rotation, "daily") ? cli_tool_name(o->tool) : NULL;
        if (expand_home(o->log_dir ? o->log_dir : "~/log", dir, sizeof dir, e) < 0 ||
            log_file_open(dir, name, e) < 0)
            return -1;
        atexit(log_file_close);
        if (payload)
            fdio_copy_stdout(log_file_copy);
    }
    log_set_outputs(outputs);
    return 0;
}

int client_setup(const cli_opts_t *o, config_t *cfg, char *host, size_t host_cap, err_t *e)
{
    term_setup(o->raw_terminal);
    fdio_raise_nofile();
    cli_host_name(host, host_cap);
    log_set_host(host);
    config_defaults(cfg);
    if (cli_integration_mode())
        cfg->max_line_len = 1024;
    if (config_load(cfg, o->cfg, e) < 0)
        return -1;
    /* Serverless runs log at warn unless asked otherwise (as DTail). */
    log_level = LOG_WARN;
    if (cfg->log_level[0])
        log_level_parse(cfg->log_level, &log_level);
    if (o->log_level)
        log_level_parse(o->log_level, &log_level);
    if (client_log_setup(o, cfg, e) < 0)
        return -1;
    if (client_colors(o, cfg) && ((o->color && strcmp(o->color, "always") == 0) ||
                                  isatty(STDERR_FILENO)))
        log_set_palette(&cfg->palette);
    if (exec_config_check(cfg, e) < 0)
        return -1;
    if (o->max_line_len)
        cfg->max_line_len = (size_t)o->max_line_len;
    if (cfg->auth_key_path[0]) {
        char path[sizeof cfg->auth_key_path];
        if (expand_home_of("Client.AuthKeyPath", cfg->auth_key_path, path, sizeof path, e) < 0)
            return -1;
        memcpy(cfg->auth_key_path, path, sizeof path);
    }
    journal_set_dir(cfg->journal_dir);
    return 0;
}

const char *client_key_path(const cli_opts_t *o, const config_t *cfg)
{
    static const char *const env[] = {"DTAIL_AUTH_KEY_PATH", "DTAIL_SSH_PRIVATE_KEYFILE_PATH"};
    if (o->key && *o->key)
        return o->key;
    for (size_t i = 0; i < 2; i++) {
        const char *v = getenv(env[i]);
        if (v && *v)
            return v;
    }
    return cfg->auth_key_path[0] ? cfg->auth_key_path : NULL;
}

int client_colors(const cli_opts_t *o, const config_t *cfg)
{
    if (o->plain || o->no_color || !cfg->term_colors_enable)
        return 0;
    if (o->color && strcmp(o->color, "always") == 0)
        return 1;
    if (o->color && strcmp(o->color, "never") == 0)
        return 0;
    const char *nc = getenv("NO_COLOR");
    return !(nc && *nc) && isatty(STDOUT_FILENO);
}

const palette_t *client_palette(const cli_opts_t *o, const config_t *cfg)
{
    return client_colors(o, cfg) ? &cfg->palette : NULL;
}

enum line_format client_line_format(const cli_opts_t *o, const config_t *cfg)
{
    if (o->plain)
        return LINE_PLAIN;
    return client_colors(o, cfg) ? LINE_COLOR : LINE_REMOTE;
}

long long client_follow_limit_s(const cli_opts_t *o)
{
    long long limit = o->shutdown_after ? o->shutdown_after : DEFAULT_SHUTDOWN_AFTER;
    if (o->timeout > 0 && o->timeout < limit)
        limit = o->timeout;
    return limit;
}

int client_output_check(const cli_opts_t *o, const plan_t *plan, err_t *e)
{
    if (!o->output || !plan->outfile)
        return 0;
    const char *to = strcmp(plan->outfile, "-") == 0 ? "outfile - writes CSV to stdout"
                                                     : "the result goes to the outfile";
    return err_set(e, ERR_USAGE, "flag -output %s has no effect with outfile %s: %s "
                                 "(leave out one of them)", o->output, plan->outfile, to);
}

int client_files_given(const cli_opts_t *o, int skip)
{
    return o->files || o->n_positional > (skip >= 0 && skip < o->n_positional);
}

int client_targets(const cli_opts_t *o, int skip, int report_missing, target_list_t *tl,
                   client_run_t *rs, err_t *e)
{
    void (*cb)(void *, const err_t *) = report_missing ? client_report_cb : NULL;
    if (o->files && target_list_add_spec(tl, o->files, cb, rs, e) < 0)
        return -1;
    for (int i = 0; i < o->n_positional; i++)
        if (i != skip && target_list_add_spec(tl, o->positional[i], cb, rs, e) < 0)
            return -1;
    if (client_files_given(o, skip))
        return 0;
    if (isatty(STDIN_FILENO))
        return err_set(e, ERR_USAGE,
                       "no input: give files with --files or as arguments, or pipe into stdin");
    return target_list_add_spec(tl, "-", NULL, NULL, e);
}
