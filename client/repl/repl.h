/* repl.h: dmap's interactive query prompt (libedit): history in
 * ~/.dtail_history, tab completion, multi-line queries, dot commands; each
 * query runs through dmap_run, as `dmap --query` does. With stdin not a
 * terminal (--repl and a pipe) its lines are read as typed, without
 * libedit, prompt or banner, and the first error ends the session (as
 * sqlite3 -bail). See docs/repl.md. */
#ifndef DTAIL_CLIENT_REPL_H
#define DTAIL_CLIENT_REPL_H

#include <stddef.h>

#include "base/config.h"
#include "client/tools/cli.h"
#include "exec/scan/targets.h"

/* Runs the prompt over targets until .quit or Ctrl-D (a pipe: its end);
 * returns the exit status: 0, 1 when the terminal could not be set up,
 * and from a pipe the status of the first error (2 a query or command
 * error, 1 an input, outfile or .read file, 130 interrupted). */
int repl_main(const cli_opts_t *o, const config_t *cfg, const char *host,
              const target_list_t *targets);

#endif
