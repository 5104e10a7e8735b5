/* test_log.c: log records cannot be forged by their values. Every %s and
 * %c argument of a LOG_* call is escaped (control bytes, backslash, '|'),
 * the format's own text is kept, numbers come out exactly as printf
 * writes them (compared with snprintf), LOG_MSG keeps an assembled
 * message's separators, a disabled level evaluates nothing, and a long
 * message is cut at 4 KiB. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"

static char got[8192];
static size_t got_len;
static int got_calls;

static void capture(enum log_level level, const char *msg, size_t len)
{
    (void)level;
    assert_true(len < sizeof got);
    memcpy(got, msg, len);
    got[len] = '\0';
    got_len = len;
    got_calls++;
}

static int setup(void **state)
{
    (void)state;
    log_level = LOG_TRACE;
    log_set_sink(capture);
    got_calls = 0;
    return 0;
}

static void test_escape(void **state)
{
    (void)state;
    char b[64];
    assert_string_equal(log_escape("plain /var/log/x.log", b, sizeof b), "plain /var/log/x.log");
    assert_string_equal(log_escape("a\nb", b, sizeof b), "a\\nb");
    assert_string_equal(log_escape("a|b", b, sizeof b), "a\\x7cb");
    assert_string_equal(log_escape("a\\nb", b, sizeof b), "a\\\\nb");   /* not a newline */
    assert_string_equal(log_escape("\t\r\x01\x1b\x7f", b, sizeof b), "\\t\\r\\x01\\x1b\\x7f");
    assert_string_equal(log_escape("caf\xc3\xa9", b, sizeof b), "caf\xc3\xa9");   /* UTF-8 kept */
    assert_string_equal(log_escape(NULL, b, sizeof b), "(null)");
    assert_string_equal(log_escape("abcdefgh", b, 5), "abcd");   /* cut to fit */
    assert_string_equal(log_escape("ab\ncd", b, 4), "ab\\");
}

/* The same text as snprintf for conversions that carry no string. */
#define SAME(...)                                                 \
    do {                                                          \
        char want_[512];                                          \
        snprintf(want_, sizeof want_, __VA_ARGS__);               \
        LOG_WARN(__VA_ARGS__);                                    \
        assert_string_equal(got, want_);                          \
    } while (0)

static void test_numbers_as_printf(void **state)
{
    (void)state;
    SAME("%d %i %u %x %X %o", -42, 7, 42u, 0xbeefu, 0xbeefu, 8u);
    SAME("%5d|%-5d|%05d|%+d|% d|%#x|%#o", 42, 42, 42, 42, 42, 255u, 8u);
    SAME("%ld %lld %lu %llu %zu %zd %jd %td", -1L, -2LL, 3UL, 4ULL, (size_t)5, (ssize_t)-6,
         (intmax_t)-7, (ptrdiff_t)-8);
    /* int arguments cut to char and short, as C allows (clang warns). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat"
    SAME("%hhd %hd %hhu %hu", 300, 70000, 300, 70000);
#pragma GCC diagnostic pop
    SAME("%.2f %10.3e %g %G %a %F", 3.14159, 12345.678, 0.0001, 1e20, 1.0, 2.5);
    SAME("%Lf %.1Lf", (long double)1.5, (long double)2.25);
    SAME("%*d|%-*d|%.*f|%*.*f|%*d", 6, 1, 6, 2, 3, 1.0, 8, 2, 3.0, -4, 9);
    SAME("100%% of %d", 3);
    SAME("%s and %10s|%-10s|%.3s|%.*s|%*s|%.*s", "a", "b", "c", "defgh", 2, "ijk", -4, "l", -1, "mn");
    SAME("%c%c %3c|%-3c|", 'x', 'y', 'z', 'w');
    SAME("no conversion at all");
    void *p = &got;
    SAME("%p", p);
}

static void test_values_escaped(void **state)
{
    (void)state;
    LOG_INFO("File processing complete|%s", "/tmp/x\nINFO|1|MAPREDUCE:STATS|n=9");
    assert_string_equal(got, "File processing complete|/tmp/x\\nINFO\\x7c1\\x7cMAPREDUCE:STATS\\x7cn=9");
    LOG_INFO("%s|%s@%s|%d", "us|er", "ho\rst", "a\\b", 5);
    assert_string_equal(got, "us\\x7cer|ho\\rst@a\\\\b|5");
    LOG_INFO("[%c][%c]", '\n', '|');
    assert_string_equal(got, "[\\n][\\x7c]");
    /* A precision counts the value's bytes, before escaping. */
    LOG_INFO("%.3s|%.*s", "a\nbcd", 2, "||||");
    assert_string_equal(got, "a\\nb|\\x7c\\x7c");
    LOG_INFO("%5s|", "\n");
    assert_string_equal(got, "    \\n|");
    /* A NUL-free message never holds a newline, whatever the values. */
    char nasty[256];
    for (int i = 0; i < 255; i++)
        nasty[i] = (char)(i + 1);
    nasty[255] = '\0';
    LOG_ERROR("x%sy", nasty);
    assert_null(memchr(got, '\n', got_len));
    assert_null(memchr(got, '\r', got_len));
    assert_int_equal(strchr(got, '|') == NULL, 1);
}

static void test_msg(void **state)
{
    (void)state;
    char esc[64], msg[128];
    snprintf(msg, sizeof msg, "%s|public key of user not authorized", log_escape("a|b\nc", esc, sizeof esc));
    LOG_MSG(LOG_WARN, msg);
    /* Its own separator kept, the escaped value not escaped twice. */
    assert_string_equal(got, "a\\x7cb\\nc|public key of user not authorized");
    LOG_MSG(LOG_WARN, "raw\nline|kept");
    assert_string_equal(got, "raw\\nline|kept");
}

static int evaluated;
static const char *side_effect(void)
{
    evaluated++;
    return "x";
}

static void test_disabled_level(void **state)
{
    (void)state;
    log_level = LOG_WARN;
    LOG_DEBUG("%s", side_effect());
    LOG_INFO("%s", side_effect());
    LOG_MSG(LOG_INFO, side_effect());
    assert_int_equal(evaluated, 0);
    assert_int_equal(got_calls, 0);
    LOG_WARN("%s", side_effect());
    assert_int_equal(evaluated, 1);
    assert_int_equal(got_calls, 1);
}

static void test_long(void **state)
{
    (void)state;
    char *big = malloc(6000);
    assert_non_null(big);
    memset(big, 'a', 5999);
    big[5999] = '\0';
    LOG_INFO("%s", big);
    assert_int_equal(got_len, 4095);
    memset(big, '\n', 5999);   /* each byte grows to two */
    LOG_INFO("start|%s|end", big);
    assert_int_equal(got_len, 4095);
    assert_memory_equal(got, "start|\\n\\n", 10);
    LOG_MSG(LOG_INFO, big);
    assert_int_equal(got_len, 4095);
    free(big);
}

/* Without a sink (the clients): CLIENT|host|LEVEL|message on stderr. */
static void test_stderr(void **state)
{
    (void)state;
    log_set_sink(NULL);
    log_set_host("h");
    int fd = memfd_create("log", 0), saved = dup(STDERR_FILENO);
    assert_true(fd >= 0 && saved >= 0);
    dup2(fd, STDERR_FILENO);
    LOG_WARN("file|%s", "a\nb");
    dup2(saved, STDERR_FILENO);
    close(saved);
    char buf[128] = "";
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    close(fd);
    assert_true(n > 0);
    assert_string_equal(buf, "CLIENT|h|WARN|file|a\\nb\n");
    log_set_host("local");
}

/* The client log file (--logger file): the record as on stderr, none of it
 * on stderr, nothing written per line, everything at log_file_close; a
 * payload copy appended as it is. */
static void test_log_file(void **state)
{
    (void)state;
    log_set_sink(NULL);
    log_set_host("h");
    char dir[] = "/tmp/test_log.XXXXXX", path[64], cmd[96];
    assert_non_null(mkdtemp(dir));
    err_t e;
    assert_int_equal(log_file_open(dir, "t", &e), 0);
    log_set_outputs(LOG_OUT_FILE);
    int fd = memfd_create("log", 0), saved = dup(STDERR_FILENO);
    assert_true(fd >= 0 && saved >= 0);
    dup2(fd, STDERR_FILENO);
    LOG_WARN("file|%s", "a\nb");
    log_file_copy("payload\n", 8);
    dup2(saved, STDERR_FILENO);
    close(saved);
    char buf[128] = "";
    assert_int_equal(pread(fd, buf, sizeof buf - 1, 0), 0);   /* not on the terminal */
    close(fd);
    snprintf(path, sizeof path, "%s/t.log", dir);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_size, 0);   /* kept for the block, not written per line */
    log_file_close();
    log_set_outputs(LOG_OUT_TERMINAL);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    assert_string_equal(buf, "CLIENT|h|WARN|file|a\\nb\npayload\n");
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
    log_set_host("local");
}

static void test_outputs_parse(void **state)
{
    (void)state;
    unsigned o = 99;
    assert_int_equal(log_outputs_parse("none", &o), 0);
    assert_int_equal(o, 0);
    assert_int_equal(log_outputs_parse("stdout", &o), 0);
    assert_int_equal(o, LOG_OUT_TERMINAL);
    assert_int_equal(log_outputs_parse("File", &o), 0);
    assert_int_equal(o, LOG_OUT_FILE);
    assert_int_equal(log_outputs_parse("Fout", &o), 0);   /* DTail's example config's spelling */
    assert_int_equal(o, LOG_OUT_TERMINAL | LOG_OUT_FILE);
    assert_int_equal(log_outputs_parse("syslog", &o), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_escape, setup),
        cmocka_unit_test_setup(test_numbers_as_printf, setup),
        cmocka_unit_test_setup(test_values_escaped, setup),
        cmocka_unit_test_setup(test_msg, setup),
        cmocka_unit_test_setup(test_disabled_level, setup),
        cmocka_unit_test_setup(test_long, setup),
        cmocka_unit_test_setup(test_stderr, setup),
        cmocka_unit_test_setup(test_log_file, setup),
        cmocka_unit_test_setup(test_outputs_parse, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
