/* runner.c: the loops over the inputs of a cat/grep and a map request. */
#include "exec/run/runner.h"

int run_lines(const exec_plan_t *p, run_inputs_t *ins, line_sink_t *sink, int n_threads,
              linescan_stats_t *total, err_t *e)
{
    linescan_t scan;
    if (linescan_init(&scan, &p->lo, e) < 0)
        return -1;
    int rc = 0;
    run_input_t it;
    for (;;) {
        if (sink->out->failed) {
            rc = -1;
            break;
        }
        it = (run_input_t){0};
        int got = ins->next(ins->ctx, &it);
        if (got <= 0) {
            rc = got < 0 ? -1 : 0;
            break;
        }
        err_t fe;
        err_clear(&fe);
        linescan_stats_t st = {0};
        line_sink_set_source(sink, it.source_id);
        int frc = linescan_run_auto(&scan, it.in, it.path, sink, n_threads, &st, &fe);
        if (total) {
            total->lines_selected += st.lines_selected;
            total->lines_split += st.lines_split;
            total->bytes_read += st.bytes_read;
        }
        run_counts_t n = {.bytes = st.bytes_read};
        ins->done(ins->ctx, &it, frc, &n, &fe);
    }
    linescan_free(&scan);
    return rc;
}

enum run_end run_map(mapscan_t *ms, run_inputs_t *ins)
{
    for (;;) {
        if (mapscan_stopped(ms))
            return mapscan_timed_out(ms) ? RUN_END_TIMEOUT : RUN_END_CANCELLED;
        run_input_t it = {0};
        int got = ins->next(ins->ctx, &it);
        if (got <= 0)
            return got < 0 ? RUN_END_STOPPED : RUN_END_ALL;
        err_t e;
        err_clear(&e);
        map_stats_t before, after;
        mapscan_stats(ms, &before);
        int rc = mapscan_run(ms, it.in, it.path, it.source_id, it.index, &e);
        mapscan_stats(ms, &after);
        run_counts_t n = {.bytes = after.bytes_read - before.bytes_read,
                          .lines = after.lines_read - before.lines_read,
                          .lines_counted = 1};
        int stopped = rc < 0 && mapscan_stopped(ms);
        ins->done(ins->ctx, &it, stopped ? 0 : rc, &n, &e);
        if (stopped)
            return mapscan_timed_out(ms) ? RUN_END_TIMEOUT : RUN_END_CANCELLED;
    }
}
