/* config.c: dtail.json through jansson, failing closed.
 *
 * Every key of the file must be one this build acts on; anything else is
 * an error naming the key, the file and the line, so that a misspelt
 * "Permisions" cannot start a server with the default rule, and a DTail
 * key this build has no counterpart for (settled_keys) says so instead of
 * being silently dropped. jansson gives no position for a key of a parsed
 * document, so the line is looked up in the file's text (key_line). */
#include "base/config.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/grow.h"
#include "base/log.h"
#include "base/numfmt.h"

/* The largest config file read: DTail's are a few KiB; the cap only keeps
 * a wrong --cfg (a log file, /dev/zero) from being read whole. */
#define CONFIG_MAX_BYTES (4 * 1024 * 1024)

/* DTail's keys (shared reference §5.1, DTail 4.3.2-ng's config structs)
 * that this build has no setting for. Each is accepted with the one value
 * that asks for what this build does anyway, and any other value is an
 * error saying why (lesson 1: an accepted key does something). */
typedef struct settled_key {
    const char *section, *name;
    int accepted;              /* the boolean accepted; -1: no value is */
    const char *why;           /* what this build does instead */
} settled_key_t;
#define OUTPUT_PIPELINE "tunes the Go server's output pipeline; lines stream here without its timers"
static const settled_key_t settled_keys[] = {
    {"Common", "ExperimentalFeaturesEnable", 0, "this build has no experimental features to enable"},
    {"Client", "AuthKeyDisable", 1,
     "this client never registers its key with AUTHKEY, so only true (disabled) describes it"},
    {"Server", "ReadRetryIntervalMs", -1,
     "a truncated or rotated file is reopened on its inotify event here, without a retry delay"},
    {"Server", "ShutdownOutputSerializeWaitMs", -1, OUTPUT_PIPELINE},
    {"Server", "ShutdownIdleRecheckWaitMs", -1, OUTPUT_PIPELINE},
    {"Server", "OutputTransmissionDelayMs", -1, OUTPUT_PIPELINE},
    {"Server", "OutputEOFWaitBaseMs", -1, OUTPUT_PIPELINE},
    {"Server", "OutputEOFWaitPerFileMs", -1, OUTPUT_PIPELINE},
    {"Server", "OutputEOFWaitMaxMs", -1, OUTPUT_PIPELINE},
    {"Server", "OutputChannelBufferSize", -1, OUTPUT_PIPELINE},
    {"Server", "OutputFlushTimeoutMs", -1, OUTPUT_PIPELINE},
    {"Server", "OutputFlushPollIntervalMs", -1, OUTPUT_PIPELINE},
    {"Server", "OutputReadRetryIntervalMs", -1, OUTPUT_PIPELINE},
    {"Server", "OutputEOFAckTimeoutMs", -1, OUTPUT_PIPELINE},
};
#undef OUTPUT_PIPELINE

void config_defaults(config_t *c)
{
    memset(c, 0, sizeof *c);
    c->max_line_len = 1024 * 1024;
    c->term_colors_enable = 1;
    palette_defaults(&c->palette);
    c->ssh_port = 2222;
    c->ssh_connect_timeout_ms = 2000;
    snprintf(c->log_dir, sizeof c->log_dir, "log");
    snprintf(c->log_rotation, sizeof c->log_rotation, "daily");
    snprintf(c->cache_dir, sizeof c->cache_dir, "cache");
    snprintf(c->ssh_bind_address, sizeof c->ssh_bind_address, "0.0.0.0");
    c->max_connections = 10;
    c->max_concurrent_cats = 2;
    c->max_concurrent_tails = 50;
    c->max_preauth_connections = 100;
    c->max_preauth_per_source = 50;
    c->idle_timeout_s = 300;
    c->write_timeout_s = 600;
    c->max_auth_tries = 6;
    c->host_key_bits = 4096;
    c->max_command_frame_size = 1024 * 1024;
    c->max_glob_targets = 1000;
    c->auth_key_enabled = 1;
    c->auth_key_ttl_s = 86400;
    c->auth_key_max_per_user = 5;
    c->map_memory_limit = (size_t)1 << 30;
}

/* The integer and string keys, read from one table so each key is checked
 * the same way: type and range, naming the key on error. */
typedef struct config_key {
    const char *section, *name;  /* e.g. "Server", "MaxConnections" */
    size_t offset;               /* field in config_t */
    long long min, max;          /* integer range; max 0 = a string key, -1 = a memory
                                    size, -2 = true or false (an int 1 or 0) */
    size_t size;                 /* field size: int, size_t, or char array */
} config_key_t;

#define CK_INT(sec, name, field, lo, hi) {sec, name, offsetof(config_t, field), lo, hi, sizeof(int)}
#define CK_SIZE(sec, name, field, lo, hi) {sec, name, offsetof(config_t, field), lo, hi, sizeof(size_t)}
/* A memory size: integer bytes, or a string as --memory-limit takes it. */
#define CK_MEM(sec, name, field) {sec, name, offsetof(config_t, field), 1, -1, sizeof(size_t)}
#define CK_BOOL(sec, name, field) {sec, name, offsetof(config_t, field), 0, -2, sizeof(int)}
#define CK_STR(sec, name, field) {sec, name, offsetof(config_t, field), 0, 0, sizeof(((config_t *)0)->field)}
static const config_key_t config_keys[] = {
    CK_INT("Common", "SSHPort", ssh_port, 1, 65535),
    CK_INT("Common", "SSHConnectTimeoutMs", ssh_connect_timeout_ms, 1, 3600000),
    CK_STR("Common", "LogDir", log_dir),
    CK_STR("Common", "Logger", logger),
    CK_STR("Common", "LogRotation", log_rotation),
    CK_STR("Common", "CacheDir", cache_dir),
    CK_STR("Common", "JournalDirectory", journal_dir),
    CK_STR("Server", "SSHBindAddress", ssh_bind_address),
    CK_STR("Server", "MapreduceLogFormat", mapreduce_log_format),
    CK_INT("Server", "MaxConnections", max_connections, 1, 1000000),
    CK_INT("Server", "MaxConcurrentCats", max_concurrent_cats, 1, 1000000),
    CK_INT("Server", "MaxConcurrentTails", max_concurrent_tails, 1, 1000000),
    CK_INT("Server", "MaxPreauthConnections", max_preauth_connections, 1, 1000000),
    CK_INT("Server", "MaxPreauthPerSource", max_preauth_per_source, 1, 1000000),
    CK_INT("Server", "IdleTimeoutSeconds", idle_timeout_s, 0, 86400 * 365),
    CK_INT("Server", "WriteTimeoutSeconds", write_timeout_s, 1, 86400 * 365),
    CK_INT("Server", "MaxAuthTries", max_auth_tries, 1, 1000),
    CK_STR("Server", "HostKeyFile", host_key_file),
    CK_INT("Server", "HostKeyBits", host_key_bits, 2048, 16384),
    CK_SIZE("Server", "MaxCommandFrameSize", max_command_frame_size, 1024, 1024 * 1024 * 1024),
    CK_INT("Server", "MaxGlobTargets", max_glob_targets, 1, 100000000),
    CK_BOOL("Server", "AuthKeyEnabled", auth_key_enabled),
    CK_INT("Server", "AuthKeyTTLSeconds", auth_key_ttl_s, 1, 86400 * 365),
    CK_INT("Server", "AuthKeyMaxPerUser", auth_key_max_per_user, 1, 1000),
    CK_SIZE("Server", "MaxLineLength", max_line_len, 1, 64 * 1024 * 1024),
    CK_MEM("Server", "MapMemoryLimit", map_memory_limit),
    CK_BOOL("Client", "LogPayload", log_payload),
    CK_BOOL("Client", "TermColorsEnable", term_colors_enable),
    CK_STR("Client", "AuthKeyPath", auth_key_path),
    CK_INT("Server", "ReadGlobRetryIntervalMs", glob_retry_ms, 0, 3600000),
};
#define N_CONFIG_KEYS (sizeof config_keys / sizeof config_keys[0])

/* The file being loaded: its name and text, for error positions. */
typedef struct src {
    const char *path;
    const char *text;
    size_t len;
} src_t;

/* The index after the JSON string that starts at text[i] (a '"'). */
static size_t skip_string(const char *text, size_t len, size_t i)
{
    for (i++; i < len; i++) {
        if (text[i] == '\\')
            i++;
        else if (text[i] == '"')
            return i + 1;
    }
    return len;
}

/* Whether text[i..] (after a string) is white space and a colon: the
 * string was a key. */
static int colon_follows(const char *text, size_t len, size_t i)
{
    for (; i < len; i++) {
        if (text[i] == ':')
            return 1;
        if (text[i] != ' ' && text[i] != '\t' && text[i] != '\n' && text[i] != '\r')
            return 0;
    }
    return 0;
}

/* The line of the key keys[0] of the top-level object, then of keys[1]
 * inside its value, and so on (NULL ends the list), from the file's text:
 * a scan that skips strings and counts the nesting of objects and arrays,
 * so "Default" inside Users is not Server.Permissions.Default. "[N]" is
 * the object that is element N of a list (a job of Server.Schedule). A
 * name the file spells with a JSON escape is not found; the line is then
 * that of the deepest name found (0 if none). Cheap enough: errors and
 * start-up only, on a text jansson has parsed already. */
static int key_line(const char *text, size_t len, const char *const *keys)
{
    size_t i = 0, at = 0;
    int depth = 0, level = 1, found = 0;   /* keys[found] is looked for at depth level */
    long elem = 0;                         /* the element of a list at depth level */
    while (i < len && keys[found]) {
        char c = text[i];
        if (keys[found][0] == '[' && depth == level) {
            if (c == ',')
                elem++;
            if (c == '{' && elem == strtol(keys[found] + 1, NULL, 10)) {
                at = i;
                found++;
                level++;
            }
        }
        if (c == '"') {
            size_t end = skip_string(text, len, i), n = strlen(keys[found]);
            if (depth == level && end - i == n + 2 && memcmp(text + i + 1, keys[found], n) == 0 &&
                colon_follows(text, len, end)) {
                at = i;
                found++;
                level++;
            }
            i = end;
            continue;
        }
        if (c == '{' || c == '[') {
            depth++;
        } else if ((c == '}' || c == ']') && --depth < level) {
            break;   /* left the object the key was looked for in */
        } else if (c == ',' && depth < level) {
            break;   /* the key found last had no object for the next */
        }
        i++;
    }
    if (!found)
        return 0;
    int line = 1;
    for (size_t j = 0; j < at; j++)
        line += text[j] == '\n';
    return line;
}

/* "PATH:LINE: message" (or "PATH: message" when the line is not known). */
__attribute__((format(printf, 4, 5)))
static int src_err(err_t *e, const src_t *s, const char *const *keys, const char *fmt, ...)
{
    char msg[sizeof e->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int line = keys ? key_line(s->text, s->len, keys) : 0;
    if (line > 0)
        return err_set(e, ERR_CONFIG, "%s:%d: %s", s->path, line, msg);
    return err_set(e, ERR_CONFIG, "%s: %s", s->path, msg);
}

static int read_keys(config_t *c, json_t *root, const src_t *s, err_t *e)
{
    for (size_t i = 0; i < N_CONFIG_KEYS; i++) {
        const config_key_t *k = &config_keys[i];
        json_t *v = json_object_get(json_object_get(root, k->section), k->name);
        if (!v)
            continue;
        const char *keys[] = {k->section, k->name, NULL};
        char *field = (char *)c + k->offset;
        if (k->max == 0) {
            if (!json_is_string(v) || json_string_length(v) >= k->size ||
                strlen(json_string_value(v)) != json_string_length(v))
                return src_err(e, s, keys, "%s.%s must be a string of at most %zu bytes",
                               k->section, k->name, k->size - 1);
            memcpy(field, json_string_value(v), json_string_length(v) + 1);
            continue;
        }
        if (k->max == -2) {
            if (!json_is_boolean(v))
                return src_err(e, s, keys, "%s.%s must be true or false", k->section, k->name);
            *(int *)field = json_is_true(v);
            continue;
        }
        if (k->max == -1) {
            unsigned long long bytes = 0;
            int ok = json_is_integer(v) ? json_integer_value(v) >= 1
                                        : json_is_string(v) &&
                                              numfmt_parse_size(json_string_value(v), &bytes) == 0;
            if (!ok)
                return src_err(e, s, keys, "%s.%s must be a size: bytes, or such as \"512M\" or "
                                           "\"2G\"", k->section, k->name);
            *(size_t *)field = json_is_integer(v) ? (size_t)json_integer_value(v) : (size_t)bytes;
            continue;
        }
        if (!json_is_integer(v) || json_integer_value(v) < k->min || json_integer_value(v) > k->max)
            return src_err(e, s, keys, "%s.%s must be an integer from %lld to %lld",
                           k->section, k->name, k->min, k->max);
        if (k->size == sizeof(int))
            *(int *)field = (int)json_integer_value(v);
        else
            *(size_t *)field = (size_t)json_integer_value(v);
    }
    return 0;
}

static int is_rule_list(json_t *v)
{
    size_t i;
    json_t *r;
    if (!json_is_array(v))
        return 0;
    json_array_foreach(v, i, r) {
        if (!json_is_string(r))
            return 0;
    }
    return 1;
}

/* Server.Permissions: checked for shape here, kept as compact JSON for the
 * server, which compiles the rules (server/permissions.h perm_rules_check). */
static int read_permissions(config_t *c, json_t *v, const src_t *s, err_t *e)
{
    if (!v)
        return 0;
    const char *key;
    json_t *val;
    if (!json_is_object(v))
        return src_err(e, s, (const char *const[]){"Server", "Permissions", NULL},
                       "Server.Permissions must be an object");
    json_object_foreach(v, key, val) {
        const char *keys[] = {"Server", "Permissions", key, NULL, NULL};
        if (strcmp(key, "Default") == 0) {
            if (!is_rule_list(val))
                return src_err(e, s, keys, "Server.Permissions.Default must be a list of strings");
        } else if (strcmp(key, "Users") == 0) {
            const char *user;
            json_t *rules;
            if (!json_is_object(val))
                return src_err(e, s, keys, "Server.Permissions.Users must be an object");
            json_object_foreach(val, user, rules) {
                keys[3] = user;
                if (!is_rule_list(rules))
                    return src_err(e, s, keys, "Server.Permissions.Users.%s must be a list of strings",
                                   user);
            }
        } else {
            return src_err(e, s, keys, "unknown config key Server.Permissions.%s (known: Default, Users)",
                           key);
        }
    }
    char *text = json_dumps(v, JSON_COMPACT);
    if (!text)
        return err_set(e, ERR_NOMEM, "out of memory reading Server.Permissions");
    size_t n = strlen(text);
    if (n >= sizeof c->permissions) {
        free(text);
        return src_err(e, s, (const char *const[]){"Server", "Permissions", NULL},
                       "Server.Permissions is too large (%zu bytes, at most %zu)", n,
                       sizeof c->permissions - 1);
    }
    memcpy(c->permissions, text, n + 1);
    free(text);
    return 0;
}

/* Server.Schedule and Server.Continuous: lists of objects here (so that a
 * job is always a job), kept as compact JSON for the server, which checks
 * each job's keys and query at start-up (server/jobs.h jobs_load). */
static int read_jobs(config_t *c, json_t *server, const src_t *s, err_t *e)
{
    static const char *const kinds[] = {"Schedule", "Continuous"};
    json_t *jobs = json_object();
    if (!jobs)
        return err_set(e, ERR_NOMEM, "out of memory reading Server.Schedule");
    for (size_t k = 0; k < 2; k++) {
        json_t *list = json_object_get(server, kinds[k]), *job;
        size_t i;
        if (!list)
            continue;
        int ok = json_is_array(list);
        json_array_foreach(list, i, job) {
            ok = ok && json_is_object(job);
        }
        if (!ok) {
            json_decref(jobs);
            return src_err(e, s, (const char *const[]){"Server", kinds[k], NULL},
                           "Server.%s must be a list of job objects", kinds[k]);
        }
        json_object_set(jobs, kinds[k], list);
    }
    char *text = json_object_size(jobs) ? json_dumps(jobs, JSON_COMPACT) : NULL;
    size_t n = text ? strlen(text) : 0;
    int rc = 0;
    if (json_object_size(jobs) && !text)
        rc = err_set(e, ERR_NOMEM, "out of memory reading Server.Schedule");
    else if (n >= sizeof c->jobs)
        rc = src_err(e, s, (const char *const[]){"Server", "Schedule", NULL},
                     "Server.Schedule and Server.Continuous are too large (%zu bytes of JSON, "
                     "at most %zu)", n, sizeof c->jobs - 1);
    else if (text)
        memcpy(c->jobs, text, n + 1);
    free(text);
    json_decref(jobs);
    return rc;
}

/* Server.KeyExchanges, Ciphers, MACs: lists of SSH algorithm names
 * (OpenSSH's spelling, as libssh and Go's x/crypto use), kept
 * comma-joined for libssh; whether libssh knows them is checked when
 * dserver applies them. */
static const struct {
    const char *name;
    size_t offset;
} algorithm_keys[] = {
    {"KeyExchanges", offsetof(config_t, key_exchanges)},
    {"Ciphers", offsetof(config_t, ciphers)},
    {"MACs", offsetof(config_t, macs)},
};

static int algorithm_char(char ch)
{
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
           ch == '-' || ch == '@' || ch == '.' || ch == '_' || ch == '+';
}

static int read_algorithms(config_t *c, json_t *server, const src_t *s, err_t *e)
{
    for (size_t k = 0; k < sizeof algorithm_keys / sizeof algorithm_keys[0]; k++) {
        const char *name = algorithm_keys[k].name;
        json_t *v = json_object_get(server, name);
        if (!v)
            continue;
        const char *keys[] = {"Server", name, NULL};
        char *out = (char *)c + algorithm_keys[k].offset;
        size_t cap = sizeof c->ciphers, len = 0, i;
        json_t *item;
        if (!json_is_array(v) || json_array_size(v) == 0)
            return src_err(e, s, keys, "Server.%s must be a non-empty list of algorithm names "
                                       "(leave it out for libssh's defaults)", name);
        json_array_foreach(v, i, item) {
            const char *a = json_is_string(item) ? json_string_value(item) : NULL;
            size_t n = a ? strlen(a) : 0;
            int ok = n > 0 && n == json_string_length(item);
            for (size_t j = 0; ok && j < n; j++)
                ok = algorithm_char(a[j]);
            if (!ok)
                return src_err(e, s, keys, "Server.%s[%zu] is not an algorithm name", name, i);
            if (len + n + 2 > cap)
                return src_err(e, s, keys, "Server.%s is too long (at most %zu bytes)", name,
                               cap - 1);
            if (len)
                out[len++] = ',';
            memcpy(out + len, a, n + 1);
            len += n;
        }
    }
    return 0;
}

/* Keys this build reads: the table, and those read on their own. */
static int implemented(const char *section, const char *key)
{
    for (size_t i = 0; i < N_CONFIG_KEYS; i++)
        if (strcmp(config_keys[i].section, section) == 0 && strcmp(config_keys[i].name, key) == 0)
            return 1;
    return (strcmp(section, "Common") == 0 && strcmp(key, "LogLevel") == 0) ||
           (strcmp(section, "Server") == 0 &&
            (strcmp(key, "Permissions") == 0 || strcmp(key, "KeyExchanges") == 0 ||
             strcmp(key, "Ciphers") == 0 || strcmp(key, "MACs") == 0 ||
             strcmp(key, "Schedule") == 0 || strcmp(key, "Continuous") == 0)) ||
           (strcmp(section, "Client") == 0 && strcmp(key, "TermColors") == 0);
}

/* A settled key (see settled_keys): its one accepted value, or why not. */
static int check_settled(const settled_key_t *k, json_t *val, const src_t *s, err_t *e)
{
    const char *keys[] = {k->section, k->name, NULL};
    if (k->accepted >= 0 && json_is_boolean(val) && json_is_true(val) == k->accepted)
        return 0;
    if (k->accepted >= 0)
        return src_err(e, s, keys, "%s.%s: only %s is accepted: %s", k->section, k->name,
                       k->accepted ? "true" : "false", k->why);
    return src_err(e, s, keys, "%s.%s: DTail's key has no counterpart in this build (%s); "
                               "remove it (docs/dserver.md, DTail's keys)",
                   k->section, k->name, k->why);
}

static const settled_key_t *find_settled(const char *section, const char *key)
{
    for (size_t i = 0; i < sizeof settled_keys / sizeof settled_keys[0]; i++)
        if (strcmp(settled_keys[i].section, section) == 0 && strcmp(settled_keys[i].name, key) == 0)
            return &settled_keys[i];
    return NULL;
}

/* Every section and key must be known: see the comment at the top. */
static int check_keys(json_t *root, const src_t *s, err_t *e)
{
    const char *section, *key;
    json_t *obj, *val;
    json_object_foreach(root, section, obj) {
        const char *keys[] = {section, NULL, NULL};
        if (strcmp(section, "Common") && strcmp(section, "Server") && strcmp(section, "Client"))
            return src_err(e, s, keys, "unknown config section %s (known: Common, Server, Client)",
                           section);
        if (!json_is_object(obj))
            return src_err(e, s, keys, "invalid config: %s is not an object", section);
        json_object_foreach(obj, key, val) {
            if (implemented(section, key))
                continue;
            const settled_key_t *k = find_settled(section, key);
            if (k) {
                if (check_settled(k, val, s, e) < 0)
                    return -1;
                continue;
            }
            keys[1] = key;
            return src_err(e, s, keys, "unknown config key %s.%s", section, key);
        }
    }
    return 0;
}

/* Client.TermColors: {"Group": {"PartFg": "Colour", ...}, ...}. */
static int read_term_colors(config_t *c, json_t *tc, const src_t *s, err_t *e)
{
    if (!tc)
        return 0;
    const char *keys[] = {"Client", "TermColors", NULL, NULL, NULL};
    if (!json_is_object(tc))
        return src_err(e, s, keys, "Client.TermColors must be an object of colour groups");
    const char *group, *key;
    json_t *obj, *val;
    json_object_foreach(tc, group, obj) {
        keys[2] = group;
        keys[3] = NULL;
        if (!palette_has_group(group))
            return src_err(e, s, keys, "Client.TermColors.%s: unknown colour group (known: "
                                       "Remote, Client, Server, Common, MaprTable)", group);
        if (!json_is_object(obj))
            return src_err(e, s, keys, "Client.TermColors.%s must be an object", group);
        json_object_foreach(obj, key, val) {
            keys[3] = key;
            char why[768];
            if (!json_is_string(val))
                return src_err(e, s, keys, "Client.TermColors.%s.%s must be a string", group, key);
            if (palette_set(&c->palette, group, key, json_string_value(val), why, sizeof why) < 0)
                return src_err(e, s, keys, "Client.TermColors.%s.%s: %s", group, key, why);
        }
    }
    return 0;
}

static int load_root(config_t *c, json_t *root, const src_t *s, err_t *e)
{
    if (!json_is_object(root))
        return src_err(e, s, NULL, "invalid config: top level is not an object");
    if (check_keys(root, s, e) < 0 ||
        read_term_colors(c, json_object_get(json_object_get(root, "Client"), "TermColors"), s, e) < 0)
        return -1;
    json_t *v = json_object_get(json_object_get(root, "Common"), "LogLevel");
    if (v) {
        enum log_level lv;
        if (!json_is_string(v) || log_level_parse(json_string_value(v), &lv) < 0)
            return src_err(e, s, (const char *const[]){"Common", "LogLevel", NULL},
                           "Common.LogLevel is not a log level");
        snprintf(c->log_level, sizeof c->log_level, "%s", json_string_value(v));
    }
    if (read_permissions(c, json_object_get(json_object_get(root, "Server"), "Permissions"), s,
                         e) < 0)
        return -1;
    if (read_algorithms(c, json_object_get(root, "Server"), s, e) < 0 ||
        read_jobs(c, json_object_get(root, "Server"), s, e) < 0)
        return -1;
    return read_keys(c, root, s, e);
}

/* The whole file, NUL-terminated (*text to free). */
static int read_text(const char *path, char **text, size_t *len, err_t *e)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return err_set(e, ERR_CONFIG, "%s: cannot open config: %s", path, strerror(errno));
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        /* Room for one more byte than read so far and the NUL: a buffer
         * read full doubles. */
        if (GROW_ARRAY(buf, cap, n + 2, 4096) < 0) {
            free(buf);
            fclose(f);
            return err_set(e, ERR_NOMEM, "%s: out of memory reading config", path);
        }
        n += fread(buf + n, 1, cap - n - 1, f);
        if (n < cap - 1)
            break;
        if (cap >= CONFIG_MAX_BYTES) {
            free(buf);
            fclose(f);
            return err_set(e, ERR_CONFIG, "%s: config larger than %d bytes", path, CONFIG_MAX_BYTES - 1);
        }
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return err_set(e, ERR_CONFIG, "%s: cannot read config", path);
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
}

static int load_file(config_t *c, const char *path, err_t *e)
{
    char *text;
    size_t len;
    if (read_text(path, &text, &len, e) < 0)
        return -1;
    src_t s = {path, text, len};
    json_error_t je;
    /* A key given twice would have its first value silently dropped. */
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    int rc;
    if (!root)
        rc = err_set(e, ERR_CONFIG, "%s:%d:%d: invalid config: %s", path, je.line, je.column,
                     je.text);
    else
        rc = load_root(c, root, &s, e);
    json_decref(root);
    free(text);
    if (rc == 0)
        snprintf(c->path, sizeof c->path, "%s", path);
    return rc;
}

int config_load(config_t *c, const char *cfg_flag, err_t *e)
{
    if (cfg_flag && strcmp(cfg_flag, "none") == 0)
        return 0;
    if (cfg_flag && *cfg_flag)
        return load_file(c, cfg_flag, e);
    const char *home = getenv("HOME");
    if (!home)
        return 0;
    static const char *const candidates[] = {".config/dtail/dtail.conf", ".dtail.conf"};
    for (size_t i = 0; i < 2; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", home, candidates[i]);
        if (access(path, F_OK) == 0)
            return load_file(c, path, e);
    }
    return 0;
}

void config_where(const config_t *c, const char *const *keys, char *out, size_t cap)
{
    if (!c->path[0]) {
        snprintf(out, cap, "config");
        return;
    }
    char *text = NULL;
    size_t len = 0;
    err_t ignored;
    int line = read_text(c->path, &text, &len, &ignored) == 0 ? key_line(text, len, keys) : 0;
    free(text);
    if (line > 0)
        snprintf(out, cap, "%s:%d", c->path, line);
    else
        snprintf(out, cap, "%s", c->path);
}
