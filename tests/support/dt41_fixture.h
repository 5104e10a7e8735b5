/* dt41_fixture.h: reading the DTail 4.1 exchanges recorded from the Go
 * DTail (tests/fixtures/dt41/, record.sh) in the cmocka tests; the test's
 * build passes their folder as DT41_FIXTURES (tests/CMakeLists.txt). */
#ifndef DTAIL_TESTS_DT41_FIXTURE_H
#define DTAIL_TESTS_DT41_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>

#ifndef DT41_FIXTURES
#error "DT41_FIXTURES: the folder of the recorded exchanges (tests/CMakeLists.txt)"
#endif

typedef struct blob {
    char *p;
    size_t n;
} blob_t;

/* The whole file rel (under DT41_FIXTURES); fails the test when missing. */
static inline blob_t slurp(const char *rel)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", DT41_FIXTURES, rel);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    blob_t b = {NULL, 0};
    size_t cap = 0;
    for (;;) {
        if (cap - b.n < 65536) {
            cap = cap ? cap * 2 : 65536;
            b.p = realloc(b.p, cap);
            assert_non_null(b.p);
        }
        size_t got = fread(b.p + b.n, 1, cap - b.n, f);
        b.n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    return b;
}

#endif
