/* dlog.c: dserver's buffered log writer and its self-stats line. */
#include "server/dlog.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "base/fdio.h"
#include "base/logfile.h"

#define DLOG_BUF (64 * 1024)

static struct {
    pthread_mutex_t mu;       /* guards everything below */
    int to_stdout, to_file;   /* destinations */
    logfile_t file;           /* the log file (daily or signal-rotated) */
    char buf[DLOG_BUF];       /* bytes pending for stdout */
    size_t len;               /* used bytes of buf */
} dl = {.mu = PTHREAD_MUTEX_INITIALIZER, .file = {.fd = -1}};

static void flush_locked(void)
{
    if (dl.to_stdout && dl.len)
        (void)fdio_write_all(STDOUT_FILENO, dl.buf, dl.len);
    dl.len = 0;
    if (dl.to_file)
        logfile_flush(&dl.file);
}

void dlog_flush(void)
{
    pthread_mutex_lock(&dl.mu);
    flush_locked();
    pthread_mutex_unlock(&dl.mu);
}

static void append_locked(const char *p, size_t n)
{
    if (dl.to_file)
        logfile_append(&dl.file, p, n);
    if (!dl.to_stdout)
        return;
    if (dl.len + n > sizeof dl.buf) {
        (void)fdio_write_all(STDOUT_FILENO, dl.buf, dl.len);
        dl.len = 0;
    }
    if (n > sizeof dl.buf) {
        n = sizeof dl.buf;   /* log.h messages are at most 4 KiB; never reached */
    }
    memcpy(dl.buf + dl.len, p, n);
    dl.len += n;
}

void dlog_line(enum log_level level, const char *msg, size_t len)
{
    if (!dl.to_stdout && !dl.to_file)
        return;
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    char head[64];
    int n = snprintf(head, sizeof head, "%s|%02d%02d-%02d%02d%02d|", log_level_name(level),
                     tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    pthread_mutex_lock(&dl.mu);
    append_locked(head, (size_t)n);
    append_locked(msg, len);
    append_locked("\n", 1);
    /* Errors and warnings reach the log at once: an operator tailing it
     * should not wait for the next tick to see why a client was refused. */
    if (level <= LOG_WARN)
        flush_locked();
    pthread_mutex_unlock(&dl.mu);
}

int dlog_open(const char *logger, const char *log_dir, const char *name, err_t *e)
{
    unsigned outputs;
    if (log_outputs_parse(logger, &outputs) < 0)
        return err_set(e, ERR_USAGE, "unknown logger \"%s\": use none, stdout, file or fout", logger);
    int out = (outputs & LOG_OUT_TERMINAL) != 0, file = (outputs & LOG_OUT_FILE) != 0;
    if (file && logfile_open(&dl.file, log_dir, name, e) < 0)
        return -1;
    dl.to_stdout = out;
    dl.to_file = file;
    log_set_sink(dlog_line);
    return 0;
}

int dlog_reopen(err_t *e)
{
    pthread_mutex_lock(&dl.mu);
    flush_locked();
    int rc = dl.to_file ? logfile_reopen(&dl.file, e) : 0;
    pthread_mutex_unlock(&dl.mu);
    return rc;
}

void dlog_close(void)
{
    dlog_flush();
    log_set_sink(NULL);
    pthread_mutex_lock(&dl.mu);
    if (dl.to_file)
        logfile_close(&dl.file);
    dl.to_stdout = dl.to_file = 0;
    pthread_mutex_unlock(&dl.mu);
}

void dlog_go_duration(unsigned long long secs, char *out, size_t cap)
{
    unsigned long long h = secs / 3600, m = secs / 60 % 60, s = secs % 60;
    if (h)
        snprintf(out, cap, "%lluh%llum%llus", h, m, s);
    else if (m)
        snprintf(out, cap, "%llum%llus", m, s);
    else
        snprintf(out, cap, "%llus", s);
}

/* Threads of this process (DTail reports goroutines in this field). */
static int thread_count(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    if (!f)
        return 0;
    char line[256];
    int n = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %d", &n) == 1)
            break;
    fclose(f);
    return n;
}

void dlog_stats(const server_counters_t *c)
{
    if (LOG_INFO > log_level)
        return;
    double load[1] = {0};
    if (getloadavg(load, 1) < 1)
        load[0] = 0;
    struct sysinfo si;
    char up[64];
    dlog_go_duration(sysinfo(&si) == 0 ? (unsigned long long)si.uptime : 0, up, sizeof up);
    char msg[512];
    int n = snprintf(msg, sizeof msg,
                     "%d|stats.c:1|%ld|%d|0|%.2f|%s|MAPREDUCE:STATS|currentConnections=%llu|"
                     "lifetimeConnections=%llu|preAuthConnections=%llu|requests=%llu|"
                     "linesServed=%llu|bytesServed=%llu",
                     (int)getpid(), sysconf(_SC_NPROCESSORS_ONLN), thread_count(), load[0], up,
                     (unsigned long long)atomic_load(&c->connections),
                     (unsigned long long)atomic_load(&c->lifetime_connections),
                     (unsigned long long)atomic_load(&c->preauth_connections),
                     (unsigned long long)atomic_load(&c->requests),
                     (unsigned long long)atomic_load(&c->lines_served),
                     (unsigned long long)atomic_load(&c->bytes_served));
    dlog_line(LOG_INFO, msg, n < 0 ? 0 : (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
}
