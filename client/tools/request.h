/* request.h: the command line as the engine's request, made once
 * per run (and again after an interactive reload changes the flags):
 * serverless it is run here, with servers it goes out as their REQUEST
 * (exec_request_to_wire). */
#ifndef DTAIL_CLIENT_CLIENT_REQUEST_H
#define DTAIL_CLIENT_CLIENT_REQUEST_H

#include "base/config.h"
#include "client/tools/cli.h"
#include "exec/run/request.h"

/* The request of o's tool (strings borrowed from o). dcat has no
 * pattern; a dtail with a query folds lines into it and has none either. */
exec_request_t client_request(const cli_opts_t *o, const config_t *cfg);

#endif
