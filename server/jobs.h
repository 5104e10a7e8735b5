/* jobs.h: DTail's scheduled and continuous queries (shared reference
 * §5.7): the jobs of Server.Schedule and Server.Continuous, which dserver
 * runs against its own files, writing each result to the job's outfile.
 *
 * Every job has Name, Enable, Files, Query and Outfile; Files and Outfile
 * may hold $today, $yesterday, $yyesterday, $yyyesterday and $tomorrow,
 * filled in at each run as YYYYMMDD in local time. A run's query is
 * `Query outfile "Outfile"`.
 *
 *  - Schedule (TimeRange [fromHour, toHour)): 2 s after the start and then
 *    a minute after each look, every enabled job whose local hour is in
 *    its range and whose filled-in outfile does not exist yet runs once,
 *    one after the other: a map over its files, its whole result written
 *    to the outfile (session_job_map).
 *  - Continuous (RestartOnDayChange): 2 s after the start each enabled job
 *    follows its files as a tail request does, each interval's result
 *    replacing the outfile (session_job_tail); a run that ends is started
 *    again a minute later, and with RestartOnDayChange a run ends at local
 *    midnight, so the next one uses the new day's names.
 *
 * Every job is checked at start-up (jobs_load): its keys, their types and
 * its query with its outfile, so that a job that could never run stops
 * dserver's start with an error naming it. Their runs are logged: the
 * start, the end with its status, rows, files and lines, every error. */
#ifndef DTAIL_SERVER_JOBS_H
#define DTAIL_SERVER_JOBS_H

#include <stddef.h>
#include <time.h>

#include "base/config.h"
#include "base/err.h"
#include "server/counters.h"
#include "server/limits.h"

enum job_kind { JOB_SCHEDULE = 0, JOB_CONTINUOUS = 1 };

typedef struct job {
    enum job_kind kind;
    char *name;                  /* Name: the log's */
    int enable;                  /* Enable (default false) */
    char *files;                 /* Files: comma list, date placeholders kept */
    char *query;                 /* Query, without an outfile clause */
    char *outfile;               /* Outfile, date placeholders kept */
    int from_hour, to_hour;      /* Schedule: TimeRange, runs in [from, to) */
    int restart_on_day_change;   /* Continuous: RestartOnDayChange */
    char *warnings;              /* the query's warnings, one a line; NULL: none */
} job_t;

typedef struct jobs jobs_t;

/* Reads and checks cfg's jobs (cfg->jobs; host: this server's name, for
 * Servers and AllowFrom): every key known and of its type, each query
 * planned with today's outfile. An error names the file, the line of the
 * list, the job and the key. *out is NULL-free: an empty list when there
 * are no jobs. */
int jobs_load(jobs_t **out, const config_t *cfg, const char *host, err_t *e);
size_t jobs_count(const jobs_t *j);
const job_t *jobs_get(const jobs_t *j, size_t i);

/* What the runs need of the server; it outlives the jobs' threads. */
typedef struct jobs_env {
    const config_t *cfg;
    const char *host;            /* this server's short host name */
    server_limits_t *limits;     /* the read queues a job waits in as a client does */
    server_counters_t *counters;
} jobs_env_t;

/* Logs the jobs and starts their threads: one for the schedule, one per
 * enabled continuous job. Returns 0, or -1 with e set (no thread is left
 * running then). */
int jobs_start(jobs_t *j, const jobs_env_t *env, err_t *e);
/* Ends the runs (a scheduled run writes no outfile then) and joins the
 * threads; a no-op for jobs that were not started. */
void jobs_stop(jobs_t *j);
void jobs_free(jobs_t *j);

/* ---- times: each takes now, so tests give theirs ------------------------- */

#define JOBS_START_DELAY_MS 2000   /* from the start to the first runs */
#define JOBS_RECHECK_MS 60000      /* between looks at the schedule, and from
                                      a continuous run's end to the next */

/* in with its date placeholders filled in for now (local time; $yesterday
 * is the date of now minus 24 hours, as DTail's): 0, or -1 when out
 * (cap bytes) is too small. */
int job_fill_dates(const char *in, time_t now, char *out, size_t cap);
/* Whether now's local hour is in the job's TimeRange. */
int job_in_time_range(const job_t *j, time_t now);
/* Seconds from now to the next local midnight (at least 1). */
long long job_seconds_to_midnight(time_t now);

enum job_due {
    JOB_DUE = 0,                 /* runs now */
    JOB_DISABLED,                /* Enable is false */
    JOB_OUT_OF_RANGE,            /* the hour is not in TimeRange */
    JOB_DONE,                    /* the filled-in outfile exists */
    JOB_TOO_LONG,                /* a filled-in name does not fit */
};
/* Whether the scheduled job j runs at now, with its filled-in outfile in
 * outfile (cap bytes) unless it is disabled or out of range. */
enum job_due job_due(const job_t *j, time_t now, char *outfile, size_t cap);
/* The query a run of j runs: Query with the outfile clause of outfile (a
 * filled-in name): 0, or -1 when out (cap bytes) is too small. */
int job_query_text(const job_t *j, const char *outfile, char *out, size_t cap);

#endif
