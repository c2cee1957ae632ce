#pragma once
/// @file PSCR_FD_HD marks the few small functions that the FD and FFT kernels and their CPU
/// emulation in tests/bench share (thomas.hpp, bench/peers/fft_plan.hpp), so both run the same
/// code. Outside nvcc it expands to nothing and those headers are plain C++: a deliberate exception
/// to "no CUDA syntax in .hpp", one copy of the arithmetic instead of two that could drift apart.

#if defined(__CUDACC__)
#define PSCR_FD_HD __host__ __device__
#else
#define PSCR_FD_HD
#endif
