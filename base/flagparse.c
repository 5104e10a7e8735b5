/* flagparse.c: the table-driven flag parser. */
#include "base/flagparse.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int sees(const flagparse_t *p, const flagparse_def_t *d)
{
    return d->mask == 0 || (d->mask & p->select) != 0;
}

static const flagparse_def_t *find(const flagparse_t *p, const char *name, size_t len)
{
    for (size_t k = 0; k < p->n_defs; k++) {
        const flagparse_def_t *d = &p->defs[k];
        if (sees(p, d) && strlen(d->name) == len && strncmp(d->name, name, len) == 0)
            return d;
    }
    if (len == 1 && name[0] == 'h')
        return find(p, "help", 4);
    return NULL;
}

int flagparse_bool(const char *v, int *out)
{
    if (!strcasecmp(v, "true") || !strcmp(v, "1") || !strcasecmp(v, "t")) {
        *out = 1;
        return 0;
    }
    if (!strcasecmp(v, "false") || !strcmp(v, "0") || !strcasecmp(v, "f")) {
        *out = 0;
        return 0;
    }
    return -1;
}

int flagparse_int(const char *v, long long *out)
{
    char *end;
    long long n = strtoll(v, &end, 10);
    if (!*v || *end || n < 0)
        return -1;
    *out = n;
    return 0;
}

static void fail(flagparse_t *p, enum flagparse_fault fault, const flagparse_def_t *d,
                 const char *value)
{
    p->failure.fault = fault;
    p->failure.def = d;
    p->failure.value = value;
}

static int take_positional(flagparse_t *p, char *arg, err_t *e)
{
    if (!p->positional) {
        fail(p, FP_FAULT_POSITIONAL, NULL, arg);
        return err_set(e, ERR_USAGE, "unexpected argument %s (%s takes only flags; see --help)",
                       arg, p->tool);
    }
    p->positional[p->n_positional++] = arg;
    return 0;
}

static int set_value(flagparse_t *p, const flagparse_def_t *d, void *field, const char *val,
                     err_t *e)
{
    if (d->type == FP_STRING) {
        *(const char **)field = val;
        return 0;
    }
    if (d->type == FP_BOOL) {
        if (flagparse_bool(val, field) == 0)
            return 0;
        fail(p, FP_FAULT_BAD_VALUE, d, val);
        return err_set(e, ERR_USAGE, "invalid boolean value \"%s\" for flag -%s", val, d->name);
    }
    if (flagparse_int(val, field) == 0)
        return 0;
    fail(p, FP_FAULT_BAD_VALUE, d, val);
    return err_set(e, ERR_USAGE, "invalid value \"%s\" for flag -%s: not a non-negative integer",
                   val, d->name);
}

/* argv[*i] is a flag; its value may be the next argument (*i advances). */
static int parse_flag(flagparse_t *p, void *out, int argc, char **argv, int *i, err_t *e)
{
    const char *arg = argv[*i];
    const char *name = arg + (arg[1] == '-' ? 2 : 1);
    const char *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    const flagparse_def_t *d = find(p, name, len);
    const char *val = NULL;
    if (d)
        val = eq ? eq + 1 : d->type == FP_BOOL ? "true" : *i + 1 < argc ? argv[++*i] : NULL;
    int rc;
    if (!d) {
        fail(p, FP_FAULT_UNKNOWN, NULL, NULL);
        rc = err_set(e, ERR_USAGE, "flag provided but not defined: %s (see %s --help)", arg, p->tool);
    } else if (!val) {
        fail(p, FP_FAULT_NO_VALUE, d, NULL);
        rc = err_set(e, ERR_USAGE, "flag needs an argument: -%s", d->name);
    } else {
        rc = set_value(p, d, (char *)out + d->offset, val, e);
    }
    if (rc < 0) {
        p->failure.name = name;
        p->failure.name_len = len;
    }
    return rc;
}

int flagparse(flagparse_t *p, void *out, int argc, char **argv, err_t *e)
{
    p->n_positional = 0;
    memset(&p->failure, 0, sizeof p->failure);
    int flags_ended = 0;
    for (int i = 1; i < argc; i++) {
        char *arg = argv[i];
        if (flags_ended || arg[0] != '-' || arg[1] == '\0') {
            if (take_positional(p, arg, e) < 0)
                return -1;
            flags_ended = flags_ended || p->first_ends_flags;
        } else if (p->positional && strcmp(arg, "--") == 0) {
            flags_ended = 1;
        } else if (parse_flag(p, out, argc, argv, &i, e) < 0) {
            return -1;
        }
    }
    return 0;
}

void flagparse_help(const flagparse_t *p, int width, int arg_width)
{
    for (size_t k = 0; k < p->n_defs; k++) {
        const flagparse_def_t *d = &p->defs[k];
        if (!sees(p, d))
            continue;
        const char *dashes = d->name[1] ? "--" : "-", *arg = d->arg ? d->arg : "";
        char left[64];
        if (arg_width > 0) {
            snprintf(left, sizeof left, "%s%s", dashes, d->name);
            printf("  %-*s %-*s  %s\n", width, left, arg_width, arg, d->help);
        } else {
            snprintf(left, sizeof left, "%s%s%s%s", dashes, d->name, *arg ? " " : "", arg);
            printf("  %-*s %s\n", width, left, d->help);
        }
    }
}

int flagparse_check_port(long long port, err_t *e)
{
    if (port > 65535)
        return err_set(e, ERR_USAGE, "invalid value %lld for flag -port: at most 65535", port);
    return 0;
}

int flagparse_check_log_level(const char *level, enum log_level *lv, err_t *e)
{
    enum log_level parsed;
    if (!level)
        return 0;
    if (log_level_parse(level, &parsed) < 0)
        return err_set(e, ERR_USAGE, "invalid value \"%s\" for flag -logLevel", level);
    if (lv)
        *lv = parsed;
    return 0;
}
