/* fdio.h: writing a whole buffer to a file descriptor. */
#ifndef DTAIL_BASE_FDIO_H
#define DTAIL_BASE_FDIO_H

#include <stddef.h>

/* Writes [p, p+n) to fd, going on after short writes and EINTR. 0, or -1
 * with errno set (EIO when a write took nothing). */
int fdio_write_all(int fd, const void *p, size_t n);

#endif
