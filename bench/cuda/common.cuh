// Shared pieces of the CUDA baseline: error checks, device buffers, the rep timer, reductions
// and the kernel registry type. Host-side init and checksums come from ../csrc/rpdata.c, the
// same C file the Rust suite uses, so both start from identical data.
#pragma once

#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../csrc/rpdata.h"

#define CUDA_CHECK(call)                                                                    \
    do {                                                                                    \
        cudaError_t err_ = (call);                                                          \
        if (err_ != cudaSuccess) {                                                          \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,       \
                         cudaGetErrorString(err_));                                         \
            std::exit(3);                                                                   \
        }                                                                                   \
    } while (0)

// Kernel launch, written LAUNCH(kernel, grid, block)(args...): CUDA's <<<grid, block>>> under
// nvcc. The host emulation used by the tests (emu/cuda_runtime.h) defines its own.
#ifndef LAUNCH
#define LAUNCH(kernel, grid, block) kernel<<<grid, block>>>
#endif

// Threads per block, as RAJAPerf's Base_CUDA default tuning (block_256).
constexpr int BLOCK = 256;
// RAJAPerf's default target size and our --size small (must match src/harness.rs).
constexpr int64_t DEFAULT_TARGET = 1000000;
constexpr int64_t SMALL_TARGET = 32768;

inline unsigned grid_for(int64_t n)
{
    return static_cast<unsigned>((n + BLOCK - 1) / BLOCK);
}

inline unsigned blocks_for(int64_t n, int per_block)
{
    return static_cast<unsigned>((n + per_block - 1) / per_block);
}

// A device copy of a host vector (or an uninitialised device array), freed on scope exit.
template <class T>
struct DevBuf {
    T *p = nullptr;
    int64_t n = 0;

    explicit DevBuf(int64_t len) : n(len)
    {
        CUDA_CHECK(cudaMalloc(&p, sizeof(T) * static_cast<size_t>(n > 0 ? n : 1)));
    }
    explicit DevBuf(const std::vector<T> &h) : DevBuf(static_cast<int64_t>(h.size()))
    {
        CUDA_CHECK(cudaMemcpy(p, h.data(), sizeof(T) * h.size(), cudaMemcpyHostToDevice));
    }
    void to_host(std::vector<T> &h) const
    {
        CUDA_CHECK(cudaMemcpy(h.data(), p, sizeof(T) * h.size(), cudaMemcpyDeviceToHost));
    }
    ~DevBuf() { cudaFree(p); }
    DevBuf(const DevBuf &) = delete;
    DevBuf &operator=(const DevBuf &) = delete;
};

// Pinned host scalar(s) for reduction results copied back every rep.
template <class T>
struct PinnedBuf {
    T *p = nullptr;
    explicit PinnedBuf(size_t n) { CUDA_CHECK(cudaMallocHost(&p, sizeof(T) * n)); }
    ~PinnedBuf() { cudaFreeHost(p); }
    PinnedBuf(const PinnedBuf &) = delete;
    PinnedBuf &operator=(const PinnedBuf &) = delete;
};

// Times the rep loop like RAJAPerf: synchronise, start, ..., synchronise, stop.
struct RepTimer {
    std::chrono::steady_clock::time_point t0;
    double seconds = 0.0;
    void start()
    {
        CUDA_CHECK(cudaDeviceSynchronize());
        t0 = std::chrono::steady_clock::now();
    }
    void stop()
    {
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaDeviceSynchronize());
        seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
};

inline std::vector<double> init_data(int64_t n, int *counter)
{
    std::vector<double> a(static_cast<size_t>(n));
    rp_init_data(a.data(), n, counter);
    return a;
}

inline std::vector<double> init_const(int64_t n, double v, int *counter)
{
    std::vector<double> a(static_cast<size_t>(n));
    rp_init_data_const(a.data(), n, v, counter);
    return a;
}

inline long double cks(const std::vector<double> &a, double scale)
{
    long double acc = 0.0L;
    rp_cks_add_f64(&acc, a.data(), static_cast<int64_t>(a.size()), scale);
    return acc;
}

inline long double cks_prefix(const std::vector<double> &a, int64_t n, double scale)
{
    long double acc = 0.0L;
    rp_cks_add_f64(&acc, a.data(), n, scale);
    return acc;
}

// Block-wide sum of one value per thread (blockDim.x == BLOCK); valid in thread 0.
__device__ inline double block_sum(double v)
{
    __shared__ double sh[BLOCK];
    sh[threadIdx.x] = v;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    return sh[0];
}

struct Spec {
    int64_t target;
    int64_t reps;
};

struct Outcome {
    int64_t problem_size;
    long double checksum;
    double seconds;
    double bytes_per_rep;
};

struct KernelEntry {
    const char *name;
    const char *group;
    int64_t default_reps;
    // true: a sum whose order the GPU changes (reductions); tolerance 2(n+reps)u, else 1e-10.
    bool reordered_sum;
    Outcome (*run)(const Spec &);
    // The kernel written as CUDA's tiled kernels are (shared-memory tiles, __syncthreads), run by `--tiled`;
    // null for the kernels that have none.
    Outcome (*run_tiled)(const Spec &) = nullptr;
};

// c * (default / actual) formed in long double, as the Rust suite's size_scale.
inline double size_scale(double c, int64_t (*problem_size)(int64_t), int64_t target)
{
    return rp_scale(c, problem_size(DEFAULT_TARGET), problem_size(target));
}

// Registries, one per group (each .cu file defines its own).
extern const KernelEntry STREAM_KERNELS[];
extern const int STREAM_COUNT;
extern const KernelEntry BASIC_KERNELS[];
extern const int BASIC_COUNT;
extern const KernelEntry LCALS_KERNELS[];
extern const int LCALS_COUNT;
extern const KernelEntry POLYBENCH_KERNELS[];
extern const int POLYBENCH_COUNT;
extern const KernelEntry APPS_KERNELS[];
extern const int APPS_COUNT;
