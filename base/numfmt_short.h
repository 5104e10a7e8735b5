/* numfmt_short.h: a double in its shortest exact decimal form, without an
 * exponent, byte for byte what Go's strconv.FormatFloat(v, 'f', -1, 64)
 * writes. DTail 4.1 servers send every aggregate number this way
 * (AGGREGATE messages), so a server of ours must write the same bytes.
 *
 * "Shortest exact": the fewest significant digits that read back (strtod,
 * round to nearest even) as the same double; of two such, the one closer
 * to the double. Then laid out as %f lays out, with no trailing zeros and
 * no '.' for integers:
 *
 *   value                  C "%g"                  C "%.17g"               here (and Go)
 *   0.1                    0.1                     0.10000000000000001     0.1
 *   3.0                    3                       3                       3
 *   1e21                   1e+21                   1e+21                   1000000000000000000000
 *   1e-7                   1e-07                   9.9999999999999995e-08  0.0000001
 *   123456789012345678     1.23457e+17             1.2345678901234568e+17  123456789012345680
 *   2^-1017                7.12024e-307            ...                     0.000...7120236347223045
 *   -0.0                   -0                      -0                      -0
 *   NaN, +inf, -inf        nan, inf, -inf                                  NaN, +Inf, -Inf
 *
 * No printf precision gives this: %.17g is exact but not shortest, %g is
 * short but not exact (and uses exponents). The digits come from glibc's
 * correctly rounded "%.*e" at the smallest precision that reads back; at a
 * power of two the double's lower neighbour is nearer than its upper one,
 * and there the nearest p-digit decimal can miss while the one on the far
 * side reads back (2^-1017 above: the nearest 16 digits end in ...044),
 * so the neighbours of the nearest are tried too. Integers below 2^53 are
 * printed directly. The result is at most NUMFMT_SHORT_MAX - 1 bytes
 * (5e-324 needs 326). */
#ifndef DTAIL_BASE_NUMFMT_SHORT_H
#define DTAIL_BASE_NUMFMT_SHORT_H

#include <stddef.h>

#define NUMFMT_SHORT_MAX 400

/* Writes v into buf (cap >= NUMFMT_SHORT_MAX is always enough) with a NUL;
 * returns the length, or -1 when cap is too small. */
int numfmt_shortest(char *buf, size_t cap, double v);

#endif
