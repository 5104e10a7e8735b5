/* cpu.c: the CPU probe of cpu.h. */
#include "base/cpu.h"

static int probe(void)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    /* The vector passes also use BMI1/BMI2 and POPCNT (every AVX2 CPU
     * of note has them, but the probe does not assume it). */
    if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("bmi") ||
        !__builtin_cpu_supports("bmi2") || !__builtin_cpu_supports("popcnt"))
        return CPU_VEC_BASE;
    if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw"))
        return CPU_VEC_AVX2;
    return __builtin_cpu_supports("avx512vbmi2") ? CPU_VEC_AVX512VBMI2 : CPU_VEC_AVX512BW;
#else
    return CPU_VEC_BASE;
#endif
}

int cpu_vec_level(void)
{
    /* Every thread computes the same value: relaxed atomics suffice. */
    static int cached = -1;
    int level = __atomic_load_n(&cached, __ATOMIC_RELAXED);
    if (level < 0) {
        level = probe();
        __atomic_store_n(&cached, level, __ATOMIC_RELAXED);
    }
    return level;
}
