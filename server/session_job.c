/* session_job.c: the runs of a job of the server's own (server/jobs.h).
 *
 * A job is a session without a client (session_local_init): its request
 * runs through session_run_map or session_run_tail, the runs a client's
 * request takes, over the same inputs (globs capped, read slots, the
 * secrets refused); what they would send a client is logged here, and the
 * result goes to the outfile of the job's query through exec's outfile
 * writers, as dmap's serverless result does. */
#include "server/session_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/grow.h"
#include "base/log.h"
#include "exec/fieldreport.h"
#include "exec/sink/outfile.h"

typedef struct job_run {
    const session_job_t *job;
    session_job_result_t *res;
    const volatile int *stopping;  /* the server stops */
    struct timespec start;         /* wall clock of the run's start */
    /* A scheduled run: what became of each file, for the outfile's
     * accounting (a SQLite outfile's query_inputs). */
    outfile_input_t *inputs;
    size_t n_inputs, cap_inputs;
    int has_rows;                  /* a continuous run wrote rows */
} job_run_t;

static int input_status(uint8_t st)
{
    switch (st) {
    case WIRE_FILE_OK: return OUTFILE_INPUT_OK;
    case WIRE_FILE_NOT_FOUND: return OUTFILE_INPUT_NOT_FOUND;
    case WIRE_FILE_DENIED: return OUTFILE_INPUT_DENIED;
    default: return OUTFILE_INPUT_ERROR;
    }
}

static long long wire_count(uint64_t n)
{
    return n == WIRE_COUNT_NONE ? -1 : (long long)n;
}

/* Remembers one file's end for the accounting; out of memory only costs
 * the accounting its row. The reason of a failure is in the log already
 * (session_files.c), by the real cause. */
static void record_input(job_run_t *jr, uint8_t st, const char *name, const char *detail,
                         uint64_t bytes, uint64_t lines)
{
    if (GROW_ARRAY(jr->inputs, jr->cap_inputs, jr->n_inputs + 1, 16) < 0)
        return;
    char *file = strdup(name);
    char *error = st != WIRE_FILE_OK && detail && *detail ? strdup(detail) : NULL;
    if (!file) {
        free(error);
        return;
    }
    jr->inputs[jr->n_inputs++] = (outfile_input_t){
        .file = file, .status = input_status(st), .error = error,
        .bytes = wire_count(bytes), .lines = wire_count(lines)};
}

static void on_file_status(void *ctx, uint8_t st, const char *name, const char *detail,
                           uint64_t bytes, uint64_t lines)
{
    job_run_t *jr = ctx;
    if (st == WIRE_FILE_OK)
        jr->res->files_read++;
    else
        jr->res->files_failed++;
    record_input(jr, st, name, detail, bytes, lines);
}

static void on_message(void *ctx, enum log_level level, const char *text)
{
    job_run_t *jr = ctx;
    if (level <= LOG_ERROR)
        jr->res->errors++;
    LOG_AT(level, "Job %s|%s", jr->job->name, text);
}

/* The END of the request: only a failure says something (the stop of the
 * server ends a continuous run as it is meant to end). */
static void on_end(void *ctx, uint8_t st, const char *text)
{
    job_run_t *jr = ctx;
    if (st != WIRE_END_FAILED || *jr->stopping)
        return;
    jr->res->errors++;
    LOG_ERROR("Job %s|%s", jr->job->name, text && *text ? text : "failed");
}

/* The field report's warnings (a field no parsed line had...), as the
 * serverless dmap prints them, into the log. */
static void log_field_warnings(const job_run_t *jr, const field_report_t *fr, const plan_t *plan)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        return;
    field_report_warn(fr, plan, jr->job->name, f);
    fclose(f);
    size_t n = strlen(jr->job->name);
    for (char *line = text, *nl; line && *line; line = nl ? nl + 1 : NULL) {
        nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        /* "NAME: warning: ..." says the name the log line starts with. */
        const char *w = strncmp(line, jr->job->name, n) == 0 && line[n] == ':' ? line + n + 2 : line;
        LOG_WARN("Job %s|%s", jr->job->name, w);
    }
    free(text);
}

static void write_failed(job_run_t *jr, const err_t *e)
{
    jr->res->errors++;
    LOG_ERROR("Job %s|%s", jr->job->name, e->msg);
}

/* session_map_out_t.final: the whole result into the outfile, marked as
 * the serverless dmap marks it (an aggregate of a field no line had is
 * 0, the others of no value empty), from the spill when it spilled. */
static int map_final(void *ctx, mapscan_t *ms, const plan_t *plan)
{
    job_run_t *jr = ctx;
    const char *name = jr->job->name;
    if (*jr->stopping) {
        LOG_WARN("Job %s|stopped by the server's shutdown: no outfile written", name);
        return 0;
    }
    if (jr->res->files_read == 0) {
        LOG_WARN("Job %s|none of its files could be read: no outfile written", name);
        return 0;
    }
    err_t e;
    err_clear(&e);
    field_report_t fr;
    int have_fr = mapscan_fields(ms, &fr, &e) == 0;
    if (have_fr)
        field_report_mark_null(&fr, plan, ms->result.specs);
    spill_t *sp = NULL;
    if (mapscan_spilled(ms)) {
        LOG_INFO("Job %s|map spilled over Server.MapMemoryLimit", name);
        sp = mapscan_spill_rest(ms, &e);
        if (sp && have_fr)
            field_report_mark_null(&fr, plan, spill_specs_mut(sp));
    }
    map_stats_t st;
    mapscan_stats(ms, &st);
    jr->res->lines = st.lines_read;
    outfile_info_t info = {.query = jr->job->query, .start = jr->start, .inputs = jr->inputs,
                           .n_inputs = jr->n_inputs, .stats = &st,
                           .partial = ms->result.failed};
    clock_gettime(CLOCK_REALTIME, &info.end);
    size_t n_groups = 0;
    if (mapscan_spilled(ms) && !sp) {
        write_failed(jr, &e);
    } else if (outfile_write_merged(plan, &ms->result, sp, &info, &n_groups, NULL, &e) < 0) {
        write_failed(jr, &e);
    } else {
        jr->res->writes++;
        jr->res->rows = n_groups;
    }
    if (have_fr) {
        log_field_warnings(jr, &fr, plan);
        field_report_free(&fr);
    }
    return 0;
}

/* session_local_t.table of a continuous run: the interval's result
 * replaces the outfile, as DTail's non-cumulative client writes it. */
static void on_interval(void *ctx, const plan_t *plan, const agg_table_t *t, int final)
{
    job_run_t *jr = ctx;
    /* The last interval was cut short by the run's end: DTail writes
     * none, and a part would replace a whole interval. */
    if (final)
        return;
    /* An idle interval keeps the rows written before it; the first one
     * still writes the header, so the outfile is there from the start. */
    if (t->n_groups == 0 && jr->has_rows)
        return;
    outfile_info_t info = {.query = jr->job->query, .start = jr->start};
    clock_gettime(CLOCK_REALTIME, &info.end);
    size_t n_groups = 0;
    err_t e;
    err_clear(&e);
    if (outfile_write_merged(plan, t, NULL, &info, &n_groups, NULL, &e) < 0) {
        write_failed(jr, &e);
        return;
    }
    jr->res->writes++;
    jr->res->rows = n_groups;
    jr->has_rows |= n_groups > 0;
    LOG_DEBUG("Job %s|wrote %s|%zu rows", jr->job->name, plan->outfile, n_groups);
}

static const session_local_t job_local = {.file_status = on_file_status, .message = on_message,
                                          .end = on_end, .table = on_interval};

/* The session of one run; 0, or -1 with e set. */
static int run_begin(session_t *ss, session_local_t *local, job_run_t *jr,
                     const session_env_t *env, const session_job_t *job,
                     session_job_result_t *res, err_t *e)
{
    memset(res, 0, sizeof *res);
    *jr = (job_run_t){.job = job, .res = res, .stopping = env->stopping};
    clock_gettime(CLOCK_REALTIME, &jr->start);
    perm_rules_t *rules = perm_rules_new_unchecked(env->cfg, e);
    if (!rules)
        return -1;
    *local = job_local;
    local->ctx = jr;
    session_local_init(ss, env, local, rules);
    return 0;
}

static void run_end(session_t *ss, job_run_t *jr)
{
    session_local_free(ss);
    for (size_t i = 0; i < jr->n_inputs; i++) {
        free((char *)jr->inputs[i].file);
        free((char *)jr->inputs[i].error);
    }
    free(jr->inputs);
}

int session_job_map(const session_env_t *env, const session_job_t *job, session_job_result_t *res,
                    err_t *e)
{
    session_t ss;
    session_local_t local;
    job_run_t jr;
    if (run_begin(&ss, &local, &jr, env, job, res, e) < 0)
        return -1;
    exec_request_t rq = {.kind = EXEC_MAP, .files = job->files, .regex = "", .query = job->query};
    session_map_out_t out = {.final = map_final, .ctx = &jr};
    int failed = 0, stopped = 0;
    int rc = session_run_map(&ss, &rq, &out, &failed, &stopped, e);
    run_end(&ss, &jr);
    /* 1: the query did not plan; the log has why (on_end). */
    return rc == 0 ? 0 : rc > 0 ? err_set(e, ERR_QUERY, "the query could not run") : -1;
}

int session_job_tail(const session_env_t *env, const session_job_t *job,
                     session_job_result_t *res, err_t *e)
{
    session_t ss;
    session_local_t local;
    job_run_t jr;
    if (run_begin(&ss, &local, &jr, env, job, res, e) < 0)
        return -1;
    exec_request_t rq = {.kind = EXEC_TAIL, .files = job->files, .regex = "", .query = job->query,
                         .timeout_s = job->timeout_s};
    wire_request_t wq;
    memset(&wq, 0, sizeof wq);
    int rc = session_run_tail(&ss, &wq, &rq, e);
    run_end(&ss, &jr);
    return rc;
}
