/* main_dserver.c: dserver, DTail's server, on libssh (docs/dserver.md). */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <libssh/libssh.h>

#include "exec/run/request.h"
#include "exec/scan/journal.h"
#include "base/fdio.h"
#include "base/clock.h"
#include "base/config.h"
#include "base/err.h"
#include "base/log.h"
#include "server/counters.h"
#include "server/dlog.h"
#include "server/dserver_flags.h"
#include "server/jobs.h"
#include "server/permissions.h"
#include "server/session.h"
#include "server/ssh_server.h"
#include "wire/msg.h"

static volatile int stopping;

static void on_signal(int sig)
{
    (void)sig;
    stopping = 1;
}

/* SIGHUP (a log rotator moved the file away) is blocked in every thread
 * and collected here, on the ticker: a handler would cut the sessions'
 * reads and polls short with EINTR. */
static int hup_pending(void)
{
    sigset_t hup;
    sigemptyset(&hup);
    sigaddset(&hup, SIGHUP);
    struct timespec now = {0, 0};
    return sigtimedwait(&hup, NULL, &now) == SIGHUP;
}

typedef struct dserver {
    config_t cfg;                 /* dtail.json with the flags applied */
    server_counters_t counters;   /* process-wide */
    server_limits_t *limits;      /* MaxConcurrentCats/Tails */
    struct conn_table *conns;     /* the SSH layer's, for health */
    char host[256];               /* host name sessions report */
    long long shutdown_after_ms;  /* --shutdownAfter, 0 = never */
    long long started_ms;         /* clock_now_ms(), for --shutdownAfter */
    long long last_stats_ms;      /* last periodic STATS line */
    int log_open;                 /* errors go to the log too */
    jobs_t *jobs;                 /* Server.Schedule and Server.Continuous */
    authkey_store_t *authkeys;    /* keys registered with AUTHKEY (Server.AuthKey*) */
    const char *prog;             /* basename of argv[0]: <prog>.log with signal rotation */
} dserver_t;

static void tick(void *ctx)
{
    dserver_t *d = ctx;
    long long now = clock_now_ms();
    if (now - d->last_stats_ms >= 10000) {
        d->last_stats_ms = now;
        dlog_stats(&d->counters);
    }
    if (d->shutdown_after_ms > 0 && !stopping && now - d->started_ms >= d->shutdown_after_ms) {
        LOG_INFO("Shutting down after %lld s (--shutdownAfter)", d->shutdown_after_ms / 1000);
        stopping = 1;
    }
    if (hup_pending()) {
        err_t e;
        err_clear(&e);
        if (dlog_reopen(&e) < 0)
            LOG_ERROR("%s", e.msg);
        else
            LOG_INFO("Reopened the log file (SIGHUP)");
    }
    dlog_flush();
}

static void changed(void *ctx)
{
    dserver_t *d = ctx;
    dlog_stats(&d->counters);
}

static int serve(void *ctx, stream_t *s, const char *user, const char *refusal, err_t *e)
{
    dserver_t *d = ctx;
    session_env_t env = {.user = user, .hostname = d->host, .cfg = &d->cfg,
                         .limits = d->limits, .counters = &d->counters, .stopping = &stopping,
                         .conns = d->conns, .refusal = refusal, .authkeys = d->authkeys};
    return session_serve(s, &env, e);
}

static void host_name(char *out, size_t cap)
{
    const char *v = getenv("DTAIL_HOSTNAME_OVERRIDE");
    const char *it = getenv("DTAIL_INTEGRATION_TEST_RUN_MODE");
    if (v && *v)
        snprintf(out, cap, "%s", v);
    else if (it && strcmp(it, "yes") == 0)
        snprintf(out, cap, "integrationtest");
    else if (gethostname(out, cap) < 0 || !out[0])
        snprintf(out, cap, "localhost");
    out[cap - 1] = '\0';
    if (!(v && *v)) {
        char *dot = strchr(out, '.');
        if (dot)
            *dot = '\0';
    }
}

/* Root: refuse, as DTail does, unless --user names whom to become once the
 * port is bound and the host keys are loaded. */
static int drop_privileges(const char *user, int check_only, err_t *e)
{
    if (getuid() != 0 && geteuid() != 0 && getgid() != 0) {
        if (user && *user)
            return err_set(e, ERR_USAGE, "--user %s needs dserver to be started as root", user);
        return 0;
    }
    if (!user || !*user)
        return err_set(e, ERR_USAGE,
                       "Not allowed to run as UID 0 (or GID 0): start dserver as an ordinary "
                       "user, or as root with --user NAME to drop privileges after binding");
    struct passwd *pw = getpwnam(user);
    if (!pw)
        return err_set(e, ERR_USAGE, "--user %s: no such user", user);
    if (pw->pw_uid == 0 || pw->pw_gid == 0)
        return err_set(e, ERR_USAGE, "--user %s: that user has UID or GID 0", user);
    if (check_only)
        return 0;
    if (initgroups(user, pw->pw_gid) < 0 || setgid(pw->pw_gid) < 0 || setuid(pw->pw_uid) < 0)
        return err_set(e, ERR_IO, "cannot become user %s: %s", user, strerror(errno));
    if (setuid(0) == 0)
        return err_set(e, ERR_IO, "dropping privileges to %s did not stick", user);
    LOG_INFO("Running as user %s (uid %d, gid %d)", user, (int)pw->pw_uid, (int)pw->pw_gid);
    return 0;
}

static int run(dserver_t *d, const dserver_flags_t *f, err_t *e)
{
    if (dserver_flags_apply(f, &d->cfg, e) < 0)
        return -1;
    /* Every user's rules, before anything is created: a bad rule stops the
     * start instead of failing that user's sessions later. */
    if (perm_rules_check(&d->cfg, e) < 0 || exec_config_check(&d->cfg, e) < 0)
        return -1;
    host_name(d->host, sizeof d->host);
    /* A job that could never run stops the start too. */
    if (jobs_load(&d->jobs, &d->cfg, d->host, e) < 0)
        return -1;
    const char *logger = f->logger ? f->logger : d->cfg.logger[0] ? d->cfg.logger : "file";
    const char *fixed = strcasecmp(d->cfg.log_rotation, "daily") ? d->prog : NULL;
    if (dlog_open(logger, d->cfg.log_dir, fixed, e) < 0)
        return -1;
    d->log_open = 1;
    LOG_INFO("%s", WIRE_VERSION_LINE);
    if (d->cfg.path[0])
        LOG_INFO("Loaded config file|%s", d->cfg.path);
    journal_set_dir(d->cfg.journal_dir);
    err_t jerr;
    if (journal_available(&jerr))
        LOG_INFO("Journal targets served|%s", d->cfg.journal_dir[0] ? d->cfg.journal_dir
                                                                      : "the machine's journal");
    else
        LOG_WARN("Journal targets not served (no capability journal-v1)|%s", jerr.msg);
    if (drop_privileges(f->user, 1, e) < 0)   /* refuse before creating anything */
        return -1;
    d->limits = server_limits_create(&d->cfg, e);
    if (!d->limits)
        return -1;
    authkey_store_cfg_t ak = {.enabled = d->cfg.auth_key_enabled,
                              .ttl_ms = d->cfg.auth_key_ttl_s * 1000LL,
                              .max_per_user = d->cfg.auth_key_max_per_user};
    d->authkeys = authkey_store_new(&ak, e);
    if (!d->authkeys)
        return -1;
    ssh_server_opts_t so = {.cfg = &d->cfg, .counters = &d->counters, .stopping = &stopping,
                            .serve = serve, .serve_ctx = d, .tick = tick, .changed = changed,
                            .tick_ctx = d, .authkeys = d->authkeys};
    ssh_server_t *srv = NULL;
    int opened = ssh_server_open(&srv, &so, e);
    if (opened == 0)
        d->conns = ssh_server_conns(srv);
    if (opened < 0)
        return -1;
    if (drop_privileges(f->user, 0, e) < 0) {
        ssh_server_free(srv);
        return -1;
    }
    LOG_INFO("Listening on %s:%d", d->cfg.ssh_bind_address, ssh_server_port(srv));
    dlog_flush();
    d->started_ms = clock_now_ms();
    d->last_stats_ms = d->started_ms;
    jobs_env_t je = {.cfg = &d->cfg, .host = d->host, .limits = d->limits,
                     .counters = &d->counters};
    if (jobs_start(d->jobs, &je, e) < 0) {
        ssh_server_free(srv);
        return -1;
    }
    int rc = ssh_server_run(srv, e);
    jobs_stop(d->jobs);   /* before the server's state goes */
    ssh_server_free(srv);
    dlog_stats(&d->counters);
    LOG_INFO("Stopped");
    return rc;
}

int main(int argc, char **argv)
{
    dserver_flags_t f;
    err_t e;
    err_clear(&e);
    if (dserver_flags_parse(&f, argc, argv, &e) < 0) {
        fprintf(stderr, "dserver: %s\n", e.msg);
        return 2;
    }
    if (f.help) {
        dserver_flags_help();
        return 0;
    }
    if (f.version) {
        puts(WIRE_VERSION_LINE);
        return 0;
    }
    fdio_raise_nofile();
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    sigset_t hup;
    sigemptyset(&hup);
    sigaddset(&hup, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &hup, NULL);   /* before any thread: see hup_pending */
    ssh_init();

    dserver_t *d = calloc(1, sizeof *d);
    if (!d) {
        fprintf(stderr, "dserver: out of memory\n");
        return 1;
    }
    config_defaults(&d->cfg);
    const char *slash = strrchr(argv[0], '/');
    d->prog = slash ? slash + 1 : argv[0];
    d->shutdown_after_ms = f.shutdown_after * 1000;
    int rc = config_load(&d->cfg, f.cfg ? f.cfg : "", &e) < 0 ? -1 : run(d, &f, &e);
    if (rc < 0 && d->log_open)
        LOG_ERROR("%s", e.msg);
    dlog_close();
    if (rc < 0)
        fprintf(stderr, "dserver: %s\n", e.msg);
    jobs_free(d->jobs);
    if (d->limits)
        server_limits_free(d->limits);
    authkey_store_free(d->authkeys);
    free(d);
    ssh_finalize();
    return rc < 0 ? err_exit_status(e.code) : 0;
}
