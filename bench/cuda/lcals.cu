// Lcals kernels, CUDA.
#include "common.cuh"

namespace {

int64_t ps_1d(int64_t target) { return target; }

int64_t hydro2d_extent(int64_t target)
{
    return static_cast<int64_t>(std::sqrt(static_cast<double>(target)) + std::sqrt(2.0) - 1.0);
}

int64_t ps_hydro2d(int64_t target)
{
    int64_t n = hydro2d_extent(target);
    return n * n;
}

__global__ void diff_predict_k(double *px, const double *cx, int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (i < n) {
        double carry = cx[i + 4 * n];
        for (int64_t r = 4; r <= 12; ++r) {
            double next = carry - px[i + r * n];
            px[i + r * n] = carry;
            carry = next;
        }
        px[i + 13 * n] = carry;
    }
}

__global__ void eos_k(double *x, const double *y, const double *z, const double *u, double q, double r,
                      double t, int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (i < n) {
        x[i] = u[i] + r * (z[i] + r * y[i]) +
               t * (u[i + 3] + r * (u[i + 2] + r * u[i + 1]) + t * (u[i + 6] + q * (u[i + 5] + q * u[i + 4])));
    }
}

__global__ void first_diff_k(double *x, const double *y, int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (i < n) x[i] = y[i + 1] - y[i];
}

__global__ void hydro_1d_k(double *x, const double *y, const double *z, double q, double r, double t,
                           int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (i < n) x[i] = q + y[i] * (r * z[i + 10] + t * z[i + 11]);
}

#define AT(k, j) ((j) + (k) * jn)

// Interior point (k, j) of a kn x jn grid for a 2D launch (x: j, y: k).
__device__ inline bool hydro2d_point(int64_t kn, int64_t jn, int64_t &k, int64_t &j)
{
    j = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x + 1;
    k = blockIdx.y * static_cast<int64_t>(blockDim.y) + threadIdx.y + 1;
    return j < jn - 1 && k < kn - 1;
}

__global__ void hydro_2d_1(double *za, double *zb, const double *zm, const double *zp, const double *zq,
                           const double *zr, int64_t kn, int64_t jn)
{
    int64_t k, j;
    if (!hydro2d_point(kn, jn, k, j)) return;
    za[AT(k, j)] = (zp[AT(k + 1, j - 1)] + zq[AT(k + 1, j - 1)] - zp[AT(k, j - 1)] - zq[AT(k, j - 1)]) *
                   (zr[AT(k, j)] + zr[AT(k, j - 1)]) / (zm[AT(k, j - 1)] + zm[AT(k + 1, j - 1)]);
    zb[AT(k, j)] = (zp[AT(k, j - 1)] + zq[AT(k, j - 1)] - zp[AT(k, j)] - zq[AT(k, j)]) *
                   (zr[AT(k, j)] + zr[AT(k - 1, j)]) / (zm[AT(k, j)] + zm[AT(k, j - 1)]);
}

__global__ void hydro_2d_2(double *zu, double *zv, const double *za, const double *zb, const double *zr,
                           const double *zz, double s, int64_t kn, int64_t jn)
{
    int64_t k, j;
    if (!hydro2d_point(kn, jn, k, j)) return;
    int64_t c = AT(k, j);
    zu[c] += s * (za[c] * (zz[c] - zz[AT(k, j + 1)]) - za[AT(k, j - 1)] * (zz[c] - zz[AT(k, j - 1)]) -
                  zb[c] * (zz[c] - zz[AT(k - 1, j)]) + zb[AT(k + 1, j)] * (zz[c] - zz[AT(k + 1, j)]));
    zv[c] += s * (za[c] * (zr[c] - zr[AT(k, j + 1)]) - za[AT(k, j - 1)] * (zr[c] - zr[AT(k, j - 1)]) -
                  zb[c] * (zr[c] - zr[AT(k - 1, j)]) + zb[AT(k + 1, j)] * (zr[c] - zr[AT(k + 1, j)]));
}

__global__ void hydro_2d_3(double *zrout, double *zzout, const double *zr, const double *zz,
                           const double *zu, const double *zv, double t, int64_t kn, int64_t jn)
{
    int64_t k, j;
    if (!hydro2d_point(kn, jn, k, j)) return;
    int64_t c = AT(k, j);
    zrout[c] = zr[c] + t * zu[c];
    zzout[c] = zz[c] + t * zv[c];
}

#undef AT

__global__ void planckian_k(const double *x, double *y, const double *u, const double *v, double *w,
                            int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (i < n) {
        y[i] = u[i] / v[i];
        w[i] = x[i] / (exp(y[i]) - 1.0);
    }
}

Outcome run_diff_predict(const Spec &s)
{
    int64_t n = s.target;
    int counter = 0;
    std::vector<double> px = init_const(14 * n, 0.0, &counter);
    std::vector<double> cx = init_data(14 * n, &counter);
    DevBuf<double> dpx(px), dcx(cx);
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) LAUNCH(diff_predict_k, grid_for(n), BLOCK)(dpx.p, dcx.p, n);
    t.stop();
    dpx.to_host(px);
    return {n, cks(px, 1.0), t.seconds, 20.0 * 8 * n};
}

Outcome run_eos(const Spec &s)
{
    int64_t n = s.target, len = n + 7;
    int counter = 0;
    std::vector<double> x = init_const(len, 0.0, &counter);
    std::vector<double> y = init_data(len, &counter);
    std::vector<double> z = init_data(len, &counter);
    std::vector<double> u = init_data(len, &counter);
    double q = rp_init_scalar(&counter);
    double r = rp_init_scalar(&counter);
    double tt = rp_init_scalar(&counter);
    DevBuf<double> dx(x), dy(y), dz(z), du(u);
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) LAUNCH(eos_k, grid_for(n), BLOCK)(dx.p, dy.p, dz.p, du.p, q, r, tt, n);
    t.stop();
    dx.to_host(x);
    return {n, cks_prefix(x, n, size_scale(0.0001, ps_1d, s.target)), t.seconds, (4.0 * n + 6.0) * 8};
}

Outcome run_first_diff(const Spec &s)
{
    int64_t n = s.target;
    int counter = 0;
    std::vector<double> x = init_const(n + 1, 0.0, &counter);
    std::vector<double> y = init_data(n + 1, &counter);
    DevBuf<double> dx(x), dy(y);
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) LAUNCH(first_diff_k, grid_for(n), BLOCK)(dx.p, dy.p, n);
    t.stop();
    dx.to_host(x);
    return {n, cks_prefix(x, n, 1.0), t.seconds, (2.0 * n + 1.0) * 8};
}

Outcome run_hydro_1d(const Spec &s)
{
    int64_t n = s.target, len = n + 12;
    int counter = 0;
    std::vector<double> x = init_const(len, 0.0, &counter);
    std::vector<double> y = init_data(len, &counter);
    std::vector<double> z = init_data(len, &counter);
    double q = rp_init_scalar(&counter);
    double r = rp_init_scalar(&counter);
    double tt = rp_init_scalar(&counter);
    DevBuf<double> dx(x), dy(y), dz(z);
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) LAUNCH(hydro_1d_k, grid_for(n), BLOCK)(dx.p, dy.p, dz.p, q, r, tt, n);
    t.stop();
    dx.to_host(x);
    return {n, cks_prefix(x, n, size_scale(0.001, ps_1d, s.target)), t.seconds, (3.0 * n + 1.0) * 8};
}

Outcome run_hydro_2d(const Spec &s)
{
    const int64_t n = hydro2d_extent(s.target), kn = n, jn = n, len = n * n;
    const double hs = 0.0041, ht = 0.0037;
    int counter = 0;
    std::vector<double> zrout = init_const(len, 0.0, &counter);
    std::vector<double> zzout = init_const(len, 0.0, &counter);
    std::vector<double> za = init_data(len, &counter);
    std::vector<double> zb = init_data(len, &counter);
    std::vector<double> zm = init_data(len, &counter);
    std::vector<double> zp = init_data(len, &counter);
    std::vector<double> zq = init_data(len, &counter);
    std::vector<double> zr = init_data(len, &counter);
    std::vector<double> zu = init_data(len, &counter);
    std::vector<double> zv = init_data(len, &counter);
    std::vector<double> zz = init_data(len, &counter);
    DevBuf<double> d_zrout(zrout), d_zzout(zzout), d_za(za), d_zb(zb), d_zm(zm), d_zp(zp), d_zq(zq);
    DevBuf<double> d_zr(zr), d_zu(zu), d_zv(zv), d_zz(zz);
    dim3 block(32, 8);
    dim3 grid(blocks_for(jn - 2, 32), blocks_for(kn - 2, 8));
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) {
        LAUNCH(hydro_2d_1, grid, block)(d_za.p, d_zb.p, d_zm.p, d_zp.p, d_zq.p, d_zr.p, kn, jn);
        LAUNCH(hydro_2d_2, grid, block)(d_zu.p, d_zv.p, d_za.p, d_zb.p, d_zr.p, d_zz.p, hs, kn, jn);
        LAUNCH(hydro_2d_3, grid, block)(d_zrout.p, d_zzout.p, d_zr.p, d_zz.p, d_zu.p, d_zv.p, ht, kn, jn);
    }
    t.stop();
    d_zrout.to_host(zrout);
    d_zzout.to_host(zzout);
    double sc = size_scale(0.001, ps_hydro2d, s.target);
    double interior = static_cast<double>((kn - 2) * (jn - 2));
    return {len, cks(zzout, sc) + cks(zrout, sc), t.seconds, 20.0 * 8 * interior};
}

Outcome run_planckian(const Spec &s)
{
    int64_t n = s.target;
    int counter = 0;
    std::vector<double> x = init_data(n, &counter);
    std::vector<double> y = init_data(n, &counter);
    std::vector<double> u = init_data(n, &counter);
    std::vector<double> v = init_data(n, &counter);
    std::vector<double> w = init_const(n, 0.0, &counter);
    DevBuf<double> dx(x), dy(y), du(u), dv(v), dw(w);
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) LAUNCH(planckian_k, grid_for(n), BLOCK)(dx.p, dy.p, du.p, dv.p, dw.p, n);
    t.stop();
    dw.to_host(w);
    return {n, cks(w, 1.0), t.seconds, 5.0 * 8 * n};
}

} // namespace

const KernelEntry LCALS_KERNELS[] = {
    {"Lcals_DIFF_PREDICT", "Lcals", 200, false, run_diff_predict},
    {"Lcals_EOS", "Lcals", 500, false, run_eos},
    {"Lcals_FIRST_DIFF", "Lcals", 2000, false, run_first_diff},
    {"Lcals_HYDRO_1D", "Lcals", 1000, false, run_hydro_1d},
    {"Lcals_HYDRO_2D", "Lcals", 100, false, run_hydro_2d},
    {"Lcals_PLANCKIAN", "Lcals", 50, false, run_planckian},
};
const int LCALS_COUNT = sizeof(LCALS_KERNELS) / sizeof(LCALS_KERNELS[0]);
