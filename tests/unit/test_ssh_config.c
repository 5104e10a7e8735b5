/* test_ssh_config.c: the Common and Server keys of the SSH layer in
 * dtail.json (defaults, values, type and range errors naming the key), the
 * authorized_keys matcher and user-name check, dserver's flags. */
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
        "\"HostKeyBits\":2048,\"MaxCommandFrameSize\":4096}}", &e), 0);
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
    assert_int_equal(auth_keys_text_has(text, strlen(text), k), 1);
    assert_int_equal(auth_keys_text_has(text, strlen(text), other), 0);
    /* Without a final newline, with CRLF. */
    snprintf(text, sizeof text, "ssh-ed25519 %s\r", b64);
    assert_int_equal(auth_keys_text_has(text, strlen(text), k), 1);
    /* A line with options is skipped, not trusted beyond what it says. */
    snprintf(text, sizeof text, "from=\"10.0.0.1\" ssh-ed25519 %s me\n", b64);
    assert_int_equal(auth_keys_text_has(text, strlen(text), k), 0);
    /* The wrong type name for the key. */
    snprintf(text, sizeof text, "ssh-rsa %s me\n", b64);
    assert_int_equal(auth_keys_text_has(text, strlen(text), k), 0);
    ssh_string_free_char(b64);
    ssh_key_free(k);
    ssh_key_free(other);
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
    log_level = LOG_ERROR;   /* unknown-key warnings are not under test here */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_authorized_keys_text),
        cmocka_unit_test(test_user_names_and_passwords),
        cmocka_unit_test(test_dserver_flags),
        cmocka_unit_test(test_go_duration),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
