/* data.h: the REPL's inputs, loaded once. Inputs that fit a memory
 * budget together (plain, or decompressed) are read into memory once, into
 * anonymous files (memfd), and every query reads them from there; larger
 * ones are read again by each query. A sample of the first input feeds
 * .schema and completion. */
#ifndef DTAIL_CLIENT_REPL_DATA_H
#define DTAIL_CLIENT_REPL_DATA_H

#include <stddef.h>
#include <stdio.h>

#include "base/err.h"
#include "client/tools/common.h"
#include "exec/scan/targets.h"

#define REPL_MEMORY_BUDGET (64LL * 1024 * 1024)  /* bytes kept in memory, all inputs */
#define REPL_SAMPLE_BYTES (256 * 1024)           /* bytes of the sample */

typedef struct repl_data {
    const target_t *targets;   /* the inputs (borrowed) */
    size_t n;                  /* their count */
    int *mem_fds;              /* per input: memfd with its decoded bytes, or -1 */
    long long *bytes;          /* per input: decoded bytes in memory, else its size
                                  on disk (-1 when unknown or unreadable) */
    char *sample;              /* the first bytes of the first readable input */
    size_t sample_len;         /* bytes in sample */
    long long budget;          /* the memory budget used */
} repl_data_t;

/* Loads targets[0..n). An input that cannot be read is reported through
 * run and left to be re-read (and reported) by each query. Returns 0, or
 * -1 with e set when out of memory. */
int repl_data_load(repl_data_t *d, const target_t *targets, size_t n, long long budget,
                   client_run_t *run, err_t *e);
void repl_data_free(repl_data_t *d);
/* .files: one line per input saying whether it is in memory. */
void repl_data_describe(const repl_data_t *d, FILE *out);

#endif
