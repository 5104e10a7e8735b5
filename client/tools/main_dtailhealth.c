/* main_dtailhealth.c: DTail's Nagios-style health check of a dserver.
 * Messages and exit codes exactly as DTail's (shared reference §1.6):
 *   0 OK, 1 WARNING (no --server: nothing remote was checked), 2 CRITICAL. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "base/err.h"
#include "base/flagparse.h"
#include "base/log.h"
#include "base/term.h"
#include "client/tools/cli.h"
#include "client/remote/health.h"
#include "client/remote/ssh.h"

typedef struct health_flags {
    const char *server;        /* --server host[:port] */
    const char *logger;        /* --logger none|stdout (logs go to stderr) */
    const char *log_level;     /* --logLevel, default none */
    long long timeout_ms;      /* --connectTimeout ms, default 2000 */
    int no_auth_key;           /* --no-auth-key: accepted, nothing to disable */
    int raw_terminal;          /* --raw-terminal: errors unescaped on a terminal */
    int help, version;         /* --help, --version */
} health_flags_t;

#define O(field) offsetof(health_flags_t, field)
static const flagparse_def_t hflags[] = {
    {"server", FP_STRING, 0, O(server), "HOST[:PORT]", "the dserver to check (port default 2222)"},
    {"logger", FP_STRING, 0, O(logger), "NAME", "none (default) or stdout: diagnostics on stderr"},
    {"logLevel", FP_STRING, 0, O(log_level), "LEVEL", "none (default), error, warn, info, debug"},
    {"connectTimeout", FP_INT, 0, O(timeout_ms), "MS", "SSH connect timeout (default 2000)"},
    {"no-auth-key", FP_BOOL, 0, O(no_auth_key), NULL, "accepted for DTail compatibility"},
    {"noAuthKey", FP_BOOL, 0, O(no_auth_key), NULL, "alias of --no-auth-key"},
    {"raw-terminal", FP_BOOL, 0, O(raw_terminal), NULL, "print control bytes of server errors raw on a terminal (default: escaped)"},
    {"help", FP_BOOL, 0, O(help), NULL, "print this help"},
    {"version", FP_BOOL, 0, O(version), NULL, "print the version"},
};
#undef O

int main(int argc, char **argv)
{
    health_flags_t f = {.timeout_ms = 2000};
    err_t e;
    err_clear(&e);
    flagparse_t p = {.defs = hflags, .n_defs = sizeof hflags / sizeof hflags[0], .tool = "dtailhealth"};
    if (flagparse(&p, &f, argc, argv, &e) < 0) {
        fprintf(stderr, "dtailhealth: %s\n", e.msg);
        return 2;
    }
    if (f.help) {
        printf("Usage: dtailhealth [--server HOST[:PORT]]\n"
               "Checks that a dserver answers (exit 0 OK, 1 WARNING, 2 CRITICAL).\n\nFlags:\n");
        flagparse_help(&p, 16, 5);
        return 0;
    }
    if (f.version) {
        cli_print_version();
        return 0;
    }
    enum log_level lv = LOG_NONE;
    if (flagparse_check_log_level(f.log_level, &lv, &e) < 0) {
        fprintf(stderr, "dtailhealth: %s\n", e.msg);
        return 2;
    }
    if (f.logger && strcasecmp(f.logger, "none") && strcasecmp(f.logger, "stdout")) {
        fprintf(stderr, "dtailhealth: invalid value \"%s\" for flag -logger: use none or stdout\n",
                f.logger);
        return 2;
    }
    log_level = f.logger && !strcasecmp(f.logger, "none") ? LOG_NONE : lv;
    term_setup(f.raw_terminal);
    if (!f.server || !*f.server) {
        printf("WARNING: All seems fine but the check only run in serverless mode, please specify "
               "a remote server via --server hostname:port\n");
        return HEALTH_WARNING;
    }
    char host[256];
    int port;
    enum health_status st = HEALTH_CRITICAL;
    if (ssh_client_parse_server(f.server, 2222, host, sizeof host, &port, &e) == 0)
        st = health_check_run(host, port, (int)f.timeout_ms, &e);
    if (st == HEALTH_OK) {
        printf("OK: All fine at %s :-)\n", f.server);
        return 0;
    }
    LOG_ERROR("%s: %s", f.server, e.msg);   /* the transport's errors do not name it */
    if (st == HEALTH_WARNING) {
        printf("WARNING: DTail server at %s is at a limit: %s\n", f.server, e.msg);
        return HEALTH_WARNING;
    }
    printf("CRITICAL: DTail server not operating properly at %s!\n", f.server);
    return HEALTH_CRITICAL;
}
