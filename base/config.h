/* config.h: DTail's JSON config file (dtail.json), the keys this build
 * reads. A config key that is accepted does something: an unknown section
 * or key (also inside Server.Permissions), a key given twice, or a value of
 * the wrong type or range is an error naming the key, the file and the line.
 * DTail's keys this build has no setting for (Output*, ...) are accepted
 * only with the value that describes what it does, otherwise refused with
 * the reason (docs/dserver.md, "DTail's keys").
 *
 * Lookup as DTail: --cfg PATH, --cfg none for no file, otherwise the first
 * existing of ~/.config/dtail/dtail.conf and ~/.dtail.conf. */
#ifndef DTAIL_BASE_CONFIG_H
#define DTAIL_BASE_CONFIG_H

#include <stddef.h>

#include "base/err.h"
#include "base/palette.h"

typedef struct config {
    size_t max_line_len;     /* Server.MaxLineLength, default 1 MiB */
    size_t map_memory_limit; /* Server.MapMemoryLimit: bytes a map request's
                                group tables hold before they spill,
                                default 1 GiB */
    int term_colors_enable;  /* Client.TermColorsEnable, default 1 */
    palette_t palette;       /* Client.TermColors, default DTail's paint */
    int log_payload;         /* Client.LogPayload: the clients copy the payload
                                into their log file (--log-payload), default 0 */
    char log_level[32];      /* Common.LogLevel, "" when unset */
    char path[4096];         /* file loaded, "" when none */
    /* Common and Server keys of the SSH layer (dserver, ssh clients). */
    int ssh_port;                 /* Common.SSHPort, default 2222 */
    int ssh_connect_timeout_ms;   /* Common.SSHConnectTimeoutMs, default 2000 */
    char log_dir[1024];           /* Common.LogDir, default "log" */
    char logger[32];              /* Common.Logger, "" when unset */
    char log_rotation[32];        /* Common.LogRotation: "daily" (default), a file
                                     per day; anything else (DTail's rule): one
                                     file <LogDir>/<program>.log, reopened on SIGHUP */
    char cache_dir[1024];         /* Common.CacheDir, default "cache" */
    char journal_dir[1024];       /* Common.JournalDirectory: where journal targets
                                     are read (journalctl -D), "" = the machine's
                                     journal (exec/scan/journal.h) */
    char mapreduce_log_format[32]; /* Server.MapreduceLogFormat: the log format of a
                                     `from` query without logformat; "" = default
                                     (exec_default_logformat) */
    char ssh_bind_address[256];   /* Server.SSHBindAddress, default 0.0.0.0 */
    int max_connections;          /* Server.MaxConnections, default 10 */
    int max_concurrent_cats;      /* Server.MaxConcurrentCats, default 2 */
    int max_concurrent_tails;     /* Server.MaxConcurrentTails, default 50 */
    /* Hardening (docs/dserver.md): */
    int max_preauth_connections;  /* Server.MaxPreauthConnections, default 100 */
    int max_preauth_per_source;   /* Server.MaxPreauthPerSource, default 50 */
    int idle_timeout_s;           /* Server.IdleTimeoutSeconds, default 300; 0 = never */
    int write_timeout_s;          /* Server.WriteTimeoutSeconds, default 600 */
    int max_auth_tries;           /* Server.MaxAuthTries, default 6 */
    char host_key_file[1024];     /* Server.HostKeyFile, "" = <CacheDir>/ssh_host_key */
    int host_key_bits;            /* Server.HostKeyBits (RSA), default 4096 */
    size_t max_command_frame_size; /* Server.MaxCommandFrameSize, default 1 MiB */
    int max_glob_targets;         /* Server.MaxGlobTargets, default 1000: files one
                                     spec may expand to on the server */
    /* The auth-key fast reconnect (server/authkey_store.h): */
    int auth_key_enabled;         /* Server.AuthKeyEnabled, default 1 */
    int auth_key_ttl_s;           /* Server.AuthKeyTTLSeconds, default 86400 */
    int auth_key_max_per_user;    /* Server.AuthKeyMaxPerUser, default 5 */
    /* Server.KeyExchanges, Ciphers, MACs: the SSH algorithms dserver
     * allows, comma-joined; "" = libssh's defaults. */
    char key_exchanges[1024];
    char ciphers[1024];
    char macs[1024];
    /* Server.Permissions as compact JSON, checked for shape ({"Default":
     * [rules], "Users": {user: [rules]}}); "" = DTail's default ["^/.*"].
     * server/permissions.c compiles the rules of one user. */
    char permissions[16384];
    /* Server.Schedule and Server.Continuous as compact JSON, checked to be
     * lists of objects ({"Schedule": [...], "Continuous": [...]}, the keys
     * the file has); "" = no jobs. server/jobs.c checks each job's keys
     * and query. */
    char jobs[16384];
    char auth_key_path[1024];     /* Client.AuthKeyPath: the private key, "" = none
                                     (--key, DTAIL_AUTH_KEY_PATH come first) */
    int glob_retry_ms;            /* Server.ReadGlobRetryIntervalMs: how often a
                                     follow looks for new files of its globs; 0 =
                                     the default, 1000 */
} config_t;

void config_defaults(config_t *c);
/* Loads according to cfg_flag (NULL or "" = default lookup, "none" = no
 * file). Logs nothing. */
int config_load(config_t *c, const char *cfg_flag, err_t *e);
/* Where a key is in the loaded file, for a later check's message (the
 * server's rules): "PATH:LINE", keys a NULL-ended path such as
 * {"Server", "Permissions", "Default", NULL}; "[N]" is the object that is
 * element N of a list ({"Server", "Schedule", "[2]", "Query", NULL}). The line is that of the
 * key's first quoted occurrence (each name searched after the one before);
 * "PATH" when it is not found, "config" when no file was loaded. */
void config_where(const config_t *c, const char *const *keys, char *out, size_t cap);

#endif
