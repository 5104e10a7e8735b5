/* test_targets.c: file specs: comma lists, globs, source ids, patterns that
 * match nothing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec/scan/targets.h"

static int n_errors;
static void count_error(void *ctx, const err_t *e)
{
    (void)ctx;
    assert_non_null(strstr(e->msg, "no file matches"));
    n_errors++;
}

static void touch(const char *path)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
}

static void test_source_ids(void **state)
{
    (void)state;
    char *s = target_source_id("/var/log/*/app.log", "/var/log/web1/app.log");
    assert_string_equal(s, "web1");
    free(s);
    s = target_source_id("/var/log/*/*.log", "/var/log/web1/app.log");
    assert_string_equal(s, "web1/app.log");
    free(s);
    s = target_source_id("/var/log/app.lo?", "/var/log/app.log");
    assert_string_equal(s, "app.log");
    free(s);
}

static void test_comma_list_glob_and_no_match(void **state)
{
    (void)state;
    char dir[] = "/tmp/dtail-targets-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[512];
    const char *names[] = {"b.log", "a.log", "c.txt"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        touch(path);
    }
    char spec[2048];
    snprintf(spec, sizeof spec, " %s/*.log , %s/c.txt,,%s/none*.log, - ", dir, dir, dir);
    target_list_t tl;
    target_list_init(&tl);
    err_t e;
    n_errors = 0;
    assert_int_equal(target_list_add_spec(&tl, spec, count_error, NULL, &e), 0);
    assert_int_equal(n_errors, 1);
    assert_int_equal(tl.n, 4);
    assert_string_equal(tl.items[0].source_id, "a.log");   /* glob matches sorted */
    assert_string_equal(tl.items[1].source_id, "b.log");
    assert_string_equal(tl.items[2].source_id, "c.txt");
    assert_string_equal(tl.items[3].path, "-");
    target_list_free(&tl);
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_source_ids),
        cmocka_unit_test(test_comma_list_glob_and_no_match),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
