/* scan.h: dcat and dgrep, serverless: parse flags, build the plan,
 * run it over every input in order, report per-input errors. */
#ifndef DTAIL_CLIENT_SCAN_CLIENT_H
#define DTAIL_CLIENT_SCAN_CLIENT_H

#include "client/tools/cli.h"

/* The whole program; returns the exit status (see cli_print_help). */
int scan_client_main(enum cli_tool tool, int argc, char **argv);

#endif
