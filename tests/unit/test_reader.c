/* test_reader.c: the block reader against the naive splitter, through the
 * real open path: small files (read), large files (mapped windows), pipes,
 * gzip and zstd; block and window boundaries, long lines, no final newline,
 * empty input; bytes_read is the input's size in every case. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "exec/scan/reader.h"
#include "tests/support/memfile.h"
#include "tests/support/oracle.h"
#include "tests/support/rng.h"

static uint64_t rng = 777;
static unsigned next_rand(void)
{
    return rng_next(&rng);
}

/* Random text whose line lengths come from [0, max_len]. */
static char *make_text(size_t n, size_t max_len, int final_newline)
{
    char *t = malloc(n + 1);
    size_t i = 0;
    while (i < n) {
        size_t len = next_rand() % (max_len + 1);
        for (size_t k = 0; k < len && i < n; k++)
            t[i++] = (char)('a' + next_rand() % 26);
        if (i < n)
            t[i++] = '\n';
    }
    if (n) {
        if (final_newline)
            t[n - 1] = '\n';
        else if (t[n - 1] == '\n')
            t[n - 1] = 'z';
    }
    return t;
}

/* Reads everything through the reader and checks each line against the
 * oracle, and the region invariants (ends in '\n', offsets increase). */
static void check_reader(input_t *in, const char *text, size_t n, size_t max)
{
    oracle_line_t *want;
    size_t n_want = oracle_split(text, n, max, &want);
    reader_t r;
    err_t e;
    assert_int_equal(reader_init(&r, in, max, 0, &e), 0);
    region_t reg;
    size_t li = 0;
    long long last_off = -1;
    int got;
    while ((got = reader_next(&r, &reg, &e)) == 1) {
        assert_true(reg.len > 0);
        assert_int_equal(reg.p[reg.len - 1], '\n');
        assert_true(reg.off > last_off);
        last_off = reg.off;
        const char *p = reg.p, *end = reg.p + reg.len;
        while (p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            assert_true(li < n_want);
            assert_int_equal((size_t)(nl - p), want[li].len);
            assert_memory_equal(p, want[li].p, want[li].len);
            li++;
            p = nl + 1;
        }
    }
    assert_int_equal(got, 0);
    assert_int_equal(li, n_want);
    /* Exactly the input's (decoded) bytes: not a mapped window's partial
     * last line twice, nor the '\n' added to a split piece. */
    assert_int_equal(r.bytes_read, n);
    reader_free(&r);
    free(want);
}

static void run_file_case(size_t n, size_t line_max, size_t max, int final_nl)
{
    char *text = make_text(n, line_max, final_nl);
    char path[64];
    int fd = memfile_create(text, n, path, sizeof path);
    assert_true(fd >= 0);
    err_t e;
    input_t *in = input_open(path, &e);
    assert_non_null(in);
    check_reader(in, text, n, max);
    input_close(in);
    close(fd);
    free(text);
}

static void test_small_files_read_path(void **state)
{
    (void)state;
    run_file_case(0, 10, 1024, 1);
    run_file_case(1, 10, 1024, 0);
    run_file_case(1, 10, 1024, 1);
    for (int i = 0; i < 20; i++)
        run_file_case(1 + next_rand() % 900000, 1 + next_rand() % 3000, 1 + next_rand() % 2000,
                      (int)(next_rand() % 2));
}

static void test_large_files_mapped_windows(void **state)
{
    (void)state;
    /* Past the 8 MiB window, with lines both under and over the maximum. */
    run_file_case(20u << 20, 200, 1024 * 1024, 1);
    run_file_case(18u << 20, 3000, 1024, 0);
    run_file_case(3u << 20, 3u << 20, 1024 * 1024, 0);   /* one giant line */
}

static void test_empty_lines_and_crlf_kept(void **state)
{
    (void)state;
    const char text[] = "\n\nx\r\n\r\n\nlast";
    char path[64];
    int fd = memfile_create(text, sizeof text - 1, path, sizeof path);
    err_t e;
    input_t *in = input_open(path, &e);
    check_reader(in, text, sizeof text - 1, 1024);
    input_close(in);
    close(fd);
}

typedef struct feeder {
    int fd;
    const char *data;
    size_t n;
} feeder_t;

static void *feed(void *arg)
{
    feeder_t *f = arg;
    size_t off = 0;
    while (off < f->n) {
        size_t chunk = 1 + next_rand() % 70000;   /* odd-sized writes */
        if (chunk > f->n - off)
            chunk = f->n - off;
        ssize_t w = write(f->fd, f->data + off, chunk);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    close(f->fd);
    return NULL;
}

static void test_pipe_stream(void **state)
{
    (void)state;
    size_t n = 2u << 20;
    char *text = make_text(n, 5000, 0);
    int p[2];
    assert_int_equal(pipe(p), 0);
    feeder_t f = {p[1], text, n};
    pthread_t t;
    pthread_create(&t, NULL, feed, &f);
    int saved = dup(0);
    dup2(p[0], 0);
    close(p[0]);
    err_t e;
    input_t *in = input_open("-", &e);
    assert_non_null(in);
    check_reader(in, text, n, 4096);
    input_close(in);
    pthread_join(t, NULL);
    dup2(saved, 0);
    close(saved);
    free(text);
}

static void test_gzip_and_zstd_by_magic(void **state)
{
    (void)state;
    size_t n = 1500000;
    char *text = make_text(n, 300, 1);
    /* gzip, two members concatenated, as `gzip -c a b` would give. */
    uLongf zcap = compressBound(n) + 64;
    unsigned char *gz = malloc(2 * zcap);
    size_t gz_len = 0;
    for (int member = 0; member < 2; member++) {
        z_stream z = {0};
        deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
        size_t half = n / 2;
        z.next_in = (unsigned char *)text + (member ? half : 0);
        z.avail_in = (unsigned)(member ? n - half : half);
        z.next_out = gz + gz_len;
        z.avail_out = (unsigned)zcap;
        assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
        gz_len += zcap - z.avail_out;
        deflateEnd(&z);
    }
    char path[64];
    int fd = memfile_create(gz, gz_len, path, sizeof path);   /* no .gz suffix */
    err_t e;
    input_t *in = input_open(path, &e);
    assert_int_equal(input_kind(in), INPUT_GZIP);
    check_reader(in, text, n, 1 << 20);
    input_close(in);
    close(fd);

    size_t zs_cap = ZSTD_compressBound(n);
    void *zs = malloc(zs_cap);
    size_t zs_len = ZSTD_compress(zs, zs_cap, text, n, 3);
    fd = memfile_create(zs, zs_len, path, sizeof path);
    in = input_open(path, &e);
    assert_int_equal(input_kind(in), INPUT_ZSTD);
    check_reader(in, text, n, 1 << 20);
    input_close(in);
    close(fd);

    /* A truncated stream is an error, not a silent short read. */
    fd = memfile_create(zs, zs_len / 2, path, sizeof path);
    in = input_open(path, &e);
    reader_t r;
    reader_init(&r, in, 1 << 20, 0, &e);
    region_t reg;
    int got;
    while ((got = reader_next(&r, &reg, &e)) == 1)
        ;
    assert_int_equal(got, -1);
    assert_non_null(strstr(e.msg, "truncated"));
    reader_free(&r);
    input_close(in);
    close(fd);
    free(zs);
    free(gz);
    free(text);
}

static void test_directory_and_missing_are_errors(void **state)
{
    (void)state;
    err_t e;
    assert_null(input_open("/", &e));
    assert_non_null(strstr(e.msg, "is a directory"));
    assert_null(input_open("/nonexistent/dtail-test", &e));
    assert_non_null(strstr(e.msg, "/nonexistent/dtail-test"));
    assert_int_equal(e.code, ERR_INPUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_small_files_read_path),
        cmocka_unit_test(test_large_files_mapped_windows),
        cmocka_unit_test(test_empty_lines_and_crlf_kept),
        cmocka_unit_test(test_pipe_stream),
        cmocka_unit_test(test_gzip_and_zstd_by_magic),
        cmocka_unit_test(test_directory_and_missing_are_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
