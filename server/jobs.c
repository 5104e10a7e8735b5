/* jobs.c: see jobs.h. The jobs as dtail.json gives them (checked once, at
 * start-up), their times, and the threads that run them: one looks at the
 * schedule, one per enabled continuous job follows its files. A run is
 * server/session_job.c's: a session without a client. */
#include "server/jobs.h"

#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/log.h"
#include "exec/run/plan.h"
#include "exec/run/request.h"
#include "exec/sink/outfile.h"
#include "server/session.h"

/* The users a job's runs are logged and queued as (DTail's). */
#define JOBS_SCHEDULE_USER "DTAIL-SCHEDULE"
#define JOBS_CONTINUOUS_USER "DTAIL-CONTINUOUS"
/* A filled-in file list, outfile or query. */
#define JOB_TEXT_MAX 8192

typedef struct job_thread {
    jobs_t *jobs;
    const job_t *job;            /* a continuous job; NULL: the schedule */
    pthread_t thread;
} job_thread_t;

struct jobs {
    job_t *jobs;
    size_t n;
    jobs_env_t env;
    session_env_t schedule_env, continuous_env;
    pthread_mutex_t mu;          /* guards stop for the waits */
    pthread_cond_t cv;           /* wakes the waits on stop */
    volatile int stop;           /* the runs end: the sessions' stopping */
    job_thread_t *threads;
    size_t n_threads;            /* started */
};

/* ---- times ---------------------------------------------------------------- */

static const struct {
    const char *word;
    int days;
} date_words[] = {
    {"$yyyesterday", -3}, {"$yyesterday", -2}, {"$yesterday", -1}, {"$today", 0}, {"$tomorrow", 1},
};

int job_fill_dates(const char *in, time_t now, char *out, size_t cap)
{
    size_t n = 0;
    for (const char *p = in; *p;) {
        char date[16] = "";
        size_t skip = 0;
        size_t n_words = sizeof date_words / sizeof date_words[0];
        for (size_t k = 0; *p == '$' && !skip && k < n_words; k++) {
            size_t len = strlen(date_words[k].word);
            if (strncmp(p, date_words[k].word, len) != 0)
                continue;
            time_t t = now + (time_t)date_words[k].days * 86400;
            struct tm tm;
            localtime_r(&t, &tm);
            strftime(date, sizeof date, "%Y%m%d", &tm);
            skip = len;
        }
        const char *piece = skip ? date : p;
        size_t len = skip ? strlen(date) : 1;
        if (n + len >= cap)
            return -1;
        memcpy(out + n, piece, len);
        n += len;
        p += skip ? skip : 1;
    }
    if (cap == 0)
        return -1;
    out[n] = '\0';
    return 0;
}

int job_in_time_range(const job_t *j, time_t now)
{
    struct tm tm;
    localtime_r(&now, &tm);
    return tm.tm_hour >= j->from_hour && tm.tm_hour < j->to_hour;
}

long long job_seconds_to_midnight(time_t now)
{
    struct tm tm;
    localtime_r(&now, &tm);
    tm.tm_mday++;
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    tm.tm_isdst = -1;   /* the next day's, whatever today's is */
    long long s = (long long)(mktime(&tm) - now);
    return s > 0 ? s : 1;
}

enum job_due job_due(const job_t *j, time_t now, char *outfile, size_t cap)
{
    if (!j->enable)
        return JOB_DISABLED;
    if (!job_in_time_range(j, now))
        return JOB_OUT_OF_RANGE;
    if (job_fill_dates(j->outfile, now, outfile, cap) < 0)
        return JOB_TOO_LONG;
    /* As DTail's os.Stat: anything there, or a path that cannot be
     * looked at, is not written over. */
    struct stat st;
    return stat(outfile, &st) == 0 || errno != ENOENT ? JOB_DONE : JOB_DUE;
}

int job_query_text(const job_t *j, const char *outfile, char *out, size_t cap)
{
    int n = snprintf(out, cap, "%s outfile \"%s\"", j->query, outfile);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

/* ---- the config -------------------------------------------------------------- */

/* Where a job's error is: the list's line, the list, the job. */
typedef struct job_where {
    const config_t *cfg;
    const char *list;            /* "Schedule" or "Continuous" */
    size_t index;                /* in the list */
    const char *name;            /* the job's Name once read, else NULL */
} job_where_t;

/* key: the job's key the error is about (its line), NULL: the job's. */
__attribute__((format(printf, 4, 5)))
static int job_err(err_t *e, const job_where_t *w, const char *key, const char *fmt, ...)
{
    char msg[sizeof e->msg], where[4200], elem[32];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(elem, sizeof elem, "[%zu]", w->index);
    config_where(w->cfg, (const char *const[]){"Server", w->list, elem, key, NULL}, where,
                 sizeof where);
    if (w->name)
        return err_set(e, ERR_CONFIG, "%s: Server.%s[%zu] (job %s): %s", where, w->list, w->index,
                       w->name, msg);
    return err_set(e, ERR_CONFIG, "%s: Server.%s[%zu]: %s", where, w->list, w->index, msg);
}

static const char *const common_keys[] = {"Name", "Enable", "Files", "Query", "Outfile",
                                          "Discovery", "Servers", "AllowFrom", NULL};

static int in_list(const char *const *list, const char *key)
{
    for (; *list; list++)
        if (strcmp(*list, key) == 0)
            return 1;
    return 0;
}

static int check_keys(json_t *o, enum job_kind kind, const job_where_t *w, err_t *e)
{
    const char *key;
    json_t *v;
    json_object_foreach(o, key, v) {
        (void)v;
        if (in_list(common_keys, key))
            continue;
        if (strcmp(key, kind == JOB_SCHEDULE ? "TimeRange" : "RestartOnDayChange") == 0)
            continue;
        if (strcmp(key, "TimeRange") == 0 || strcmp(key, "RestartOnDayChange") == 0)
            return job_err(e, w, key, "%s is a key of %s jobs", key,
                           kind == JOB_SCHEDULE ? "Continuous" : "Schedule");
        return job_err(e, w, key, "unknown key %s (known: Name, Enable, Files, Query, Outfile, "
                             "Discovery, Servers, AllowFrom, %s)",
                       key, kind == JOB_SCHEDULE ? "TimeRange" : "RestartOnDayChange");
    }
    return 0;
}

/* A string key that must be there and not empty, copied into *out. */
static int get_text(json_t *o, const char *key, char **out, const job_where_t *w, err_t *e)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return job_err(e, w, NULL, "%s is missing", key);
    if (!json_is_string(v) || json_string_length(v) == 0 ||
        strlen(json_string_value(v)) != json_string_length(v) ||
        json_string_length(v) >= JOB_TEXT_MAX / 2)
        return job_err(e, w, key, "%s must be a non-empty string of at most %d bytes", key,
                       JOB_TEXT_MAX / 2 - 1);
    *out = strdup(json_string_value(v));
    return *out ? 0 : err_set(e, ERR_NOMEM, "out of memory reading the jobs");
}

static int get_bool(json_t *o, const char *key, int *out, const job_where_t *w, err_t *e)
{
    json_t *v = json_object_get(o, key);
    if (!v)
        return 0;
    if (!json_is_boolean(v))
        return job_err(e, w, key, "%s must be true or false", key);
    *out = json_is_true(v);
    return 0;
}

static int get_time_range(json_t *o, job_t *j, const job_where_t *w, err_t *e)
{
    json_t *v = json_object_get(o, "TimeRange");
    json_t *from = json_array_get(v, 0), *to = json_array_get(v, 1);
    if (!v)
        return job_err(e, w, NULL, "TimeRange is missing: [fromHour, toHour), such as [0, 24]");
    if (json_array_size(v) != 2 || !json_is_integer(from) || !json_is_integer(to) ||
        json_integer_value(from) < 0 || json_integer_value(to) > 24 ||
        json_integer_value(from) >= json_integer_value(to))
        return job_err(e, w, "TimeRange", "TimeRange must be [fromHour, toHour) with 0 <= "
                                          "fromHour < toHour <= 24, such as [0, 24]");
    j->from_hour = (int)json_integer_value(from);
    j->to_hour = (int)json_integer_value(to);
    return 0;
}

/* Whether name ("host" or "host:port") is this server: the names DTail's
 * job would have connected back to it by. */
static int names_this_server(const char *name, const config_t *cfg, const char *host)
{
    char full[256] = "", bare[300];
    gethostname(full, sizeof full - 1);
    snprintf(bare, sizeof bare, "%s", name);
    char *colon = strrchr(bare, ':');
    int v6 = colon && strchr(bare, ':') != colon && bare[0] != '[';   /* ::1 */
    if (colon && !v6) {
        char *end;
        long port = strtol(colon + 1, &end, 10);
        if (colon[1] == '\0' || *end != '\0' || port != cfg->ssh_port)
            return 0;
        *colon = '\0';
    }
    if (bare[0] == '[' && bare[strlen(bare) - 1] == ']') {
        memmove(bare, bare + 1, strlen(bare));
        bare[strlen(bare) - 1] = '\0';
    }
    const char *local[] = {"localhost", "127.0.0.1", "::1", cfg->ssh_bind_address, host, full};
    for (size_t i = 0; i < sizeof local / sizeof local[0]; i++)
        if (local[i] && local[i][0] && strcmp(bare, local[i]) == 0)
            return 1;
    return 0;
}

/* Servers and AllowFrom: where DTail's job ran its client and whom it let
 * in. A job runs here, on this server's own files: each may name this
 * server only. */
static int check_here(json_t *o, const char *key, const char *host, const job_where_t *w,
                      err_t *e)
{
    json_t *v = json_object_get(o, key), *s;
    size_t i;
    if (!v)
        return 0;
    if (!json_is_array(v))
        return job_err(e, w, key, "%s must be a list of host names", key);
    json_array_foreach(v, i, s) {
        if (!json_is_string(s))
            return job_err(e, w, key, "%s[%zu] must be a host name", key, i);
        if (!names_this_server(json_string_value(s), w->cfg, host))
            return job_err(e, w, key, "%s[%zu] \"%s\" is not this server: a job runs on this "
                                 "server's own files (localhost, this host's name or "
                                 "SSHBindAddress)", key, i, json_string_value(s));
    }
    return 0;
}

static int check_discovery(json_t *o, const job_where_t *w, err_t *e)
{
    json_t *v = json_object_get(o, "Discovery");
    if (!v || (json_is_string(v) && json_string_length(v) == 0))
        return 0;
    return job_err(e, w, "Discovery", "Discovery must be empty: a job runs on this server's own "
                                      "files, it does not discover other servers");
}

/* The query as each run plans it: Query alone must have no outfile
 * clause (the job's Outfile is where its result goes), and with
 * today's outfile it must plan and its outfile be one that can be
 * written. Its warnings are kept for the log. */
static int check_query(job_t *j, const config_t *cfg, const char *host, const job_where_t *w,
                       err_t *e)
{
    if (strchr(j->outfile, '"'))
        return job_err(e, w, "Outfile", "Outfile must not hold a double quote");
    exec_env_t env = {.host = host, .max_line_len = cfg->max_line_len, .n_threads = 1,
                      .default_logformat = exec_default_logformat(cfg)};
    exec_request_t rq = {.kind = j->kind == JOB_SCHEDULE ? EXEC_MAP : EXEC_TAIL, .files = "",
                         .regex = "", .query = j->query};
    char outfile[JOB_TEXT_MAX], text[JOB_TEXT_MAX], why[4096];
    exec_plan_t p;
    err_t pe;
    if (exec_plan_init(&p, &rq, &env, &pe) < 0) {
        exec_plan_error(&rq, &pe, why, sizeof why);
        return job_err(e, w, "Query", "Query: %s%s", pe.code == ERR_QUERY ? "invalid query: " : "",
                       why);
    }
    int has_outfile = p.map->outfile != NULL;
    exec_plan_free(&p);
    if (has_outfile)
        return job_err(e, w, "Query", "Query has an outfile clause: the job's Outfile says where "
                                      "its result goes");
    if (job_fill_dates(j->outfile, time(NULL), outfile, sizeof outfile) < 0 ||
        job_query_text(j, outfile, text, sizeof text) < 0)
        return job_err(e, w, "Outfile", "Query and Outfile are too long");
    rq.query = text;
    if (exec_plan_init(&p, &rq, &env, &pe) < 0) {
        exec_plan_error(&rq, &pe, why, sizeof why);
        return job_err(e, w, "Outfile", "Query with its Outfile: %s", why);
    }
    int rc = outfile_check(p.map, &pe) < 0 ? job_err(e, w, "Outfile", "Outfile: %s", pe.msg) : 0;
    size_t len = 0;
    for (size_t i = 0; rc == 0 && i < p.map->n_warnings; i++)
        len += strlen(p.map->warnings[i].msg) + 1;
    if (rc == 0 && len && (j->warnings = calloc(1, len + 1)) != NULL) {
        for (size_t i = 0; i < p.map->n_warnings; i++) {
            strcat(j->warnings, p.map->warnings[i].msg);
            strcat(j->warnings, "\n");
        }
    }
    exec_plan_free(&p);
    return rc;
}

static void job_free(job_t *j)
{
    free(j->name);
    free(j->files);
    free(j->query);
    free(j->outfile);
    free(j->warnings);
}

static int load_job(job_t *j, json_t *o, enum job_kind kind, const char *host, job_where_t *w,
                    err_t *e)
{
    memset(j, 0, sizeof *j);
    j->kind = kind;
    if (get_text(o, "Name", &j->name, w, e) < 0)
        return -1;
    w->name = j->name;
    if (check_keys(o, kind, w, e) < 0 || get_bool(o, "Enable", &j->enable, w, e) < 0 ||
        get_text(o, "Files", &j->files, w, e) < 0 || get_text(o, "Query", &j->query, w, e) < 0 ||
        get_text(o, "Outfile", &j->outfile, w, e) < 0 || check_discovery(o, w, e) < 0 ||
        check_here(o, "Servers", host, w, e) < 0 || check_here(o, "AllowFrom", host, w, e) < 0)
        return -1;
    int rc = kind == JOB_SCHEDULE
                 ? get_time_range(o, j, w, e)
                 : get_bool(o, "RestartOnDayChange", &j->restart_on_day_change, w, e);
    if (rc < 0)
        return -1;
    return check_query(j, w->cfg, host, w, e);
}

static int name_taken(const jobs_t *js, const char *name)
{
    for (size_t i = 0; i < js->n; i++)
        if (strcmp(js->jobs[i].name, name) == 0)
            return 1;
    return 0;
}

static int load_list(jobs_t *js, json_t *root, enum job_kind kind, const config_t *cfg,
                     const char *host, err_t *e)
{
    const char *list_key = kind == JOB_SCHEDULE ? "Schedule" : "Continuous";
    json_t *list = json_object_get(root, list_key), *o;
    size_t i;
    json_array_foreach(list, i, o) {
        job_where_t w = {.cfg = cfg, .list = list_key, .index = i};
        job_t *j = &js->jobs[js->n];
        if (load_job(j, o, kind, host, &w, e) < 0) {
            job_free(j);
            return -1;
        }
        if (name_taken(js, j->name)) {
            job_err(e, &w, "Name", "another job has the Name %s", j->name);
            job_free(j);
            return -1;
        }
        js->n++;
    }
    return 0;
}

int jobs_load(jobs_t **out, const config_t *cfg, const char *host, err_t *e)
{
    *out = NULL;
    jobs_t *js = calloc(1, sizeof *js);
    if (!js)
        return err_set(e, ERR_NOMEM, "out of memory reading the jobs");
    pthread_mutex_init(&js->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&js->cv, &ca);
    pthread_condattr_destroy(&ca);
    json_t *root = NULL;
    size_t n = 0;
    if (cfg->jobs[0]) {
        json_error_t je;
        root = json_loads(cfg->jobs, 0, &je);
        n = json_array_size(json_object_get(root, "Schedule")) +
            json_array_size(json_object_get(root, "Continuous"));
    }
    js->jobs = calloc(n ? n : 1, sizeof *js->jobs);
    int rc = 0;
    if (!js->jobs || (cfg->jobs[0] && !root))
        rc = err_set(e, ERR_NOMEM, "out of memory reading the jobs");
    else if (root && load_list(js, root, JOB_SCHEDULE, cfg, host, e) < 0)
        rc = -1;
    else if (root && load_list(js, root, JOB_CONTINUOUS, cfg, host, e) < 0)
        rc = -1;
    json_decref(root);
    if (rc < 0) {
        jobs_free(js);
        return -1;
    }
    *out = js;
    return 0;
}

size_t jobs_count(const jobs_t *j)
{
    return j->n;
}

const job_t *jobs_get(const jobs_t *j, size_t i)
{
    return i < j->n ? &j->jobs[i] : NULL;
}

/* ---- runs --------------------------------------------------------------------- */

/* Waits ms, or less when the jobs stop: 1 when they stop. */
static int jobs_wait(jobs_t *js, long long ms)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += (time_t)(ms / 1000);
    until.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&js->mu);
    int timed_out = 0;
    while (!js->stop && !timed_out)
        timed_out = pthread_cond_timedwait(&js->cv, &js->mu, &until) == ETIMEDOUT;
    int stop = js->stop;
    pthread_mutex_unlock(&js->mu);
    return stop;
}

/* The log line of a run's end: DTail's words, then what it did. */
static void log_exit(const job_t *j, int rc, const err_t *e, const session_job_result_t *res,
                     const char *outfile, long long t0)
{
    int status = rc < 0 || res->errors || res->files_failed ||
                 (j->kind == JOB_SCHEDULE && !res->writes);
    enum log_level level = status ? LOG_WARN : LOG_INFO;
    double s = (double)(clock_now_ms() - t0) / 1000;
    if (rc < 0)
        LOG_ERROR("Job %s|%s", j->name, e->msg);
    if (j->kind == JOB_SCHEDULE)
        LOG_AT(level, "Job exited with status %d|%s|outfile %s|%s %zu rows|files %d read, "
                      "%d failed|%llu lines|%d errors|%.3f s",
               status, j->name, outfile, res->writes ? "wrote" : "not written", res->rows,
               res->files_read, res->files_failed, res->lines, res->errors, s);
    else
        LOG_AT(level, "Job exited with status %d|%s|outfile %s|%d writes, the last %zu rows|"
                      "files %d failed|%d errors|%.3f s",
               status, j->name, outfile, res->writes, res->rows, res->files_failed,
               res->errors, s);
}

/* What a run at a time reads and writes: the dates filled in. */
typedef struct run_texts {
    char files[JOB_TEXT_MAX];
    char outfile[JOB_TEXT_MAX];
    char query[JOB_TEXT_MAX];
} run_texts_t;

/* The files, outfile and query of a run of j at now, and the run's job
 * over them: 0, or -1 (logged) when one does not fit. */
static int fill_run(const job_t *j, time_t now, run_texts_t *t, session_job_t *job)
{
    if (job_fill_dates(j->files, now, t->files, sizeof t->files) < 0 ||
        job_fill_dates(j->outfile, now, t->outfile, sizeof t->outfile) < 0 ||
        job_query_text(j, t->outfile, t->query, sizeof t->query) < 0) {
        LOG_ERROR("Job %s|its files, outfile or query are too long with the dates filled in",
                  j->name);
        return -1;
    }
    *job = (session_job_t){.name = j->name, .files = t->files, .query = t->query};
    return 0;
}

/* One run of j, started at now, logged from its start to its end. */
static void run_job(jobs_t *js, const job_t *j, time_t now)
{
    run_texts_t t;
    session_job_t job;
    if (fill_run(j, now, &t, &job) < 0)
        return;
    /* A continuous run of the day ends when the day does; the next uses
     * the new day's names. */
    if (j->kind == JOB_CONTINUOUS && j->restart_on_day_change)
        job.timeout_s = job_seconds_to_midnight(now);
    LOG_INFO("Starting job %s|files %s|outfile %s", j->name, t.files, t.outfile);
    long long t0 = clock_now_ms();
    session_job_result_t res;
    err_t e;
    err_clear(&e);
    int rc = j->kind == JOB_SCHEDULE ? session_job_map(&js->schedule_env, &job, &res, &e)
                                     : session_job_tail(&js->continuous_env, &job, &res, &e);
    /* Its deadline ended it, not the server nor a failure to start. */
    if (rc == 0 && job.timeout_s && !js->stop &&
        clock_now_ms() - t0 >= job.timeout_s * 1000 - 1000)
        LOG_INFO("Canceling job %s due to day change", j->name);
    log_exit(j, rc, &e, &res, t.outfile, t0);
}

/* One look at the schedule: every job due runs, one after the other. */
static void look_at_schedule(jobs_t *js)
{
    for (size_t i = 0; i < js->n && !js->stop; i++) {
        const job_t *j = &js->jobs[i];
        if (j->kind != JOB_SCHEDULE)
            continue;
        char outfile[JOB_TEXT_MAX];
        time_t now = time(NULL);
        switch (job_due(j, now, outfile, sizeof outfile)) {
        case JOB_DUE:
            run_job(js, j, now);
            break;
        case JOB_DISABLED:
            LOG_DEBUG("Job %s|Not running job as not enabled", j->name);
            break;
        case JOB_OUT_OF_RANGE:
            LOG_DEBUG("Job %s|Not running job out of time range", j->name);
            break;
        case JOB_DONE:
            LOG_DEBUG("Job %s|Not running job as outfile already exists|%s", j->name, outfile);
            break;
        case JOB_TOO_LONG:
            LOG_ERROR("Job %s|its outfile is too long with the dates filled in", j->name);
            break;
        }
    }
}

static void *job_thread_main(void *arg)
{
    job_thread_t *t = arg;
    jobs_t *js = t->jobs;
    if (jobs_wait(js, JOBS_START_DELAY_MS))
        return NULL;
    do {
        if (t->job)
            run_job(js, t->job, time(NULL));
        else
            look_at_schedule(js);
    } while (!jobs_wait(js, JOBS_RECHECK_MS));
    return NULL;
}

static void log_job(const job_t *j)
{
    if (j->kind == JOB_SCHEDULE)
        LOG_INFO("Job %s|schedule|%s|hours %d-%d|files %s|outfile %s", j->name,
                 j->enable ? "enabled" : "not enabled", j->from_hour, j->to_hour, j->files,
                 j->outfile);
    else
        LOG_INFO("Job %s|continuous|%s|%s|files %s|outfile %s", j->name,
                 j->enable ? "enabled" : "not enabled",
                 j->restart_on_day_change ? "restarts on day change" : "runs on", j->files,
                 j->outfile);
    for (const char *p = j->warnings; p && *p;) {
        size_t n = strcspn(p, "\n");
        LOG_WARN("Job %s|warning: %.*s", j->name, (int)n, p);
        p += n + (p[n] == '\n');
    }
}

static int start_thread(jobs_t *js, const job_t *job, err_t *e)
{
    job_thread_t *t = &js->threads[js->n_threads];
    *t = (job_thread_t){.jobs = js, .job = job};
    int err = pthread_create(&t->thread, NULL, job_thread_main, t);
    if (err)
        return err_set(e, ERR_IO, "cannot start a job's thread: %s", strerror(err));
    js->n_threads++;
    return 0;
}

int jobs_start(jobs_t *js, const jobs_env_t *env, err_t *e)
{
    js->env = *env;
    session_env_t base = {.hostname = env->host, .cfg = env->cfg, .limits = env->limits,
                          .counters = env->counters, .stopping = &js->stop};
    js->schedule_env = base;
    js->schedule_env.user = JOBS_SCHEDULE_USER;
    js->continuous_env = base;
    js->continuous_env.user = JOBS_CONTINUOUS_USER;
    int scheduled = 0, continuous = 0;
    for (size_t i = 0; i < js->n; i++) {
        log_job(&js->jobs[i]);
        if (js->jobs[i].enable)
            *(js->jobs[i].kind == JOB_SCHEDULE ? &scheduled : &continuous) += 1;
    }
    js->threads = calloc((size_t)continuous + 1, sizeof *js->threads);
    if (!js->threads)
        return err_set(e, ERR_NOMEM, "out of memory starting the jobs");
    int rc = 0;
    if (scheduled) {
        LOG_INFO("Starting scheduled job runner after 2s");
        rc = start_thread(js, NULL, e);
    }
    if (continuous && rc == 0)
        LOG_INFO("Starting continuous job runner after 2s");
    for (size_t i = 0; i < js->n && rc == 0; i++)
        if (js->jobs[i].enable && js->jobs[i].kind == JOB_CONTINUOUS)
            rc = start_thread(js, &js->jobs[i], e);
    if (rc < 0)
        jobs_stop(js);
    return rc;
}

void jobs_stop(jobs_t *js)
{
    if (!js)
        return;
    pthread_mutex_lock(&js->mu);
    js->stop = 1;
    pthread_cond_broadcast(&js->cv);
    pthread_mutex_unlock(&js->mu);
    for (size_t i = 0; i < js->n_threads; i++)
        pthread_join(js->threads[i].thread, NULL);
    js->n_threads = 0;
}

void jobs_free(jobs_t *js)
{
    if (!js)
        return;
    jobs_stop(js);
    for (size_t i = 0; i < js->n; i++)
        job_free(&js->jobs[i]);
    free(js->jobs);
    free(js->threads);
    pthread_mutex_destroy(&js->mu);
    pthread_cond_destroy(&js->cv);
    free(js);
}
