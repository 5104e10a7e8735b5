/* journal.c: see journal.h. */
#include "exec/scan/journal.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "exec/scan/journal_api.h"
#include "exec/scan/journal_fmt.h"
#include "exec/scan/journal_spec.h"

/* The fields the short format shows, copied out of the entry: sd-journal's
 * pointers are good only until its next call. */
enum { F_SOURCE_REALTIME, F_HOSTNAME, F_IDENTIFIER, F_COMM, F_PID, F_SYSLOG_PID, F_MESSAGE,
       F_COUNT };

static const struct {
    const char *name;   /* with its '=' */
    size_t len;
} fields[F_COUNT] = {
    [F_SOURCE_REALTIME] = {"_SOURCE_REALTIME_TIMESTAMP=", 27},
    [F_HOSTNAME] = {"_HOSTNAME=", 10},
    [F_IDENTIFIER] = {"SYSLOG_IDENTIFIER=", 18},
    [F_COMM] = {"_COMM=", 6},
    [F_PID] = {"_PID=", 5},
    [F_SYSLOG_PID] = {"SYSLOG_PID=", 11},
    [F_MESSAGE] = {"MESSAGE=", 8},
};

typedef struct field_buf {
    char *p;
    size_t cap;
} field_buf_t;

typedef struct journal_src {
    sd_journal *j;
    const char *spec;            /* for messages */
    int follow;
    journal_fmt_t fmt;           /* the lines of the entry being handed out */
    size_t pos;                  /* bytes of fmt.out handed out */
    field_buf_t buf[F_COUNT];    /* the fields of the entry */
} journal_src_t;

static void src_close(void *ctx)
{
    journal_src_t *s = ctx;
    if (s->j)
        journal_api.sd_journal_close(s->j);
    journal_fmt_free(&s->fmt);
    for (int i = 0; i < F_COUNT; i++)
        free(s->buf[i].p);
    free(s);
}

/* Reads the current entry's fields into en: 1, 0 when it cannot be read
 * (journalctl skips such entries too), -1 out of memory. */
static int read_entry(journal_src_t *s, journal_entry_t *en)
{
    memset(en, 0, sizeof *en);
    journal_text_t *dst[F_COUNT] = {&en->source_realtime, &en->hostname, &en->identifier,
                                    &en->comm, &en->pid, &en->syslog_pid, &en->message};
    if (journal_api.sd_journal_get_realtime_usec(s->j, &en->realtime_us) < 0)
        return 0;
    const void *data;
    size_t len;
    int r;
    journal_api.sd_journal_restart_data(s->j);
    while ((r = journal_api.sd_journal_enumerate_data(s->j, &data, &len)) > 0) {
        for (int i = 0; i < F_COUNT; i++) {
            if (len < fields[i].len || memcmp(data, fields[i].name, fields[i].len) != 0)
                continue;
            size_t n = len - fields[i].len;
            if (GROW_ARRAY(s->buf[i].p, s->buf[i].cap, n + 1, 64) < 0)
                return -1;
            memcpy(s->buf[i].p, (const char *)data + fields[i].len, n);
            /* a field given twice: the last one counts, as in journalctl */
            *dst[i] = (journal_text_t){s->buf[i].p, n};
            break;
        }
    }
    return r < 0 ? 0 : 1;
}

/* The next entry's lines into s->fmt: 1, 0 when there is none now, -1
 * with e set. */
static int next_entry(journal_src_t *s, err_t *e)
{
    for (;;) {
        int r = journal_api.sd_journal_next(s->j);
        if (r == 0 && s->follow) {
            /* new files, and files that grew past what is mapped */
            journal_api.sd_journal_process(s->j);
            r = journal_api.sd_journal_next(s->j);
        }
        if (r < 0)
            return err_set(e, ERR_INPUT, "%s: reading the journal failed: %s", s->spec,
                           strerror(-r));
        if (r == 0)
            return 0;
        journal_entry_t en;
        int got = read_entry(s, &en);
        if (got == 0)
            continue;   /* unreadable (corrupt, unknown compression): skipped */
        if (got < 0 || journal_fmt_short(&s->fmt, &en) < 0)
            return err_set(e, ERR_NOMEM, "%s: out of memory for a journal entry", s->spec);
        if (s->fmt.len)
            return 1;
    }
}

static ssize_t src_read(void *ctx, char *buf, size_t cap, err_t *e)
{
    journal_src_t *s = ctx;
    size_t got = 0;
    while (got < cap) {
        if (s->pos < s->fmt.len) {
            size_t n = s->fmt.len - s->pos;
            if (n > cap - got)
                n = cap - got;
            memcpy(buf + got, s->fmt.out + s->pos, n);
            s->pos += n;
            got += n;
            continue;
        }
        s->fmt.len = s->pos = 0;
        int r = next_entry(s, e);
        if (r < 0 && got == 0)
            return -1;
        if (r <= 0)
            break;   /* an error after some bytes comes again at the next read */
    }
    if (got == 0 && s->follow)
        return INPUT_AGAIN;
    return (ssize_t)got;
}

/* ---- which entries: journalctl -u ------------------------------------------ */

/* systemd's add_matches_for_unit: the unit's own messages, its coredumps,
 * systemd's messages about it, authorised daemons' messages about it, and
 * for a slice its units'. */
static int add_unit(sd_journal *j, const char *unit)
{
    static const char *const groups[][3] = {
        {"_SYSTEMD_UNIT=", NULL, NULL},
        {"COREDUMP_UNIT=", "MESSAGE_ID=fc2e22bc6ee647b6b90729ab34a250b1", "_UID=0"},
        {"UNIT=", "_PID=1", NULL},
        {"OBJECT_SYSTEMD_UNIT=", "_UID=0", NULL},
        {"_SYSTEMD_SLICE=", NULL, NULL},
    };
    size_t n = strlen(unit);
    int slice = n > 6 && strcmp(unit + n - 6, ".slice") == 0;
    char m[64 + JOURNAL_UNIT_CAP];
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        if (g == 4 && !slice)
            break;
        if (g > 0 && journal_api.sd_journal_add_disjunction(j) < 0)
            return -1;
        /* the fixed matches first, as systemd adds them */
        for (int k = 1; k < 3 && groups[g][k]; k++)
            if (journal_api.sd_journal_add_match(j, groups[g][k], 0) < 0)
                return -1;
        size_t len = (size_t)snprintf(m, sizeof m, "%s%s", groups[g][0], unit);
        if (journal_api.sd_journal_add_match(j, m, len) < 0)
            return -1;
    }
    return journal_api.sd_journal_add_disjunction(j);
}

/* systemd's get_possible_units: the units named in the fields that tell
 * a unit whose name matches the glob; each is added. Returns how many, or
 * -1. */
static int add_glob(sd_journal *j, const char *glob)
{
    static const char *const unit_fields[] = {"_SYSTEMD_UNIT", "COREDUMP_UNIT", "UNIT",
                                              "OBJECT_SYSTEMD_UNIT", "_SYSTEMD_SLICE"};
    char **units = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (size_t f = 0; f < sizeof unit_fields / sizeof unit_fields[0] && rc == 0; f++) {
        if (journal_api.sd_journal_query_unique(j, unit_fields[f]) < 0)
            continue;
        size_t flen = strlen(unit_fields[f]) + 1;
        const void *data;
        size_t len;
        journal_api.sd_journal_restart_unique(j);
        while (rc == 0 && journal_api.sd_journal_enumerate_unique(j, &data, &len) > 0) {
            if (len <= flen || len - flen > JOURNAL_UNIT_MAX)
                continue;
            char value[JOURNAL_UNIT_MAX + 1];
            memcpy(value, (const char *)data + flen, len - flen);
            value[len - flen] = 0;
            if (strlen(value) != len - flen || fnmatch(glob, value, FNM_NOESCAPE) != 0)
                continue;
            int dup = 0;
            for (size_t i = 0; i < n && !dup; i++)
                dup = strcmp(units[i], value) == 0;
            if (dup)
                continue;
            if (GROW_ARRAY(units, cap, n + 1, 8) < 0 || !(units[n] = strdup(value)))
                rc = -1;
            else
                n++;
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (rc == 0 && add_unit(j, units[i]) < 0)
            rc = -1;
        free(units[i]);
    }
    free(units);
    return rc < 0 ? -1 : (int)n;
}

/* The matches of the target's unit; -1 with e set. */
static int add_target(journal_src_t *s, const char *unit, err_t *e)
{
    char name[JOURNAL_UNIT_CAP];
    int glob = journal_unit_mangle(unit, name);
    if (glob < 0)
        return err_set(e, ERR_INPUT, "%s: the unit name is too long", s->spec);
    int r = glob ? add_glob(s->j, name) : add_unit(s->j, name);
    if (r < 0 || journal_api.sd_journal_add_conjunction(s->j) < 0)
        return err_set(e, ERR_NOMEM, "%s: out of memory for the journal's matches", s->spec);
    if (glob && r == 0)
        return err_set(e, ERR_INPUT, "%s: no unit in the journal matches this pattern", s->spec);
    return 0;
}

static char journal_dir[4096];

void journal_set_dir(const char *dir)
{
    snprintf(journal_dir, sizeof journal_dir, "%s", dir ? dir : "");
}

int journal_available(err_t *e)
{
    return journal_api_load(e) == 0;
}

input_t *journal_open(const char *spec, int follow, err_t *e)
{
    if (journal_spec_check(spec, e) < 0)
        return NULL;
    err_t le;
    if (journal_api_load(&le) < 0) {
        err_set(e, ERR_INPUT, "%s: %s", spec, le.msg);
        return NULL;
    }
    journal_src_t *s = calloc(1, sizeof *s);
    if (!s) {
        err_set(e, ERR_NOMEM, "%s: out of memory", spec);
        return NULL;
    }
    s->spec = spec;
    s->follow = follow;
    journal_fmt_init(&s->fmt);
    const char *dir = journal_dir[0] ? journal_dir : NULL;
    int r = dir ? journal_api.sd_journal_open_directory(&s->j, dir, 0)
                : journal_api.sd_journal_open(&s->j, SD_JOURNAL_LOCAL_ONLY);
    if (r < 0) {
        s->j = NULL;
        if (dir)
            err_set(e, ERR_INPUT, "%s: cannot open the journal directory %s: %s", spec, dir,
                    strerror(-r));
        else
            err_set(e, ERR_INPUT, "%s: cannot open the journal: %s", spec, strerror(-r));
        goto fail;
    }
    /* whole fields, as journalctl --full reads them; the reader splits
     * lines over the maximum line length as it splits a file's */
    journal_api.sd_journal_set_data_threshold(s->j, 0);
    if (add_target(s, spec + JOURNAL_SPEC_PREFIX_LEN, e) < 0)
        goto fail;
    if (s->follow) {
        /* inotify is set up before the first read, so nothing written
         * after the open is missed; then the end, as journalctl -f -n 0 */
        if ((r = journal_api.sd_journal_get_fd(s->j)) < 0) {
            err_set(e, ERR_INPUT, "%s: cannot watch the journal: %s", spec, strerror(-r));
            goto fail;
        }
        if ((r = journal_api.sd_journal_seek_tail(s->j)) < 0 ||
            (r = journal_api.sd_journal_previous(s->j)) < 0 ||
            /* No entry of the unit yet: every one that comes is new. From
             * the tail, sd-journal would skip to the last of the first
             * ones to arrive (journalctl -f -n 0 shows only that one). */
            (r == 0 && (r = journal_api.sd_journal_seek_head(s->j)) < 0)) {
            err_set(e, ERR_INPUT, "%s: cannot find the end of the journal: %s", spec,
                    strerror(-r));
            goto fail;
        }
    }
    input_source_t src = {.ctx = s, .read = src_read, .close = src_close};
    input_t *in = input_open_source(&src, spec, e);
    if (in)
        return in;
fail:
    src_close(s);
    return NULL;
}
