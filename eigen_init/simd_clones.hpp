#pragma once
/// @file Internal: PSCR_SIMD_CLONES compiles a hot function of eigen_init for AVX-512, AVX2 and
/// the baseline x86-64 and picks the best one the processor offers when the library is loaded
/// (GCC function multiversioning). The library itself is built for the baseline, so it still runs
/// anywhere; the secular-equation loops (one division per pole) run 2–4× faster with the wider
/// vectors. Empty on other compilers and architectures. Not public API.

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && !defined(__CUDACC__)
#define PSCR_SIMD_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define PSCR_SIMD_CLONES
#endif
