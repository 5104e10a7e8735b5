/* cmd.c: dot-command parsing. */
#include "client/repl/cmd.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

const char *const repl_cmd_names[] = {
    ".help", ".files", ".mode", ".format", ".output", ".read", ".timer", ".schema", ".quit",
    ".exit", NULL,
};

#define MAX_WORDS 4

/* Splits s into blank-separated words; a word may be "double quoted" (a
 * path with spaces). Returns the count, or -1 for an unterminated quote or
 * too many words. Words are copied into buf. */
static int split_words(const char *s, char *buf, size_t cap, const char **w, int max)
{
    int n = 0;
    size_t k = 0;
    for (;;) {
        while (isspace((unsigned char)*s))
            s++;
        if (!*s)
            return n;
        if (n == max)
            return -1;
        w[n++] = buf + k;
        if (*s == '"') {
            const char *q = strchr(s + 1, '"');
            if (!q || (size_t)(q - s) >= cap - k)
                return -1;
            memcpy(buf + k, s + 1, (size_t)(q - s - 1));
            k += (size_t)(q - s - 1);
            s = q + 1;
        } else {
            while (*s && !isspace((unsigned char)*s) && k + 1 < cap)
                buf[k++] = *s++;
        }
        buf[k++] = '\0';
        if (k >= cap)
            return -1;
    }
}

static int want_args(const char *name, int n, int lo, int hi, const char *usage, err_t *e)
{
    if (n - 1 < lo || n - 1 > hi)
        return err_set(e, ERR_USAGE, "%s: usage: %s", name, usage);
    return 0;
}

int repl_cmd_parse(const char *line, repl_cmd_t *cmd, err_t *e)
{
    memset(cmd, 0, sizeof *cmd);
    char buf[REPL_ARG_MAX + 64];
    const char *w[MAX_WORDS];
    int n = split_words(line, buf, sizeof buf, w, MAX_WORDS);
    if (n < 0)
        return err_set(e, ERR_USAGE, "cannot read the command: an unclosed \" or too many words");
    if (n == 0 || w[0][0] != '.')
        return err_set(e, ERR_USAGE, "not a dot command");
    const char *name = w[0];
    if (!strcmp(name, ".help")) {
        cmd->kind = REPL_CMD_HELP;
        return want_args(name, n, 0, 0, ".help", e);
    }
    if (!strcmp(name, ".files")) {
        cmd->kind = REPL_CMD_FILES;
        return want_args(name, n, 0, 0, ".files", e);
    }
    if (!strcmp(name, ".quit") || !strcmp(name, ".exit")) {
        cmd->kind = REPL_CMD_QUIT;
        return want_args(name, n, 0, 0, name, e);
    }
    if (!strcmp(name, ".mode") || !strcmp(name, ".format")) {
        cmd->kind = REPL_CMD_MODE;
        if (want_args(name, n, 1, 1, ".mode table|csv|tsv|json", e) < 0)
            return -1;
        if (result_form_parse(w[1], &cmd->form) < 0)
            return err_set(e, ERR_USAGE, "%s: unknown mode '%s' (table, csv, tsv or json)", name,
                           w[1]);
        return 0;
    }
    if (!strcmp(name, ".read")) {
        cmd->kind = REPL_CMD_READ;
        if (want_args(name, n, 1, 1, ".read FILE", e) < 0)
            return -1;
        snprintf(cmd->arg, sizeof cmd->arg, "%s", w[1]);
        return 0;
    }
    if (!strcmp(name, ".timer")) {
        cmd->kind = REPL_CMD_TIMER;
        if (want_args(name, n, 1, 1, ".timer on|off", e) < 0)
            return -1;
        if (strcmp(w[1], "on") && strcmp(w[1], "off"))
            return err_set(e, ERR_USAGE, ".timer: '%s' is neither on nor off", w[1]);
        cmd->on = !strcmp(w[1], "on");
        return 0;
    }
    if (!strcmp(name, ".output")) {
        cmd->kind = REPL_CMD_OUTPUT;
        if (want_args(name, n, 0, 2, ".output [append] [FILE] (alone: back to the terminal)", e) < 0)
            return -1;
        int k = 1;
        if (n > 1 && !strcmp(w[1], "append")) {
            cmd->append = 1;
            k = 2;
            if (n != 3)
                return err_set(e, ERR_USAGE, ".output append: which file?");
        } else if (n == 3) {
            return err_set(e, ERR_USAGE, ".output: one file, or append FILE (got '%s %s')",
                           w[1], w[2]);
        }
        if (k < n)
            snprintf(cmd->arg, sizeof cmd->arg, "%s", w[k]);
        return 0;
    }
    if (!strcmp(name, ".schema")) {
        cmd->kind = REPL_CMD_SCHEMA;
        if (want_args(name, n, 0, 1, ".schema [LOGFORMAT]", e) < 0)
            return -1;
        if (n == 2)
            snprintf(cmd->arg, sizeof cmd->arg, "%s", w[1]);
        return 0;
    }
    return err_set(e, ERR_USAGE, "unknown command %s (.help lists the commands)", name);
}
