/* inputs.h: the inputs of a serverless run, for the engine's
 * runner (exec/run/runner.h): the targets of the command line in order,
 * opened one at a time (a path, or a descriptor holding its decoded
 * bytes), errors reported through the run, and, for an outfile, what
 * became of each. */
#ifndef DTAIL_CLIENT_CLIENT_INPUTS_H
#define DTAIL_CLIENT_CLIENT_INPUTS_H

#include "client/tools/common.h"
#include "exec/run/runner.h"
#include "exec/sink/outfile.h"

typedef struct client_inputs {
    const target_t *targets;     /* in order */
    size_t n_targets;
    const int *mem_fds;          /* per target a descriptor to read instead, or -1; may be NULL */
    long long deadline_ms;       /* opening stdin waits until then; 0: no limit */
    client_run_t *run;           /* errors go here */
    outfile_input_t *records;    /* per target, filled as it is tried; may be NULL */
    size_t n_tried;              /* targets tried so far */
} client_inputs_t;

run_inputs_t client_inputs(client_inputs_t *ci);

#endif
