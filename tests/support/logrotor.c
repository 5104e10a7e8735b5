/* logrotor.c: a log writer that rotates its file while a follower reads it,
 * for the follow/rotation e2e tests (tests/e2e/follow_rotate.sh, checked
 * by tests/support/follow_check.py).
 *
 *   logrotor --file F --mode rename|rename-delete|truncate-regrow|copytruncate
 *            [--rate LINES_PER_S] [--period-ms MS] [--rotations N]
 *            [--delete-after-ms MS] [--lines-per-rotation N] [--ranges FILE]
 *
 * Writes the lines 1, 2, ... (LOGROTOR_LINE bytes each, below) to F, paced
 * to the rate, each write(2) a block of whole lines: a follower that ever
 * prints a partial line cut it itself. Every period (or every N lines with
 * --lines-per-rotation) it rotates F:
 *   rename           F -> F.<k>, a new F (O_EXCL) written from then on
 *   rename-delete    as rename; F.<k> is unlinked delete-after-ms later
 *   truncate-regrow  F truncated to 0, then at once lines enough to make it
 *                    longer than it was: only content shows the truncation
 *   copytruncate     F copied to F.<k>, the lines due meanwhile written,
 *                    then F truncated to 0 (logrotate's copytruncate; a
 *                    real copy is not instant, and what the writer adds
 *                    during it is in neither file)
 * (--lines-per-rotation counts the lines written to F since its last
 * rotation, truncate-regrow's regrowth too.)
 * After the last rotation it writes one more period (or N lines), waits
 * for the pending deletions and prints `written=N rotations=R first=1
 * last=N`. F itself is opened with O_APPEND and not emptied: a test puts a
 * line there first so that a follower is seen to be at its end.
 *
 * --ranges FILE gets one line per rotation, `k first last`: the lines that
 * rotation k took away from F (first > last: none). For rename they are
 * F.<k>; for rename-delete the lines of the deleted F.<k>; for the
 * truncations the lines the truncation destroyed in F (copytruncate: F.<k>
 * holds them but for those written between the copy and the truncation).
 * copytruncate adds two columns, `copied_last copy_bytes`: the last line
 * F.<k> holds (the lines after it, to `last`, are in no file) and F.<k>'s
 * size. A checker tells from it which losses the rotor caused.
 *
 * Exit status 0, 2 on bad usage, 1 on an I/O error. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* seq=%09llu payload-%08x-padding- and dots up to the newline: the hash
 * of seq makes a line glued from two halves fail the checker's pattern even
 * when the halves have the right width. */
#define LOGROTOR_LINE 60
#define LOGROTOR_HEAD 39
/* Lines per write(2): big enough to keep up with any test rate, small
 * enough that a follower sees the file grow between writes. */
#define LOGROTOR_BLOCK_LINES 1024
#define LOGROTOR_TICK_NS 1000000L

enum mode { M_RENAME, M_RENAME_DELETE, M_TRUNCATE_REGROW, M_COPYTRUNCATE };

typedef struct pending {
    unsigned k;
    long long due_ns;
} pending_t;

typedef struct rotor {
    const char *file;
    enum mode mode;
    long long rate;
    long long period_ns;
    unsigned rotations;
    long long delete_after_ns;
    long long lines_per_rotation;   /* 0: rotate by time */
    FILE *ranges;
    int fd;
    unsigned long long seq;         /* the next line's number */
    unsigned long long file_first;  /* the first line F holds */
    long long start_ns;
    pending_t *pend;                /* rename-delete: unlinks to come */
    size_t npend, pend_head;
    char buf[LOGROTOR_BLOCK_LINES * LOGROTOR_LINE];
} rotor_t;

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void sleep_ns(long long ns)
{
    if (ns <= 0)
        return;
    struct timespec t = {ns / 1000000000LL, ns % 1000000000LL};
    while (nanosleep(&t, &t) < 0 && errno == EINTR)
        ;
}

/* The checker (follow_check.py) computes the same. */
static uint32_t line_hash(unsigned long long seq)
{
    uint32_t h = (uint32_t)(seq * 2654435761ULL);
    return h ^ (h >> 16);
}

static void format_line(char *p, unsigned long long seq)
{
    char head[LOGROTOR_HEAD + 1];
    snprintf(head, sizeof head, "seq=%09llu payload-%08x-padding-", seq, (unsigned)line_hash(seq));
    memcpy(p, head, LOGROTOR_HEAD);
    memset(p + LOGROTOR_HEAD, '.', LOGROTOR_LINE - 1 - LOGROTOR_HEAD);
    p[LOGROTOR_LINE - 1] = '\n';
}

static int io_fail(const char *what, const char *path)
{
    fprintf(stderr, "logrotor: %s %s: %s\n", what, path, strerror(errno));
    return -1;
}

/* Writes n lines, in blocks of whole lines. 0, or -1 on an error. */
static int write_lines(rotor_t *r, long long n)
{
    while (n > 0) {
        long long k = n < LOGROTOR_BLOCK_LINES ? n : LOGROTOR_BLOCK_LINES;
        for (long long i = 0; i < k; i++)
            format_line(r->buf + i * LOGROTOR_LINE, r->seq + (unsigned long long)i);
        size_t len = (size_t)k * LOGROTOR_LINE;
        ssize_t w = write(r->fd, r->buf, len);
        if (w < 0)
            return io_fail("write", r->file);
        if ((size_t)w != len) {
            /* A partial line on disk would be the rotor's, not the
             * follower's: it must never happen unnoticed. */
            fprintf(stderr, "logrotor: short write to %s (%zd of %zu bytes)\n", r->file, w, len);
            return -1;
        }
        r->seq += (unsigned long long)k;
        n -= k;
    }
    return 0;
}

static unsigned long long written(const rotor_t *r)
{
    return r->seq - 1;
}

/* Lines the rate allows by now and not yet written, at most `cap` (<0: no
 * cap). */
static long long due_lines(const rotor_t *r, long long cap)
{
    long long due = (long long)((double)(now_ns() - r->start_ns) * (double)r->rate / 1e9);
    long long n = due - (long long)written(r);
    if (n < 0)
        n = 0;
    if (cap >= 0 && n > cap)
        n = cap;
    return n;
}

static void rotated_name(char *out, size_t cap, const char *file, unsigned k)
{
    snprintf(out, cap, "%s.%u", file, k);
}

/* copied_last, copy_bytes: copytruncate's copy; copy_bytes < 0: none. */
static void record(rotor_t *r, unsigned k, unsigned long long copied_last, long long copy_bytes)
{
    if (r->ranges && copy_bytes >= 0)
        fprintf(r->ranges, "%u %llu %llu %llu %lld\n", k, r->file_first, r->seq - 1, copied_last,
                copy_bytes);
    else if (r->ranges)
        fprintf(r->ranges, "%u %llu %llu\n", k, r->file_first, r->seq - 1);
    r->file_first = r->seq;
}

static int run_deletes(rotor_t *r, int all)
{
    while (r->pend_head < r->npend) {
        pending_t *p = &r->pend[r->pend_head];
        long long wait = p->due_ns - now_ns();
        if (wait > 0) {
            if (!all)
                return 0;
            sleep_ns(wait);
        }
        char name[PATH_MAX];
        rotated_name(name, sizeof name, r->file, p->k);
        if (unlink(name) < 0)
            return io_fail("unlink", name);
        r->pend_head++;
    }
    return 0;
}

/* Returns the bytes copied, or -1 on an error. */
static long long copy_file(const char *from, const char *to)
{
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return io_fail("open", from);
    int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (out < 0) {
        int rc = io_fail("create", to);
        close(in);
        return rc;
    }
    char b[65536];
    long long rc = 0;
    for (;;) {
        ssize_t n = read(in, b, sizeof b);
        if (n == 0)
            break;
        if (n < 0 || write(out, b, (size_t)n) != n) {
            rc = io_fail("copy", to);
            break;
        }
        rc += n;
    }
    close(in);
    if (close(out) < 0 && rc >= 0)
        rc = io_fail("close", to);
    return rc;
}

static int rotate(rotor_t *r, unsigned k)
{
    char name[PATH_MAX];
    rotated_name(name, sizeof name, r->file, k);
    switch (r->mode) {
    case M_RENAME:
    case M_RENAME_DELETE: {
        if (rename(r->file, name) < 0)
            return io_fail("rename", r->file);
        int fd = open(r->file, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
        if (fd < 0)
            return io_fail("create", r->file);
        close(r->fd);
        r->fd = fd;
        record(r, k, 0, -1);
        if (r->mode == M_RENAME_DELETE) {
            r->pend[r->npend].k = k;
            r->pend[r->npend].due_ns = now_ns() + r->delete_after_ns;
            r->npend++;
        }
        return 0;
    }
    case M_TRUNCATE_REGROW: {
        struct stat st;
        if (fstat(r->fd, &st) < 0)
            return io_fail("stat", r->file);
        if (ftruncate(r->fd, 0) < 0)
            return io_fail("truncate", r->file);
        record(r, k, 0, -1);
        return write_lines(r, (long long)st.st_size / LOGROTOR_LINE + 1);
    }
    case M_COPYTRUNCATE: {
        long long copied = copy_file(r->file, name);
        if (copied < 0)
            return -1;
        unsigned long long copied_last = r->seq - 1;
        if (write_lines(r, due_lines(r, -1)) < 0)
            return -1;
        if (ftruncate(r->fd, 0) < 0)
            return io_fail("truncate", r->file);
        record(r, k, copied_last, copied);
        return 0;
    }
    }
    return -1;
}

/* Writes, paced, until `until_ns` or (by lines) until F holds `lines` lines
 * since its last rotation; <0: that bound is not used. By time, the lines
 * due are written before the rotation even when the rotor is late (a busy
 * machine): a rotation never finds F empty for being behind. */
static int write_until(rotor_t *r, long long until_ns, long long lines)
{
    for (;;) {
        long long room = -1;
        if (lines >= 0) {
            room = lines - (long long)(r->seq - r->file_first);
            if (room <= 0)
                return 0;
        }
        if (write_lines(r, due_lines(r, room)) < 0 || run_deletes(r, 0) < 0)
            return -1;
        if (lines < 0 && now_ns() >= until_ns)
            return 0;
        sleep_ns(LOGROTOR_TICK_NS);
    }
}

static int parse_ll(const char *s, long long min, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < min)
        return -1;
    *out = v;
    return 0;
}

static int usage(const char *why)
{
    fprintf(stderr,
            "logrotor: %s\nusage: logrotor --file F --mode rename|rename-delete|truncate-regrow|copytruncate\n"
            "       [--rate LINES_PER_S] [--period-ms MS] [--rotations N] [--delete-after-ms MS]\n"
            "       [--lines-per-rotation N] [--ranges FILE]\n",
            why);
    return 2;
}

int main(int argc, char **argv)
{
    static rotor_t r;
    long long rate = 50000, period_ms = 20, rotations = 50, delete_ms = 50, per_rot = 0;
    const char *mode = NULL, *ranges = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (i + 1 >= argc)
            return usage("every option takes a value");
        const char *v = argv[++i];
        int bad = 0;
        if (!strcmp(a, "--file"))
            r.file = v;
        else if (!strcmp(a, "--mode"))
            mode = v;
        else if (!strcmp(a, "--ranges"))
            ranges = v;
        else if (!strcmp(a, "--rate"))
            bad = parse_ll(v, 1, &rate);
        else if (!strcmp(a, "--period-ms"))
            bad = parse_ll(v, 1, &period_ms);
        else if (!strcmp(a, "--rotations"))
            bad = parse_ll(v, 0, &rotations);
        else if (!strcmp(a, "--delete-after-ms"))
            bad = parse_ll(v, 0, &delete_ms);
        else if (!strcmp(a, "--lines-per-rotation"))
            bad = parse_ll(v, 1, &per_rot);
        else
            return usage("unknown option");
        if (bad)
            return usage("not a number in range");
    }
    if (!r.file || !mode)
        return usage("--file and --mode are required");
    if (!strcmp(mode, "rename"))
        r.mode = M_RENAME;
    else if (!strcmp(mode, "rename-delete"))
        r.mode = M_RENAME_DELETE;
    else if (!strcmp(mode, "truncate-regrow"))
        r.mode = M_TRUNCATE_REGROW;
    else if (!strcmp(mode, "copytruncate"))
        r.mode = M_COPYTRUNCATE;
    else
        return usage("unknown mode");
    if (rotations > 100000)
        return usage("at most 100000 rotations");
    r.rate = rate;
    r.period_ns = period_ms * 1000000LL;
    r.rotations = (unsigned)rotations;
    r.delete_after_ns = delete_ms * 1000000LL;
    r.lines_per_rotation = per_rot;
    r.seq = r.file_first = 1;
    r.fd = -1;

    int rc = 1;
    if (ranges && !(r.ranges = fopen(ranges, "w"))) {
        io_fail("create", ranges);
        return 1;
    }
    if (r.mode == M_RENAME_DELETE && !(r.pend = calloc(r.rotations + 1, sizeof *r.pend))) {
        fprintf(stderr, "logrotor: out of memory\n");
        goto out;
    }
    r.fd = open(r.file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (r.fd < 0) {
        io_fail("open", r.file);
        goto out;
    }
    r.start_ns = now_ns();
    /* Rotations keep to the schedule, not to when the last one finished:
     * a slow rotation does not slow the next ones down. */
    for (unsigned k = 1; k <= r.rotations + 1; k++) {
        long long until = r.start_ns + (long long)k * r.period_ns;
        if (write_until(&r, until, per_rot ? per_rot : -1) < 0)
            goto out;
        if (k <= r.rotations && rotate(&r, k) < 0)
            goto out;
    }
    if (run_deletes(&r, 1) < 0)
        goto out;
    printf("written=%llu rotations=%u first=1 last=%llu\n", written(&r), r.rotations, written(&r));
    rc = 0;
out:
    if (r.fd >= 0 && close(r.fd) < 0 && rc == 0) {
        io_fail("close", r.file);
        rc = 1;
    }
    if (r.ranges && fclose(r.ranges) != 0 && rc == 0) {
        io_fail("write", ranges);
        rc = 1;
    }
    free(r.pend);
    return rc;
}
