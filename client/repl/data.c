/* data.c: inputs read once into memory files. */
#include "client/repl/data.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/fdio.h"
#include "base/term.h"
#include "exec/scan/input.h"

#define COPY_CHUNK (1024 * 1024)

/* Decodes in into a new memfd while it stays within room bytes. Returns
 * the descriptor, -1 when it does not fit or memfds are not available
 * (then the input is re-read per query), -2 on a read error (e set). Also
 * fills the sample when it is still empty. */
static int copy_to_memory(repl_data_t *d, input_t *in, long long room,
                          long long *bytes, err_t *e)
{
    char *buf = malloc(COPY_CHUNK);
    int fd = buf ? memfd_create("dtail-repl", MFD_CLOEXEC) : -1;
    long long total = 0;
    int rc = fd;
    while (fd >= 0) {
        ssize_t n = input_read(in, buf, COPY_CHUNK, e);
        if (n < 0) {
            rc = -2;
            break;
        }
        if (n == 0)
            break;
        if (!d->sample_len && !d->sample) {
            size_t k = (size_t)n < REPL_SAMPLE_BYTES ? (size_t)n : REPL_SAMPLE_BYTES;
            if ((d->sample = malloc(k)))
                memcpy(d->sample, buf, d->sample_len = k);
        }
        total += n;
        if (total > room || fdio_write_all(fd, buf, (size_t)n) < 0) {
            rc = -1;
            break;
        }
    }
    free(buf);
    if (rc < 0 && fd >= 0)
        close(fd);
    *bytes = total;
    return rc;
}

/* The sample from an input that stays on disk. */
static void read_sample(repl_data_t *d, const char *path)
{
    err_t e;
    input_t *in = input_open(path, &e);
    if (!in || !(d->sample = malloc(REPL_SAMPLE_BYTES))) {
        input_close(in);
        return;
    }
    while (d->sample_len < REPL_SAMPLE_BYTES) {
        ssize_t n = input_read(in, d->sample + d->sample_len, REPL_SAMPLE_BYTES - d->sample_len, &e);
        if (n <= 0)
            break;
        d->sample_len += (size_t)n;
    }
    input_close(in);
}

int repl_data_load(repl_data_t *d, const target_t *targets, size_t n, long long budget,
                   client_run_t *run, err_t *e)
{
    memset(d, 0, sizeof *d);
    d->targets = targets;
    d->n = n;
    d->budget = budget;
    d->mem_fds = malloc((n ? n : 1) * sizeof *d->mem_fds);
    d->bytes = malloc((n ? n : 1) * sizeof *d->bytes);
    if (!d->mem_fds || !d->bytes)
        return err_set(e, ERR_NOMEM, "out of memory");
    long long used = 0;
    for (size_t i = 0; i < n; i++) {
        d->mem_fds[i] = -1;
        d->bytes[i] = -1;
        err_t ie;
        err_clear(&ie);
        input_t *in = input_open(targets[i].path, &ie);
        if (!in) {
            client_report(run, &ie);
            continue;
        }
        long long size = input_plain_size(in);
        if (size >= 0 && used + size > budget) {
            d->bytes[i] = size;   /* too large: re-read by every query */
        } else {
            long long got = 0;
            int fd = copy_to_memory(d, in, budget - used, &got, &ie);
            if (fd == -2)
                client_report(run, &ie);
            d->mem_fds[i] = fd >= 0 ? fd : -1;
            d->bytes[i] = fd >= 0 ? got : size;
            if (fd >= 0)
                used += got;
        }
        input_close(in);
        if (!d->sample)
            read_sample(d, targets[i].path);
    }
    return 0;
}

void repl_data_free(repl_data_t *d)
{
    for (size_t i = 0; d->mem_fds && i < d->n; i++)
        if (d->mem_fds[i] >= 0)
            close(d->mem_fds[i]);
    free(d->mem_fds);
    free(d->bytes);
    free(d->sample);
    memset(d, 0, sizeof *d);
}

static void human(char *buf, size_t cap, long long b)
{
    if (b < 0)
        snprintf(buf, cap, "size unknown");
    else if (b < 1024 * 1024)
        snprintf(buf, cap, "%.1f KiB", (double)b / 1024);
    else
        snprintf(buf, cap, "%.1f MiB", (double)b / (1024 * 1024));
}

void repl_data_describe(const repl_data_t *d, FILE *out)
{
    for (size_t i = 0; i < d->n; i++) {
        char size[32];
        human(size, sizeof size, d->bytes[i]);
        if (d->mem_fds[i] >= 0)
            term_fprintf(out, "%s\t%s, in memory (read once)\n", d->targets[i].path, size);
        else
            term_fprintf(out, "%s\t%s, re-scanned by each query\n", d->targets[i].path, size);
    }
    fprintf(out, "(memory budget %lld MiB for all inputs together)\n", d->budget >> 20);
}
