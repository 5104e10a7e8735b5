/* cli.c: the clients' flag table (one for all four tools, parsed by base/flagparse). */
#include "client/tools/cli.h"

#include "base/numfmt.h"
#include "base/flagparse.h"
#include "client/tools/query_file.h"
#include "wire/msg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Which tools accept a flag: a parse selects 1u << tool. */
#define T_CAT   (1u << CLI_DCAT)
#define T_GREP  (1u << CLI_DGREP)
#define T_MAP   (1u << CLI_DMAP)
#define T_TAIL  (1u << CLI_DTAIL)
#define T_ALL   (T_CAT | T_GREP | T_MAP | T_TAIL)

#define F(field) offsetof(cli_opts_t, field)
static const flagparse_def_t flags[] = {
    {"files", FP_STRING, T_ALL, F(files), "LIST", "comma list of files or globs (also positional arguments)"},
    {"regex", FP_STRING, T_GREP | T_TAIL, F(regex), "PATTERN", "select lines matching PATTERN (PCRE2; a pattern without metacharacters is a literal)"},
    {"grep", FP_STRING, T_GREP | T_TAIL, F(regex), "PATTERN", "alias of --regex"},
    {"invert", FP_BOOL, T_GREP | T_TAIL, F(invert), NULL, "select lines that do not match"},
    {"ignore-case", FP_BOOL, T_GREP | T_TAIL, F(ignore_case), NULL, "the pattern matches letters of either case (also -i)"},
    {"i", FP_BOOL, T_GREP | T_TAIL, F(ignore_case), NULL, "alias of --ignore-case"},
    {"multiline", FP_STRING, T_CAT | T_GREP | T_TAIL, F(multiline), "PATTERN", "multi-line records: a line matching PATTERN (PCRE2, e.g. '^\\S') starts a record, the lines after it that do not match belong to it (a stack trace); the pattern, context and --max then see whole records"},
    {"before", FP_INT, T_GREP | T_TAIL, F(before), "N", "print N lines of context before each selected line"},
    {"after", FP_INT, T_GREP | T_TAIL, F(after), "N", "print N lines of context after each selected line"},
    {"max", FP_INT, T_GREP | T_TAIL, F(max), "N", "stop reading a file after N selected lines"},
    {"query", FP_STRING, T_MAP | T_TAIL, F(query), "QUERY", "the mapreduce query (or the first argument containing 'select ')"},
    {"query-file", FP_STRING, T_MAP | T_TAIL, F(query_file), "FILE", "read the query from FILE (- for stdin); a final ';' is dropped"},
    {"output", FP_STRING, T_MAP | T_TAIL, F(output), "FORMAT", "how a result without outfile is printed: table (default), csv, tsv or json (one object per row and line); all but table show every row"},
    {"timezone", FP_STRING, T_MAP | T_TAIL, F(timezone), "ZONE", "write times ($time, bucket()) as ISO 8601 in ZONE: an IANA name (Europe/Berlin), UTC or an offset (+02:00); default: this host's zone"},
    {"timeout", FP_INT, T_MAP | T_TAIL, F(timeout), "SECONDS", "end the run after SECONDS (0: no limit)"},
    {"shutdownAfter", FP_INT, T_TAIL, F(shutdown_after), "SECONDS", "end the run after SECONDS (default 86400)"},
    {"colorTable", FP_BOOL, T_TAIL, F(color_table), NULL, "print the table of terminal colours and exit"},
    {"wideColorTable", FP_BOOL, T_TAIL, F(wide_color_table), NULL, "print the colour table with sample text and exit"},
    {"checkHealth", FP_BOOL, T_TAIL, F(check_health), NULL, "deprecated: use dtailhealth"},
    {"repl", FP_BOOL, T_MAP, F(repl), NULL, "open the interactive query prompt (also without a query on a terminal)"},
    {"memory-limit", FP_STRING, T_MAP | T_TAIL, F(memory_limit), "SIZE", "memory for group tables; beyond it groups spill to a temporary SQLite database in $TMPDIR (bytes, or with K, M, G; default: a quarter of RAM)"},
    {"plain", FP_BOOL, T_ALL, F(plain), NULL, "print raw lines without the REMOTE|host|... prefix"},
    {"quiet", FP_BOOL, T_ALL, F(quiet), NULL, "no statistics lines"},
    {"noColor", FP_BOOL, T_ALL, F(no_color), NULL, "never print ANSI colours"},
    {"raw-terminal", FP_BOOL, T_ALL, F(raw_terminal), NULL, "on a terminal, print control bytes and invalid UTF-8 of logs, names and server text raw (default: shown as ^[, <FF>)"},
    {"color", FP_STRING, T_ALL, F(color), "WHEN", "always, never or auto (default: colours only on a terminal, not with NO_COLOR)"},
    {"logLevel", FP_STRING, T_ALL, F(log_level), "LEVEL", "none fatal error warn info debug trace (default warn serverless)"},
    {"logger", FP_STRING, T_ALL, F(logger), "NAME", "where diagnostics go: stdout (the terminal: stderr), file (the log file only), fout (both) or none (default stdout; fout with --logDir or --log-payload)"},
    {"logDir", FP_STRING, T_ALL, F(log_dir), "DIR", "directory of the log file, DIR/YYYYMMDD.log (default ~/log)"},
    {"log-payload", FP_BOOL, T_ALL, F(log_payload), NULL, "also copy the payload (what goes to stdout) into the log file"},
    {"cfg", FP_STRING, T_ALL, F(cfg), "FILE", "config file, or none"},
    {"maxLineLength", FP_INT, T_ALL, F(max_line_len), "BYTES", "split longer lines (default 1048576, config Server.MaxLineLength)"},
    {"servers", FP_STRING, T_ALL, F(servers), "LIST", "servers to query; empty or 'serverless' reads local files"},
    {"user", FP_STRING, T_ALL, F(user), "NAME", "SSH user name (default: the current user)"},
    {"key", FP_STRING, T_ALL, F(key), "FILE", "SSH private key (default: DTAIL_AUTH_KEY_PATH, DTAIL_SSH_PRIVATE_KEYFILE_PATH, Client.AuthKeyPath, else ssh-agent, then ~/.ssh/id_ed25519, id_ecdsa, id_rsa)"},
    {"auth-key-path", FP_STRING, T_ALL, F(key), "FILE", "alias of --key"},
    {"trustAllHosts", FP_BOOL, T_ALL, F(trust_all_hosts), NULL, "trust unknown SSH host keys and add them to ~/.ssh/known_hosts"},
    {"agentKeyIndex", FP_STRING, T_ALL, F(agent_key_arg), "N", "offer only the ssh-agent's N-th key (from 0; default -1: all of them)"},
    {"no-auth-key", FP_BOOL, T_ALL, F(no_auth_key), NULL, "DTail's: do not register the key with AUTHKEY (this client never does)"},
    {"noAuthKey", FP_BOOL, T_ALL, F(no_auth_key), NULL, "alias of --no-auth-key"},
    {"port", FP_INT, T_ALL, F(port), "N", "SSH port of servers given without :port (default 2222)"},
    {"discovery", FP_STRING, T_ALL, F(discovery), "MODULE[:OPT]", "server list source: COMMA[:LIST] or FILE[:PATH]; --servers /regex/ filters it"},
    {"cpc", FP_INT, T_ALL, F(cpc), "N", "SSH handshakes in flight per CPU core (default 10)"},
    {"compress", FP_BOOL, T_ALL, F(compress), NULL, "zstd-compress lines from servers that offer it (slow links)"},
    {"interactive-query", FP_BOOL, T_ALL, F(interactive), NULL, "read :reload <flags>, :show, :help, :quit from the control terminal"},
    {"control-tty", FP_STRING, T_ALL, F(control_tty), "PATH", "control terminal for --interactive-query (default /dev/tty)"},
    {"help", FP_BOOL, T_ALL, F(help), NULL, "print this help"},
    {"version", FP_BOOL, T_ALL, F(version), NULL, "print the version"},
};
#undef F

const char *cli_tool_name(enum cli_tool tool)
{
    static const char *names[] = {"dcat", "dgrep", "dmap", "dtail"};
    return names[tool];
}

static flagparse_t tool_flags(enum cli_tool tool)
{
    return (flagparse_t){.defs = flags, .n_defs = sizeof flags / sizeof flags[0],
                         .select = 1u << tool, .tool = cli_tool_name(tool)};
}

/* dtail --query: the query's table (from) and where clause pick the lines;
 * DTail drops the line flags there (its query commands carry no options,
 * and the table's pattern replaces --regex), so a flag that would do
 * nothing is refused instead (lesson 1). */
static int check_query_line_flags(const cli_opts_t *o, err_t *e)
{
    if (o->tool != CLI_DTAIL || !o->query || !*o->query)
        return 0;
    const char *inert = o->regex ? "regex (or -grep)" : o->invert ? "invert"
                      : o->ignore_case ? "ignore-case" : o->before ? "before"
                      : o->after ? "after" : o->max ? "max" : NULL;
    if (!inert)
        return 0;
    return err_set(e, ERR_USAGE, "flag -%s has no effect with -query: the query's from and where "
                                 "clauses select the lines (put the condition in where)", inert);
}

/* --logger, and the flags that need its file: a flag that is accepted
 * does something, so they are refused with a logger that has none. */
static int check_logger(cli_opts_t *o, err_t *e)
{
    if (!o->logger)
        return 0;
    if (log_outputs_parse(o->logger, &o->log_outputs) < 0)
        return err_set(e, ERR_USAGE, "invalid value \"%s\" for flag -logger: use none, stdout, "
                                     "file or fout", o->logger);
    if (o->log_outputs & LOG_OUT_FILE)
        return 0;
    const char *flag = o->log_dir ? "-logDir" : o->log_payload ? "-log-payload" : NULL;
    if (flag)
        return err_set(e, ERR_USAGE, "flag %s needs a log file, but -logger %s writes none "
                                     "(use -logger file or fout)", flag, o->logger);
    return 0;
}

/* --agentKeyIndex: DTail's -1 (every key), or an index from 0. */
static int parse_agent_key_index(cli_opts_t *o, err_t *e)
{
    o->agent_key_index = -1;
    if (!o->agent_key_arg || strcmp(o->agent_key_arg, "-1") == 0)
        return 0;
    if (flagparse_int(o->agent_key_arg, &o->agent_key_index) < 0 || o->agent_key_index > 1023)
        return err_set(e, ERR_USAGE, "invalid value \"%s\" for flag -agentKeyIndex: the index "
                                     "of an ssh-agent key (from 0), or -1 for all of them",
                       o->agent_key_arg);
    return 0;
}

/* --output and --query-file: their values, and the flags that would do
 * nothing beside them. */
static int check_output_query(cli_opts_t *o, err_t *e)
{
    if (o->output && result_form_parse(o->output, &o->form) < 0)
        return err_set(e, ERR_USAGE, "invalid value \"%s\" for flag -output: use table, csv, "
                                     "tsv or json", o->output);
    if (o->query && o->query_file)
        return err_set(e, ERR_USAGE, "flags -query and -query-file both give the query: use one");
    if (o->tool == CLI_DTAIL && o->output && !o->query && !o->query_file)
        return err_set(e, ERR_USAGE, "flag -output has no effect without -query: dtail prints "
                                     "the lines it follows as they are");
    if (o->form != RESULT_FORM_TABLE && o->color && strcmp(o->color, "always") == 0)
        return err_set(e, ERR_USAGE, "flag -color always has no effect with -output %s: only "
                                     "the table is painted", o->output);
    if (!o->query_file)
        return 0;
    if (strcmp(o->query_file, "-") == 0 &&
        query_file_stdin_free(o->files, o->positional, o->n_positional, e) < 0)
        return -1;
    if (query_file_read(o->query_file, &o->query_text, e) < 0)
        return -1;
    o->query = o->query_text;
    return 0;
}

int cli_parse(cli_opts_t *o, enum cli_tool tool, int argc, char **argv, err_t *e)
{
    memset(o, 0, sizeof *o);
    o->tool = tool;
    o->positional = calloc((size_t)argc + 1, sizeof *o->positional);
    if (!o->positional)
        return err_set(e, ERR_NOMEM, "out of memory");
    flagparse_t p = tool_flags(tool);
    p.positional = o->positional;
    int rc = flagparse(&p, o, argc, argv, e);
    o->n_positional = p.n_positional;
    if (rc < 0)
        return -1;
    if (o->color && strcmp(o->color, "always") && strcmp(o->color, "never") && strcmp(o->color, "auto"))
        return err_set(e, ERR_USAGE, "invalid value \"%s\" for flag -color: use always, never or auto", o->color);
    if (o->memory_limit && numfmt_parse_size(o->memory_limit, &o->memory_limit_bytes) < 0)
        return err_set(e, ERR_USAGE, "invalid value \"%s\" for flag -memory-limit: "
                                     "use bytes or a size such as 512M or 2G", o->memory_limit);
    if (flagparse_check_port(o->port, e) < 0 || flagparse_check_log_level(o->log_level, NULL, e) < 0)
        return -1;
    if (check_logger(o, e) < 0 || parse_agent_key_index(o, e) < 0 ||
        check_output_query(o, e) < 0)
        return -1;
    return check_query_line_flags(o, e);
}

void cli_free(cli_opts_t *o)
{
    free(o->positional);
    free(o->query_text);
    o->positional = NULL;
    o->query_text = NULL;
}

void cli_print_version(void)
{
    puts(WIRE_VERSION_LINE);
}

void cli_print_help(enum cli_tool tool, const char *argv0)
{
    const char *name = cli_tool_name(tool);
    if (tool == CLI_DMAP)
        printf("Usage: %s [flags] [QUERY] [FILE...]\n", name);
    else
        printf("Usage: %s [flags] [FILE...]\n", name);
    if (tool == CLI_DMAP)
        printf("Run a mapreduce query over whole files (or stdin); see docs/query-language.md.\n");
    else if (tool == CLI_DCAT)
        printf("Print whole files (or stdin) from the beginning.\n");
    else if (tool == CLI_DGREP)
        printf("Print the lines of whole files (or stdin) that match a pattern.\n");
    printf("\nFlags (-flag and --flag are the same; values as -flag V or -flag=V):\n");
    flagparse_t p = tool_flags(tool);
    flagparse_help(&p, 24, 0);
    printf("\nWith no FILE, or when FILE is -, read standard input.\n"
           "Environment: DTAIL_HOSTNAME_OVERRIDE sets the host name shown; NO_COLOR disables colours.\n"
           "\nExit status:\n"
           "  0  success (also when no line was selected)\n"
           "  1  an input could not be read (missing, unreadable, a directory, corrupt);\n"
           "     the other inputs are still processed\n"
           "  2  usage error, invalid pattern, invalid query or invalid config file\n");
    (void)argv0;
}

int cli_integration_mode(void)
{
    const char *v = getenv("DTAIL_INTEGRATION_TEST_RUN_MODE");
    return v && strcmp(v, "yes") == 0;
}

void cli_host_name(char *out, size_t cap)
{
    const char *v = getenv("DTAIL_HOSTNAME_OVERRIDE");
    if (v && *v) {
        snprintf(out, cap, "%s", v);
        return;
    }
    if (cli_integration_mode()) {
        snprintf(out, cap, "integrationtest");
        return;
    }
    if (gethostname(out, cap) < 0 || !out[0])
        snprintf(out, cap, "localhost");
    out[cap - 1] = '\0';
}
