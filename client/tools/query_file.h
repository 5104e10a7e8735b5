/* query_file.h: --query-file (dmap, dtail): the query text from a file or
 * from stdin ("-"), read whole when the flags are parsed, so an unreadable
 * file is a usage error before any input is read. */
#ifndef DTAIL_CLIENT_QUERY_FILE_H
#define DTAIL_CLIENT_QUERY_FILE_H

#include "base/err.h"

/* Reads the query in path ("-": stdin) into *out (malloc'd): the text
 * without its trailing blanks and without one final ';' (so a file that
 * the REPL's .read runs as one query is a query file too). At most 1 MiB,
 * no NUL byte, not blank. 0, or -1 with ERR_USAGE naming the file. */
int query_file_read(const char *path, char **out, err_t *e);

/* With the query on stdin, stdin is no input: files (--files) or a
 * positional argument must name the inputs, and none of them may be "-".
 * 0, or -1 with ERR_USAGE. */
int query_file_stdin_free(const char *files, char *const *positional, int n_positional,
                          err_t *e);

#endif
