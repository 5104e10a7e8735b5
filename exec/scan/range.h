/* range.h: cutting a plain file into byte ranges that workers read in
 * parallel, with whole lines: a line belongs to the range its first byte
 * lies in. Shared by the parallel cat/grep scan and the mapreduce scan. */
#ifndef DTAIL_EXEC_RANGE_H
#define DTAIL_EXEC_RANGE_H

#include "base/err.h"
#include "exec/scan/input.h"
#include "exec/scan/reader.h"

/* Offset of the first line that starts in [a, b): one past the first '\n'
 * in [a - 1, b - 1). Sets *start = b when no line starts there (the range
 * lies inside a line owned by an earlier range). */
int range_first_line(input_t *whole, long long a, long long b, long long *start, err_t *e);

/* The part of region reg holding lines that start before stop. Returns the
 * end of that part (reg->p when none) and sets *last when the range ends
 * inside this region. */
const char *range_cut(const region_t *reg, long long stop, int *last);

#endif
