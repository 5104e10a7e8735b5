/*
 * genfmt.c - deterministic data for benchmarks/formats.sh: log files of the
 * formats issue 19 added, each with the same records as CSV for DuckDB.
 *
 * Single file, no dependencies; built by formats.sh with `cc -O2`.
 *
 *   genfmt nginx SIZE_MB OUT   nginx combined lines with $request_time
 *                              (OUT), and OUT.csv: every field of each line
 *                              (time as RFC 3339), RFC 4180 quoting
 *   genfmt logfmt SIZE_MB OUT  logfmt lines (time= RFC 3339 in UTC, level,
 *                              msg with quotes, user, took, status) and
 *                              OUT.csv: the same fields
 *   genfmt k8s SIZE_MB OUT     Docker json-file lines whose log is a JSON
 *                              object (OUT), and OUT.json: the same
 *                              objects as plain JSON lines
 *   genfmt sink                read stdin and discard it (lib.sh's timing
 *                              without hyperfine pipes into `GEN sink`)
 *
 * SIZE_MB is in MiB; the file ends with the first line that reaches it.
 * The same arguments give the same bytes (a fixed-seed xorshift64*).
 * Prints one line: "lines=N bytes=B" of OUT.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint32_t rndn(uint32_t n)
{
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return (uint32_t)((rng * 0x2545F4914F6CDD1Dull) >> 33) % n;
}

static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
static const char *const levels[] = {"info", "info", "info", "info", "warn", "error", "debug"};

/* Seconds since 2024-05-01T00:00:00Z as its civil parts (May only). */
static void civil(uint64_t s, unsigned *d, unsigned *h, unsigned *m, unsigned *sec)
{
    *d = 1 + (unsigned)(s / 86400 % 31);
    *h = (unsigned)(s / 3600 % 24);
    *m = (unsigned)(s / 60 % 60);
    *sec = (unsigned)(s % 60);
}

static int nginx_line(char *o, char *csv, uint64_t t, int *cl)
{
    static const char *const paths[] = {"/", "/index.html", "/api/v1/items?id=7", "/login",
                                        "/static/app.js", "/search?q=\\x22x\\x22"};
    static const char *const csv_paths[] = {"/", "/index.html", "/api/v1/items?id=7", "/login",
                                            "/static/app.js", "\"/search?q=\"\"x\"\"\""};
    static const char *const methods[] = {"GET", "GET", "GET", "POST", "PUT", "DELETE"};
    static const char *const agents[] = {
        "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36",
        "curl/8.5.0", "Wget/1.21", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) Mobile/15E148"};
    static const unsigned statuses[] = {200, 200, 200, 200, 200, 200, 301, 304, 404, 500, 503};
    unsigned d, h, m, s, st = statuses[rndn(11)];
    civil(t, &d, &h, &m, &s);
    unsigned rt = rndn(2000) + (st >= 500 ? 3000 : 0);   /* milliseconds */
    unsigned a = rndn(256), b = rndn(256), c = rndn(256), me = rndn(6), pa = rndn(6);
    unsigned by = rndn(60000), ag = rndn(4);
    int n = sprintf(o, "10.%u.%u.%u - - [%02u/%s/2024:%02u:%02u:%02u +0000] \"%s %s HTTP/1.1\" %u %u "
                       "\"-\" \"%s\" %u.%03u\n",
                    a, b, c, d, months[4], h, m, s, methods[me], paths[pa], st, by, agents[ag],
                    rt / 1000, rt % 1000);
    *cl = sprintf(csv, "10.%u.%u.%u,2024-05-%02uT%02u:%02u:%02uZ,%s,%s,HTTP/1.1,%u,%u,-,\"%s\",%u.%03u\n",
                  a, b, c, d, h, m, s, methods[me], csv_paths[pa], st, by, agents[ag], rt / 1000,
                  rt % 1000);
    return n;
}

static int logfmt_line(char *o, char *csv, uint64_t t, int *cl)
{
    static const char *const msgs[] = {"\"GET /a \\\"q\\\" done\"", "\"db down: retry\"", "ok",
                                       "\"user logged in\""};
    static const char *const csv_msgs[] = {"\"GET /a \"\"q\"\" done\"", "db down: retry", "ok",
                                           "user logged in"};
    unsigned d, h, m, s;
    civil(t, &d, &h, &m, &s);
    const char *lv = levels[rndn(7)];
    unsigned ms = rndn(1000), mg = rndn(4), u = rndn(500), took = rndn(900);
    unsigned st = rndn(5) ? 200 : 500;
    int n = sprintf(o, "time=2024-05-%02uT%02u:%02u:%02u.%03uZ level=%s msg=%s user=u%u took=%u "
                       "status=%u\n",
                    d, h, m, s, ms, lv, msgs[mg], u, took, st);
    *cl = sprintf(csv, "2024-05-%02uT%02u:%02u:%02u.%03uZ,%s,%s,u%u,%u,%u\n", d, h, m, s, ms, lv,
                  csv_msgs[mg], u, took, st);
    return n;
}

static int k8s_line(char *o, char *json, uint64_t t, int *jl)
{
    unsigned d, h, m, s;
    civil(t, &d, &h, &m, &s);
    const char *lv = levels[rndn(7)];
    char inner[512];
    int il = sprintf(inner, "{\"level\":\"%s\",\"msg\":\"request done\",\"req\":{\"ms\":%u,\"path\":"
                            "\"/api/v1/items\",\"user\":{\"id\":%u}},\"tags\":[\"a\",\"b\"]}",
                     lv, rndn(900), rndn(10000));
    *jl = sprintf(json, "%s\n", inner);
    char esc[1024];
    int e = 0;
    for (int k = 0; k < il; k++) {
        if (inner[k] == '"' || inner[k] == '\\')
            esc[e++] = '\\';
        esc[e++] = inner[k];
    }
    esc[e] = '\0';
    return sprintf(o, "{\"log\":\"%s\\n\",\"stream\":\"%s\",\"time\":\"2024-05-%02uT%02u:%02u:%02u.%09uZ\"}\n",
                   esc, rndn(4) ? "stdout" : "stderr", d, h, m, s, rndn(1000000000));
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "sink")) {
        static char b[1 << 16];
        while (fread(b, 1, sizeof b, stdin) > 0)
            ;
        return 0;
    }
    if (argc != 4) {
        fprintf(stderr, "usage: genfmt nginx|logfmt|k8s SIZE_MB OUT | genfmt sink\n");
        return 2;
    }
    const char *kind = argv[1];
    uint64_t size = strtoull(argv[2], NULL, 10) << 20;
    char side[4096];
    snprintf(side, sizeof side, "%s.%s", argv[3], strcmp(kind, "k8s") ? "csv" : "json");
    FILE *f = fopen(argv[3], "w"), *g = fopen(side, "w");
    if (!f || !g) {
        perror(argv[3]);
        return 1;
    }
    setvbuf(f, NULL, _IOFBF, 1 << 22);
    setvbuf(g, NULL, _IOFBF, 1 << 22);
    if (!strcmp(kind, "nginx"))
        fputs("remote_addr,time,method,path,protocol,status,body_bytes_sent,http_referer,"
              "http_user_agent,request_time\n", g);
    else if (!strcmp(kind, "logfmt"))
        fputs("time,level,msg,user,took,status\n", g);
    uint64_t bytes = 0, lines = 0;
    char line[2048], other[1024];
    while (bytes < size) {
        int n, k;
        uint64_t t = lines / 8;   /* 8 lines a second */
        if (!strcmp(kind, "nginx"))
            n = nginx_line(line, other, t, &k);
        else if (!strcmp(kind, "logfmt"))
            n = logfmt_line(line, other, t, &k);
        else if (!strcmp(kind, "k8s"))
            n = k8s_line(line, other, t, &k);
        else {
            fprintf(stderr, "genfmt: unknown kind %s\n", kind);
            return 2;
        }
        fwrite(line, 1, (size_t)n, f);
        fwrite(other, 1, (size_t)k, g);
        bytes += (uint64_t)n;
        lines++;
    }
    if (fclose(f) || fclose(g)) {
        perror(argv[3]);
        return 1;
    }
    printf("lines=%llu bytes=%llu\n", (unsigned long long)lines, (unsigned long long)bytes);
    return 0;
}
