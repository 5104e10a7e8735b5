/* bucket_memo.h: bucket() of a time whose minute was seen last, without
 * parsing it again (see struct bucket_memo in eval_int.h). */
#ifndef DTAIL_EXEC_AGG_BUCKET_MEMO_H
#define DTAIL_EXEC_AGG_BUCKET_MEMO_H

#include <stdbool.h>
#include <stdint.h>

#include "exec/agg/eval_int.h"
#include "exec/extract/logtime.h"

/* The remembered bucket of [p, p+n) when it is certainly the bucket
 * bucket() would write: the same text as the remembered time but for
 * digits in its seconds (00-59) and fraction, and a width of whole
 * minutes. NULL otherwise. */
const char *bucket_memo_get(const struct bucket_memo *m, int64_t w, const char *p, uint32_t n,
                            uint8_t *len);
/* Remembers [p, p+n), parsed as t, and its bucket out[0..len); with
 * layout_given (a query's timeformat, whose text may put anything where
 * the standard layouts have their seconds) only the same text finds it. */
void bucket_memo_put(struct bucket_memo *m, const char *p, uint32_t n, const logtime_t *t,
                     bool layout_given, const char *out, size_t len);

#endif
