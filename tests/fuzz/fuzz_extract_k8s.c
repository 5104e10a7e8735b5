/* fuzz_extract_k8s.c: libFuzzer target over the `k8s` format: a JSON
 * line whose "log" string is itself a JSON object.
 *
 * Input layout (tests/support/extract_check.h): two bytes choose which of
 * 16 candidate field names are requested, one byte the batch size, the
 * rest is lines separated by '\n'. Aborts when a status is invalid, a view
 * points outside its line and the extractor's own storage, a rejected line
 * has a value, the batch's error message disagrees with its statuses, a
 * line gives other bytes alone than in a batch, or the result disagrees
 * with jansson: the outer line an object with a "log" string that is, its
 * space trimmed, an object too; $log, $stream and $time ("time" read by
 * logtime) from the outer object, every other name from the inner one.
 * Documents jansson cannot take are not compared (as in fuzz_extract_json). */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "exec/extract/logtime.h"
#include "tests/support/extract_check.h"
#include "tests/support/json_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[XC_MAX] = {
    "a", "b", "a.b", "arr.0", "arr.1.a", "$log", "$stream", "$time", "$line", "*", "log",
    "time", "stream", "x.y", "", "$hostname",
};

static const logtime_ctx_t tc = {1773576000, 0, NULL, NULL};

/* The outer string of key k, or NULL. */
static const char *outer_string(json_t *root, const char *k, size_t *len)
{
    json_t *v = json_object_get(root, k);
    if (!json_is_string(v))
        return NULL;
    *len = json_string_length(v);
    return json_string_value(v);
}

static void check_sv(sv_t v, const char *want, size_t len)
{
    if (!want) {
        if (v.len != SV_MISSING)
            abort();
        return;
    }
    if (v.len != len || (len && memcmp(v.p, want, len) != 0))
        abort();
}

/* Line r of the batch, accepted or not, against jansson. */
static void check(xc_run_t *run, size_t b, size_t r)
{
    const uint8_t st = run->st[r];
    const char *tp = run->lines[b + r];
    uint32_t tl = run->lens[b + r];
    extract_trim(&tp, &tl);
    if (tl && memchr(tp, '\0', tl)) {
        if (st != EXTRACT_ERROR)
            abort();
        return;
    }
    json_error_t je;
    json_t *root = json_loadb(tp, tl, JSON_ALLOW_NUL, &je);
    if (!root) {
        if (!jansson_limit(&je) && st == EXTRACT_OK && !strstr(je.text, "depth"))
            abort();
        return;
    }
    size_t ll = 0, sl = 0;
    const char *log = json_is_object(root) ? outer_string(root, "log", &ll) : NULL;
    json_t *inner = NULL;
    size_t s = 0;
    if (log) {
        while (ll && strchr("\n\r \t", log[ll - 1]))
            ll--;
        while (s < ll && strchr("\n\r \t", log[s]))
            s++;
        if (memchr(log + s, '\0', ll - s) == NULL) {
            inner = json_loadb(log + s, ll - s, 0, &je);
            if (!inner && jansson_limit(&je)) {
                json_decref(root);
                return;
            }
        }
    }
    bool ok = inner && json_is_object(inner);
    if (ok != (st == EXTRACT_OK)) {
        /* only the depth limit may reject what jansson takes */
        if (!ok || !strstr(extractor_last_error(run->x), "nesting too deep"))
            abort();
        json_decref(inner);
        json_decref(root);
        return;
    }
    if (ok) {
        json_t *strict = json_loadb(log + s, ll - s, JSON_REJECT_DUPLICATES, &je);
        bool dups = !strict;
        json_decref(strict);
        for (size_t f = 0; f < run->nf; f++) {
            const char *name = run->fields[f];
            sv_t v = run->cols[f][r];
            if (strcmp(name, "$log") == 0) {
                check_sv(v, log, ll);
            } else if (strcmp(name, "$stream") == 0) {
                const char *stream = outer_string(root, "stream", &sl);
                check_sv(v, stream, sl);
            } else if (strcmp(name, "$time") == 0) {
                size_t tlen = 0;
                const char *t = outer_string(root, "time", &tlen);
                logtime_t lt;
                char iso[LOGTIME_MAX];
                size_t il = 0;
                if (t && logtime_parse(t, tlen, &tc, &lt))
                    il = logtime_write_utc(&lt, iso);
                check_sv(v, il ? iso : NULL, il);
            } else {
                jansson_compare(name, v, inner, dups);
            }
        }
    }
    json_decref(inner);
    json_decref(root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    xc_opts.now = tc.now;
    xc_run_t run;
    if (!xc_open(&run, "k8s", names, data, size, 3, false))
        return 0;
    for (size_t b = 0; b < run.n_lines; b += run.batch) {
        size_t m = xc_batch_len(&run, b);
        xc_extract(&run, b, m);
        for (size_t r = 0; r < m; r++) {
            xc_check_status(&run, run.st[r]);
            if (run.st[r] == EXTRACT_SKIP)
                abort();
            for (size_t f = 0; f < run.nf; f++) {
                sv_t v = run.cols[f][r];
                if (v.len == SV_MISSING)
                    continue;
                if (run.st[r] != EXTRACT_OK)
                    abort();
                xc_check_view(&run, v, run.lines[b + r], run.lens[b + r]);
            }
            check(&run, b, r);
        }
        xc_check_last_error(&run, m);
        xc_check_alone(&run, b, m, false);
    }
    xc_close(&run);
    return 0;
}
