/* test_term.c: the terminal escaping of data (base/term.h): every class of
 * byte against its expected notation; the counting mode; cuts that escape
 * as the whole does (random bytes, every cut); outbuf_append_escaped
 * through blocks of many sizes against one term_escape; and the line
 * sink: what it writes to a terminal equals line_sink_escape_rendered of
 * what it writes to a pipe (the client escaping a server's lines), in all
 * three formats, for random lines, host names and source ids. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "base/outbuf.h"
#include "base/term.h"
#include "exec/sink/lines.h"
#include "tests/support/rng.h"

static uint64_t rng_state = 0x5deece66dull;

static size_t rnd(size_t n)
{
    return (size_t)(rng_next64(&rng_state) % n);
}

static void check(const char *in, size_t n, unsigned flags, const char *want)
{
    char out[1024];
    assert_true(n * TERM_ESCAPE_MAX < sizeof out);
    size_t k = term_escape(out, in, n, flags);
    out[k] = '\0';
    if (k != strlen(want) || memcmp(out, want, k) != 0)
        fail_msg("escape of %zu bytes: got \"%s\", want \"%s\"", n, out, want);
    assert_int_equal(term_escape(NULL, in, n, flags), k);
}

/* One case: the input (a literal; its NULs count), the flags, the text shown. */
#define CASE(lit, flags, want) {lit, sizeof lit - 1, flags, want}
static const struct { const char *in; size_t n; unsigned flags; const char *want; } cases[] = {
    CASE("plain text, TAB\there", 0, "plain text, TAB\there"),
    CASE("a\nb\n", 0, "a\nb\n"),
    CASE("clear\033[2Jscreen", 0, "clear^[[2Jscreen"),
    CASE("\033]0;title\007after", 0, "^[]0;title^Gafter"),
    CASE("nul\0byte", 0, "nul^@byte"),
    CASE("back\bspace", 0, "back^Hspace"),
    CASE("del\177", 0, "del^?"),
    CASE("\001\037", 0, "^A^_"),
    /* CR: kept where it ends a line, shown elsewhere. */
    CASE("ab\rcd", 0, "ab^Mcd"),
    CASE("crlf\r\n", 0, "crlf\r\n"),
    CASE("end\r", 0, "end^M"),
    CASE("end\r", TERM_LINE_END, "end\r"),
    CASE("\r\r\n", TERM_LINE_END, "^M\r\n"),
    CASE("a\rb", TERM_LINE_END, "a^Mb"),
    /* Valid UTF-8 passes; C1 controls are shown by code point. */
    CASE("caf\303\251", 0, "caf\303\251"),
    CASE("\342\202\254 \360\237\230\200 \364\217\277\277", 0,
         "\342\202\254 \360\237\230\200 \364\217\277\277"),
    CASE("\302\240nbsp", 0, "\302\240nbsp"),
    CASE("csi\302\233x", 0, "csi<U+009B>x"),
    CASE("\302\200\302\237", 0, "<U+0080><U+009F>"),
    /* Not UTF-8: each byte shown, the rest resynchronised. */
    CASE("bad\377\376", 0, "bad<FF><FE>"),
    CASE("\200lone", 0, "<80>lone"),
    CASE("\300\257", 0, "<C0><AF>"),                  /* overlong '/' */
    CASE("\340\200\257", 0, "<E0><80><AF>"),          /* overlong */
    CASE("\355\240\200", 0, "<ED><A0><80>"),          /* a surrogate */
    CASE("\364\220\200\200", 0, "<F4><90><80><80>"),  /* beyond U+10FFFF */
    CASE("\365\200", 0, "<F5><80>"),
    CASE("cut\342\202", 0, "cut<E2><82>"),            /* a sequence cut short */
    CASE("\342\202x\303\251", 0, "<E2><82>x\303\251"),
    CASE("\303\033[1m", 0, "<C3>^[[1m"),
};

static void test_notation(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check(cases[i].in, cases[i].n, cases[i].flags, cases[i].want);
}

/* Escaping the two sides of any cut term_cut gives is escaping the whole. */
static void test_cut(void **state)
{
    (void)state;
    static const unsigned char alphabet[] = {'a', '\r', '\n', '\t', 0x1b, 0, 0x7f, 0x80, 0x9b, 0xa9,
                                             0xbf, 0xc2, 0xc3, 0xe0, 0xe2, 0xed, 0xf0, 0xf4, 0xff};
    char in[64], whole[256], parts[256];
    for (int iter = 0; iter < 20000; iter++) {
        size_t n = 1 + rnd(sizeof in);
        for (size_t i = 0; i < n; i++)
            in[i] = (char)alphabet[rnd(sizeof alphabet)];
        unsigned flags = rnd(2) ? TERM_LINE_END : 0;
        size_t wl = term_escape(whole, in, n, flags);
        for (size_t k = 5; k < n; k++) {
            size_t c = term_cut(in, n, k);
            assert_true(c <= k && c + 4 >= k && c > 0);
            size_t pl = term_escape(parts, in, c, 0);
            pl += term_escape(parts + pl, in + c, n - c, flags);
            if (pl != wl || memcmp(parts, whole, wl) != 0)
                fail_msg("iteration %d: cut at %zu (of %zu, asked %zu) escapes differently", iter, c, n, k);
        }
    }
}

typedef struct collect {
    char *p;
    size_t len, cap;
} collect_t;

static int collect_sink(void *ctx, const char *p, size_t n, int *err)
{
    collect_t *c = ctx;
    (void)err;
    if (c->len + n > c->cap) {
        c->cap = (c->len + n) * 2;
        c->p = realloc(c->p, c->cap);
        assert_non_null(c->p);
    }
    memcpy(c->p + c->len, p, n);
    c->len += n;
    return 0;
}

/* Random text of every byte class, some of it in long runs. */
static size_t random_text(char *p, size_t n)
{
    static const char *const pieces[] = {"word ", "\033[2J", "\r\n", "\r", "\303\251", "\360\237\230\200",
                                         "\302\233", "\377", "\t", "\0", "\342\202", "\n"};
    size_t k = 0;
    while (k + 8 < n) {
        const char *s = pieces[rnd(sizeof pieces / sizeof pieces[0])];
        size_t l = s[0] ? strlen(s) : 1;
        memcpy(p + k, s, l);
        k += l;
    }
    return k;
}

static void test_outbuf_blocks(void **state)
{
    (void)state;
    size_t n_in = 300000;
    char *in = malloc(n_in), *want = malloc(n_in * TERM_ESCAPE_MAX);
    assert_non_null(in);
    assert_non_null(want);
    n_in = random_text(in, n_in);
    size_t wl = term_escape(want, in, n_in, TERM_LINE_END);
    static const size_t caps[] = {1, 7, 63, 64, 255, 256, 257, 1000, 4096, 65536, 1 << 20};
    err_t e;
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        collect_t c = {0};
        outbuf_t ob;
        assert_int_equal(outbuf_init_sink(&ob, caps[i], collect_sink, &c, &e), 0);
        ob.escape_data = 1;
        /* In spans of random sizes, the last one ending the line. */
        for (size_t at = 0; at < n_in;) {
            size_t k = 1 + rnd(5000);
            if (k > n_in - at)
                k = n_in - at;
            k = term_cut(in + at, n_in - at, k < n_in - at ? (k < 5 ? 5 : k) : k);
            outbuf_append_data(&ob, in + at, k, at + k == n_in ? TERM_LINE_END : 0);
            at += k;
        }
        outbuf_flush(&ob);
        assert_int_equal(c.len, wl);
        assert_memory_equal(c.p, want, wl);
        outbuf_free(&ob);
        free(c.p);
    }
    /* In memory, and unescaped: the bytes as they are. */
    outbuf_t mem;
    assert_int_equal(outbuf_init_mem(&mem, 16, &e), 0);
    mem.escape_data = 1;
    outbuf_append_data(&mem, in, n_in, TERM_LINE_END);
    assert_int_equal(mem.len, wl);
    assert_memory_equal(mem.data, want, wl);
    outbuf_reset(&mem);
    mem.escape_data = 0;
    outbuf_append_data(&mem, in, n_in, TERM_LINE_END);
    assert_int_equal(mem.len, n_in);
    assert_memory_equal(mem.data, in, n_in);
    outbuf_free(&mem);
    free(in);
    free(want);
}

/* A random name or line without '\n' (a file or host name with one would
 * break the line on a pipe as on a terminal). */
static size_t random_field(char *p, size_t cap)
{
    static const char *const heads[] = {"", "WARN", "ERROR", "FATAL", "INFO"};
    size_t k = 0;
    if (rnd(3) == 0) {
        const char *h = heads[rnd(sizeof heads / sizeof heads[0])];
        memcpy(p, h, strlen(h));
        k = strlen(h);
    }
    k += random_text(p + k, 8 + rnd(cap - k - 8));
    for (size_t i = 0; i < k; i++)
        if (p[i] == '\n')
            p[i] = rnd(2) ? '|' : '\033';
    return k;
}

static void render(outbuf_t *ob, enum line_format f, const char *host, const char *source,
                   char lines[][200], const size_t *lens, size_t n)
{
    line_sink_t s;
    assert_int_equal(line_sink_init(&s, ob, f, host, NULL), 0);
    line_sink_set_source(&s, source);
    for (size_t i = 0; i < n; i++)
        line_sink_put(&s, lines[i], lens[i], i + 1);
    line_sink_free(&s);
}

static void test_sink_escapes_as_client(void **state)
{
    (void)state;
    err_t e;
    char lines[20][200];
    size_t lens[20];
    for (int iter = 0; iter < 3000; iter++) {
        char host[64], source[120];
        size_t hl = random_field(host, 40);
        size_t sl = random_field(source, 100);
        for (size_t i = 0; i < hl; i++)   /* a C string: the host ends at NUL and a dot */
            if (!host[i] || host[i] == '.')
                host[i] = '-';
        host[hl] = '\0';
        for (size_t i = 0; i < sl; i++)
            if (!source[i])
                source[i] = '~';
        source[sl] = '\0';
        size_t n = 1 + rnd(20);
        for (size_t i = 0; i < n; i++)
            lens[i] = random_field(lines[i], 190);
        enum line_format f = (enum line_format)rnd(3);
        outbuf_t raw, term, client;
        assert_int_equal(outbuf_init_mem(&raw, 256, &e), 0);
        assert_int_equal(outbuf_init_mem(&term, 256, &e), 0);
        assert_int_equal(outbuf_init_mem(&client, 256, &e), 0);
        term.escape_data = 1;
        render(&raw, f, host, source, lines, lens, n);
        render(&term, f, host, source, lines, lens, n);
        line_sink_escape_rendered(&client, f, NULL, raw.data, raw.len);
        if (client.len != term.len || memcmp(client.data, term.data, term.len) != 0)
            fail_msg("iteration %d, format %d: the client's escape of the lines differs from the "
                     "sink's (%zu vs %zu bytes)", iter, (int)f, client.len, term.len);
        /* The paint is there, and no other ESC. */
        size_t esc = 0;
        for (size_t i = 0; i < term.len; i++)
            esc += term.data[i] == '\033';
        if (f != LINE_COLOR)
            assert_int_equal(esc, 0);
        else
            assert_true(esc >= n * 20);
        outbuf_free(&raw);
        outbuf_free(&term);
        outbuf_free(&client);
    }
}

/* A line not of the painted form (a server of another kind, or one cut
 * short) is escaped whole: no ESC of it reaches the terminal. */
static void test_rendered_foreign(void **state)
{
    (void)state;
    err_t e;
    outbuf_t ob;
    assert_int_equal(outbuf_init_mem(&ob, 64, &e), 0);
    static const char in[] = "\033[37m\033[44m\033[2mREMOTE but not ours\033[2J\n\033[31mno newline";
    line_sink_escape_rendered(&ob, LINE_COLOR, NULL, in, sizeof in - 1);
    static const char want[] = "^[[37m^[[44m^[[2mREMOTE but not ours^[[2J\n^[[31mno newline";
    assert_int_equal(ob.len, sizeof want - 1);
    assert_memory_equal(ob.data, want, sizeof want - 1);
    outbuf_free(&ob);
}

/* A request's render and the sink's format map by name, both ways; an
 * unknown render is plain. */
static void test_render_maps_to_format(void **state)
{
    (void)state;
    assert_int_equal(line_format_of_render(WIRE_RENDER_PLAIN), LINE_PLAIN);
    assert_int_equal(line_format_of_render(WIRE_RENDER_REMOTE), LINE_REMOTE);
    assert_int_equal(line_format_of_render(WIRE_RENDER_COLOR), LINE_COLOR);
    assert_int_equal(line_format_of_render(200), LINE_PLAIN);
    for (int f = LINE_PLAIN; f <= LINE_COLOR; f++)
        assert_int_equal(line_format_of_render(line_format_render((enum line_format)f)), f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_notation),
        cmocka_unit_test(test_cut),
        cmocka_unit_test(test_outbuf_blocks),
        cmocka_unit_test(test_sink_escapes_as_client),
        cmocka_unit_test(test_rendered_foreign),
        cmocka_unit_test(test_render_maps_to_format),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
