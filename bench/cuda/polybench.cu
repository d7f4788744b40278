// Polybench kernels, CUDA.
#include "common.cuh"

namespace {

int64_t extent_2d(int64_t target)
{
    return static_cast<int64_t>(std::sqrt(static_cast<double>(target)) + std::sqrt(2.0) - 1.0);
}
int64_t ps_2d(int64_t target) { return extent_2d(target) * extent_2d(target); }

int64_t heat_extent(int64_t target)
{
    return static_cast<int64_t>(std::cbrt(static_cast<double>(target)) + 2.0 + std::cbrt(3.0) - 1.0);
}
int64_t ps_heat(int64_t target)
{
    int64_t m = heat_extent(target) - 2;
    return m * m * m;
}

int64_t jacobi2d_extent(int64_t target)
{
    return static_cast<int64_t>(std::sqrt(static_cast<double>(target)) + 2.0 + std::sqrt(2.0) - 1.0);
}
int64_t ps_jacobi2d(int64_t target)
{
    int64_t m = jacobi2d_extent(target) - 2;
    return m * m;
}

int64_t ps_1d(int64_t target) { return target; }

__global__ void atax_1(double *tmp, const double *x, const double *a, double *y, int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (i < n) {
        y[i] = 0.0;
        double dot = 0.0;
        for (int64_t j = 0; j < n; ++j) dot += a[j + i * n] * x[j];
        tmp[i] = dot;
    }
}

__global__ void atax_2(const double *tmp, const double *a, double *y, int64_t n)
{
    int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (j < n) {
        double dot = y[j];
        for (int64_t i = 0; i < n; ++i) dot += a[j + i * n] * tmp[i];
        y[j] = dot;
    }
}

__global__ void gemm_k(const double *a, const double *b, double *c, int64_t ni, int64_t nj, int64_t nk,
                       double alpha)
{
    int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    int64_t i = blockIdx.y * static_cast<int64_t>(blockDim.y) + threadIdx.y;
    if (i < ni && j < nj) {
        double dot = 0.0;
        for (int64_t k = 0; k < nk; ++k) dot += alpha * a[k + i * nk] * b[j + k * nj];
        c[j + i * nj] = dot;
    }
}

__global__ void heat_3d_k(const double *src, double *dst, int64_t n)
{
    int64_t k = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x + 1;
    int64_t j = blockIdx.y * static_cast<int64_t>(blockDim.y) + threadIdx.y + 1;
    int64_t i = blockIdx.z * static_cast<int64_t>(blockDim.z) + threadIdx.z + 1;
    if (i < n - 1 && j < n - 1 && k < n - 1) {
#define AT(i, j, k) ((k) + n * ((j) + n * (i)))
        double c = src[AT(i, j, k)];
        dst[AT(i, j, k)] = 0.125 * (src[AT(i + 1, j, k)] - 2.0 * c + src[AT(i - 1, j, k)]) +
                           0.125 * (src[AT(i, j + 1, k)] - 2.0 * c + src[AT(i, j - 1, k)]) +
                           0.125 * (src[AT(i, j, k + 1)] - 2.0 * c + src[AT(i, j, k - 1)]) + c;
#undef AT
    }
}

__global__ void jacobi_1d_k(const double *src, double *dst, int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x + 1;
    if (i < n - 1) dst[i] = 0.33333 * (src[i - 1] + src[i] + src[i + 1]);
}

__global__ void jacobi_2d_k(const double *src, double *dst, int64_t n)
{
    int64_t j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x + 1;
    int64_t i = blockIdx.y * static_cast<int64_t>(blockDim.y) + threadIdx.y + 1;
    if (i < n - 1 && j < n - 1) {
        dst[j + i * n] = 0.2 * (src[j + i * n] + src[j - 1 + i * n] + src[j + 1 + i * n] +
                                src[j + (i + 1) * n] + src[j + (i - 1) * n]);
    }
}

Outcome run_atax(const Spec &s)
{
    int64_t n = extent_2d(s.target);
    int counter = 0;
    std::vector<double> tmp = init_data(n, &counter);
    std::vector<double> x = init_data(n, &counter);
    std::vector<double> a = init_data(n * n, &counter);
    std::vector<double> y = init_const(n, 0.0, &counter);
    DevBuf<double> dtmp(tmp), dx(x), da(a), dy(y);
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) {
        LAUNCH(atax_1, grid_for(n), BLOCK)(dtmp.p, dx.p, da.p, dy.p, n);
        LAUNCH(atax_2, grid_for(n), BLOCK)(dtmp.p, da.p, dy.p, n);
    }
    t.stop();
    dy.to_host(y);
    return {n * n, cks(y, size_scale(0.001, ps_2d, s.target)), t.seconds, (2.0 * n * n + 4.0 * n) * 8};
}

Outcome run_gemm(const Spec &s)
{
    int64_t n = extent_2d(s.target);
    int64_t nk = static_cast<int64_t>(1200.0 / 1000.0 * static_cast<double>(n));
    int counter = 0;
    std::vector<double> a = init_data(n * nk, &counter);
    std::vector<double> b = init_data(nk * n, &counter);
    std::vector<double> c = init_const(n * n, 0.0, &counter);
    DevBuf<double> da(a), db(b), dc(c);
    dim3 block(32, 8);
    dim3 grid(blocks_for(n, 32), blocks_for(n, 8));
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) LAUNCH(gemm_k, grid, block)(da.p, db.p, dc.p, n, n, nk, 0.62);
    t.stop();
    dc.to_host(c);
    double bytes = static_cast<double>(n * nk + nk * n + n * n) * 8;
    return {n * n, cks(c, size_scale(0.001, ps_2d, s.target)), t.seconds, bytes};
}

// The tiled forms of omp-gpu-tiled (bench/src/kernels/polybench/omp_gpu_tiled.rs), the same algorithms in CUDA:
// GEMM one block per 20 x 20 tile of C, ATAX 32 threads per row (then per column) and a shared-memory tree.
constexpr int GEMM_TILE = 20;

__global__ void gemm_tiled_k(const double *a, const double *b, double *c, int64_t ni, int64_t nj, int64_t nk,
                             double alpha)
{
    __shared__ double ta[GEMM_TILE][GEMM_TILE];
    __shared__ double tb[GEMM_TILE][GEMM_TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int64_t i = blockIdx.y * static_cast<int64_t>(GEMM_TILE) + ty;
    int64_t j = blockIdx.x * static_cast<int64_t>(GEMM_TILE) + tx;
    double dot = 0.0;
    for (int64_t k0 = 0; k0 < nk; k0 += GEMM_TILE) {
        ta[ty][tx] = (i < ni && k0 + tx < nk) ? a[k0 + tx + i * nk] : 0.0;
        tb[ty][tx] = (k0 + ty < nk && j < nj) ? b[j + (k0 + ty) * nj] : 0.0;
        __syncthreads();
        for (int k = 0; k < GEMM_TILE; ++k) dot += alpha * ta[ty][k] * tb[k][tx];
        __syncthreads();
    }
    if (i < ni && j < nj) c[j + i * nj] = dot;
}

__global__ void atax_tiled_1(double *tmp, const double *x, const double *a, double *y, int64_t n)
{
    __shared__ double part[8][32];
    int lane = threadIdx.x % 32, ty = threadIdx.x / 32;
    int64_t i = blockIdx.x * 8ll + ty;
    double dot = 0.0;
    for (int64_t j = lane; j < n; j += 32)
        if (i < n) dot += a[j + i * n] * x[j];
    part[ty][lane] = dot;
    __syncthreads();
    for (int half = 16; half > 0; half /= 2) {
        if (lane < half) part[ty][lane] += part[ty][lane + half];
        __syncthreads();
    }
    if (lane == 0 && i < n) {
        y[i] = 0.0;
        tmp[i] = part[ty][0];
    }
}

__global__ void atax_tiled_2(const double *tmp, const double *a, double *y, int64_t n)
{
    __shared__ double part[32][32];
    int lane = threadIdx.x % 32, g = threadIdx.x / 32;
    int64_t j = blockIdx.x * 32ll + lane;
    double dot = 0.0;
    for (int64_t i = g; i < n; i += 32)
        if (j < n) dot += a[j + i * n] * tmp[i];
    part[g][lane] = dot;
    __syncthreads();
    for (int half = 16; half > 0; half /= 2) {
        if (g < half) part[g][lane] += part[g + half][lane];
        __syncthreads();
    }
    if (g == 0 && j < n) y[j] += part[0][lane];
}

Outcome run_atax_tiled(const Spec &s)
{
    int64_t n = extent_2d(s.target);
    int counter = 0;
    std::vector<double> tmp = init_data(n, &counter);
    std::vector<double> x = init_data(n, &counter);
    std::vector<double> a = init_data(n * n, &counter);
    std::vector<double> y = init_const(n, 0.0, &counter);
    DevBuf<double> dtmp(tmp), dx(x), da(a), dy(y);
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) {
        LAUNCH(atax_tiled_1, blocks_for(n, 8), 256)(dtmp.p, dx.p, da.p, dy.p, n);
        LAUNCH(atax_tiled_2, blocks_for(n, 32), 1024)(dtmp.p, da.p, dy.p, n);
    }
    t.stop();
    dy.to_host(y);
    return {n * n, cks(y, size_scale(0.001, ps_2d, s.target)), t.seconds, (2.0 * n * n + 4.0 * n) * 8};
}

Outcome run_gemm_tiled(const Spec &s)
{
    int64_t n = extent_2d(s.target);
    int64_t nk = static_cast<int64_t>(1200.0 / 1000.0 * static_cast<double>(n));
    int counter = 0;
    std::vector<double> a = init_data(n * nk, &counter);
    std::vector<double> b = init_data(nk * n, &counter);
    std::vector<double> c = init_const(n * n, 0.0, &counter);
    DevBuf<double> da(a), db(b), dc(c);
    dim3 block(GEMM_TILE, GEMM_TILE);
    dim3 grid(blocks_for(n, GEMM_TILE), blocks_for(n, GEMM_TILE));
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) LAUNCH(gemm_tiled_k, grid, block)(da.p, db.p, dc.p, n, n, nk, 0.62);
    t.stop();
    dc.to_host(c);
    double bytes = static_cast<double>(n * nk + nk * n + n * n) * 8;
    return {n * n, cks(c, size_scale(0.001, ps_2d, s.target)), t.seconds, bytes};
}

Outcome run_heat_3d(const Spec &s)
{
    const int64_t tsteps = 20;
    int64_t n = heat_extent(s.target);
    int counter = 0;
    std::vector<double> a = init_data(n * n * n, &counter);
    std::vector<double> b = init_data(n * n * n, &counter);
    DevBuf<double> da(a), db(b);
    dim3 block(32, 4, 2);
    dim3 grid(blocks_for(n - 2, 32), blocks_for(n - 2, 4), blocks_for(n - 2, 2));
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) {
        for (int64_t step = 0; step < tsteps; ++step) {
            LAUNCH(heat_3d_k, grid, block)(da.p, db.p, n);
            LAUNCH(heat_3d_k, grid, block)(db.p, da.p, n);
        }
    }
    t.stop();
    da.to_host(a);
    db.to_host(b);
    double sc = size_scale(0.0001, ps_heat, s.target);
    double bytes = tsteps * 2.0 * static_cast<double>(n * n * n + (n - 2) * (n - 2) * (n - 2)) * 8;
    return {ps_heat(s.target), cks(a, sc) + cks(b, sc), t.seconds, bytes};
}

Outcome run_jacobi_1d(const Spec &s)
{
    const int64_t tsteps = 16;
    int64_t n = s.target + 2;
    int counter = 0;
    std::vector<double> a = init_data(n, &counter);
    std::vector<double> b = init_data(n, &counter);
    DevBuf<double> da(a), db(b);
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) {
        for (int64_t step = 0; step < tsteps; ++step) {
            LAUNCH(jacobi_1d_k, grid_for(n - 2), BLOCK)(da.p, db.p, n);
            LAUNCH(jacobi_1d_k, grid_for(n - 2), BLOCK)(db.p, da.p, n);
        }
    }
    t.stop();
    da.to_host(a);
    db.to_host(b);
    double sc = size_scale(0.0001, ps_1d, s.target);
    double bytes = tsteps * 2.0 * (static_cast<double>(n) + static_cast<double>(n - 2)) * 8;
    return {s.target, cks(a, sc) + cks(b, sc), t.seconds, bytes};
}

Outcome run_jacobi_2d(const Spec &s)
{
    const int64_t tsteps = 40;
    int64_t n = jacobi2d_extent(s.target);
    int counter = 0;
    std::vector<double> a = init_data(n * n, &counter);
    std::vector<double> b = init_data(n * n, &counter);
    DevBuf<double> da(a), db(b);
    dim3 block(32, 8);
    dim3 grid(blocks_for(n - 2, 32), blocks_for(n - 2, 8));
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) {
        for (int64_t step = 0; step < tsteps; ++step) {
            LAUNCH(jacobi_2d_k, grid, block)(da.p, db.p, n);
            LAUNCH(jacobi_2d_k, grid, block)(db.p, da.p, n);
        }
    }
    t.stop();
    da.to_host(a);
    db.to_host(b);
    double sc = size_scale(0.0001, ps_jacobi2d, s.target);
    double bytes = tsteps * 2.0 * static_cast<double>(n * n + (n - 2) * (n - 2)) * 8;
    return {ps_jacobi2d(s.target), cks(a, sc) + cks(b, sc), t.seconds, bytes};
}

} // namespace

const KernelEntry POLYBENCH_KERNELS[] = {
    {"Polybench_ATAX", "Polybench", 100, false, run_atax, run_atax_tiled},
    {"Polybench_GEMM", "Polybench", 4, false, run_gemm, run_gemm_tiled},
    {"Polybench_HEAT_3D", "Polybench", 20, false, run_heat_3d},
    {"Polybench_JACOBI_1D", "Polybench", 100, false, run_jacobi_1d},
    {"Polybench_JACOBI_2D", "Polybench", 50, false, run_jacobi_2d},
};
const int POLYBENCH_COUNT = sizeof(POLYBENCH_KERNELS) / sizeof(POLYBENCH_KERNELS[0]);
