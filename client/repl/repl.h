/* repl.h: dmap's interactive query prompt (libedit): history in
 * ~/.dtail_history, tab completion, multi-line queries, dot commands; each
 * query runs through dmap_run, as `dmap --query` does. See docs/repl.md. */
#ifndef DTAIL_CLIENT_REPL_H
#define DTAIL_CLIENT_REPL_H

#include <stddef.h>

#include "base/config.h"
#include "client/tools/cli.h"
#include "exec/scan/targets.h"

/* Runs the prompt over targets until .quit or Ctrl-D; returns the exit
 * status (0, or 1 when the terminal could not be set up). */
int repl_main(const cli_opts_t *o, const config_t *cfg, const char *host,
              const target_list_t *targets);

#endif
