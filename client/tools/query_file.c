/* query_file.c: the query of --query-file, and what may come with it. */
#include "client/tools/query_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exec/scan/targets.h"

#define QUERY_FILE_MAX (1u << 20)

static int is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* Reads at most QUERY_FILE_MAX + 1 bytes of fd into buf. */
static ssize_t read_some(int fd, char *buf)
{
    size_t n = 0;
    while (n <= QUERY_FILE_MAX) {
        ssize_t k = read(fd, buf + n, QUERY_FILE_MAX + 1 - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -1;
        if (k == 0)
            break;
        n += (size_t)k;
    }
    return (ssize_t)n;
}

int query_file_read(const char *path, char **out, err_t *e)
{
    *out = NULL;
    int use_stdin = strcmp(path, "-") == 0;
    int fd = use_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return err_set(e, ERR_USAGE, "-query-file %s: %s", path, strerror(errno));
    char *buf = malloc(QUERY_FILE_MAX + 2);
    ssize_t n = buf ? read_some(fd, buf) : -1;
    int err = errno;
    if (!use_stdin)
        close(fd);
    if (!buf)
        return err_set(e, ERR_NOMEM, "out of memory");
    int rc = 0;
    if (n < 0)
        rc = err_set(e, ERR_USAGE, "-query-file %s: %s", path, strerror(err));
    else if ((size_t)n > QUERY_FILE_MAX)
        rc = err_set(e, ERR_USAGE, "-query-file %s: larger than %u bytes; a query is shorter",
                     path, QUERY_FILE_MAX);
    else if (memchr(buf, '\0', (size_t)n))
        rc = err_set(e, ERR_USAGE, "-query-file %s: holds a NUL byte; a query is text", path);
    if (rc < 0) {
        free(buf);
        return -1;
    }
    /* Blanks at the end, and one ';' (the REPL's end of a query) with
     * the blanks before it. */
    size_t len = (size_t)n;
    while (len && is_blank(buf[len - 1]))
        len--;
    if (len && buf[len - 1] == ';')
        len--;
    while (len && is_blank(buf[len - 1]))
        len--;
    buf[len] = '\0';
    size_t lead = 0;
    while (lead < len && is_blank(buf[lead]))
        lead++;
    if (lead == len) {
        free(buf);
        return err_set(e, ERR_USAGE, "-query-file %s: holds no query", path);
    }
    *out = buf;
    return 0;
}

int query_file_stdin_free(const char *files, char *const *positional, int n_positional,
                          err_t *e)
{
    int given = 0;
    const char *p = files ? files : "", *entry;
    size_t len;
    while (target_spec_next(&p, &entry, &len)) {
        given = 1;
        if (len == 1 && entry[0] == '-')
            given = -1;
    }
    for (int i = 0; i < n_positional && given >= 0; i++)
        given = strcmp(positional[i], "-") == 0 ? -1 : 1;
    if (given > 0)
        return 0;
    return err_set(e, ERR_USAGE, "-query-file - reads the query from stdin, so stdin cannot be "
                                 "an input too: give the inputs as files");
}
