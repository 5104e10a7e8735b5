/* parser/logformat.c: the log format registry (see logformat.h). */
#include "parser/logformat.h"

#include <string.h>

const char *const logformat_common_vars[] = {
    "$line", "$empty", "$hostname", "$server", "$timezone", "$timeoffset", NULL,
};

/* DTail's own MapReduce line: LEVEL|TIME|PID|CALLER|CPUS|GOROUTINES|
 * CGOCALLS|LOADAVG|UPTIME|MAPREDUCE:TABLE|key=value... (§3.2) */
static const char *const default_vars[] = {
    "$severity", "$loglevel", "$time", "$date", "$hour", "$minute", "$second",
    "$pid", "$caller", "$cpus", "$goroutines", "$cgocalls", "$loadavg",
    "$uptime", NULL,
};

static const char *const no_vars[] = { NULL };

static const logformat_t fmt_default = {
    "default", default_vars, true, false,
    "DTail's MapReduce log line: positional $variables, then key=value fields",
};
static const logformat_t fmt_generic = {
    "generic", no_vars, false, false,
    "any line; only the common variables ($line, $hostname, ...)",
};
static const logformat_t fmt_generickv = {
    "generickv", no_vars, true, false,
    "a line of |-separated key=value pairs",
};
static const logformat_t fmt_csv = {
    "csv", no_vars, true, true,
    "comma-separated values; the first line of each file names the columns",
};
static const logformat_t fmt_csvnoheader = {
    "csvnoheader", no_vars, true, true,
    "comma-separated values without a header; columns are $1, $2, ...",
};
static const logformat_t fmt_tsv = {
    "tsv", no_vars, true, true,
    "tab-separated values; the first line of each file names the columns",
};

static const char *const time_var[] = { "$time", NULL };

static const logformat_t fmt_json = {
    "json", time_var, true, false,
    "one JSON object per line; keys are fields, nested keys as a.b, array members as a.0",
};
static const char *const k8s_vars[] = { "$log", "$stream", "$time", NULL };
static const logformat_t fmt_k8s = {
    "k8s", k8s_vars, true, false,
    "a container's JSON log line ({\"log\":\"{...}\\n\",\"stream\":...}); the log's keys are fields",
};
static const logformat_t fmt_logfmt = {
    "logfmt", time_var, true, false,
    "space-separated key=value pairs, quoted values, bare keys",
};

/* The access logs' common and combined layouts, nginx's names (fmt_access.c). */
static const char *const access_vars[] = {
    "$remote_addr", "$remote_user", "$time_local", "$request", "$method", "$path",
    "$protocol", "$status", "$body_bytes_sent", "$http_referer", "$http_user_agent",
    "$http_x_forwarded_for", "$request_time", "$time", NULL,
};
static const logformat_t fmt_nginx = {
    "nginx", access_vars, false, false,
    "nginx's access log, common or combined layout",
};
static const logformat_t fmt_apache = {
    "apache", access_vars, false, false,
    "Apache's access log, common or combined layout",
};

static const char *const syslog_vars[] = {
    "$priority", "$facility", "$severity", "$version", "$timestamp", "$host", "$app",
    "$pid", "$msgid", "$sd", "$message", "$time", NULL,
};
static const logformat_t fmt_syslog = {
    "syslog", syslog_vars, true, false,
    "RFC 5424 and RFC 3164 syslog lines; structured data as SDID.NAME",
};

/* logformat pattern "...": its $variables are the pattern's fields, which
 * parser/lfopts.c puts into a copy of this entry. */
static const logformat_t fmt_pattern = {
    "pattern", time_var, false, false,
    "a custom nginx log_format or Apache LogFormat line: logformat pattern \"...\"",
};

const logformat_t *const logformat_all[] = {
    &fmt_default, &fmt_generic, &fmt_generickv, &fmt_csv, &fmt_csvnoheader, &fmt_tsv,
    &fmt_json, &fmt_k8s, &fmt_logfmt, &fmt_nginx, &fmt_apache, &fmt_syslog, &fmt_pattern, NULL,
};

const logformat_t *logformat_find(const char *name)
{
    for (size_t i = 0; logformat_all[i]; i++)
        if (strcmp(logformat_all[i]->name, name) == 0)
            return logformat_all[i];
    return NULL;
}

static bool in_list(const char *const *list, const char *var)
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(list[i], var) == 0)
            return true;
    return false;
}

bool logformat_has_var(const logformat_t *fmt, const char *var)
{
    return in_list(logformat_common_vars, var) || in_list(fmt->vars, var);
}
