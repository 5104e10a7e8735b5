/* test_flagparse.c: the one flag parser (base/flagparse.h): Go's value
 * forms, positional arguments and "--", a table shared by several tools
 * through masks, -h, the failures and their exact messages, help lines,
 * and the shared -port / -logLevel checks. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "base/flagparse.h"

typedef struct opts {
    const char *name;
    long long count;
    int loud, help;
} opts_t;

enum { TOOL_A = 1, TOOL_B = 2 };

#define O(field) offsetof(opts_t, field)
static const flagparse_def_t defs[] = {
    {"name", FP_STRING, 0, O(name), "NAME", "a string"},
    {"count", FP_INT, TOOL_A, O(count), "N", "an integer, tool A only"},
    {"loud", FP_BOOL, TOOL_B, O(loud), NULL, "a boolean, tool B only"},
    {"l", FP_BOOL, TOOL_B, O(loud), NULL, "alias of --loud"},
    {"help", FP_BOOL, 0, O(help), NULL, "print this help"},
};
#undef O
#define N_DEFS (sizeof defs / sizeof defs[0])

/* argv is NULL-ended; argv[0] is the program. */
static int run(flagparse_t *p, opts_t *o, char **argv, err_t *e)
{
    int argc = 0;
    while (argv[argc])
        argc++;
    memset(o, 0, sizeof *o);
    err_clear(e);
    return flagparse(p, o, argc, argv, e);
}

/* argv must fail with msg; returns the failure. */
static const flagparse_failure_t *expect_error(flagparse_t *p, char **argv, const char *msg)
{
    opts_t o;
    err_t e;
    assert_int_equal(run(p, &o, argv, &e), -1);
    assert_int_equal(e.code, ERR_USAGE);
    assert_string_equal(e.msg, msg);
    return &p->failure;
}

static flagparse_t flags_only(unsigned select)
{
    return (flagparse_t){.defs = defs, .n_defs = N_DEFS, .select = select, .tool = "t"};
}

static void test_value_forms(void **state)
{
    (void)state;
    flagparse_t p = flags_only(TOOL_A);
    opts_t o;
    err_t e;
    char *next[] = {"t", "-name", "x", "--count", "12", NULL};
    assert_int_equal(run(&p, &o, next, &e), 0);
    assert_string_equal(o.name, "x");
    assert_int_equal(o.count, 12);
    char *eq[] = {"t", "--name=a=b", "-count=7", NULL};
    assert_int_equal(run(&p, &o, eq, &e), 0);
    assert_string_equal(o.name, "a=b");
    assert_int_equal(o.count, 7);
    char *empty[] = {"t", "--name=", NULL};
    assert_int_equal(run(&p, &o, empty, &e), 0);
    assert_string_equal(o.name, "");
    /* A string flag takes the next argument even when it looks like a flag. */
    char *dashed[] = {"t", "--name", "-count", NULL};
    assert_int_equal(run(&p, &o, dashed, &e), 0);
    assert_string_equal(o.name, "-count");

    p = flags_only(TOOL_B);
    char *bare[] = {"t", "--loud", NULL};
    assert_int_equal(run(&p, &o, bare, &e), 0);
    assert_int_equal(o.loud, 1);
    /* A boolean never takes the next argument: "0" is positional, refused. */
    char *bool_next[] = {"t", "-loud", "0", NULL};
    assert_int_equal(run(&p, &o, bool_next, &e), -1);
    assert_int_equal(p.failure.fault, FP_FAULT_POSITIONAL);
    const char *forms[][2] = {{"--loud=false", "0"}, {"--loud=T", "1"}, {"-l=0", "0"}, {"-l=TRUE", "1"}};
    for (size_t k = 0; k < sizeof forms / sizeof forms[0]; k++) {
        char *argv[] = {"t", "--loud", (char *)forms[k][0], NULL};
        assert_int_equal(run(&p, &o, argv, &e), 0);
        assert_int_equal(o.loud, forms[k][1][0] - '0');
    }
}

static void test_positional(void **state)
{
    (void)state;
    char *pos[8];
    flagparse_t p = flags_only(TOOL_A);
    p.positional = pos;
    opts_t o;
    err_t e;
    /* Flags may follow positional arguments; "-" is one; "--" ends flags. */
    char *argv[] = {"t", "a", "--count", "3", "-", "--", "--name", "--", NULL};
    assert_int_equal(run(&p, &o, argv, &e), 0);
    assert_int_equal(o.count, 3);
    assert_null(o.name);
    assert_int_equal(p.n_positional, 4);
    assert_string_equal(pos[0], "a");
    assert_string_equal(pos[1], "-");
    assert_string_equal(pos[2], "--name");
    assert_string_equal(pos[3], "--");

    /* Go's rule: the first positional argument ends the flags. */
    p.first_ends_flags = 1;
    char *go[] = {"t", "--count", "1", "a", "--count", "2", NULL};
    assert_int_equal(run(&p, &o, go, &e), 0);
    assert_int_equal(o.count, 1);
    assert_int_equal(p.n_positional, 3);
    assert_string_equal(pos[1], "--count");

    char *none[] = {"t", "--count", "1", NULL};
    assert_int_equal(run(&p, &o, none, &e), 0);
    assert_int_equal(p.n_positional, 0);
}

static void test_positional_refused(void **state)
{
    (void)state;
    flagparse_t p = flags_only(TOOL_A);
    const flagparse_failure_t *f = expect_error(&p, (char *[]){"t", "--count", "1", "stray", NULL},
                                                "unexpected argument stray (t takes only flags; see --help)");
    assert_int_equal(f->fault, FP_FAULT_POSITIONAL);
    assert_string_equal(f->value, "stray");
    expect_error(&p, (char *[]){"t", "-", NULL}, "unexpected argument - (t takes only flags; see --help)");
    /* Without positional arguments "--" is no end of flags: an unknown one. */
    expect_error(&p, (char *[]){"t", "--", NULL}, "flag provided but not defined: -- (see t --help)");
}

static void test_mask(void **state)
{
    (void)state;
    opts_t o;
    err_t e;
    char *count[] = {"t", "--count", "1", NULL};
    char *loud[] = {"t", "--loud", NULL};
    char *name[] = {"t", "--name", "n", NULL};
    flagparse_t a = flags_only(TOOL_A), b = flags_only(TOOL_B), both = flags_only(TOOL_A | TOOL_B);
    assert_int_equal(run(&a, &o, count, &e), 0);
    expect_error(&a, loud, "flag provided but not defined: --loud (see t --help)");
    assert_int_equal(run(&b, &o, loud, &e), 0);
    expect_error(&b, count, "flag provided but not defined: --count (see t --help)");
    assert_int_equal(run(&both, &o, count, &e), 0);
    assert_int_equal(run(&both, &o, loud, &e), 0);
    /* Mask 0: every parse sees the flag, even one that selects nothing. */
    flagparse_t nothing = flags_only(0);
    assert_int_equal(run(&a, &o, name, &e), 0);
    assert_int_equal(run(&nothing, &o, name, &e), 0);
    assert_int_equal(run(&nothing, &o, count, &e), -1);
}

static void test_h_is_help(void **state)
{
    (void)state;
    flagparse_t p = flags_only(TOOL_A);
    opts_t o;
    err_t e;
    char *h[] = {"t", "-h", NULL};
    assert_int_equal(run(&p, &o, h, &e), 0);
    assert_int_equal(o.help, 1);
    char *hh[] = {"t", "--h=false", NULL};
    assert_int_equal(run(&p, &o, hh, &e), 0);
    assert_int_equal(o.help, 0);
    /* A table without "help" has no -h either. */
    flagparse_t no_help = {.defs = defs, .n_defs = N_DEFS - 1, .select = TOOL_A, .tool = "t"};
    expect_error(&no_help, h, "flag provided but not defined: -h (see t --help)");
}

static void test_failures(void **state)
{
    (void)state;
    flagparse_t p = flags_only(TOOL_A | TOOL_B);
    const flagparse_failure_t *f;
    f = expect_error(&p, (char *[]){"t", "--name", "x", "--nope=1", NULL},
                     "flag provided but not defined: --nope=1 (see t --help)");
    assert_int_equal(f->fault, FP_FAULT_UNKNOWN);
    assert_null(f->def);
    assert_int_equal(f->name_len, 4);
    assert_memory_equal(f->name, "nope", 4);

    f = expect_error(&p, (char *[]){"t", "--count", NULL}, "flag needs an argument: -count");
    assert_int_equal(f->fault, FP_FAULT_NO_VALUE);
    assert_string_equal(f->def->name, "count");

    f = expect_error(&p, (char *[]){"t", "-count", "-1", NULL},
                     "invalid value \"-1\" for flag -count: not a non-negative integer");
    assert_int_equal(f->fault, FP_FAULT_BAD_VALUE);
    assert_string_equal(f->value, "-1");
    expect_error(&p, (char *[]){"t", "--count=12x", NULL},
                 "invalid value \"12x\" for flag -count: not a non-negative integer");

    /* The name as written: -h=maybe is the flag help. */
    f = expect_error(&p, (char *[]){"t", "-h=maybe", NULL}, "invalid boolean value \"maybe\" for flag -help");
    assert_int_equal(f->fault, FP_FAULT_BAD_VALUE);
    assert_string_equal(f->def->name, "help");
    assert_int_equal(f->name_len, 1);
    assert_memory_equal(f->name, "h", 1);

    /* A later success clears the failure. */
    opts_t o;
    err_t e;
    assert_int_equal(run(&p, &o, (char *[]){"t", NULL}, &e), 0);
    assert_int_equal(p.failure.fault, FP_FAULT_NONE);
}

/* What flagparse_help prints, in buf. */
static void help_text(const flagparse_t *p, int width, int arg_width, char *buf, size_t cap)
{
    int fd = memfd_create("help", 0), saved = dup(STDOUT_FILENO);
    assert_true(fd >= 0 && saved >= 0);
    fflush(stdout);
    dup2(fd, STDOUT_FILENO);
    flagparse_help(p, width, arg_width);
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    ssize_t n = pread(fd, buf, cap - 1, 0);
    close(fd);
    assert_true(n >= 0);
    buf[n] = '\0';
}

static void test_help(void **state)
{
    (void)state;
    char buf[1024];
    flagparse_t b = flags_only(TOOL_B);
    help_text(&b, 12, 0, buf, sizeof buf);
    assert_string_equal(buf, "  --name NAME  a string\n"
                             "  --loud       a boolean, tool B only\n"
                             "  -l           alias of --loud\n"
                             "  --help       print this help\n");
    flagparse_t a = flags_only(TOOL_A);
    help_text(&a, 8, 4, buf, sizeof buf);
    assert_string_equal(buf, "  --name   NAME  a string\n"
                             "  --count  N     an integer, tool A only\n"
                             "  --help         print this help\n");
}

static void test_port_and_log_level(void **state)
{
    (void)state;
    err_t e;
    err_clear(&e);
    assert_int_equal(flagparse_check_port(0, &e), 0);
    assert_int_equal(flagparse_check_port(65535, &e), 0);
    assert_int_equal(flagparse_check_port(65536, &e), -1);
    assert_int_equal(e.code, ERR_USAGE);
    assert_string_equal(e.msg, "invalid value 65536 for flag -port: at most 65535");
    enum log_level lv = LOG_NONE;
    assert_int_equal(flagparse_check_log_level(NULL, &lv, &e), 0);
    assert_int_equal(lv, LOG_NONE);
    assert_int_equal(flagparse_check_log_level("debug", &lv, &e), 0);
    assert_int_equal(lv, LOG_DEBUG);
    assert_int_equal(flagparse_check_log_level("info", NULL, &e), 0);
    assert_int_equal(flagparse_check_log_level("loud", &lv, &e), -1);
    assert_string_equal(e.msg, "invalid value \"loud\" for flag -logLevel");
    assert_int_equal(lv, LOG_DEBUG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_value_forms),
        cmocka_unit_test(test_positional),
        cmocka_unit_test(test_positional_refused),
        cmocka_unit_test(test_mask),
        cmocka_unit_test(test_h_is_help),
        cmocka_unit_test(test_failures),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_port_and_log_level),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
