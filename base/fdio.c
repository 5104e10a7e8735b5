/* fdio.c: see fdio.h. */
#include "base/fdio.h"

#include <errno.h>
#include <sys/resource.h>
#include <unistd.h>

static void (*stdout_copy)(const char *p, size_t n);

void fdio_copy_stdout(void (*copy)(const char *p, size_t n))
{
    stdout_copy = copy;
}

int fdio_write_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    if (fd == STDOUT_FILENO && stdout_copy)
        stdout_copy(p, n);
    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            if (w == 0)
                errno = EIO;
            return -1;
        }
        c += w;
        n -= (size_t)w;
    }
    return 0;
}

void fdio_raise_nofile(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}
