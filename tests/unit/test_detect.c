/* test_detect.c: extract_detect over realistic first lines of each format
 * and over the ambiguous ones: a CSV header, JSON lines with commas,
 * DTail's own lines, logfmt with quoted spaces, access logs with IPv6
 * addresses and quotes in the request, syslog with and without priority;
 * plain text, mixed formats, too little and nothing stay generic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "exec/extract/detect.h"

static const char *detect(const char *s) { return extract_detect(s, strlen(s)); }

static void test_each_format(void **state)
{
    (void)state;
    assert_string_equal(detect(
        "INFO|1002-071143|1|stats.go:56|8|13|7|0.21|471h0m21s|MAPREDUCE:STATS|currentConnections=13|lifetimeConnections=1042\n"
        "INFO|1002-071143|1|server.go:120|Starting server\n"
        "WARN|1002-071144|1|handler.go:9|slow client 10.0.0.1\n"), "default");
    assert_string_equal(detect(
        "{\"time\":\"2024-05-01T10:00:00Z\",\"level\":\"info\",\"msg\":\"a, b, c\",\"n\":1}\n"
        "  {\"time\":\"2024-05-01T10:00:01Z\",\"level\":\"warn\",\"req\":{\"id\":\"x\"}}\n"), "json");
    assert_string_equal(detect(
        "time=2024-05-01T10:00:00Z level=info msg=\"request done\" status=200 dur=1.5ms\n"
        "time=2024-05-01T10:00:01Z level=error msg=\"it said \\\"no\\\"\" err=\"EOF\"\n"
        "ts=1714557600.5 caller=main.go:10 level=debug\n"), "logfmt");
    assert_string_equal(detect(
        "203.0.113.7 - - [01/May/2024:10:00:00 +0000] \"GET /index.html HTTP/1.1\" 200 512 \"-\" \"Mozilla/5.0 (X11; Linux x86_64)\"\n"
        "2001:db8::1 - alice [01/May/2024:10:00:01 +0000] \"POST /api?q=\\\"x\\\" HTTP/2.0\" 404 - \"https://example.org/\" \"curl/8.0\" 0.012\n"
        "10.0.0.2 - - [01/May/2024:10:00:02 +0000] \"GET / HTTP/1.0\" 304 0\n"), "nginx");
    assert_string_equal(detect(
        "<34>Oct 11 22:14:15 mymachine su: 'su root' failed for lonvick on /dev/pts/8\n"
        "<165>1 2003-10-11T22:14:15.003Z mymachine.example.com evntslog - ID47 [exampleSDID@32473 iut=\"3\"] An application event\n"), "syslog");
    assert_string_equal(detect(
        "May  1 10:00:00 web1 sshd[1234]: Accepted publickey for alice from 10.0.0.1\n"
        "May  1 10:00:01 web1 kernel: [ 0.000000] Linux version 6.1\n"
        "May 12 10:00:02 web1 CRON[99]: (root) CMD (run-parts /etc/cron.hourly)\n"), "syslog");
    assert_string_equal(detect(
        "time,host,status,bytes,\"user agent\"\n"
        "2024-05-01T10:00:00Z,web1,200,512,\"Mozilla/5.0 (X11, Linux)\"\n"
        "2024-05-01T10:00:01Z,web2,404,,curl\n"), "csv");
}

static void test_ambiguous_and_plain(void **state)
{
    (void)state;
    /* Plain text, even with commas or '=' in it. */
    assert_string_equal(detect("hello world\nsecond line, with a comma\nthird, line\n"), "generic");
    assert_string_equal(detect("starting up\nlevel=info msg=ok\n"), "generic");
    /* A CSV without a header of names is no CSV to detect. */
    assert_string_equal(detect("1,2,3\n4,5,6\n"), "generic");
    /* A header alone, or rows of other widths. */
    assert_string_equal(detect("a,b,c\n"), "generic");
    assert_string_equal(detect("a,b,c\n1,2\n3,4,5\n"), "generic");
    /* Lines of two formats. */
    assert_string_equal(detect("{\"a\":1}\ntime=1 level=info\n"), "generic");
    /* One logfmt pair is not enough; a JSON array is no object line. */
    assert_string_equal(detect("level=info\n"), "generic");
    assert_string_equal(detect("[1,2,3]\n"), "generic");
    /* Empty lines are skipped; nothing is generic. */
    assert_string_equal(detect("\n\n{\"a\":\"b\"}\n\n"), "json");
    assert_string_equal(detect(""), "generic");
    assert_string_equal(detect("\n\n"), "generic");
    /* Only the first DETECT_LINES lines count; a cut last line does not. */
    char buf[4096] = "";
    for (int i = 0; i < DETECT_LINES; i++)
        strcat(buf, "{\"i\":1}\n");
    strcat(buf, "not json\n{\"cut");
    assert_string_equal(detect(buf), "json");
    /* A CSV whose rows look like logfmt somewhere stays CSV only if all
     * lines agree on the field count. */
    assert_string_equal(detect("k,v\na=1,b=2\nc=3,d=4\n"), "csv");
    /* A stack trace under a JSON line: not all lines are JSON. */
    assert_string_equal(detect("{\"level\":\"error\"}\n\tat com.x.Y(Y.java:1)\n"), "generic");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_format),
        cmocka_unit_test(test_ambiguous_and_plain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
