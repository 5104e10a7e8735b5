/* test_ssh_config.c: the Common and Server keys of the SSH layer in
 * dtail.json (defaults, values, type and range errors naming the key), the
 * authorized_keys matcher and user-name check, dserver's flags. A config
 * that would not do what it says (an unknown section or key, a wrong type)
 * is an error naming the key, the file and the line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libssh/libssh.h>

#include "base/config.h"
#include "base/log.h"
#include "server/auth.h"
#include "server/auth_options.h"
#include "server/dlog.h"
#include "server/dserver_flags.h"
#include "tests/support/memfile.h"

/* config_load of json, read from a real file (a memfd). */
static int load_text(config_t *c, const char *json, err_t *e)
{
    char path[64];
    int fd = memfile_create(json, strlen(json), path, sizeof path);
    assert_true(fd >= 0);
    config_defaults(c);
    int rc = config_load(c, path, e);
    close(fd);
    return rc;
}

static void test_defaults(void **state)
{
    (void)state;
    config_t c;
    config_defaults(&c);
    assert_int_equal(c.ssh_port, 2222);
    assert_int_equal(c.ssh_connect_timeout_ms, 2000);
    assert_string_equal(c.log_dir, "log");
    assert_string_equal(c.cache_dir, "cache");
    assert_string_equal(c.ssh_bind_address, "0.0.0.0");
    assert_int_equal(c.max_connections, 10);
    assert_int_equal(c.max_concurrent_cats, 2);
    assert_int_equal(c.max_concurrent_tails, 50);
    assert_int_equal(c.host_key_bits, 4096);
    assert_int_equal(c.max_command_frame_size, 1024 * 1024);
    assert_string_equal(c.host_key_file, "");
    assert_int_equal(c.auth_key_enabled, 1);
    assert_int_equal(c.auth_key_ttl_s, 86400);
    assert_int_equal(c.auth_key_max_per_user, 5);
}

static void test_values(void **state)
{
    (void)state;
    config_t c;
    err_t e;
    assert_int_equal(load_text(&c,
        "{\"Common\":{\"SSHPort\":2223,\"SSHConnectTimeoutMs\":500,\"LogDir\":\"/var/log/d\","
        "\"Logger\":\"Fout\",\"CacheDir\":\"/c\",\"LogLevel\":\"Info\"},"
        "\"Server\":{\"SSHBindAddress\":\"127.0.0.1\",\"MaxConnections\":3,"
        "\"MaxConcurrentCats\":4,\"MaxConcurrentTails\":5,\"HostKeyFile\":\"/k\","
        "\"HostKeyBits\":2048,\"MaxCommandFrameSize\":4096,\"AuthKeyEnabled\":false,"
        "\"AuthKeyTTLSeconds\":60,\"AuthKeyMaxPerUser\":1}}", &e), 0);
    assert_int_equal(c.ssh_port, 2223);
    assert_int_equal(c.ssh_connect_timeout_ms, 500);
    assert_string_equal(c.log_dir, "/var/log/d");
    assert_string_equal(c.logger, "Fout");
    assert_string_equal(c.cache_dir, "/c");
    assert_string_equal(c.ssh_bind_address, "127.0.0.1");
    assert_int_equal(c.max_connections, 3);
    assert_int_equal(c.max_concurrent_cats, 4);
    assert_int_equal(c.max_concurrent_tails, 5);
    assert_string_equal(c.host_key_file, "/k");
    assert_int_equal(c.host_key_bits, 2048);
    assert_int_equal(c.max_command_frame_size, 4096);
    assert_int_equal(c.auth_key_enabled, 0);
    assert_int_equal(c.auth_key_ttl_s, 60);
    assert_int_equal(c.auth_key_max_per_user, 1);
}

static void expect_error(const char *json, const char *needle)
{
    config_t c;
    err_t e;
    err_clear(&e);
    assert_int_equal(load_text(&c, json, &e), -1);
    if (!strstr(e.msg, needle)) {
        fprintf(stderr, "error \"%s\" does not name \"%s\"\n", e.msg, needle);
        fail();
    }
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("{\"Common\":{\"SSHPort\":\"2222\"}}", "Common.SSHPort must be an integer from 1 to 65535");
    expect_error("{\"Common\":{\"SSHPort\":0}}", "Common.SSHPort");
    expect_error("{\"Common\":{\"SSHPort\":70000}}", "Common.SSHPort");
    expect_error("{\"Server\":{\"MaxConnections\":0}}", "Server.MaxConnections");
    expect_error("{\"Server\":{\"MaxConnections\":1.5}}", "Server.MaxConnections");
    expect_error("{\"Server\":{\"HostKeyBits\":1024}}", "Server.HostKeyBits");
    expect_error("{\"Common\":{\"CacheDir\":7}}", "Common.CacheDir must be a string");
    expect_error("{\"Common\":{\"LogDir\":\"a\\u0000b\"}}", "JSON_ALLOW_NUL");
    char big[2200] = "{\"Common\":{\"LogDir\":\"";
    memset(big + strlen(big), 'x', 1100);
    strcpy(big + strlen(big), "\"}}");
    expect_error(big, "Common.LogDir must be a string of at most 1023 bytes");
    expect_error("{\"Server\":[]}", "Server is not an object");
    expect_error("{\"Server\":{\"AuthKeyEnabled\":1}}", "Server.AuthKeyEnabled must be true or false");
    expect_error("{\"Server\":{\"AuthKeyTTLSeconds\":0}}",
                 "Server.AuthKeyTTLSeconds must be an integer from 1 to 31536000");
    expect_error("{\"Server\":{\"AuthKeyMaxPerUser\":0}}",
                 "Server.AuthKeyMaxPerUser must be an integer from 1 to 1000");
}

/* expect_error, with the message also naming the file and the line:
 * "/proc/self/fd/N:LINE: needle". */
static void expect_error_at(const char *json, int line, const char *needle)
{
    config_t c;
    err_t e;
    err_clear(&e);
    assert_int_equal(load_text(&c, json, &e), -1);
    assert_int_equal(e.code, ERR_CONFIG);
    char want[256];
    snprintf(want, sizeof want, ":%d: %s", line, needle);
    if (strncmp(e.msg, "/proc/self/fd/", 14) != 0 || !strstr(e.msg, want)) {
        fprintf(stderr, "error \"%s\" is not \"<path>%s\"\n", e.msg, want);
        fail();
    }
}

/* Fail closed: what would do nothing is an error naming key, file, line. */
static void test_strict(void **state)
{
    (void)state;
    expect_error_at("{\n \"Server\": {\n  \"MaxConnections\": 5,\n  \"Permisions\": {}\n }\n}",
                    4, "unknown config key Server.Permisions");
    expect_error_at("{\"Common\": {},\n \"Severs\": {}}", 2,
                    "unknown config section Severs (known: Common, Server, Client)");
    expect_error_at("{\"Client\": {\n\"TermColorsEnable\": true,\n\"Colors\": 1}}", 3,
                    "unknown config key Client.Colors");
    expect_error_at("{\"Server\": {\n \"MaxConnections\":\n  \"ten\"}}", 2,
                    "Server.MaxConnections must be an integer from 1 to 1000000");
    expect_error_at("{\"Server\": {\"Permissions\": {\n\"Default\": [],\n\"Defaults\": []}}}", 3,
                    "unknown config key Server.Permissions.Defaults (known: Default, Users)");
    expect_error_at("{\"Server\": {\"Permissions\": {\"Users\": {\n\"x\": \"^/\"}}}}", 2,
                    "Server.Permissions.Users.x must be a list of strings");
    expect_error_at("{\"Server\": {\"Permissions\":\n [\"^/\"]}}", 1,
                    "Server.Permissions must be an object");
    expect_error_at("{\"Client\": {\"TermColorsEnable\": \"yes\"}}", 1,
                    "Client.TermColorsEnable must be true or false");
    expect_error_at("{\n\"Common\": {\"LogLevel\": \"loud\"}}", 2, "Common.LogLevel is not a log level");
    /* A key given twice would lose its first value: jansson's message. */
    expect_error("{\"Server\": {\"MaxConnections\": 5, \"MaxConnections\": 6}}", "duplicate object key");
    /* Case matters (Go's encoding/json would take "maxconnections"). */
    expect_error("{\"Server\": {\"maxconnections\": 5}}", "unknown config key Server.maxconnections");
}

/* The line is the key's own, by its place in the nesting. */
static void test_key_lines(void **state)
{
    (void)state;
    /* "Default" inside Users (line 2), and as a value (line 3), are not
     * Server.Permissions.Default (line 4). */
    expect_error_at("{\"Server\": {\"Permissions\": {\n\"Users\": {\"Default\": [\"^/\"],\n"
                    "\"b\": [\"Default\"]},\n\"Default\": 5}}}", 4,
                    "Server.Permissions.Default must be a list of strings");
    /* config_where, for the server's later check of the rules: the key
     * "Server" as a value (line 1) is not the section. */
    config_t c;
    err_t e;
    err_clear(&e);
    char path[64];
    const char *json = "{\"Common\": {\"LogDir\": \"Server\"},\n"
           "\"Server\": {\n\"MaxLineLength\": 4096, \"Permissions\": {\"Users\": {\"Default\": [],\n"
           "\"a\\\"b\": []},\n\"Default\": [\"(\"]}}}";
    int fd = memfile_create(json, strlen(json), path, sizeof path);
    config_defaults(&c);
    assert_int_equal(config_load(&c, path, &e), 0);
    char where[128], want[128];
    config_where(&c, (const char *const[]){"Server", "Permissions", "Default", NULL}, where, sizeof where);
    snprintf(want, sizeof want, "%s:5", path);
    assert_string_equal(where, want);
    config_where(&c, (const char *const[]){"Server", "Permissions", "Users", "Default", NULL}, where,
                 sizeof where);
    snprintf(want, sizeof want, "%s:3", path);
    assert_string_equal(where, want);
    /* A name spelt with an escape in the file: the deepest found (Users). */
    config_where(&c, (const char *const[]){"Server", "Permissions", "Users", "a\"b", NULL}, where,
                 sizeof where);
    assert_string_equal(where, want);
    config_where(&c, (const char *const[]){"Nope", NULL}, where, sizeof where);
    assert_string_equal(where, path);
    close(fd);
    config_defaults(&c);
    config_where(&c, (const char *const[]){"Server", NULL}, where, sizeof where);
    assert_string_equal(where, "config");
}

/* Server.KeyExchanges, Ciphers, MACs: lists kept comma-joined for
 * libssh; what is not a list of names is refused with its line. */
static void test_algorithm_lists(void **state)
{
    (void)state;
    config_t c;
    err_t e;
    err_clear(&e);
    assert_int_equal(load_text(&c,
        "{\"Server\": {\"Ciphers\": [\"aes256-gcm@openssh.com\", \"aes256-ctr\"],\n"
        "  \"MACs\": [\"hmac-sha2-512\"]}}", &e), 0);
    assert_string_equal(c.ciphers, "aes256-gcm@openssh.com,aes256-ctr");
    assert_string_equal(c.macs, "hmac-sha2-512");
    assert_string_equal(c.key_exchanges, "");
    expect_error("{\"Server\": {\"MACs\": []}}", "Server.MACs must be a non-empty list");
    expect_error("{\"Server\": {\"Ciphers\": \"aes256-ctr\"}}", "Server.Ciphers must be a non-empty list");
    expect_error("{\"Server\": {\"Ciphers\": [\"aes256-ctr,aes128-ctr\"]}}",
                 "Server.Ciphers[0] is not an algorithm name");
    expect_error("{\"Server\": {\"KeyExchanges\": [\"x\", 3]}}",
                 "Server.KeyExchanges[1] is not an algorithm name");
}

/* DTail's keys this build has no setting for: only the value that says
 * what it does anyway loads; any other is refused with the reason. */
static void test_dtail_settled_keys(void **state)
{
    (void)state;
    config_t c;
    err_t e;
    err_clear(&e);
    assert_int_equal(load_text(&c,
        "{\"Common\": {\"ExperimentalFeaturesEnable\": false},\n"
        "\"Client\": {\"AuthKeyDisable\": true}}", &e), 0);
    expect_error("{\"Common\": {\"ExperimentalFeaturesEnable\": true}}",
                 "Common.ExperimentalFeaturesEnable: only false is accepted: this build has no "
                 "experimental features");
    expect_error("{\"Client\": {\"AuthKeyDisable\": false}}",
                 "Client.AuthKeyDisable: only true is accepted: this client never registers");
    expect_error("{\"Server\": {\"AuthKeyEnabled\": true,\n \"OutputFlushTimeoutMs\": 5}}",
                 ":2: Server.OutputFlushTimeoutMs: DTail's key has no counterpart in this build");
    expect_error("{\"Server\": {\"ReadRetryIntervalMs\": 2000}}",
                 "Server.ReadRetryIntervalMs: DTail's key has no counterpart in this build (a "
                 "truncated or rotated file is reopened on its inotify event");
    /* Output* is not a wildcard: only DTail's names. */
    expect_error("{\"Server\": {\"OutputTypo\": 1}}", "unknown config key Server.OutputTypo");
}

/* DTail's keys this build acts on: ReadGlobRetryIntervalMs (the follow's
 * rescan), AuthKeyPath (the key), TermColors (the palette, names
 * translated, unlike DTail's D13). */
static void test_dtail_keys_acted_on(void **state)
{
    (void)state;
    config_t c;
    err_t e;
    err_clear(&e);
    assert_int_equal(load_text(&c,
        "{\"Server\": {\"ReadGlobRetryIntervalMs\": 250},\n"
        "\"Client\": {\"AuthKeyPath\": \"/k/id\", \"TermColors\": {\n"
        "  \"Remote\": {\"HostnameFg\": \"Red\", \"IdAttr\": \"AttrBold\", \"TextBg\": \"BgYellow\"},\n"
        "  \"MaprTable\": {\"HeaderSortKeyAttr\": \"None\"}, \"Common\": {}}}}", &e), 0);
    assert_int_equal(c.glob_retry_ms, 250);
    assert_string_equal(c.auth_key_path, "/k/id");
    assert_int_equal(c.palette.slot[PAL_REMOTE_HOSTNAME].fg, 31);
    assert_int_equal(c.palette.slot[PAL_REMOTE_HOSTNAME].bg, 44);   /* the default kept */
    assert_int_equal(c.palette.slot[PAL_REMOTE_ID].attr, 1);
    assert_int_equal(c.palette.slot[PAL_REMOTE_TEXT].bg, 43);
    assert_int_equal(c.palette.sort_key_attr, PAINT_NO_ATTR);
    assert_false(palette_remote_is_default(&c.palette));
    assert_int_equal(load_text(&c, "{\"Client\": {\"TermColors\": {}}}", &e), 0);
    assert_true(palette_remote_is_default(&c.palette));
    expect_error("{\"Client\": {\"TermColors\": {\"Remote\": {\"HostnameFg\": \"Purple\"}}}}",
                 "Client.TermColors.Remote.HostnameFg: unknown colour \"Purple\"");
    expect_error("{\"Client\": {\"TermColors\": {\"Remote\": {\"HostFg\": \"Red\"}}}}",
                 "Client.TermColors.Remote.HostFg: unknown colour key (Remote has Delimiter{Fg,Bg,Attr}");
    expect_error("{\"Client\": {\"TermColors\": {\"Remote\": {\"TextAttr\": \"Loud\"}}}}",
                 "unknown attribute \"Loud\"");
    expect_error("{\"Client\": {\"TermColors\": {\"Table\": {}}}}",
                 "Client.TermColors.Table: unknown colour group (known: Remote, Client, Server, Common, MaprTable)");
    expect_error("{\"Client\": {\"TermColors\": {\"MaprTable\": {\"HeaderSortKeyFg\": \"Red\"}}}}",
                 "MaprTable.HeaderSortKeyFg: unknown colour key");
    expect_error("{\"Client\": {\"TermColors\": {\"Remote\": {\"TextFg\": 3}}}}",
                 "Client.TermColors.Remote.TextFg must be a string");
    expect_error("{\"Server\": {\"ReadGlobRetryIntervalMs\": -1}}", "ReadGlobRetryIntervalMs");
}

/* Server.Schedule and Server.Continuous: lists of objects, kept as JSON
 * for dserver (server/jobs.c checks the jobs); config_where finds a job
 * by its place in the list. */
static void test_jobs(void **state)
{
    (void)state;
    config_t c;
    err_t e;
    err_clear(&e);
    const char *json = "{\"Server\": {\"Schedule\": [{\"Name\": \"a\"},\n"
                       "  {\"Name\": \"b\", \"Query\": \"[1]\",\n"
                       "   \"TimeRange\": [0, 24]}], \"Continuous\": []}}";
    char path[64];
    int fd = memfile_create(json, strlen(json), path, sizeof path);   /* open for config_where */
    config_defaults(&c);
    assert_int_equal(config_load(&c, path, &e), 0);
    assert_string_equal(c.jobs, "{\"Schedule\":[{\"Name\":\"a\"},{\"Name\":\"b\",\"Query\":\"[1]\","
                                "\"TimeRange\":[0,24]}],\"Continuous\":[]}");
    char where[128], want[128];
    snprintf(want, sizeof want, "%.63s:2", c.path);
    config_where(&c, (const char *const[]){"Server", "Schedule", "[1]", NULL}, where, sizeof where);
    assert_string_equal(where, want);
    snprintf(want, sizeof want, "%.63s:3", c.path);
    config_where(&c, (const char *const[]){"Server", "Schedule", "[1]", "TimeRange", NULL}, where,
                 sizeof where);
    assert_string_equal(where, want);
    close(fd);
    assert_int_equal(load_text(&c, "{\"Server\": {\"MaxConnections\": 5}}", &e), 0);
    assert_string_equal(c.jobs, "");
    expect_error("{\"Server\": {\"Schedule\": {}}}", "Server.Schedule must be a list of job objects");
    expect_error("{\"Server\": {\"Continuous\": [[]]}}",
                 "Server.Continuous must be a list of job objects");
}

static int has(const char *text, ssh_key k, const char *peer)
{
    char why[512] = "";
    return auth_keys_text_has(text, strlen(text), k, peer, why, sizeof why);
}

static void test_authorized_keys_text(void **state)
{
    (void)state;
    ssh_key k, other;
    assert_int_equal(ssh_pki_generate(SSH_KEYTYPE_ED25519, 0, &k), SSH_OK);
    assert_int_equal(ssh_pki_generate(SSH_KEYTYPE_ED25519, 0, &other), SSH_OK);
    char *b64 = NULL;
    assert_int_equal(ssh_pki_export_pubkey_base64(k, &b64), SSH_OK);
    char text[1024];
    snprintf(text, sizeof text, "# comment\n\n  ssh-ed25519 AAAAbroken x\nssh-ed25519 %s me@host\n", b64);
    assert_int_equal(has(text, k, "127.0.0.1"), 1);
    assert_int_equal(has(text, other, "127.0.0.1"), 0);
    /* Without a final newline, with CRLF. */
    snprintf(text, sizeof text, "ssh-ed25519 %s\r", b64);
    assert_int_equal(has(text, k, "127.0.0.1"), 1);
    /* from= is enforced: its address in, another out, with why. */
    snprintf(text, sizeof text, "from=\"10.0.0.1\" ssh-ed25519 %s me\n", b64);
    assert_int_equal(has(text, k, "10.0.0.1"), 1);
    char why[512] = "";
    assert_int_equal(auth_keys_text_has(text, strlen(text), k, "10.0.0.2", why, sizeof why), 0);
    assert_string_equal(why, "from=\"10.0.0.1\" does not allow 10.0.0.2");
    /* DTail's key cache writes no-pty etc.: harmless, the key works. */
    snprintf(text, sizeof text, "no-pty,no-port-forwarding,from=\"127.0.0.0/8,!127.0.0.9\" ssh-ed25519 %s\n", b64);
    assert_int_equal(has(text, k, "127.0.0.2"), 1);
    assert_int_equal(has(text, k, "::ffff:127.0.0.2"), 1);
    assert_int_equal(has(text, k, "127.0.0.9"), 0);
    /* An option dserver cannot apply: the line is not used; a later line
     * without it still counts. */
    snprintf(text, sizeof text, "command=\"/bin/echo hi\" ssh-ed25519 %s\n", b64);
    assert_int_equal(auth_keys_text_has(text, strlen(text), k, "127.0.0.1", why, sizeof why), 0);
    assert_non_null(strstr(why, "option command is not supported"));
    snprintf(text, sizeof text, "command=\"x\" ssh-ed25519 %s\nssh-ed25519 %s\n", b64, b64);
    assert_int_equal(has(text, k, "127.0.0.1"), 1);
    /* Expired. */
    snprintf(text, sizeof text, "expiry-time=\"20200101Z\" ssh-ed25519 %s\n", b64);
    assert_int_equal(has(text, k, "127.0.0.1"), 0);
    snprintf(text, sizeof text, "expiry-time=\"29991231235959\" ssh-ed25519 %s\n", b64);
    assert_int_equal(has(text, k, "127.0.0.1"), 1);
    /* The wrong type name for the key. */
    snprintf(text, sizeof text, "ssh-rsa %s me\n", b64);
    assert_int_equal(has(text, k, "127.0.0.1"), 0);
    ssh_string_free_char(b64);
    ssh_key_free(k);
    ssh_key_free(other);
}

/* OpenSSH's pattern lists for from=. */
static void test_addr_patterns(void **state)
{
    (void)state;
#define M(peer, list) auth_addr_match_list(peer, list, strlen(list))
    assert_int_equal(M("127.0.0.2", "127.0.0.2"), 1);
    assert_int_equal(M("127.0.0.2", "127.0.0.3"), 0);
    assert_int_equal(M("127.0.0.2", "127.0.0.*"), 1);
    assert_int_equal(M("127.0.0.22", "127.0.0.?"), 0);
    assert_int_equal(M("10.1.2.3", "10.0.0.0/8"), 1);
    assert_int_equal(M("11.1.2.3", "10.0.0.0/8"), 0);
    assert_int_equal(M("10.1.2.3", "10.1.2.0/25"), 1);
    assert_int_equal(M("10.1.2.200", "10.1.2.0/25"), 0);
    assert_int_equal(M("2001:db8::1", "2001:db8::/32"), 1);
    assert_int_equal(M("2001:db9::1", "2001:db8::/32"), 0);
    assert_int_equal(M("10.1.2.3", "2001:db8::/32"), 0);
    assert_int_equal(M("10.1.2.3", "*,!10.1.2.3"), 0);
    assert_int_equal(M("10.1.2.4", "*,!10.1.2.3"), 1);
    assert_int_equal(M("10.1.2.3", "host.example.com"), 0);
    assert_int_equal(M("10.1.2.3", "10.0.0.0/33"), -1);
    assert_int_equal(M("10.1.2.3", "10.0.0.x/8"), -1);
    assert_int_equal(M("10.1.2.3", "a,,b"), -1);
    assert_int_equal(M("10.1.2.3", ""), -1);
#undef M
    char why[256];
    const char *o = "from=\"1.2.3.4\",no-pty";
    assert_int_equal(auth_options_len(o, strlen(o)), (long)strlen(o));
    assert_int_equal(auth_options_len("from=\"a b\" ssh", 14), 10);
    assert_int_equal(auth_options_len("from=\"a b ssh", 12), -1);
    assert_int_equal(auth_options_check("from=1.2.3.4", 12, "1.2.3.4", 0, why, sizeof why), -1);
    assert_int_equal(auth_options_check("restrict,pty", 12, "1.2.3.4", 0, why, sizeof why), 1);
    assert_int_equal(auth_options_check("cert-authority", 14, "1.2.3.4", 0, why, sizeof why), -1);
}

static void test_user_names_and_passwords(void **state)
{
    (void)state;
    assert_true(auth_user_name_ok("alice"));
    assert_true(auth_user_name_ok("DTAIL-HEALTH"));
    assert_false(auth_user_name_ok(""));
    assert_false(auth_user_name_ok("../etc"));
    assert_false(auth_user_name_ok("a/b"));
    assert_false(auth_user_name_ok(".hidden"));
    assert_false(auth_user_name_ok("a b"));
    assert_true(auth_password_ok("DTAIL-HEALTH", "DTAIL-HEALTH"));
    assert_false(auth_password_ok("DTAIL-HEALTH", "DTAIL-HEALT"));
    assert_false(auth_password_ok("DTAIL-HEALTH", "DTAIL-HEALTHX"));
    assert_false(auth_password_ok("DTAIL-HEALTH", ""));
    assert_false(auth_password_ok("root", "DTAIL-HEALTH"));
}

static void test_dserver_flags(void **state)
{
    (void)state;
    dserver_flags_t f;
    err_t e;
    char *argv[] = {"dserver", "-port", "0", "--bindAddress=127.0.0.1", "--logger", "stdout",
                    "-logLevel", "debug", "--shutdownAfter", "5", "--cfg", "none", NULL};
    assert_int_equal(dserver_flags_parse(&f, 12, argv, &e), 0);
    assert_int_equal(f.port, 0);
    assert_string_equal(f.bind_address, "127.0.0.1");
    assert_int_equal(f.shutdown_after, 5);
    config_t c;
    config_defaults(&c);
    assert_int_equal(dserver_flags_apply(&f, &c, &e), 0);
    assert_int_equal(c.ssh_port, 0);
    assert_string_equal(c.ssh_bind_address, "127.0.0.1");
    assert_int_equal(log_level, LOG_DEBUG);
    char *bad1[] = {"dserver", "--nope", NULL};
    assert_int_equal(dserver_flags_parse(&f, 2, bad1, &e), -1);
    assert_non_null(strstr(e.msg, "flag provided but not defined: --nope"));
    char *bad2[] = {"dserver", "--port", "x", NULL};
    assert_int_equal(dserver_flags_parse(&f, 3, bad2, &e), -1);
    char *bad3[] = {"dserver", "--port", "70000", NULL};
    assert_int_equal(dserver_flags_parse(&f, 3, bad3, &e), -1);
    char *bad4[] = {"dserver", "--logLevel", "loud", NULL};
    assert_int_equal(dserver_flags_parse(&f, 3, bad4, &e), -1);
    char *bad5[] = {"dserver", "--port", NULL};
    assert_int_equal(dserver_flags_parse(&f, 2, bad5, &e), -1);
    assert_non_null(strstr(e.msg, "flag needs an argument: -port"));
}

static void test_go_duration(void **state)
{
    (void)state;
    char b[32];
    dlog_go_duration(471 * 3600 + 21, b, sizeof b);
    assert_string_equal(b, "471h0m21s");
    dlog_go_duration(61, b, sizeof b);
    assert_string_equal(b, "1m1s");
    dlog_go_duration(0, b, sizeof b);
    assert_string_equal(b, "0s");
}

int main(void)
{
    log_level = LOG_ERROR;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_strict),
        cmocka_unit_test(test_key_lines),
        cmocka_unit_test(test_dtail_settled_keys),
        cmocka_unit_test(test_dtail_keys_acted_on),
        cmocka_unit_test(test_jobs),
        cmocka_unit_test(test_algorithm_lists),
        cmocka_unit_test(test_authorized_keys_text),
        cmocka_unit_test(test_addr_patterns),
        cmocka_unit_test(test_user_names_and_passwords),
        cmocka_unit_test(test_dserver_flags),
        cmocka_unit_test(test_go_duration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
