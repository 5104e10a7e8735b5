/* numfmt.h: the number formats of results (and the one size syntax), byte for byte what printf
 * writes, without printf's cost (a million-row CSV spent a third of its
 * time in printf's %f).
 *
 * numfmt_fixed6 is "%f": six decimals, rounded exactly (the binary value,
 * ties to even), "-0.000000" for negatives that round to zero. Values it
 * cannot do in integers (|v| >= 2^63, NaN, infinities) go to snprintf. */
#ifndef DTAIL_BASE_NUMFMT_H
#define DTAIL_BASE_NUMFMT_H

#include <stddef.h>
#include <stdint.h>

/* Writes v as "%f" into buf (cap >= 32 is always enough for |v| < 2^63);
 * returns the length as snprintf does. */
int numfmt_fixed6(char *buf, size_t cap, double v);
/* Writes v as "%llu". */
int numfmt_u64(char *buf, size_t cap, uint64_t v);
/* Reads a size as --memory-limit and Server.MapMemoryLimit take it:
 * bytes, or a number with K, M, G or T (powers of 1024, an optional
 * trailing B or iB: 512M, 2GiB); at least 1. 0, or -1 when it is none. */
int numfmt_parse_size(const char *v, unsigned long long *out);

#endif
