/* mapprobe.c: how a file is best brought into memory on this kernel.
 *
 * Scans a (page-cached) file for a byte it does not hold, the work of a
 * rare-literal grep, with each way of getting at the bytes: read() into a
 * reused buffer, mmap windows with and without MAP_POPULATE, one mapping of
 * the whole file (with MADV_SEQUENTIAL, MADV_HUGEPAGE, and with the part
 * already scanned dropped as it goes). Each strategy runs in a child of its
 * own, so its user and system time and its peak RSS are its alone; runs
 * alternate strategy by strategy and the median of each is printed. Each
 * runs once with one thread and once with two, each thread scanning its half
 * of the file with its own mappings, as dgrep's and dmap's range readers do.
 *
 *   mapprobe FILE [RUNS]
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MiB (1024u * 1024u)
#define NEEDLE '\x01'

typedef struct strategy {
    const char *name;
    size_t window;    /* 0: read(); SIZE_MAX: the whole file */
    int flags;        /* extra mmap flags */
    int advice2;      /* a second madvise, 0 for none */
    size_t drop;      /* whole file: unmap what is scanned every drop bytes */
} strategy_t;

static const strategy_t STRATEGIES[] = {
    {"read 256 KiB", 0, 0, 0, 0},
    {"windows 4 MiB, MAP_POPULATE", 4 * MiB, MAP_POPULATE, 0, 0},
    {"windows 4 MiB", 4 * MiB, 0, 0, 0},
    {"windows 16 MiB", 16 * MiB, 0, 0, 0},
    {"windows 64 MiB", 64 * MiB, 0, 0, 0},
    {"whole file", SIZE_MAX, 0, 0, 0},
    {"whole file, MADV_HUGEPAGE", SIZE_MAX, 0, MADV_HUGEPAGE, 0},
    {"whole file, drop every 16 MiB", SIZE_MAX, 0, 0, 16 * MiB},
    {"whole file, drop every 64 MiB", SIZE_MAX, 0, 0, 64 * MiB},
};
#define N_STRATEGIES (sizeof STRATEGIES / sizeof STRATEGIES[0])

static size_t count_needles(const char *p, size_t n)
{
    size_t hits = 0;
    const char *end = p + n;
    while ((p = memchr(p, NEEDLE, (size_t)(end - p))) != NULL) {
        hits++;
        p++;
    }
    return hits;
}

static size_t scan_read(int fd, off_t from, off_t to)
{
    static _Thread_local char buf[256 * 1024];
    size_t hits = 0;
    ssize_t n;
    while (from < to && (n = pread(fd, buf, sizeof buf, from)) > 0) {
        hits += count_needles(buf, (size_t)n);
        from += n;
    }
    return hits;
}

static size_t scan_windows(int fd, off_t from, off_t size, const strategy_t *s)
{
    size_t hits = 0;
    for (off_t at = from; at < size; at += (off_t)s->window) {
        size_t len = s->window;
        if ((off_t)len > size - at)
            len = (size_t)(size - at);
        char *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE | s->flags, fd, at);
        if (m == MAP_FAILED) {
            perror("mmap");
            exit(2);
        }
        madvise(m, len, MADV_SEQUENTIAL);
        hits += count_needles(m, len);
        munmap(m, len);
    }
    return hits;
}

static size_t scan_whole(int fd, off_t from, off_t to, const strategy_t *s)
{
    long page = sysconf(_SC_PAGESIZE);
    from &= ~(off_t)(page - 1);
    off_t size = to - from;
    char *m = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE | s->flags, fd, from);
    if (m == MAP_FAILED) {
        perror("mmap");
        exit(2);
    }
    madvise(m, (size_t)size, MADV_SEQUENTIAL);
    if (s->advice2)
        madvise(m, (size_t)size, s->advice2);
    size_t hits = 0, step = s->drop ? s->drop : (size_t)size;
    for (size_t at = 0; at < (size_t)size; at += step) {
        size_t len = step;
        if (len > (size_t)size - at)
            len = (size_t)size - at;
        hits += count_needles(m + at, len);
        if (s->drop)
            munmap(m + at, len);
    }
    if (!s->drop)
        munmap(m, (size_t)size);
    return hits;
}

typedef struct sample {
    double wall, user, sys;
    long rss_kib;
} sample_t;

typedef struct part {
    const strategy_t *s;
    int fd;
    off_t from, to;
    size_t hits;
} part_t;

static void *scan_part(void *arg)
{
    part_t *p = arg;
    const strategy_t *s = p->s;
    p->hits = s->window == 0 ? scan_read(p->fd, p->from, p->to)
              : s->window == SIZE_MAX ? scan_whole(p->fd, p->from, p->to, s)
                                      : scan_windows(p->fd, p->from, p->to, s);
    return NULL;
}

/* Scans the file in n threads, thread i its i-th part (page aligned). */
static size_t scan_file(int fd, off_t size, const strategy_t *s, int n)
{
    part_t parts[2];
    pthread_t tid[2];
    long page = sysconf(_SC_PAGESIZE);
    for (int i = 0; i < n; i++) {
        off_t from = size / n * i, to = i == n - 1 ? size : size / n * (i + 1);
        parts[i] = (part_t){s, fd, from & ~(off_t)(page - 1), to & ~(off_t)(page - 1), 0};
        if (i == n - 1)
            parts[i].to = size;
    }
    for (int i = 1; i < n; i++)
        pthread_create(&tid[i], NULL, scan_part, &parts[i]);
    scan_part(&parts[0]);
    size_t hits = parts[0].hits;
    for (int i = 1; i < n; i++) {
        pthread_join(tid[i], NULL);
        hits += parts[i].hits;
    }
    return hits;
}

static double tv_sec(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1e6; }

static sample_t run_child(const char *path, const strategy_t *s, int threads)
{
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(path, O_RDONLY);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) < 0) {
            perror(path);
            _exit(2);
        }
        size_t hits = scan_file(fd, st.st_size, s, threads);
        _exit(hits > 255 ? 255 : (int)hits);
    }
    int status;
    struct rusage ru;
    wait4(pid, &status, 0, &ru);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (!WIFEXITED(status) || WEXITSTATUS(status) == 2) {
        fprintf(stderr, "mapprobe: %s failed\n", s->name);
        exit(1);
    }
    sample_t r = {(double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
                  tv_sec(ru.ru_utime), tv_sec(ru.ru_stime), ru.ru_maxrss};
    return r;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: mapprobe FILE [RUNS]\n");
        return 2;
    }
    int runs = argc > 2 ? atoi(argv[2]) : 5;
    if (runs < 1 || runs > 100)
        runs = 5;
    struct stat st;
    if (stat(argv[1], &st) < 0) {
        perror(argv[1]);
        return 2;
    }
    enum { N = N_STRATEGIES * 2 };
    static double wall[N][100], user[N][100], sys[N][100];
    static long rss[N];
    run_child(argv[1], &STRATEGIES[0], 1);   /* warm the page cache */
    for (int r = 0; r < runs; r++)
        for (size_t i = 0; i < N; i++) {
            sample_t s = run_child(argv[1], &STRATEGIES[i / 2], (int)(i % 2) + 1);
            wall[i][r] = s.wall;
            user[i][r] = s.user;
            sys[i][r] = s.sys;
            if (s.rss_kib > rss[i])
                rss[i] = s.rss_kib;
        }
    double mb = (double)st.st_size / 1e6;
    printf("%-32s %7s %9s %9s %9s %9s %10s\n", "strategy (median of runs)", "threads", "wall s",
           "user s", "sys s", "GB/s", "peak RSS");
    for (size_t i = 0; i < N; i++) {
        double w = median(wall[i], runs);
        printf("%-32s %7d %9.3f %9.3f %9.3f %9.2f %7ld MiB\n", STRATEGIES[i / 2].name,
               (int)(i % 2) + 1, w, median(user[i], runs), median(sys[i], runs), mb / 1e3 / w,
               rss[i] / 1024);
    }
    return 0;
}
