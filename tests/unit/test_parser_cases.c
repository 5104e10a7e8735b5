/* test_parser_cases.c: runs the sqllogictest-like files in tests/query/
 * (format in tests/query/README.md): canonical text, exact error rendering
 * with the caret, and plan explanations. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parser/parser.h"

/* tests/query/, found next to this source file. */
static void query_dir(char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", __FILE__);
    char *slash = strrchr(buf, '/');
    if (slash)
        *slash = '\0';                  /* tests/unit */
    slash = strrchr(buf, '/');
    if (slash)
        *slash = '\0';                  /* tests */
    size_t n = strlen(buf);
    snprintf(buf + n, cap - n, "/query");
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)len + 1);
    assert_non_null(s);
    size_t got = fread(s, 1, (size_t)len, f);
    s[got] = '\0';
    fclose(f);
    return s;
}

/* Returns the next line (NUL-terminated in place) or NULL at the end. */
static char *next_line(char **cur)
{
    if (!*cur || !**cur)
        return NULL;
    char *line = *cur;
    char *nl = strchr(line, '\n');
    if (nl) {
        *nl = '\0';
        *cur = nl + 1;
    } else {
        *cur = line + strlen(line);
    }
    return line;
}

static int run_case(const char *file, int lineno, const char *kind, const char *query,
                    const char *want)
{
    query_t *q = NULL;
    err_t e;
    int rc = query_parse(query, strlen(query), NULL, &q, &e);
    char got[4096];
    if (strcmp(kind, "statement error") == 0) {
        if (rc == 0) {
            print_error("%s:%d: parsed, expected an error: %s\n", file, lineno, query);
            query_free(q);
            return 1;
        }
        query_error_format(query, strlen(query), &e, got, sizeof got);
    } else {
        if (rc != 0) {
            query_error_format(query, strlen(query), &e, got, sizeof got);
            print_error("%s:%d: unexpected error:\n%s\n", file, lineno, got);
            return 1;
        }
        snprintf(got, sizeof got, "%s",
                 strcmp(kind, "explain") == 0 ? query_explain(q) : query_canonical(q));
        size_t n = strlen(got);
        while (n && got[n - 1] == '\n')
            got[--n] = '\0';
        if (strcmp(kind, "statement ok") == 0) {
            /* parse(print(parse(q))) == parse(q) */
            query_t *q2 = NULL;
            const char *canon = query_canonical(q);
            if (query_parse(canon, strlen(canon), NULL, &q2, &e) != 0 ||
                strcmp(query_explain(q), query_explain(q2)) != 0) {
                print_error("%s:%d: canonical form does not round-trip: %s\n", file,
                            lineno, canon);
                query_free(q2);
                query_free(q);
                return 1;
            }
            query_free(q2);
        }
        query_free(q);
    }
    if (strcmp(got, want) != 0) {
        print_error("%s:%d: %s\n--- want\n%s\n--- got\n%s\n", file, lineno, query, want, got);
        return 1;
    }
    return 0;
}

static int run_file(const char *path, int *n_cases)
{
    char *text = read_file(path);
    char *cur = text, *line;
    int lineno = 0, failures = 0;
    while ((line = next_line(&cur))) {
        lineno++;
        if (!*line || line[0] == '#')
            continue;
        if (strcmp(line, "statement ok") && strcmp(line, "statement error") &&
            strcmp(line, "explain"))
            fail_msg("%s:%d: unknown case header '%s'", path, lineno, line);
        const char *kind = line;
        int at = lineno;
        char *query = next_line(&cur);
        char *sep = next_line(&cur);
        lineno += 2;
        if (!query || !sep || strcmp(sep, "----") != 0)
            fail_msg("%s:%d: expected the query then ----", path, at);
        /* Expected text: up to a blank line or the end. */
        char want[4096] = "";
        size_t wn = 0;
        while (cur && *cur && *cur != '\n') {
            char *l = next_line(&cur);
            lineno++;
            wn += (size_t)snprintf(want + wn, sizeof want - wn, "%s%s", wn ? "\n" : "", l);
        }
        failures += run_case(path, at, kind, query, want);
        (*n_cases)++;
    }
    free(text);
    return failures;
}

static void test_query_files(void **state)
{
    (void)state;
    char dir[4096];
    query_dir(dir, sizeof dir);
    DIR *d = opendir(dir);
    if (!d)
        fail_msg("cannot open %s", dir);
    struct dirent *de;
    int n_files = 0, n_cases = 0, failures = 0;
    while ((de = readdir(d))) {
        size_t n = strlen(de->d_name);
        if (n < 6 || strcmp(de->d_name + n - 5, ".test") != 0)
            continue;
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        failures += run_file(path, &n_cases);
        n_files++;
    }
    closedir(d);
    print_message("%d cases in %d files\n", n_cases, n_files);
    /* A run that tested nothing is a failure, not a pass. */
    assert_true(n_files > 0 && n_cases > 0);
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_query_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
