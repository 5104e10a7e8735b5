/* dserver_flags.c: dserver's flag table and parser. */
#include "server/dserver_flags.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/flagparse.h"
#include "base/log.h"

#define O(field) offsetof(dserver_flags_t, field)
static const flagparse_def_t dflags[] = {
    {"cfg", FP_STRING, 0, O(cfg), "FILE", "config file (dtail.json), or none (default: ~/.config/dtail/dtail.conf, ~/.dtail.conf)"},
    {"port", FP_INT, 0, O(port), "N", "listen port (default Common.SSHPort, 2222; 0 picks a free port)"},
    {"bindAddress", FP_STRING, 0, O(bind_address), "ADDR", "listen address (default Server.SSHBindAddress, 0.0.0.0)"},
    {"logger", FP_STRING, 0, O(logger), "NAME", "none, stdout, file or fout (default Common.Logger, else file)"},
    {"logDir", FP_STRING, 0, O(log_dir), "DIR", "directory of the daily log file (default Common.LogDir, log)"},
    {"logLevel", FP_STRING, 0, O(log_level), "LEVEL", "none fatal error warn info verbose debug trace (default info)"},
    {"shutdownAfter", FP_INT, 0, O(shutdown_after), "N", "stop gracefully after N seconds (0: never)"},
    {"user", FP_STRING, 0, O(user), "NAME", "started as root: become NAME after binding the port"},
    {"help", FP_BOOL, 0, O(help), NULL, "print this help"},
    {"version", FP_BOOL, 0, O(version), NULL, "print the version"},
};
#undef O
#define N_DFLAGS (sizeof dflags / sizeof dflags[0])

int dserver_flags_parse(dserver_flags_t *f, int argc, char **argv, err_t *e)
{
    memset(f, 0, sizeof *f);
    f->port = -1;
    flagparse_t p = {.defs = dflags, .n_defs = N_DFLAGS, .tool = "dserver"};
    if (flagparse(&p, f, argc, argv, e) < 0 || flagparse_check_port(f->port, e) < 0 ||
        flagparse_check_log_level(f->log_level, NULL, e) < 0)
        return -1;
    return 0;
}

static int copy_to(char *dst, size_t cap, const char *src, const char *what, err_t *e)
{
    if (strlen(src) >= cap)
        return err_set(e, ERR_USAGE, "value of -%s is longer than %zu bytes", what, cap - 1);
    memcpy(dst, src, strlen(src) + 1);
    return 0;
}

int dserver_flags_apply(const dserver_flags_t *f, config_t *cfg, err_t *e)
{
    if (f->port >= 0)
        cfg->ssh_port = (int)f->port;
    if (f->bind_address &&
        copy_to(cfg->ssh_bind_address, sizeof cfg->ssh_bind_address, f->bind_address, "bindAddress", e) < 0)
        return -1;
    if (f->log_dir && copy_to(cfg->log_dir, sizeof cfg->log_dir, f->log_dir, "logDir", e) < 0)
        return -1;
    const char *level = f->log_level ? f->log_level : cfg->log_level[0] ? cfg->log_level : "info";
    enum log_level lv = LOG_INFO;
    if (log_level_parse(level, &lv) < 0)
        return err_set(e, ERR_CONFIG, "invalid log level \"%s\"", level);
    log_level = lv;
    return 0;
}

void dserver_flags_help(void)
{
    printf("Usage: dserver [flags]\n"
           "DTail's server: serves dcat, dgrep, dmap and dtail over SSH (docs/dserver.md).\n"
           "\nFlags (-flag and --flag are the same; values as -flag V or -flag=V):\n");
    flagparse_help(&(flagparse_t){.defs = dflags, .n_defs = N_DFLAGS}, 16, 5);
    printf("\nSIGTERM or SIGINT: stop accepting, let sessions end, exit 0.\n"
           "Exit status: 0 after a graceful stop, 1 on a system error, 2 on a usage or config error.\n");
}
