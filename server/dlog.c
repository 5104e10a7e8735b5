/* dlog.c: dserver's buffered log writer and its self-stats line. */
#include "server/dlog.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

#include "base/fdio.h"

#define DLOG_BUF (64 * 1024)

static struct {
    pthread_mutex_t mu;       /* guards everything below */
    int to_stdout, to_file;   /* destinations */
    char dir[1024];           /* LogDir for the daily file */
    char fixed[1100];         /* signal rotation: the one file's path, else "" */
    int fd;                   /* log file, -1 when closed */
    int fd_day;               /* YYYYMMDD of the open file */
    char buf[DLOG_BUF];       /* pending bytes */
    size_t len;               /* used bytes of buf */
} dl = {.mu = PTHREAD_MUTEX_INITIALIZER, .fd = -1};

/* Opens <dir>/YYYYMMDD.log for today's date when it is not open yet
 * (with signal rotation: the fixed file, once). */
static void open_daily(const struct tm *tm)
{
    if (dl.fixed[0]) {
        if (dl.fd < 0)
            dl.fd = open(dl.fixed, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        return;
    }
    int day = (tm->tm_year + 1900) * 10000 + (tm->tm_mon + 1) * 100 + tm->tm_mday;
    if (dl.fd >= 0 && dl.fd_day == day)
        return;
    if (dl.fd >= 0)
        close(dl.fd);
    char path[1100];
    snprintf(path, sizeof path, "%s/%08d.log", dl.dir, day);
    dl.fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    dl.fd_day = day;
}

static void flush_locked(void)
{
    if (dl.len == 0)
        return;
    if (dl.to_stdout)
        (void)fdio_write_all(STDOUT_FILENO, dl.buf, dl.len);
    if (dl.to_file) {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        open_daily(&tm);
        if (dl.fd >= 0)
            (void)fdio_write_all(dl.fd, dl.buf, dl.len);
    }
    dl.len = 0;
}

void dlog_flush(void)
{
    pthread_mutex_lock(&dl.mu);
    flush_locked();
    pthread_mutex_unlock(&dl.mu);
}

static void append_locked(const char *p, size_t n)
{
    if (dl.len + n > sizeof dl.buf)
        flush_locked();
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
    int out = 0, file = 0;
    if (!strcasecmp(logger, "stdout"))
        out = 1;
    else if (!strcasecmp(logger, "file"))
        file = 1;
    else if (!strcasecmp(logger, "fout"))
        out = file = 1;
    else if (strcasecmp(logger, "none"))
        return err_set(e, ERR_USAGE, "unknown logger \"%s\": use none, stdout, file or fout", logger);
    if (file) {
        if (mkdir(log_dir, 0755) < 0 && errno != EEXIST)
            return err_set(e, ERR_IO, "cannot create log directory %s: %s", log_dir, strerror(errno));
        snprintf(dl.dir, sizeof dl.dir, "%s", log_dir);
        dl.fixed[0] = '\0';
        if (name)
            snprintf(dl.fixed, sizeof dl.fixed, "%s/%s.log", log_dir, name);
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        open_daily(&tm);
        if (dl.fd < 0)
            return err_set(e, ERR_IO, "cannot open log file in %s: %s", log_dir, strerror(errno));
    }
    dl.to_stdout = out;
    dl.to_file = file;
    log_set_sink(dlog_line);
    return 0;
}

int dlog_reopen(err_t *e)
{
    pthread_mutex_lock(&dl.mu);
    flush_locked();
    int rc = 0;
    if (dl.to_file) {
        char path[1100];
        if (dl.fixed[0]) {
            snprintf(path, sizeof path, "%s", dl.fixed);
        } else {
            time_t now = time(NULL);
            struct tm tm;
            localtime_r(&now, &tm);
            snprintf(path, sizeof path, "%s/%04d%02d%02d.log", dl.dir, tm.tm_year + 1900,
                     tm.tm_mon + 1, tm.tm_mday);
        }
        int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (fd < 0) {
            rc = err_set(e, ERR_IO, "cannot reopen log file %s: %s", path, strerror(errno));
        } else {
            if (dl.fd >= 0)
                close(dl.fd);
            dl.fd = fd;
        }
    }
    pthread_mutex_unlock(&dl.mu);
    return rc;
}

void dlog_close(void)
{
    dlog_flush();
    log_set_sink(NULL);
    pthread_mutex_lock(&dl.mu);
    if (dl.fd >= 0)
        close(dl.fd);
    dl.fd = -1;
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
