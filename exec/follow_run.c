/* follow_run.c: see follow_run.h. */
#include "exec/follow_run.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/grow.h"
#include "exec/scan/journal.h"
#include "exec/scan/journal_spec.h"

#define RESCAN_MS 1000
#define TICK_MS 50
/* Every file is read this often whatever the events say. */
#define SWEEP_MS 250
#define SWEEP_NO_INOTIFY_MS 100
#define WATCH_MASK (IN_MODIFY | IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | \
                    IN_CLOSE_WRITE | IN_ATTRIB)
/* Renames remembered until their second half (IN_MOVED_TO) comes. */
#define PENDING_MOVES 64

typedef struct watched_dir {
    int wd;                   /* -1: not watched (the run sweeps it) */
    char *path;
} watched_dir_t;

typedef struct run_file {
    follow_t *f;              /* the source; NULL for a journal (no path to watch) */
    input_t *in;              /* over it */
    const follow_plan_ops_t *ops;
    void *ctx;
    size_t dir;               /* index into dirs */
    const char *base;         /* the path's last part (inside f's path) */
    int dirty;                /* an event or a step says: read it */
    int over;                 /* no longer read */
} run_file_t;

typedef struct pending_move {
    uint32_t cookie;
    size_t file;
} pending_move_t;

struct follow_run {
    follow_run_hooks_t h;
    const volatile int *stop;
    int ino;                  /* inotify instance; -1 without */
    watched_dir_t *dirs;
    size_t n_dirs, cap_dirs;
    run_file_t *files;
    size_t n_files, cap_files;
    size_t *slots;            /* hash of (wd, base) -> file index + 1 */
    size_t n_slots;           /* a power of two, > 2 * n_files */
    pending_move_t moves[PENDING_MOVES];
    size_t n_moves;
    followset_t set;
    int ino_errno;            /* why there is no inotify instance */
    int told_no_ino;          /* ... told */
    int unwatched;            /* directories inotify could not watch */
};

static void warn(follow_run_t *r, const char *msg)
{
    if (r->h.warn)
        r->h.warn(r->h.ctx, msg);
}

follow_run_t *follow_run_new(const follow_run_hooks_t *h, const volatile int *stop, err_t *e)
{
    follow_run_t *r = calloc(1, sizeof *r);
    if (!r) {
        err_set(e, ERR_NOMEM, "out of memory");
        return NULL;
    }
    r->h = *h;
    r->stop = stop;
    r->ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    r->ino_errno = r->ino < 0 ? errno : 0;
    followset_init(&r->set);
    return r;
}

void follow_run_free(follow_run_t *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->n_files; i++) {
        input_close(r->files[i].in);
        if (r->files[i].ops->release)
            r->files[i].ops->release(r->files[i].ctx);
    }
    for (size_t i = 0; i < r->n_dirs; i++)
        free(r->dirs[i].path);
    if (r->ino >= 0)
        close(r->ino);
    free(r->dirs);
    free(r->files);
    free(r->slots);
    followset_free(&r->set);
    free(r);
}

/* ---- which file an event names --------------------------------------- */

static size_t hash_name(int wd, const char *name)
{
    uint64_t h = 1469598103934665603ull ^ (uint64_t)(unsigned)wd;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    return (size_t)h;
}

static int file_wd(const follow_run_t *r, const run_file_t *rf)
{
    return r->dirs[rf->dir].wd;
}

static void slot_put(follow_run_t *r, size_t i)
{
    const run_file_t *rf = &r->files[i];
    size_t mask = r->n_slots - 1;
    size_t s = hash_name(file_wd(r, rf), rf->base) & mask;
    while (r->slots[s])
        s = (s + 1) & mask;
    r->slots[s] = i + 1;
}

static int grow_slots(follow_run_t *r)
{
    if (r->n_slots > 2 * (r->n_files + 1))
        return 0;
    size_t n = grow_capacity(r->n_slots, 2 * (r->n_files + 1) + 1, sizeof *r->slots, 64);
    size_t *s = n ? calloc(n, sizeof *s) : NULL;
    if (!s)
        return -1;
    free(r->slots);
    r->slots = s;
    r->n_slots = n;
    for (size_t i = 0; i < r->n_files; i++)
        if (r->files[i].f)
            slot_put(r, i);
    return 0;
}

/* The file followed as name in the directory watched as wd, or NULL. */
static run_file_t *file_named(follow_run_t *r, int wd, const char *name)
{
    if (!r->n_slots)
        return NULL;
    size_t mask = r->n_slots - 1;
    for (size_t s = hash_name(wd, name) & mask; r->slots[s]; s = (s + 1) & mask) {
        run_file_t *rf = &r->files[r->slots[s] - 1];
        if (file_wd(r, rf) == wd && strcmp(rf->base, name) == 0)
            return rf;
    }
    return NULL;
}

static const watched_dir_t *dir_of_wd(const follow_run_t *r, int wd)
{
    for (size_t i = 0; i < r->n_dirs; i++)
        if (r->dirs[i].wd == wd)
            return &r->dirs[i];
    return NULL;
}

/* ---- adding files ------------------------------------------------------ */

/* The index of dir in dirs, watched when it is new. */
static int add_dir(follow_run_t *r, const char *dir, size_t len, size_t *out)
{
    for (size_t i = 0; i < r->n_dirs; i++)
        if (strlen(r->dirs[i].path) == len && memcmp(r->dirs[i].path, dir, len) == 0) {
            *out = i;
            return 0;
        }
    if (GROW_ARRAY(r->dirs, r->cap_dirs, r->n_dirs + 1, 8) < 0)
        return -1;
    char *copy = strndup(dir, len);
    if (!copy)
        return -1;
    watched_dir_t *d = &r->dirs[r->n_dirs];
    d->path = copy;
    /* A directory inotify cannot watch (too many watches, a filesystem
     * without it) is swept like every other, only not woken early. */
    d->wd = r->ino >= 0 ? inotify_add_watch(r->ino, copy, WATCH_MASK) : -1;
    if (r->ino < 0 && !r->told_no_ino) {
        char msg[512];
        snprintf(msg, sizeof msg, "no inotify instance (%s; see fs.inotify.max_user_instances): "
                 "files are looked at every 0.1 s instead, and a file rotated away faster than "
                 "that is missed without being counted", strerror(r->ino_errno));
        r->told_no_ino = 1;
        warn(r, msg);
    } else if (d->wd < 0 && r->ino >= 0) {
        char msg[4400];
        snprintf(msg, sizeof msg, "cannot watch %s with inotify (%s; see "
                 "fs.inotify.max_user_watches): its files are looked at every 0.25 s, and a "
                 "file rotated away faster than that is missed without being counted",
                 copy, strerror(errno));
        r->unwatched++;
        warn(r, msg);
    }
    *out = r->n_dirs++;
    return 0;
}

void follow_run_each(follow_run_t *r, void (*fn)(void *file_ctx, void *arg), void *arg)
{
    for (size_t i = 0; i < r->n_files; i++)
        fn(r->files[i].ctx, arg);
}

int follow_run_watching(const follow_run_t *r)
{
    return r->ino >= 0 && r->unwatched == 0;
}

int follow_run_has(follow_run_t *r, const char *path)
{
    return followset_has(&r->set, path);
}

int follow_run_add(follow_run_t *r, const char *path, const follow_opts_t *fo,
                   const follow_plan_ops_t *ops, void *file_ctx, err_t *e)
{
    if (!followset_claim(&r->set, path))
        return 0;
    if (GROW_ARRAY(r->files, r->cap_files, r->n_files + 1, 16) < 0 || grow_slots(r) < 0)
        return err_set(e, ERR_NOMEM, "out of memory following %s", path);
    if (journal_spec_is(path, strlen(path))) {
        /* No file to watch: the journal source sees new entries and new
         * journal files itself, at each read; the sweep reads it. */
        run_file_t rf = {.ops = ops, .ctx = file_ctx, .dirty = 1};
        if (!(rf.in = journal_open(path, 1, e)))
            return -1;
        r->files[r->n_files++] = rf;
        return 1;
    }
    follow_opts_t o = *fo;
    o.stop = r->stop;
    run_file_t rf = {.ops = ops, .ctx = file_ctx, .dirty = 1};
    rf.in = follow_open(path, &o, &rf.f, e);
    if (!rf.in)
        return -1;
    const char *fp = follow_path(rf.f);
    const char *slash = strrchr(fp, '/');
    rf.base = slash ? slash + 1 : fp;
    int got = slash ? add_dir(r, fp, slash == fp ? 1 : (size_t)(slash - fp), &rf.dir)
                    : add_dir(r, ".", 1, &rf.dir);
    if (got < 0) {
        input_close(rf.in);
        return err_set(e, ERR_NOMEM, "out of memory following %s", path);
    }
    r->files[r->n_files++] = rf;
    slot_put(r, r->n_files - 1);
    return 1;
}

/* ---- the loop ------------------------------------------------------------ */

static void note_move_from(follow_run_t *r, run_file_t *rf, uint32_t cookie)
{
    if (r->n_moves == PENDING_MOVES) {
        memmove(r->moves, r->moves + 1, (PENDING_MOVES - 1) * sizeof r->moves[0]);
        r->n_moves--;
    }
    r->moves[r->n_moves].cookie = cookie;
    r->moves[r->n_moves].file = (size_t)(rf - r->files);
    r->n_moves++;
}

/* The second half of a rename: a file that left a followed path is now
 * called name in the directory watched as wd. */
static void note_move_to(follow_run_t *r, int wd, const char *name, uint32_t cookie)
{
    for (size_t i = 0; i < r->n_moves; i++) {
        if (r->moves[i].cookie != cookie)
            continue;
        run_file_t *rf = &r->files[r->moves[i].file];
        memmove(r->moves + i, r->moves + i + 1, (r->n_moves - i - 1) * sizeof r->moves[0]);
        r->n_moves--;
        const watched_dir_t *d = dir_of_wd(r, wd);
        if (!d || rf->over)
            return;
        size_t dl = strlen(d->path), nl = strlen(name);
        char *now = malloc(dl + nl + 2);
        if (!now)
            return;
        memcpy(now, d->path, dl);
        now[dl] = '/';
        memcpy(now + dl + 1, name, nl + 1);
        follow_departed(rf->f, now);
        free(now);
        rf->dirty = 1;
        return;
    }
}

static void mark_all(follow_run_t *r)
{
    for (size_t i = 0; i < r->n_files; i++)
        r->files[i].dirty = 1;
}

/* Reads the queued events: each marks the file it names; arrivals and
 * renames go to the file's source at once, in the order they happened. */
static void take_events(follow_run_t *r)
{
    char buf[64 * 1024] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        ssize_t n = read(r->ino, buf, sizeof buf);
        if (n <= 0)
            break;
        for (char *p = buf; p < buf + n;) {
            const struct inotify_event *ev = (const struct inotify_event *)p;
            p += sizeof *ev + ev->len;
            if (ev->mask & IN_Q_OVERFLOW) {
                /* Events are gone: every file is looked at, and arrivals
                 * can no longer be counted against what was found. */
                mark_all(r);
                for (size_t i = 0; i < r->n_files; i++)
                    if (r->files[i].f)
                        follow_resync(r->files[i].f);
                continue;
            }
            if (!ev->len)
                continue;
            if (ev->mask & IN_MOVED_TO)
                note_move_to(r, ev->wd, ev->name, ev->cookie);
            run_file_t *rf = file_named(r, ev->wd, ev->name);
            if (!rf || rf->over)
                continue;
            rf->dirty = 1;   /* read_round steps it, then settles its arrivals */
            if (ev->mask & (IN_CREATE | IN_MOVED_TO))
                follow_arrived(rf->f);
            if (ev->mask & IN_MOVED_FROM)
                note_move_from(r, rf, ev->cookie);
        }
    }
}

/* One round: every marked file is read until it has nothing more (or
 * its share is used). Returns whether any file has more right away. */
static int read_round(follow_run_t *r)
{
    int more = 0;
    for (size_t i = 0; i < r->n_files && !(r->stop && *r->stop); i++) {
        run_file_t *rf = &r->files[i];
        if (rf->over || !rf->dirty)
            continue;
        rf->dirty = 0;
        err_t e;
        err_clear(&e);
        int rc = rf->ops->step(rf->ctx, rf->in, &e);
        if (rc == 1) {
            rf->dirty = 1;
            more = 1;
        } else if (rc <= 0) {
            rf->over = 1;
            if (rc < 0 && rf->ops->failed)
                rf->ops->failed(rf->ctx, &e);
        }
        if (rf->f)
            follow_settle(rf->f);
    }
    return more;
}

/* How long the run may wait: until the next sweep, or sooner for a file
 * whose source wants another look (a rotation's grace). */
static int wait_ms(follow_run_t *r, long long next_sweep, long long now)
{
    long long ms = next_sweep - now;
    if (ms > TICK_MS)
        ms = TICK_MS;
    for (size_t i = 0; i < r->n_files; i++) {
        if (r->files[i].over || !r->files[i].f)
            continue;
        int w = follow_wants_ms(r->files[i].f);
        if (w >= 0 && w < ms) {
            ms = w;
            r->files[i].dirty = 1;   /* read it after the wait, event or not */
        }
    }
    return ms < 0 ? 0 : (int)ms;
}

void follow_run_loop(follow_run_t *r, long long deadline_ms)
{
    long long now = clock_now_ms();
    int rescan_every = r->h.rescan_ms > 0 ? r->h.rescan_ms : RESCAN_MS;
    long long next_rescan = now + rescan_every;
    int sweep_every = r->ino >= 0 ? SWEEP_MS : SWEEP_NO_INOTIFY_MS;
    long long next_sweep = now + sweep_every;
    while (!(r->stop && *r->stop)) {
        now = clock_now_ms();
        if (deadline_ms && now >= deadline_ms)
            break;
        if (r->h.tick && r->h.tick(r->h.ctx))
            break;
        if (r->h.rescan && now >= next_rescan) {
            followset_note_current(&r->set);
            r->h.rescan(r->h.ctx, r);
            next_rescan = now + rescan_every;
        }
        if (now >= next_sweep) {
            mark_all(r);
            next_sweep = now + sweep_every;
        }
        int more = read_round(r);
        if (r->h.flush)
            r->h.flush(r->h.ctx);
        if (more)
            continue;
        int ms = wait_ms(r, next_sweep, clock_now_ms());
        if (deadline_ms) {
            long long left = deadline_ms - clock_now_ms();
            if (left < ms)
                ms = left < 0 ? 0 : (int)left;
        }
        if (r->ino >= 0) {
            struct pollfd p = {.fd = r->ino, .events = POLLIN};
            if (poll(&p, 1, ms) > 0)
                take_events(r);
        } else if (ms > 0) {
            clock_sleep_ms(ms);
        }
    }
}

void follow_run_stats(const follow_run_t *r, follow_stats_t *out)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < r->n_files; i++) {
        if (!r->files[i].f)
            continue;
        const follow_stats_t *s = follow_stats(r->files[i].f);
        out->rotations += s->rotations;
        out->truncations += s->truncations;
        out->cut_lines += s->cut_lines;
        out->files_lost += s->files_lost;
    }
}

size_t follow_run_files(const follow_run_t *r)
{
    return r->n_files;
}

int follow_run_summary(const follow_run_t *r, char *out, size_t cap)
{
    follow_stats_t st;
    follow_run_stats(r, &st);
    size_t n = r->n_files;
    int len = snprintf(out, cap, "followed %zu file%s, %llu rotation%s, %llu truncation%s", n,
                       n == 1 ? "" : "s", st.rotations, st.rotations == 1 ? "" : "s",
                       st.truncations, st.truncations == 1 ? "" : "s");
    if (len > 0 && (size_t)len < cap && st.files_lost)
        len += snprintf(out + len, cap - (size_t)len,
                        ", %llu rotated file%s lost before %s could be opened (lines not read)",
                        st.files_lost, st.files_lost == 1 ? "" : "s",
                        st.files_lost == 1 ? "it" : "they");
    if (len > 0 && (size_t)len < cap && st.cut_lines)
        snprintf(out + len, cap - (size_t)len, ", %llu unfinished line%s dropped at truncations",
                 st.cut_lines, st.cut_lines == 1 ? "" : "s");
    return st.files_lost > 0 || st.cut_lines > 0;
}
