/* fdio.h: writing a whole buffer to a file descriptor (and a copy of what
 * goes to stdout), and the process's descriptor limit. */
#ifndef DTAIL_BASE_FDIO_H
#define DTAIL_BASE_FDIO_H

#include <stddef.h>

/* Writes [p, p+n) to fd, going on after short writes and EINTR. 0, or -1
 * with errno set (EIO when a write took nothing). */
int fdio_write_all(int fd, const void *p, size_t n);
/* Every block fdio_write_all writes to stdout is also passed to copy
 * (NULL: none), before it is written: the clients' --log-payload, which
 * copies the payload into their log file. Set once at start-up. */
void fdio_copy_stdout(void (*copy)(const char *p, size_t n));

/* Raises the soft limit on open descriptors to the hard one: a follow of
 * a thousand files, or a fan-out to a thousand servers, holds a
 * descriptor each, past the usual soft limit of 1024. */
void fdio_raise_nofile(void);

#endif
