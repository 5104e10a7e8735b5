/* common.h: what every serverless client does the same way: report
 * errors and keep the exit status, set up host name, config and log level,
 * decide on colours, and turn --files, arguments and stdin into inputs. */
#ifndef DTAIL_CLIENT_COMMON_H
#define DTAIL_CLIENT_COMMON_H

#include <stddef.h>

#include "base/config.h"
#include "base/err.h"
#include "client/tools/cli.h"
#include "exec/scan/targets.h"
#include "exec/sink/lines.h"
#include "parser/plan.h"

typedef struct client_run {
    const char *tool;   /* program name for messages */
    int status;         /* exit status so far (the worst seen) */
} client_run_t;

/* Prints "tool: error: message" (unless --logLevel none) and raises the
 * exit status to the error's. */
void client_report(client_run_t *rs, const err_t *e);
/* client_report as a target_list_add_spec callback (ctx is the run). */
void client_report_cb(void *ctx, const err_t *e);
/* Parses argv for tool into o. Returns 1 when the program is done (a
 * usage error, --help or --version; o is freed and *status set), else 0. */
int client_parse_args(cli_opts_t *o, enum cli_tool tool, int argc, char **argv, int *status);
/* The port for servers given without one: --port, Common.SSHPort, 2222. */
int client_default_port(const cli_opts_t *o, const config_t *cfg);
/* Prints "tool: message" and returns the exit status for it. */
int client_usage_error(const char *tool, const err_t *e);

/* Online CPUs (at least 1): threads for parallel scans, handshake slots. */
int client_cpu_count(void);

/* Host name (into host), config file, DTail's integration mode, log level
 * (warn by default serverless, then the config, then --logLevel),
 * --maxLineLength. */
int client_setup(const cli_opts_t *o, config_t *cfg, char *host, size_t host_cap, err_t *e);

/* Colours: --color always forces them; --plain, --noColor, --color never,
 * NO_COLOR, TermColorsEnable=false or a stdout that is no terminal turn
 * them off. */
int client_colors(const cli_opts_t *o, const config_t *cfg);
/* The private key to log in with: --key/--auth-key-path, else
 * DTAIL_AUTH_KEY_PATH, else DTAIL_SSH_PRIVATE_KEYFILE_PATH, else
 * Client.AuthKeyPath (DTail's order); NULL: ssh-agent, then ~/.ssh/id_*. */
const char *client_key_path(const cli_opts_t *o, const config_t *cfg);
/* The palette to paint with (Client.TermColors), NULL when not painting. */
const palette_t *client_palette(const cli_opts_t *o, const config_t *cfg);
/* How lines are printed: --plain, else REMOTE|... lines, coloured when
 * client_colors says so. A server renders them the same way (the wire's
 * render values are these). */
enum line_format client_line_format(const cli_opts_t *o, const config_t *cfg);

/* How long a follow (dtail, with or without servers) runs: --timeout if
 * smaller than --shutdownAfter (default 86400 s), in seconds. */
long long client_follow_limit_s(const cli_opts_t *o);

/* Inputs: --files, then every positional argument except index `skip` (-1
 * for none); with no file given at all, stdin unless it is a terminal.
 * A pattern matching nothing is skipped, and reported through rs when
 * report_missing. */
int client_targets(const cli_opts_t *o, int skip, int report_missing, target_list_t *tl,
                   client_run_t *rs, err_t *e);
/* --output decides how a result printed on stdout looks; a query with an
 * outfile prints none, so --output with one would do nothing: -1 with
 * ERR_USAGE then (plan: the parsed query's). */
int client_output_check(const cli_opts_t *o, const plan_t *plan, err_t *e);

/* Whether --files or a positional argument other than `skip` names input. */
int client_files_given(const cli_opts_t *o, int skip);

#endif
