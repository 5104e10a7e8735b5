/* cmd.h: the REPL's dot commands (.help .files .mode .output .read
 * .timer .schema .quit), parsed from one input line. No terminal needed: the REPL
 * acts on the parsed command. */
#ifndef DTAIL_CLIENT_REPL_CMD_H
#define DTAIL_CLIENT_REPL_CMD_H

#include "base/err.h"
#include "client/serverless/map_run.h"

enum repl_cmd_kind {
    REPL_CMD_HELP = 0,   /* .help */
    REPL_CMD_FILES,      /* .files: inputs, in memory or re-scanned */
    REPL_CMD_MODE,       /* .mode table|csv|tsv|json (also .format) */
    REPL_CMD_OUTPUT,     /* .output [append] [FILE]: results to FILE; alone: terminal */
    REPL_CMD_READ,       /* .read FILE: its lines as if typed */
    REPL_CMD_TIMER,      /* .timer on|off */
    REPL_CMD_SCHEMA,     /* .schema [LOGFORMAT] */
    REPL_CMD_QUIT,       /* .quit (also .exit) */
};

#define REPL_ARG_MAX 4096

typedef struct repl_cmd {
    enum repl_cmd_kind kind;  /* which command */
    enum result_form form;    /* .mode */
    int on;                   /* .timer */
    int append;               /* .output append FILE */
    char arg[REPL_ARG_MAX];   /* .output FILE, .read FILE, .schema LOGFORMAT; "" if none */
} repl_cmd_t;

/* The command names, NULL-terminated (for completion and .help). */
extern const char *const repl_cmd_names[];

/* Parses line (leading blanks allowed, it starts with '.'). Returns 0, or
 * -1 with ERR_USAGE and a message naming the command and what is wrong. */
int repl_cmd_parse(const char *line, repl_cmd_t *cmd, err_t *e);

#endif
