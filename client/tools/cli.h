/* cli.h: DTail-compatible command-line parsing shared by every client.
 *
 * Go's flag syntax: -name or --name, a value as the next argument or after
 * '='; booleans take no value (or =true/=false). Unlike Go's flag package,
 * flags may follow positional arguments ("--" ends flags). Unknown flags and
 * missing values are usage errors (exit 2). */
#ifndef DTAIL_CLIENT_CLI_H
#define DTAIL_CLIENT_CLI_H

#include <stddef.h>

#include "base/config.h"
#include "base/err.h"
#include "base/log.h"
#include "exec/sink/result.h"

enum cli_tool { CLI_DCAT, CLI_DGREP, CLI_DMAP, CLI_DTAIL };

typedef struct cli_opts {
    enum cli_tool tool;         /* which binary */
    const char *files;          /* --files, comma list, NULL if not given */
    const char *regex;          /* --regex / --grep */
    int invert;                 /* --invert */
    int ignore_case;            /* --ignore-case / -i */
    const char *multiline;      /* --multiline: a record's start pattern, NULL if not given */
    long long before, after;    /* --before / --after */
    long long max;              /* --max */
    int plain, quiet, no_color; /* --plain --quiet --noColor */
    const char *color;          /* --color always|never|auto */
    int raw_terminal;           /* --raw-terminal: data unescaped on a terminal (base/term.h) */
    const char *log_level;      /* --logLevel, NULL if not given */
    const char *logger;         /* --logger none|stdout|file|fout, NULL if not given */
    unsigned log_outputs;       /* ... as base/log.h LOG_OUT_* bits, when given */
    const char *log_dir;        /* --logDir: the log file's directory, NULL = ~/log */
    int log_payload;            /* --log-payload: the payload into the log file too */
    const char *cfg;            /* --cfg */
    long long max_line_len;     /* --maxLineLength, 0 if not given */
    const char *servers;        /* --servers (serverless only for now) */
    const char *user;           /* --user: SSH user, NULL = $USER */
    const char *key;            /* --key / --auth-key-path: private key, NULL = agent, ~/.ssh/id_* */
    int trust_all_hosts;        /* --trustAllHosts: add unknown host keys without asking */
    const char *agent_key_arg;  /* --agentKeyIndex as given */
    long long agent_key_index;  /* ... the only ssh-agent key offered (0-based); -1: all */
    int no_auth_key;            /* --no-auth-key / --noAuthKey: what this client does anyway */
    long long port;             /* --port: SSH port for servers without :port, 0 = 2222 */
    const char *discovery;      /* --discovery MODULE[:OPTIONS]: COMMA or FILE (client/remote/targets.h) */
    long long cpc;              /* --cpc: SSH handshakes in flight per CPU, 0 = 10 */
    int compress;               /* --compress: zstd lines from servers that offer it */
    const char *query;          /* --query, or the text of --query-file (dmap, dtail) */
    const char *query_file;     /* --query-file FILE as given; "-": stdin */
    char *query_text;           /* ... the file's query (owned; query points here) */
    const char *output;         /* --output as given, NULL if not given */
    const char *timezone;       /* --timezone ZONE as given, NULL if not given */
    enum result_form form;      /* ... parsed; RESULT_FORM_TABLE by default */
    int repl;                   /* --repl (dmap): the interactive prompt */
    const char *memory_limit;   /* --memory-limit SIZE as given (dmap, dtail --query) */
    unsigned long long memory_limit_bytes; /* ... in bytes; 0 = not given */
    long long timeout;          /* --timeout seconds (dtail, dmap); 0 = none */
    long long shutdown_after;   /* --shutdownAfter seconds (dtail); 0 = not given */
    int color_table;            /* --colorTable (dtail) */
    int wide_color_table;       /* --wideColorTable (dtail) */
    int check_health;           /* --checkHealth (dtail, deprecated) */
    int interactive;            /* --interactive-query: :reload etc. on the control tty */
    const char *control_tty;    /* --control-tty, NULL: /dev/tty */
    int help, version;          /* --help / --version */
    char **positional;          /* positional arguments, borrowed from argv */
    int n_positional;           /* count */
} cli_opts_t;

/* Parses argv. Returns 0, or -1 with ERR_USAGE in e. */
int cli_parse(cli_opts_t *o, enum cli_tool tool, int argc, char **argv, err_t *e);
void cli_free(cli_opts_t *o);
void cli_print_help(enum cli_tool tool, const char *argv0);
void cli_print_version(void);
const char *cli_tool_name(enum cli_tool tool);

/* The host name runs report: DTAIL_HOSTNAME_OVERRIDE, "integrationtest" in
 * DTail's integration mode, else gethostname(). */
void cli_host_name(char *out, size_t cap);
/* Whether DTAIL_INTEGRATION_TEST_RUN_MODE=yes (hostname, MaxLineLength 1024). */
int cli_integration_mode(void);

#endif
