// Host emulation of the part of the CUDA runtime that omp-bench-cuda uses, so the baseline's
// logic (setup, kernels, checksums, JSON) can be compiled with g++ and tested on a machine
// without a GPU: tests/cuda_emulation.rs builds bench/cuda/*.cu against this header and checks
// the checksums against the Rust seq variant. It is not used by run.sh.
//
// Kernels run sequentially: blocks in order, and within a block the threads in *reverse* order
// with __syncthreads() a no-op. For the shared-memory tree reductions of common.cuh and
// basic.cu this ordering is exact: when thread t runs step s it reads sh[t + s], which thread
// t + s (already finished) wrote for the last time at a step larger than s. Atomics are plain
// read-modify-writes.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>

#define __global__
#define __device__
#define __host__
#define __constant__
#define __shared__ static

struct dim3 {
    unsigned x, y, z;
    dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};

inline dim3 threadIdx, blockIdx, blockDim, gridDim;

inline void __syncthreads() {}

inline double atomicAdd(double *p, double v)
{
    double old = *p;
    *p = old + v;
    return old;
}
inline int atomicAdd(int *p, int v)
{
    int old = *p;
    *p = old + v;
    return old;
}
inline int atomicMin(int *p, int v)
{
    int old = *p;
    *p = std::min(old, v);
    return old;
}
inline int atomicMax(int *p, int v)
{
    int old = *p;
    *p = std::max(old, v);
    return old;
}
inline int min(int a, int b) { return std::min(a, b); }
inline int max(int a, int b) { return std::max(a, b); }

namespace rp_emu {
template <class Kernel>
auto launcher(Kernel kernel, dim3 grid, dim3 block)
{
    return [=](auto... args) {
        gridDim = grid;
        blockDim = block;
        const unsigned threads = block.x * block.y * block.z;
        for (unsigned bz = 0; bz < grid.z; ++bz)
            for (unsigned by = 0; by < grid.y; ++by)
                for (unsigned bx = 0; bx < grid.x; ++bx) {
                    blockIdx = dim3(bx, by, bz);
                    for (unsigned t = threads; t-- > 0;) {
                        threadIdx = dim3(t % block.x, (t / block.x) % block.y, t / (block.x * block.y));
                        kernel(args...);
                    }
                }
    };
}
} // namespace rp_emu

#define LAUNCH(kernel, grid, block) ::rp_emu::launcher(kernel, dim3(grid), dim3(block))

enum cudaError_t { cudaSuccess = 0, cudaErrorMemoryAllocation = 2 };
enum cudaMemcpyKind { cudaMemcpyHostToDevice = 1, cudaMemcpyDeviceToHost = 2 };
typedef int cudaStream_t;
typedef std::chrono::steady_clock::time_point *cudaEvent_t;

struct cudaDeviceProp {
    char name[256];
    int major, minor;
};

inline const char *cudaGetErrorString(cudaError_t e) { return e == cudaSuccess ? "no error" : "out of memory"; }
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }

template <class T>
cudaError_t cudaMalloc(T **p, size_t bytes)
{
    *p = static_cast<T *>(std::malloc(bytes));
    return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
template <class T>
cudaError_t cudaMallocHost(T **p, size_t bytes)
{
    return cudaMalloc(p, bytes);
}
inline cudaError_t cudaFree(void *p)
{
    std::free(p);
    return cudaSuccess;
}
inline cudaError_t cudaFreeHost(void *p) { return cudaFree(p); }
inline cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, cudaMemcpyKind)
{
    std::memcpy(dst, src, n);
    return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, cudaMemcpyKind k, cudaStream_t = 0)
{
    return cudaMemcpy(dst, src, n, k);
}
inline cudaError_t cudaMemset(void *p, int v, size_t n)
{
    std::memset(p, v, n);
    return cudaSuccess;
}
inline cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t = 0) { return cudaMemset(p, v, n); }
template <class T>
cudaError_t cudaMemcpyToSymbol(T &symbol, const void *src, size_t n)
{
    std::memcpy(&symbol, src, n);
    return cudaSuccess;
}

inline cudaError_t cudaEventCreate(cudaEvent_t *e)
{
    *e = new std::chrono::steady_clock::time_point();
    return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t = 0)
{
    *e = std::chrono::steady_clock::now();
    return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    *ms = std::chrono::duration<float, std::milli>(*b - *a).count();
    return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    delete e;
    return cudaSuccess;
}

inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int)
{
    std::snprintf(p->name, sizeof(p->name), "host emulation (no GPU)");
    p->major = 0;
    p->minor = 0;
    return cudaSuccess;
}
