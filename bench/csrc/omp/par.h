/* The parallel-loop pragmas of csrc/omp/, spelled once for both C variants built from these sources:
 * - c-omp (the default): `#pragma omp parallel for`, RAJAPerf's Base_OpenMP, linked into omp-bench;
 * - c-omp-target (-DOMP_BENCH_TARGET): `#pragma omp target teams distribute parallel for`, RAJAPerf's
 *   Base_OpenMPTarget, built by GCC's NVPTX offload into a shared library that omp-bench loads. Its arrays are
 *   mapped by the caller (ompbench_target_enter/exit, gomp_map.c) before the timed rep loop, so each region
 *   finds them present and a pointer it names becomes the device address (OpenMP's zero-length array section
 *   rule for pointers); reduction variables are mapped tofrom.
 * A `#pragma omp parallel` region holding several `omp for` loops becomes one target region per loop. */
#ifndef OMP_BENCH_PAR_H
#define OMP_BENCH_PAR_H

#define OMP_PRAGMA(x) _Pragma(#x)

#if defined(OMP_BENCH_TARGET) && defined(OMP_BENCH_TARGET_SIMD)
#define PAR_FOR(...) OMP_PRAGMA(omp target teams distribute parallel for simd __VA_ARGS__)
#define TARGET_ONLY(...) __VA_ARGS__
#define PAR_REGION
#define FOR_IN_REGION OMP_PRAGMA(omp target teams distribute parallel for simd)
#elif defined(OMP_BENCH_TARGET)
#define PAR_FOR(...) OMP_PRAGMA(omp target teams distribute parallel for __VA_ARGS__)
#define TARGET_ONLY(...) __VA_ARGS__
#define PAR_REGION
#define FOR_IN_REGION OMP_PRAGMA(omp target teams distribute parallel for)
#else
#define PAR_FOR(...) OMP_PRAGMA(omp parallel for __VA_ARGS__)
#define TARGET_ONLY(...)
#define PAR_REGION OMP_PRAGMA(omp parallel)
#define FOR_IN_REGION OMP_PRAGMA(omp for)
#endif

#endif
