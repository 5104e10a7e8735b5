/* session_files.c: the files of a cat, grep or map request, one at a
 * time, for the engine's runner (exec/run/runner.h): each entry of the
 * comma list expanded (globs, Server.MaxGlobTargets), each file through a
 * read slot (Server.MaxConcurrentCats) and the permission check, and its
 * FILE_STATUS sent when its run is done. Refusals are told as every
 * refusal is, in words that do not say whether the file exists. */
#include "server/session_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "server/permissions.h"

/* Every file the client may not have is told in these words, as "not
 * found", whatever the reason: missing, refused by a rule, by the OS check,
 * one of dserver's secrets, not a regular file. Different answers would
 * tell what exists where the user may not look (docs/dserver.md,
 * Hardening); the reason is in the server's log. */
static const char session_refused_text[] = "No permission to read file, or it does not exist";

/* The server's log keeps why. */
static void log_refusal(session_t *ss, enum log_level level, const char *asked, const char *detail)
{
    LOG_AT(level, "No permission to read file|%s|%s@%s|%s", asked, ss->env->user,
           ss->env->hostname, detail);
}
uint8_t session_report_refusal(session_t *ss, const char *asked, const char *detail)
{
    log_refusal(ss, LOG_WARN, asked, detail);
    session_send_file_status(ss, WIRE_FILE_NOT_FOUND, asked, session_refused_text);
    return WIRE_FILE_NOT_FOUND;
}
/* What target_list_add_spec reported of a spec: that it gave no file,
 * and for a journal target why (its text names nothing on disk). */
typedef struct spec_miss {
    int missed;
    err_t why;
} spec_miss_t;

static void note_miss(void *ctx, const err_t *e)
{
    spec_miss_t *m = ctx;
    m->missed = 1;
    m->why = *e;
}

int session_journal_allowed(session_t *ss, const char *target, const char *asked)
{
    /* The rule is the check: dserver reads the journal as its own user,
     * there is no file whose permissions would answer for the user. */
    if (perm_rules_allow(ss->rules, target)) {
        LOG_INFO("Start reading|%s|%s", target, target);
        return 1;
    }
    session_report_refusal(ss, asked, "a journal target the rules do not allow");
    return 0;
}

/* Drops the matches of a glob (tl's items from `from` on) that the user
 * may not read, so that they are counted and told nowhere: a glob that
 * matches only such files is one that matches nothing, and the cut of
 * MaxGlobTargets counts the others only. known(ctx, path): a path the
 * caller follows already (a tail's), not checked again on its later looks
 * (without tell; they come every second, and their refusals go to the log
 * at debug level). The first look checks every match: a path the request
 * also names, and follows though it is refused, must not count for a glob. */
static void keep_allowed(session_t *ss, target_list_t *tl, size_t from, int tell,
                         int (*known)(void *ctx, const char *path), void *known_ctx)
{
    size_t kept = from;
    for (size_t i = from; i < tl->n; i++) {
        target_t *t = &tl->items[i];
        int ok = !tell && known && known(known_ctx, t->path);
        if (!ok) {
            char canonical[4096], detail[8192];
            int fd;
            enum perm_result pr = perm_open(ss->rules, &ss->user, t->path, &fd, canonical,
                                            sizeof canonical, detail, sizeof detail);
            ok = pr == PERM_OK;
            if (ok)
                close(fd);
            else
                log_refusal(ss, tell ? LOG_WARN : LOG_DEBUG, t->path, detail);
        }
        if (ok) {
            tl->items[kept++] = *t;
        } else {
            free(t->path);
            free(t->source_id);
        }
    }
    tl->n = kept;
}

/* Server.MaxGlobTargets: files one spec may expand to. */
static size_t session_max_targets(const session_t *ss)
{
    const config_t *cfg = ss->env->cfg;
    return cfg && cfg->max_glob_targets > 0 ? (size_t)cfg->max_glob_targets : 1000;
}

/* Keeps at most that many of what a spec expanded to, telling the client
 * as DTail does when it cuts. */
static void session_cap_targets(session_t *ss, target_list_t *tl)
{
    size_t max = session_max_targets(ss);
    if (tl->n <= max)
        return;
    char msg[160];
    snprintf(msg, sizeof msg,
             "Glob expansion exceeded server limit, only first targets served|limit|%zu|matched|%zu",
             max, tl->n);
    LOG_MSG(LOG_WARN, msg);
    session_send_message(ss, LOG_WARN, msg);
    target_list_truncate(tl, max);
}

int session_expand_spec(session_t *ss, const char *spec, target_list_t *tl, int tell,
                        int (*known)(void *ctx, const char *path), void *known_ctx)
{
    spec_miss_t miss = {0};
    size_t from = tl->n;
    err_t e;
    int journal = journal_spec_is(spec, strlen(spec));
    if (strcmp(spec, "-") == 0 || target_list_add_spec(tl, spec, note_miss, &miss, &e) < 0) {
        miss.missed = 1;
    } else if (journal && miss.missed) {
        /* a malformed journal target: its own words, which tell nothing
         * of what the server has */
        if (tell) {
            LOG_WARN("Invalid journal target|%s@%s|%s", ss->env->user, ss->env->hostname,
                     miss.why.msg);
            session_send_file_status(ss, WIRE_FILE_ERROR, spec, miss.why.msg);
        }
        return 1;
    } else if (!journal && strpbrk(spec, "*?[")) {   /* a unit glob is the journal's */
        keep_allowed(ss, tl, from, tell, known, known_ctx);
        miss.missed = tl->n == from;
    }
    int missed = miss.missed;
    if (missed && tell) {
        log_refusal(ss, LOG_WARN, spec, strcmp(spec, "-") == 0 ? "stdin is not served"
                                                               : "no file it may read matches");
        session_send_file_status(ss, WIRE_FILE_NOT_FOUND, spec, session_refused_text);
    }
    /* The cut is told only when the spec is: tail's later expansions cut quietly. */
    if (tell)
        session_cap_targets(ss, tl);
    else
        target_list_truncate(tl, session_max_targets(ss));
    return missed;
}
/* stream_t.on_stall: the transport's writer waits on the client. */
void session_on_stall(void *owner, int stalled)
{
    session_t *ss = owner;
    server_limits_t *l = ss->env->limits;
    if (!l)
        return;
    pthread_mutex_lock(&ss->slot_mu);
    if (stalled) {
        if (ss->cat_slot) {
            server_limits_release(l, LIMIT_CAT, ss->env->user);
            ss->cat_slot = 0;
            ss->yielded = 1;
        }
        pthread_mutex_unlock(&ss->slot_mu);
        return;
    }
    int take = ss->yielded;
    unsigned gen = ss->slot_gen;
    ss->yielded = 0;
    pthread_mutex_unlock(&ss->slot_mu);
    if (!take || server_limits_acquire(l, LIMIT_CAT, ss->env->user, ss->env->stopping, 0) < 0)
        return;
    pthread_mutex_lock(&ss->slot_mu);
    if (ss->slot_gen == gen)
        ss->cat_slot = 1;
    else
        server_limits_release(l, LIMIT_CAT, ss->env->user);   /* the file ended meanwhile */
    pthread_mutex_unlock(&ss->slot_mu);
}

/* ---- one file: a read slot, the permission check, the input ------------ */

static void release_slot(session_t *ss)
{
    const session_env_t *env = ss->env;
    if (!env->limits)
        return;
    pthread_mutex_lock(&ss->slot_mu);
    if (ss->cat_slot)
        server_limits_release(env->limits, LIMIT_CAT, env->user);
    ss->cat_slot = ss->yielded = 0;
    ss->slot_gen++;
    pthread_mutex_unlock(&ss->slot_mu);
}

/* open_target for a journal target, in its read slot: the rule, then
 * the journal (no file, no OS check: dserver reads it as itself). */
static int open_journal(session_files_t *sf, const target_t *t, unsigned index, run_input_t *it)
{
    if (!session_journal_allowed(sf->ss, t->path, sf->spec)) {
        sf->failed++;
        release_slot(sf->ss);
        return 0;
    }
    snprintf(sf->canonical, sizeof sf->canonical, "%s", t->path);
    err_t e;
    input_t *in = journal_open(t->path, 0, &e);
    if (!in) {
        run_counts_t none = {0};
        *it = (run_input_t){.path = t->path};
        session_files_done(sf, it, -1, &none, &e);
        return 0;
    }
    *it = (run_input_t){.in = in, .path = t->path, .source_id = t->source_id, .index = index};
    return 1;
}

/* Opens target t for the run: 1 with it set, or 0 when it is not read
 * (its status is sent, or the server stops). */
static int open_target(session_files_t *sf, const target_t *t, run_input_t *it)
{
    session_t *ss = sf->ss;
    const session_env_t *env = ss->env;
    unsigned index = sf->index++;
    int got = env->limits ? server_limits_acquire(env->limits, LIMIT_CAT, env->user, env->stopping,
                                                  ss->deadline_ms)
                          : 0;
    if (got == -2) {
        /* The request's timeout passed while the file waited for a read
         * slot: it is not read, and the request's end says its result
         * covers only what was read until then. */
        ss->deadline_hit = 1;
        LOG_INFO("Not read: timeout reached while waiting for a read slot|%s", t->path);
        session_send_file_counts(ss, WIRE_FILE_OK, t->path, "", 0, 0);
        return 0;
    }
    if (got < 0) {
        sf->failed++;
        return 0;
    }
    if (env->limits) {
        pthread_mutex_lock(&ss->slot_mu);
        ss->cat_slot = 1;
        pthread_mutex_unlock(&ss->slot_mu);
    }
    char detail[8192];
    sf->fd = -1;
    sf->link[0] = 0;
    if (journal_spec_is(t->path, strlen(t->path)))
        return open_journal(sf, t, index, it);
    enum perm_result pr = perm_open(ss->rules, &ss->user, t->path, &sf->fd, sf->canonical,
                                    sizeof sf->canonical, detail, sizeof detail);
    if (pr != PERM_OK) {
        session_report_refusal(ss, sf->spec, detail);
        sf->failed++;
        release_slot(ss);
        return 0;
    }
    /* Reopening the descriptor's magic link gives the exec/ input the
     * very file that was checked, whatever happens to the path. */
    snprintf(sf->link, sizeof sf->link, "/proc/self/fd/%d", sf->fd);
    LOG_INFO("Start reading|%s|%s", sf->canonical, t->source_id);
    err_t e;
    err_clear(&e);
    input_t *in = input_open(sf->link, &e);
    if (!in) {
        run_counts_t none = {0};
        *it = (run_input_t){.path = t->path};
        session_files_done(sf, it, -1, &none, &e);
        return 0;
    }
    *it = (run_input_t){.in = in, .path = t->path, .source_id = t->source_id, .index = index};
    return 1;
}

int session_files_next(void *ctx, run_input_t *it)
{
    session_files_t *sf = ctx;
    session_t *ss = sf->ss;
    for (;;) {
        if (ss->broken || ss->cancel || session_stopping(ss))
            return -1;
        if (sf->next_item < sf->tl.n) {
            if (open_target(sf, &sf->tl.items[sf->next_item++], it))
                return 1;
            continue;
        }
        target_list_free(&sf->tl);
        target_list_init(&sf->tl);
        sf->next_item = 0;
        free(sf->spec);
        int got = session_next_spec(&sf->p, &sf->spec);
        if (got <= 0) {
            if (got < 0) {
                session_send_message(ss, LOG_ERROR, "out of memory reading the file list");
                sf->failed++;
            }
            return 0;
        }
        sf->failed += session_expand_spec(ss, sf->spec, &sf->tl, 1, NULL, NULL);
    }
}

void session_files_done(void *ctx, run_input_t *it, int rc, const run_counts_t *n, const err_t *e)
{
    session_files_t *sf = ctx;
    session_t *ss = sf->ss;
    if (sf->before_status)
        sf->before_status(sf->before_ctx);
    uint64_t bytes = it->in ? n->bytes : WIRE_COUNT_NONE;
    uint64_t lines = it->in && n->lines_counted ? n->lines : WIRE_COUNT_NONE;
    if (rc < 0) {
        sf->failed++;
        LOG_WARN("Reading failed|%s|%s", sf->canonical, e->msg);
        /* The file passed the permission check, so why its reading failed
         * (e.g. it was truncated) is the client's to know; e->msg names
         * the /proc link, the client knows the file by its name. */
        char why[sizeof e->msg + 4096];
        const char *at = sf->link[0] ? strstr(e->msg, sf->link) : NULL;
        if (at)
            snprintf(why, sizeof why, "%.*s%s%s", (int)(at - e->msg), e->msg, it->path,
                     at + strlen(sf->link));
        else
            snprintf(why, sizeof why, "Unable to read file: %s", e->msg);
        session_send_file_counts(ss, WIRE_FILE_ERROR, it->path, why, bytes, lines);
    } else {
        LOG_INFO("File processing complete|%s", sf->canonical);
        session_send_file_counts(ss, WIRE_FILE_OK, it->path, "", bytes, lines);
    }
    if (it->in)
        input_close(it->in);
    it->in = NULL;
    if (sf->fd >= 0)
        close(sf->fd);
    sf->fd = -1;
    release_slot(ss);
}

void session_files_init(session_files_t *sf, session_t *ss, const char *files)
{
    memset(sf, 0, sizeof *sf);
    sf->ss = ss;
    sf->p = files;
    sf->fd = -1;
    target_list_init(&sf->tl);
}

void session_files_free(session_files_t *sf)
{
    target_list_free(&sf->tl);
    free(sf->spec);
    sf->spec = NULL;
}

run_inputs_t session_files_inputs(session_files_t *sf)
{
    return (run_inputs_t){.next = session_files_next, .done = session_files_done, .ctx = sf};
}
