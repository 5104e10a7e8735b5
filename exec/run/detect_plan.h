/* detect_plan.h: a map query's log format detected from its files.
 *
 * A query with neither `logformat` nor `from` reads its inputs with the
 * format their first lines are in (exec/extract/detect.h): dmap
 * serverless and dserver (on its own files, so the result is the same
 * either way) call exec_detect_files with the inputs, then
 * exec_plan_use_format with the choice. The rules (docs/log-formats.md,
 * "Detection"): DTail's own lines and plain text keep the meaning of such
 * a query without detection (generic: every line, the common variables);
 * files that are empty or cannot be read have no say; inputs of different
 * detected formats are an error that names two of them. */
#ifndef DTAIL_EXEC_RUN_DETECT_PLAN_H
#define DTAIL_EXEC_RUN_DETECT_PLAN_H

#include <stddef.h>

#include "base/err.h"
#include "exec/run/plan.h"

/* Whether p's query asks for detection (a map without logformat and from). */
int exec_plan_detects(const exec_plan_t *p);

/* The format a file is read with: its first DETECT_SAMPLE bytes
 * (decompressed) through extract_detect, "default" taken as "generic".
 * NULL when it has no line or cannot be opened. */
const char *exec_detect_file(const char *path);

typedef struct exec_detection {
    const char *format;      /* the choice; "generic" when nothing else */
    const char *first;       /* the first input of that format (borrowed), or NULL */
    size_t n_files;          /* inputs of that format */
} exec_detection_t;

/* The format of paths[0..n): 0 with *d set, or -1 with ERR_USAGE when
 * two inputs differ ("a.log is json, b.log is logfmt: ..."). names[i]
 * (NULL: paths) is what the messages call paths[i]. */
int exec_detect_files(const char *const *paths, const char *const *names, size_t n,
                      exec_detection_t *d, err_t *e);

/* The line dmap and dserver tell the choice with, e.g. "a.log: detected
 * logformat nginx" or "a.log and 2 more: ...". */
void exec_detection_text(const exec_detection_t *d, char *buf, size_t cap);

/* Plans rq as if its query ended in `logformat NAME`: 0, -1 (e set), or 1
 * when the query names its own format or table after all: nothing is
 * left to free unless 0. */
int exec_plan_init_format(exec_plan_t *p, const exec_request_t *rq, const exec_env_t *env,
                          const char *name, err_t *e);

/* exec_plan_init for a request whose map query may read a detected
 * format: the plan of rq, and when its query has neither logformat nor
 * from (also one that is valid only with a format's variables, such as
 * $status), the plan for the format of paths[0..n) (names as for
 * exec_detect_files). d->first is NULL when nothing was detected (the
 * plan is rq's as it is). paths NULL: the inputs are elsewhere (a client
 * sending the query to servers, which detect): a query valid under one
 * of the formats detection can pick is planned with it, only to check.
 * Fails as exec_plan_init does (the error of rq's own plan), or with
 * ERR_USAGE for inputs of different formats. */
int exec_plan_init_detect(exec_plan_t *p, const exec_request_t *rq, const exec_env_t *env,
                          const char *const *paths, const char *const *names, size_t n,
                          exec_detection_t *d, err_t *e);

#endif
