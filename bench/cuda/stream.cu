// Stream kernels, CUDA (one element per thread; DOT: shared-memory block sum + atomicAdd).
#include "common.cuh"

namespace {

int64_t ps_1d(int64_t target) { return target; }

__global__ void copy_k(const double *a, double *c, int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (i < n) c[i] = a[i];
}

__global__ void mul_k(double *b, const double *c, double alpha, int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (i < n) b[i] = alpha * c[i];
}

__global__ void add_k(const double *a, const double *b, double *c, int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

__global__ void triad_k(double *a, const double *b, const double *c, double alpha, int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (i < n) a[i] = b[i] + alpha * c[i];
}

__global__ void dot_k(const double *a, const double *b, double *dot, int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    double s = block_sum(i < n ? a[i] * b[i] : 0.0);
    if (threadIdx.x == 0) atomicAdd(dot, s);
}

Outcome run_copy(const Spec &s)
{
    int64_t n = s.target;
    int counter = 0;
    std::vector<double> a = init_data(n, &counter);
    std::vector<double> c = init_const(n, 0.0, &counter);
    DevBuf<double> da(a), dc(c);
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) LAUNCH(copy_k, grid_for(n), BLOCK)(da.p, dc.p, n);
    t.stop();
    dc.to_host(c);
    return {n, cks(c, 1.0), t.seconds, 2.0 * 8 * n};
}

Outcome run_mul(const Spec &s)
{
    int64_t n = s.target;
    int counter = 0;
    std::vector<double> b = init_const(n, 0.0, &counter);
    std::vector<double> c = init_data(n, &counter);
    double alpha = rp_init_scalar(&counter);
    DevBuf<double> db(b), dc(c);
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) LAUNCH(mul_k, grid_for(n), BLOCK)(db.p, dc.p, alpha, n);
    t.stop();
    db.to_host(b);
    return {n, cks(b, 1.0), t.seconds, 2.0 * 8 * n};
}

Outcome run_add(const Spec &s)
{
    int64_t n = s.target;
    int counter = 0;
    std::vector<double> a = init_data(n, &counter);
    std::vector<double> b = init_data(n, &counter);
    std::vector<double> c = init_const(n, 0.0, &counter);
    DevBuf<double> da(a), db(b), dc(c);
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) LAUNCH(add_k, grid_for(n), BLOCK)(da.p, db.p, dc.p, n);
    t.stop();
    dc.to_host(c);
    return {n, cks(c, 1.0), t.seconds, 3.0 * 8 * n};
}

Outcome run_triad(const Spec &s)
{
    int64_t n = s.target;
    int counter = 0;
    std::vector<double> a = init_const(n, 0.0, &counter);
    std::vector<double> b = init_data(n, &counter);
    std::vector<double> c = init_data(n, &counter);
    double alpha = rp_init_scalar(&counter);
    DevBuf<double> da(a), db(b), dc(c);
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) LAUNCH(triad_k, grid_for(n), BLOCK)(da.p, db.p, dc.p, alpha, n);
    t.stop();
    da.to_host(a);
    return {n, cks(a, size_scale(0.001, ps_1d, s.target)), t.seconds, 3.0 * 8 * n};
}

Outcome run_dot(const Spec &s)
{
    int64_t n = s.target;
    int counter = 0;
    std::vector<double> a = init_data(n, &counter);
    std::vector<double> b = init_data(n, &counter);
    DevBuf<double> da(a), db(b), ddot(1);
    PinnedBuf<double> hdot(1);
    double m_dot = 0.0;
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) {
        CUDA_CHECK(cudaMemsetAsync(ddot.p, 0, sizeof(double)));
        LAUNCH(dot_k, grid_for(n), BLOCK)(da.p, db.p, ddot.p, n);
        CUDA_CHECK(cudaMemcpyAsync(hdot.p, ddot.p, sizeof(double), cudaMemcpyDeviceToHost));
        CUDA_CHECK(cudaStreamSynchronize(0));
        m_dot += *hdot.p;
    }
    t.stop();
    long double c = 0.0L;
    rp_ld_add_f64(&c, m_dot);
    return {n, c, t.seconds, 2.0 * 8 * n};
}

} // namespace

const KernelEntry STREAM_KERNELS[] = {
    {"Stream_ADD", "Stream", 1000, false, run_add},
    {"Stream_COPY", "Stream", 1800, false, run_copy},
    {"Stream_DOT", "Stream", 2000, true, run_dot},
    {"Stream_MUL", "Stream", 1800, false, run_mul},
    {"Stream_TRIAD", "Stream", 1000, false, run_triad},
};
const int STREAM_COUNT = sizeof(STREAM_KERNELS) / sizeof(STREAM_KERNELS[0]);
