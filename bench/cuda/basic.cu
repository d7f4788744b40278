// Basic kernels, CUDA.
#include <climits>

#include "common.cuh"

namespace {

int64_t ps_1d(int64_t target) { return target; }

int64_t nested_extent(int64_t target)
{
    return static_cast<int64_t>(std::cbrt(static_cast<double>(target)) + std::cbrt(3.0) - 1.0);
}

__global__ void daxpy_k(double *y, const double *x, double a, int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}

__global__ void daxpy_atomic_k(double *y, const double *x, double a, int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (i < n) atomicAdd(&y[i], a * x[i]);
}

__global__ void if_quad_k(const double *a, const double *b, const double *c, double *x1, double *x2,
                          int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (i < n) {
        double s = b[i] * b[i] - 4.0 * a[i] * c[i];
        if (s >= 0) {
            s = sqrt(s);
            x2[i] = (-b[i] + s) / (2.0 * a[i]);
            x1[i] = (-b[i] - s) / (2.0 * a[i]);
        } else {
            x2[i] = 0.0;
            x1[i] = 0.0;
        }
    }
}

__global__ void init3_k(double *out1, double *out2, double *out3, const double *in1,
                        const double *in2, int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (i < n) out1[i] = out2[i] = out3[i] = -in1[i] - in2[i];
}

__global__ void muladdsub_k(double *out1, double *out2, double *out3, const double *in1,
                            const double *in2, int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (i < n) {
        out1[i] = in1[i] * in2[i];
        out2[i] = in1[i] + in2[i];
        out3[i] = in1[i] - in2[i];
    }
}

__global__ void nested_init_k(double *array, int64_t ni, int64_t nj, int64_t nk)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    int64_t j = blockIdx.y * static_cast<int64_t>(blockDim.y) + threadIdx.y;
    int64_t k = blockIdx.z * static_cast<int64_t>(blockDim.z) + threadIdx.z;
    if (i < ni && j < nj && k < nk) {
        array[i + ni * (j + nj * k)] = 0.00000001 * static_cast<double>(i) * static_cast<double>(j) *
                                       static_cast<double>(k);
    }
}

__global__ void pi_reduce_k(double dx, double *pi, int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    double v = 0.0;
    if (i < n) {
        double x = (static_cast<double>(i) + 0.5) * dx;
        v = dx / (1.0 + x * x);
    }
    double s = block_sum(v);
    if (threadIdx.x == 0) atomicAdd(pi, s);
}

__global__ void reduce3_int_k(const int32_t *vec, int32_t *vals, int64_t n)
{
    __shared__ int32_t ssum[BLOCK], smin[BLOCK], smax[BLOCK];
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    int32_t v = (i < n) ? vec[i] : 0;
    ssum[threadIdx.x] = v;
    smin[threadIdx.x] = (i < n) ? v : INT_MAX;
    smax[threadIdx.x] = (i < n) ? v : INT_MIN;
    __syncthreads();
    for (unsigned s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            ssum[threadIdx.x] += ssum[threadIdx.x + s];
            smin[threadIdx.x] = min(smin[threadIdx.x], smin[threadIdx.x + s]);
            smax[threadIdx.x] = max(smax[threadIdx.x], smax[threadIdx.x + s]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        atomicAdd(&vals[0], ssum[0]);
        atomicMin(&vals[1], smin[0]);
        atomicMax(&vals[2], smax[0]);
    }
}

__device__ inline double trap_int_func(double x, double y, double xp, double yp)
{
    double denom = (x - xp) * (x - xp) + (y - yp) * (y - yp);
    return 1.0 / sqrt(denom);
}

__global__ void trap_int_k(double x0, double xp, double y, double yp, double h, double *sumx, int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    double v = 0.0;
    if (i < n) v = trap_int_func(x0 + static_cast<double>(i) * h, y, xp, yp);
    double s = block_sum(v);
    if (threadIdx.x == 0) atomicAdd(sumx, s);
}

struct DaxpyData {
    std::vector<double> y, x;
    double a;
    explicit DaxpyData(int64_t n)
    {
        int counter = 0;
        y = init_const(n, 0.0, &counter);
        x = init_data(n, &counter);
        a = rp_init_scalar(&counter);
    }
};

Outcome run_daxpy(const Spec &s)
{
    int64_t n = s.target;
    DaxpyData d(n);
    DevBuf<double> dy(d.y), dx(d.x);
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) LAUNCH(daxpy_k, grid_for(n), BLOCK)(dy.p, dx.p, d.a, n);
    t.stop();
    dy.to_host(d.y);
    return {n, cks(d.y, 1.0), t.seconds, 3.0 * 8 * n};
}

Outcome run_daxpy_atomic(const Spec &s)
{
    int64_t n = s.target;
    DaxpyData d(n);
    DevBuf<double> dy(d.y), dx(d.x);
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) LAUNCH(daxpy_atomic_k, grid_for(n), BLOCK)(dy.p, dx.p, d.a, n);
    t.stop();
    dy.to_host(d.y);
    return {n, cks(d.y, 1.0), t.seconds, 3.0 * 8 * n};
}

Outcome run_if_quad(const Spec &s)
{
    int64_t n = s.target;
    int counter = 0;
    std::vector<double> a(static_cast<size_t>(n));
    rp_init_data_rand_sign(a.data(), n, &counter);
    std::vector<double> b = init_data(n, &counter);
    std::vector<double> c = init_data(n, &counter);
    std::vector<double> x1 = init_const(n, 0.0, &counter);
    std::vector<double> x2 = init_const(n, 0.0, &counter);
    DevBuf<double> da(a), db(b), dc(c), dx1(x1), dx2(x2);
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep)
        LAUNCH(if_quad_k, grid_for(n), BLOCK)(da.p, db.p, dc.p, dx1.p, dx2.p, n);
    t.stop();
    dx1.to_host(x1);
    dx2.to_host(x2);
    double sc = size_scale(0.0001, ps_1d, s.target);
    return {n, cks(x1, sc) + cks(x2, sc), t.seconds, 5.0 * 8 * n};
}

template <bool MulAddSub>
Outcome run_three_out(const Spec &s)
{
    int64_t n = s.target;
    int counter = 0;
    std::vector<double> o1 = init_const(n, 0.0, &counter);
    std::vector<double> o2 = init_const(n, 0.0, &counter);
    std::vector<double> o3 = init_const(n, 0.0, &counter);
    std::vector<double> in1 = init_data(n, &counter);
    std::vector<double> in2 = init_data(n, &counter);
    DevBuf<double> d1(o1), d2(o2), d3(o3), di1(in1), di2(in2);
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) {
        if (MulAddSub) {
            LAUNCH(muladdsub_k, grid_for(n), BLOCK)(d1.p, d2.p, d3.p, di1.p, di2.p, n);
        } else {
            LAUNCH(init3_k, grid_for(n), BLOCK)(d1.p, d2.p, d3.p, di1.p, di2.p, n);
        }
    }
    t.stop();
    d1.to_host(o1);
    d2.to_host(o2);
    d3.to_host(o3);
    return {n, cks(o1, 1.0) + cks(o2, 1.0) + cks(o3, 1.0), t.seconds, 5.0 * 8 * n};
}

Outcome run_nested_init(const Spec &s)
{
    int64_t n = nested_extent(s.target);
    int counter = 0;
    std::vector<double> array = init_const(n * n * n, 0.0, &counter);
    DevBuf<double> da(array);
    dim3 block(32, 4, 2);
    dim3 grid(blocks_for(n, 32), blocks_for(n, 4), blocks_for(n, 2));
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) LAUNCH(nested_init_k, grid, block)(da.p, n, n, n);
    t.stop();
    da.to_host(array);
    return {n * n * n, cks(array, 1.0), t.seconds, 8.0 * n * n * n};
}

Outcome run_pi_reduce(const Spec &s)
{
    int64_t n = s.target;
    double dx = 1.0 / static_cast<double>(n);
    DevBuf<double> dpi(1);
    PinnedBuf<double> hpi(1);
    double result = 0.0;
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) {
        CUDA_CHECK(cudaMemsetAsync(dpi.p, 0, sizeof(double)));
        LAUNCH(pi_reduce_k, grid_for(n), BLOCK)(dx, dpi.p, n);
        CUDA_CHECK(cudaMemcpyAsync(hpi.p, dpi.p, sizeof(double), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaStreamSynchronize(0));
        result = 4.0 * *hpi.p;
    }
    t.stop();
    long double c = 0.0L;
    rp_ld_add_f64(&c, result);
    return {n, c, t.seconds, 0.0};
}

Outcome run_reduce3_int(const Spec &s)
{
    int64_t n = s.target;
    int counter = 0;
    std::vector<int32_t> vec(static_cast<size_t>(n));
    rp_init_data_int(vec.data(), n, &counter);
    DevBuf<int32_t> dvec(vec), dvals(3);
    PinnedBuf<int32_t> hvals(3);
    const int32_t init[3] = {0, INT_MAX, INT_MIN};
    int32_t m_vsum = 0, m_vmin = INT_MAX, m_vmax = INT_MIN;
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) {
        hvals.p[0] = init[0];
        hvals.p[1] = init[1];
        hvals.p[2] = init[2];
        CUDA_CHECK(cudaMemcpyAsync(dvals.p, hvals.p, sizeof(init), cudaMemcpyHostToDevice));
        LAUNCH(reduce3_int_k, grid_for(n), BLOCK)(dvec.p, dvals.p, n);
        CUDA_CHECK(cudaMemcpyAsync(hvals.p, dvals.p, sizeof(init), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaStreamSynchronize(0));
        m_vsum += hvals.p[0];
        m_vmin = hvals.p[1] < m_vmin ? hvals.p[1] : m_vmin;
        m_vmax = hvals.p[2] > m_vmax ? hvals.p[2] : m_vmax;
    }
    t.stop();
    long double c = 0.0L;
    rp_ld_add_i64(&c, m_vsum);
    rp_ld_add_i64(&c, m_vmin);
    rp_ld_add_i64(&c, m_vmax);
    return {n, c, t.seconds, 4.0 * n};
}

Outcome run_trap_int(const Spec &s)
{
    int64_t n = s.target;
    int counter = 0;
    double xn = rp_init_scalar(&counter);
    double x0 = rp_init_scalar(&counter);
    double xp = rp_init_scalar(&counter);
    double y = rp_init_scalar(&counter);
    double yp = rp_init_scalar(&counter);
    double h = xn - x0;
    DevBuf<double> dsum(1);
    PinnedBuf<double> hsum(1);
    double m_sumx = 0.0;
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) {
        CUDA_CHECK(cudaMemsetAsync(dsum.p, 0, sizeof(double)));
        LAUNCH(trap_int_k, grid_for(n), BLOCK)(x0, xp, y, yp, h, dsum.p, n);
        CUDA_CHECK(cudaMemcpyAsync(hsum.p, dsum.p, sizeof(double), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaStreamSynchronize(0));
        m_sumx += *hsum.p * h;
    }
    t.stop();
    long double c = 0.0L;
    rp_ld_add_f64(&c, m_sumx);
    return {n, c, t.seconds, 0.0};
}

} // namespace

const KernelEntry BASIC_KERNELS[] = {
    {"Basic_DAXPY", "Basic", 500, false, run_daxpy},
    {"Basic_DAXPY_ATOMIC", "Basic", 500, false, run_daxpy_atomic},
    {"Basic_IF_QUAD", "Basic", 180, false, run_if_quad},
    {"Basic_INIT3", "Basic", 500, false, run_three_out<false>},
    {"Basic_MULADDSUB", "Basic", 350, false, run_three_out<true>},
    {"Basic_NESTED_INIT", "Basic", 1000, false, run_nested_init},
    {"Basic_PI_REDUCE", "Basic", 50, true, run_pi_reduce},
    {"Basic_REDUCE3_INT", "Basic", 50, false, run_reduce3_int},
    {"Basic_TRAP_INT", "Basic", 50, true, run_trap_int},
};
const int BASIC_COUNT = sizeof(BASIC_KERNELS) / sizeof(BASIC_KERNELS[0]);
