/* cpu.h: which vector instructions this CPU has, probed once.
 *
 * The vector paths (the literal search, the default format's one-pass
 * splitter) are compiled for several instruction sets and pick one at run
 * time; this is the one probe they share. Levels are ordered: each
 * includes the ones below. */
#ifndef DTAIL_BASE_CPU_H
#define DTAIL_BASE_CPU_H

enum cpu_vec {
    CPU_VEC_BASE = 0,       /* SSE2 on x86-64; portable C elsewhere */
    CPU_VEC_AVX2 = 1,       /* AVX2, with BMI1, BMI2 and POPCNT */
    CPU_VEC_AVX512BW = 2,   /* AVX-512 F and BW */
    CPU_VEC_AVX512VBMI2 = 3 /* and VBMI2 (byte and word compress) */
};

/* The highest level this CPU (and its OS) supports. Thread-safe. */
int cpu_vec_level(void);

#endif
