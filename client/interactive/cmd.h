/* cmd.h: the command language of --interactive-query (shared
 * reference §6.6): a line from the control terminal is `:reload <flags>`,
 * `:show`, `:help` or `:quit`. Reload flags are shell-like tokens (' and "
 * quotes, \ escapes) parsed as Go's flag package does: -name or --name, a
 * value as the next token or after '=', booleans without a value (or
 * =true/=false); parsing stops at the first token that is not a flag.
 *
 * Which flags a reload may change depends on the run (§6.6): every run
 * --files, --plain, --quiet, --timeout; query runs (dmap, dtail --query)
 * --query; dtail and dgrep without a query --regex/--grep, --invert,
 * --before, --after, --max. Pure functions: no I/O. */
#ifndef DTAIL_CLIENT_INTERACTIVE_CMD_H
#define DTAIL_CLIENT_INTERACTIVE_CMD_H

#include <stddef.h>

#include "base/err.h"
#include "client/tools/cli.h"

enum icmd_kind { ICMD_NONE, ICMD_RELOAD, ICMD_SHOW, ICMD_HELP, ICMD_QUIT };

/* Which flags the run accepts in :reload. */
enum icmd_allow {
    ICMD_ALLOW_COMMON = 1,        /* --files --plain --quiet --timeout */
    ICMD_ALLOW_QUERY = 2,         /* --query */
    ICMD_ALLOW_GREP = 4,          /* --regex --grep --invert --before --after --max */
};

/* What a :reload changes; each value counts only when its has_ bit is set.
 * Strings are malloc'd (icmd_free). */
typedef struct icmd {
    enum icmd_kind kind;
    char *files, *query, *regex;
    int plain, quiet, invert;
    long long timeout, before, after, max;
    unsigned has;                 /* ICMD_HAS_* bits */
} icmd_t;

enum {
    ICMD_HAS_FILES = 1 << 0, ICMD_HAS_QUERY = 1 << 1, ICMD_HAS_REGEX = 1 << 2,
    ICMD_HAS_PLAIN = 1 << 3, ICMD_HAS_QUIET = 1 << 4, ICMD_HAS_INVERT = 1 << 5,
    ICMD_HAS_TIMEOUT = 1 << 6, ICMD_HAS_BEFORE = 1 << 7, ICMD_HAS_AFTER = 1 << 8,
    ICMD_HAS_MAX = 1 << 9,
};

/* Splits line into tokens: whitespace separates, '…' keeps everything
 * literally, "…" and unquoted text honour \ escapes. *argv (NULL-ended)
 * and its strings are malloc'd (icmd_free_tokens). Errors: "unterminated
 * quoted string", "unterminated escape sequence". */
int icmd_tokenize(const char *line, char ***argv, int *argc, err_t *e);
void icmd_free_tokens(char **argv);

/* Parses one control line (trailing newline and surrounding blanks
 * ignored; an empty line is ICMD_NONE). allow: enum icmd_allow bits.
 * Errors (e->msg is the text after "interactive query error: "): the
 * tokenizer's, `reload requires flags to change`, `unexpected arguments:
 * …`, `unknown command "<line>"`, `flag provided but not defined: -x`,
 * `flag needs an argument: -x`, `invalid value "v" for flag -x`. */
int icmd_parse(const char *line, unsigned allow, icmd_t *out, err_t *e);
void icmd_free(icmd_t *c);

/* o with the reload's changes; strings point into c (keep c alive). */
void icmd_apply(const icmd_t *c, cli_opts_t *o);

#endif
