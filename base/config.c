/* config.c: dtail.json through jansson. */
#include "base/config.h"

#include <jansson.h>
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
    NULL};
static const char *const known_client[] = {
    "TermColorsEnable", "TermColors", "AuthKeyPath", "AuthKeyDisable", "LogPayload", NULL};

void config_defaults(config_t *c)
{
    memset(c, 0, sizeof *c);
    c->max_line_len = 1024 * 1024;
    c->term_colors_enable = 1;
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
            json_decref(root);
            return err_set(e, ERR_CONFIG, "%s: invalid config: %s is not an object", path, key);
        }
        warn_unknown(path, key, val, known);
    }
    json_t *v = json_object_get(json_object_get(root, "Server"), "MaxLineLength");
    if (v) {
        if (!json_is_integer(v) || json_integer_value(v) <= 0 ||
            json_integer_value(v) > 64 * 1024 * 1024) {
            json_decref(root);
            return err_set(e, ERR_CONFIG,
                           "%s: Server.MaxLineLength must be an integer from 1 to 67108864", path);
        }
        c->max_line_len = (size_t)json_integer_value(v);
    }
    v = json_object_get(json_object_get(root, "Client"), "TermColorsEnable");
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
