/* follow_plan.c: see follow_plan.h. */
#include "exec/follow_plan.h"

#include <stdlib.h>
#include <string.h>

/* Bytes of one file read before the next file's turn: a busy file cannot
 * hold back the others. */
#define FOLLOW_SHARE (1024 * 1024)

follow_file_t *follow_file_new(follow_plan_t *plan, const char *path, const char *source_id,
                               mapscan_t *ms, err_t *e)
{
    follow_file_t *ff = calloc(1, sizeof *ff);
    if (!ff || !(ff->path = strdup(path)) || !(ff->source_id = strdup(source_id))) {
        if (ff)
            free(ff->path);
        free(ff);
        err_set(e, ERR_NOMEM, "out of memory following %s", path);
        return NULL;
    }
    ff->plan = plan;
    ff->ms = ms;
    return ff;
}

void follow_file_free(follow_file_t *ff)
{
    if (!ff)
        return;
    linescan_stream_free(ff->st);
    free(ff->path);
    free(ff->source_id);
    free(ff);
}

static int file_step(void *ctx, input_t *in, err_t *e)
{
    follow_file_t *ff = ctx;
    if (ff->ms)
        return mapscan_step(ff->ms, in, ff->path, ff->source_id, e);
    if (!ff->st && !(ff->st = linescan_stream_new(&ff->plan->lo, in, e)))
        return -1;
    line_sink_set_source(ff->plan->sink, ff->source_id);
    unsigned long long cut = linescan_stream_cut(ff->st);
    int rc = linescan_stream_step(ff->st, ff->plan->sink, ff->path, FOLLOW_SHARE, e);
    ff->plan->cut_lines += linescan_stream_cut(ff->st) - cut;
    return rc;
}

static void file_failed(void *ctx, const err_t *e)
{
    follow_file_t *ff = ctx;
    if (ff->plan->failed)
        ff->plan->failed(ff->plan->ctx, ff->path, e);
}

static void file_release(void *ctx)
{
    follow_file_t *ff = ctx;
    if (ff->plan->release_file)
        ff->plan->release_file(ff);
    else
        follow_file_free(ff);
}

int follow_lines_init(follow_lines_t *fl, const exec_request_t *rq, const exec_env_t *env,
                      outbuf_t *out,
                      void (*failed)(void *ctx, const char *path, const err_t *e), void *ctx,
                      err_t *e)
{
    memset(fl, 0, sizeof *fl);
    /* The cat/grep side only: a query, if any, runs in the files' scans. */
    exec_request_t lines = *rq;
    lines.query = "";
    if (exec_plan_init(&fl->p, &lines, env, e) < 0)
        return -1;
    if (line_sink_init(&fl->sink, out, rq->render, env->host, rq->palette) < 0) {
        exec_plan_free(&fl->p);
        return err_set(e, ERR_NOMEM, "out of memory");
    }
    fl->plan = (follow_plan_t){.sink = &fl->sink, .lo = fl->p.lo, .failed = failed, .ctx = ctx};
    return 0;
}

void follow_lines_free(follow_lines_t *fl)
{
    line_sink_free(&fl->sink);
    exec_plan_free(&fl->p);
}

const follow_plan_ops_t follow_file_ops = {file_step, file_failed, file_release};

mapscan_t *follow_scan_new(const map_opts_t *mo, err_t *e)
{
    mapscan_t *ms = calloc(1, sizeof *ms);
    if (!ms) {
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    if (mapscan_init(ms, mo, e) < 0) {
        follow_scan_free(ms);
        return NULL;
    }
    agg_table_clear(&ms->result);
    return ms;
}

void follow_scan_free(mapscan_t *ms)
{
    if (!ms)
        return;
    mapscan_free(ms);
    free(ms);
}
