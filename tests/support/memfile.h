/* memfile.h: test inputs as real files (memfd), so the engine's real open
 * path reads them: mmap for large plain files, read() for small ones. */
#ifndef DTAIL_TESTS_MEMFILE_H
#define DTAIL_TESTS_MEMFILE_H

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

/* Writes data to a new memfd and returns its /proc path in path (cap bytes);
 * returns the fd (close it when done) or -1. */
static inline int memfile_create(const void *data, size_t n, char *path, size_t cap)
{
    int fd = memfd_create("dtail-test", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    const char *p = data;
    size_t left = n;
    while (left) {
        ssize_t w = write(fd, p, left);
        if (w <= 0) {
            close(fd);
            return -1;
        }
        p += w;
        left -= (size_t)w;
    }
    snprintf(path, cap, "/proc/self/fd/%d", fd);
    return fd;
}

#endif
