/* inputs.c: the targets of a serverless run, one at a time. */
#include "client/serverless/inputs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The status of an input that could not be opened. */
static int open_status(const char *path)
{
    struct stat sb;
    if (strcmp(path, "-") != 0 && stat(path, &sb) < 0)
        return errno == ENOENT || errno == ENOTDIR ? OUTFILE_INPUT_NOT_FOUND
               : errno == EACCES                 ? OUTFILE_INPUT_DENIED
                                                 : OUTFILE_INPUT_ERROR;
    return access(path, R_OK) < 0 && errno == EACCES ? OUTFILE_INPUT_DENIED : OUTFILE_INPUT_ERROR;
}

/* Records that input rec failed with e (its text is copied). */
static void record_failure(outfile_input_t *rec, int status, const err_t *e)
{
    if (!rec)
        return;
    rec->status = status;
    rec->error = strdup(e->msg);
}

static int next(void *ctx, run_input_t *it)
{
    client_inputs_t *ci = ctx;
    while (ci->n_tried < ci->n_targets) {
        size_t i = ci->n_tried++;
        const target_t *t = &ci->targets[i];
        outfile_input_t *rec = ci->records ? &ci->records[i] : NULL;
        if (rec)
            *rec = (outfile_input_t){.file = t->path, .bytes = -1, .lines = -1};
        err_t e;
        err_clear(&e);
        int fd = ci->mem_fds ? ci->mem_fds[i] : -1;
        input_t *in = fd >= 0 ? input_open_fd(fd, t->path, &e)
                              : input_open_until(t->path, ci->deadline_ms, &e);
        if (!in) {
            record_failure(rec, open_status(t->path), &e);
            client_report(ci->run, &e);
            continue;
        }
        *it = (run_input_t){.in = in, .path = t->path, .source_id = t->source_id,
                            .index = (unsigned)i, .user = rec};
        return 1;
    }
    return 0;
}

static void done(void *ctx, run_input_t *it, int rc, const run_counts_t *n, const err_t *e)
{
    client_inputs_t *ci = ctx;
    outfile_input_t *rec = it->user;
    if (rec) {
        rec->bytes = (long long)n->bytes;
        rec->lines = n->lines_counted ? (long long)n->lines : -1;
    }
    if (rc < 0) {
        record_failure(rec, OUTFILE_INPUT_ERROR, e);
        client_report(ci->run, e);
    }
    input_close(it->in);
    it->in = NULL;
}

run_inputs_t client_inputs(client_inputs_t *ci)
{
    return (run_inputs_t){.next = next, .done = done, .ctx = ci};
}
