/* dserver_flags.h: dserver's command line (DTail's flags of §1.5 plus
 * --user and --help), Go flag syntax as the clients: -name or --name, the
 * value as the next argument or after '='. */
#ifndef DTAIL_SERVER_DSERVER_FLAGS_H
#define DTAIL_SERVER_DSERVER_FLAGS_H

#include "base/config.h"
#include "base/err.h"

typedef struct dserver_flags {
    const char *cfg;            /* --cfg FILE|none */
    long long port;             /* --port, -1 when not given (0 = any free port) */
    const char *bind_address;   /* --bindAddress */
    const char *logger;         /* --logger none|stdout|file|fout */
    const char *log_dir;        /* --logDir */
    const char *log_level;      /* --logLevel */
    long long shutdown_after;   /* --shutdownAfter seconds, 0 = never */
    const char *user;           /* --user: the user to become when started as root */
    int help, version;          /* --help, --version */
} dserver_flags_t;

/* Returns 0, or -1 with ERR_USAGE naming the flag. */
int dserver_flags_parse(dserver_flags_t *f, int argc, char **argv, err_t *e);
/* Flags override the config file: port, bind address, log dir, log level
 * (the logger is chosen by the caller: flag, then Common.Logger, then file). */
int dserver_flags_apply(const dserver_flags_t *f, config_t *cfg, err_t *e);
void dserver_flags_help(void);

#endif
