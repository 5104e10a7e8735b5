/* config.c: dtail.json through jansson. */
#include "base/config.h"

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"

/* Keys DTail defines (shared reference §5.1); those read here are handled
 * below, the rest are accepted for compatibility with existing files. */
static const char *const known_common[] = {
    "SSHPort", "SSHConnectTimeoutMs", "ExperimentalFeaturesEnable", "LogDir",
    "Logger", "LogLevel", "LogRotation", "CacheDir", NULL};
static const char *const known_server[] = {
    "SSHBindAddress", "MaxConnections", "MaxConcurrentCats", "MaxConcurrentTails",
    "MaxLineLength", "Permissions", "MapreduceLogFormat", "HostKeyFile",
    "HostKeyBits", "Schedule", "Continuous", "KeyExchanges", "Ciphers", "MACs",
    "AuthKeyEnabled", "AuthKeyTTLSeconds", "AuthKeyMaxPerUser",
    "ReadGlobRetryIntervalMs", "ReadRetryIntervalMs", "MaxCommandFrameSize",
    "MaxGlobTargets", "ShutdownOutputSerializeWaitMs", "ShutdownIdleRecheckWaitMs",
    "MaxPreauthConnections", "MaxPreauthPerSource", "IdleTimeoutSeconds", "WriteTimeoutSeconds",
    "MaxAuthTries", NULL};
static const char *const known_client[] = {
    "TermColorsEnable", "TermColors", "AuthKeyPath", "AuthKeyDisable", "LogPayload", NULL};

void config_defaults(config_t *c)
{
    memset(c, 0, sizeof *c);
    c->max_line_len = 1024 * 1024;
    c->term_colors_enable = 1;
    c->ssh_port = 2222;
    c->ssh_connect_timeout_ms = 2000;
    snprintf(c->log_dir, sizeof c->log_dir, "log");
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
}

/* The integer and string keys, read from one table so each key is checked
 * the same way: type and range, naming the key on error. */
typedef struct config_key {
    const char *section, *name;  /* e.g. "Server", "MaxConnections" */
    size_t offset;               /* field in config_t */
    long long min, max;          /* integer range; max 0 = a string key */
    size_t size;                 /* field size: int, size_t, or char array */
} config_key_t;

#define CK_INT(sec, name, field, lo, hi) {sec, name, offsetof(config_t, field), lo, hi, sizeof(int)}
#define CK_SIZE(sec, name, field, lo, hi) {sec, name, offsetof(config_t, field), lo, hi, sizeof(size_t)}
#define CK_STR(sec, name, field) {sec, name, offsetof(config_t, field), 0, 0, sizeof(((config_t *)0)->field)}
static const config_key_t config_keys[] = {
    CK_INT("Common", "SSHPort", ssh_port, 1, 65535),
    CK_INT("Common", "SSHConnectTimeoutMs", ssh_connect_timeout_ms, 1, 3600000),
    CK_STR("Common", "LogDir", log_dir),
    CK_STR("Common", "Logger", logger),
    CK_STR("Common", "CacheDir", cache_dir),
    CK_STR("Server", "SSHBindAddress", ssh_bind_address),
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
    CK_SIZE("Server", "MaxLineLength", max_line_len, 1, 64 * 1024 * 1024),
};

static int read_keys(config_t *c, json_t *root, const char *path, err_t *e)
{
    for (size_t i = 0; i < sizeof config_keys / sizeof config_keys[0]; i++) {
        const config_key_t *k = &config_keys[i];
        json_t *v = json_object_get(json_object_get(root, k->section), k->name);
        if (!v)
            continue;
        char *field = (char *)c + k->offset;
        if (k->max == 0) {
            if (!json_is_string(v) || json_string_length(v) >= k->size ||
                strlen(json_string_value(v)) != json_string_length(v))
                return err_set(e, ERR_CONFIG, "%s: %s.%s must be a string of at most %zu bytes",
                               path, k->section, k->name, k->size - 1);
            memcpy(field, json_string_value(v), json_string_length(v) + 1);
            continue;
        }
        if (!json_is_integer(v) || json_integer_value(v) < k->min || json_integer_value(v) > k->max)
            return err_set(e, ERR_CONFIG, "%s: %s.%s must be an integer from %lld to %lld", path,
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

/* Server.Permissions: checked here, kept as compact JSON for the server. */
static int read_permissions(config_t *c, json_t *v, const char *path, err_t *e)
{
    if (!v)
        return 0;
    const char *key;
    json_t *val;
    if (!json_is_object(v))
        return err_set(e, ERR_CONFIG, "%s: Server.Permissions must be an object", path);
    json_object_foreach(v, key, val) {
        if (strcmp(key, "Default") == 0) {
            if (!is_rule_list(val))
                return err_set(e, ERR_CONFIG, "%s: Server.Permissions.Default must be a list of strings", path);
        } else if (strcmp(key, "Users") == 0) {
            const char *user;
            json_t *rules;
            if (!json_is_object(val))
                return err_set(e, ERR_CONFIG, "%s: Server.Permissions.Users must be an object", path);
            json_object_foreach(val, user, rules) {
                if (!is_rule_list(rules))
                    return err_set(e, ERR_CONFIG, "%s: Server.Permissions.Users.%s must be a list of strings",
                                   path, user);
            }
        } else {
            LOG_WARN("%s: unknown config key Server.Permissions.%s ignored", path, key);
        }
    }
    char *text = json_dumps(v, JSON_COMPACT);
    if (!text)
        return err_set(e, ERR_NOMEM, "out of memory reading Server.Permissions");
    size_t n = strlen(text);
    if (n >= sizeof c->permissions) {
        free(text);
        return err_set(e, ERR_CONFIG, "%s: Server.Permissions is too large (%zu bytes, at most %zu)",
                       path, n, sizeof c->permissions - 1);
    }
    memcpy(c->permissions, text, n + 1);
    free(text);
    return 0;
}

static int is_known(const char *const *list, const char *key)
{
    if (strncmp(key, "Output", 6) == 0)
        return list == known_server;   /* the Output* timing knobs */
    for (; *list; list++)
        if (strcmp(*list, key) == 0)
            return 1;
    return 0;
}

static void warn_unknown(const char *path, const char *section, json_t *obj,
                         const char *const *known)
{
    const char *key;
    json_t *val;
    json_object_foreach(obj, key, val) {
        if (!is_known(known, key))
            LOG_WARN("%s: unknown config key %s.%s ignored", path, section, key);
    }
}

static int load_file(config_t *c, const char *path, err_t *e)
{
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root)
        return err_set(e, ERR_CONFIG, "%s:%d:%d: invalid config: %s", path, je.line,
                       je.column, je.text);
    if (!json_is_object(root)) {
        json_decref(root);
        return err_set(e, ERR_CONFIG, "%s: invalid config: top level is not an object", path);
    }
    const char *key;
    json_t *val;
    json_object_foreach(root, key, val) {
        const char *const *known = strcmp(key, "Common") == 0 ? known_common
                                 : strcmp(key, "Server") == 0 ? known_server
                                 : strcmp(key, "Client") == 0 ? known_client : NULL;
        if (!known) {
            LOG_WARN("%s: unknown config section %s ignored", path, key);
            continue;
        }
        if (!json_is_object(val)) {
            /* key belongs to root: the message is made before root goes. */
            err_set(e, ERR_CONFIG, "%s: invalid config: %s is not an object", path, key);
            json_decref(root);
            return -1;
        }
        warn_unknown(path, key, val, known);
    }
    json_t *v = json_object_get(json_object_get(root, "Client"), "TermColorsEnable");
    if (v) {
        if (!json_is_boolean(v)) {
            json_decref(root);
            return err_set(e, ERR_CONFIG, "%s: Client.TermColorsEnable must be true or false", path);
        }
        c->term_colors_enable = json_is_true(v);
    }
    v = json_object_get(json_object_get(root, "Common"), "LogLevel");
    if (v) {
        enum log_level lv;
        if (!json_is_string(v) || log_level_parse(json_string_value(v), &lv) < 0) {
            json_decref(root);
            return err_set(e, ERR_CONFIG, "%s: Common.LogLevel is not a log level", path);
        }
        snprintf(c->log_level, sizeof c->log_level, "%s", json_string_value(v));
    }
    if (read_permissions(c, json_object_get(json_object_get(root, "Server"), "Permissions"),
                         path, e) < 0) {
        json_decref(root);
        return -1;
    }
    if (read_keys(c, root, path, e) < 0) {
        json_decref(root);
        return -1;
    }
    snprintf(c->path, sizeof c->path, "%s", path);
    json_decref(root);
    return 0;
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
