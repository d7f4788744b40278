// Apps kernels, CUDA.
#include <memory>

#include "common.cuh"

namespace {

int64_t ps_1d(int64_t target) { return target; }

rp_adomain domain(int64_t target, int ndims)
{
    int64_t m = rp_adomain_nodes_per_dim(target, ndims);
    rp_adomain d;
    rp_adomain_init(&d, m < 2 ? 2 : m, ndims);
    return d;
}
int64_t ps_zones_3d(int64_t target) { return domain(target, 3).n_real_zones; }

constexpr int64_t LT_D = 64, LT_G = 32, LT_M = 25;
int64_t ltimes_num_z(int64_t target)
{
    int64_t z = (target + LT_D * LT_G / 2) / (LT_D * LT_G);
    return z < 1 ? 1 : z;
}
int64_t ps_ltimes(int64_t target) { return LT_D * LT_G * ltimes_num_z(target); }

__global__ void del_dot_vec_2d_k(const double *x, const double *y, const double *xdot, const double *ydot,
                                 double *div, const int64_t *zones, int64_t nzones, int64_t jp)
{
    int64_t ii = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (ii >= nzones) return;
    const double half = 0.5, ptiny = 1.0e-20;
    int64_t i = zones[ii];
    int64_t n1 = i + 1, n2 = i + 1 + jp, n3 = i + jp, n4 = i;
    double xi = half * (x[n1] + x[n2] - x[n3] - x[n4]);
    double xj = half * (x[n2] + x[n3] - x[n4] - x[n1]);
    double yi = half * (y[n1] + y[n2] - y[n3] - y[n4]);
    double yj = half * (y[n2] + y[n3] - y[n4] - y[n1]);
    double fxi = half * (xdot[n1] + xdot[n2] - xdot[n3] - xdot[n4]);
    double fxj = half * (xdot[n2] + xdot[n3] - xdot[n4] - xdot[n1]);
    double fyi = half * (ydot[n1] + ydot[n2] - ydot[n3] - ydot[n4]);
    double fyj = half * (ydot[n2] + ydot[n3] - ydot[n4] - ydot[n1]);
    double rarea = 1.0 / (xi * yj - xj * yi + ptiny);
    double dfxdx = rarea * (fxi * yj - fxj * yi);
    double dfydy = rarea * (fyj * xi - fyi * xj);
    double affine = (ydot[n1] + ydot[n2] + ydot[n3] + ydot[n4]) / (y[n1] + y[n2] + y[n3] + y[n4]);
    div[i] = dfxdx + dfydy + affine;
}

struct EnergyArrays {
    double *e_new, *q_new;
    const double *e_old, *delvc, *p_new, *p_old, *q_old, *work, *comp_half_step, *p_half_step, *bvc, *pbvc,
        *ql_old, *qq_old, *vnewc;
    double rho0, e_cut, emin, q_cut;
};

__device__ inline double energy_ssc(double num, double rho0)
{
    double ssc = num / rho0;
    return (ssc <= 0.1111111e-36) ? 0.3333333e-18 : sqrt(ssc);
}

__global__ void energy_1(EnergyArrays a, int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (i < n) a.e_new[i] = a.e_old[i] - 0.5 * a.delvc[i] * (a.p_old[i] + a.q_old[i]) + 0.5 * a.work[i];
}

__global__ void energy_2(EnergyArrays a, int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    if (a.delvc[i] > 0.0) {
        a.q_new[i] = 0.0;
    } else {
        double vhalf = 1.0 / (1.0 + a.comp_half_step[i]);
        double ssc = energy_ssc(a.pbvc[i] * a.e_new[i] + vhalf * vhalf * a.bvc[i] * a.p_half_step[i], a.rho0);
        a.q_new[i] = ssc * a.ql_old[i] + a.qq_old[i];
    }
}

__global__ void energy_3(EnergyArrays a, int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (i < n) {
        a.e_new[i] = a.e_new[i] + 0.5 * a.delvc[i] *
                                      (3.0 * (a.p_old[i] + a.q_old[i]) - 4.0 * (a.p_half_step[i] + a.q_new[i]));
    }
}

__global__ void energy_4(EnergyArrays a, int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (i < n) {
        a.e_new[i] += 0.5 * a.work[i];
        if (fabs(a.e_new[i]) < a.e_cut) a.e_new[i] = 0.0;
        if (a.e_new[i] < a.emin) a.e_new[i] = a.emin;
    }
}

__global__ void energy_5(EnergyArrays a, int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (i >= n) return;
    double q_tilde;
    if (a.delvc[i] > 0.0) {
        q_tilde = 0.0;
    } else {
        double ssc =
            energy_ssc(a.pbvc[i] * a.e_new[i] + a.vnewc[i] * a.vnewc[i] * a.bvc[i] * a.p_new[i], a.rho0);
        q_tilde = ssc * a.ql_old[i] + a.qq_old[i];
    }
    a.e_new[i] = a.e_new[i] - (7.0 * (a.p_old[i] + a.q_old[i]) - 8.0 * (a.p_half_step[i] + a.q_new[i]) +
                               (a.p_new[i] + q_tilde)) *
                                  a.delvc[i] / 6.0;
    if (fabs(a.e_new[i]) < a.e_cut) a.e_new[i] = 0.0;
    if (a.e_new[i] < a.emin) a.e_new[i] = a.emin;
}

__global__ void energy_6(EnergyArrays a, int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (i < n && a.delvc[i] <= 0.0) {
        double ssc =
            energy_ssc(a.pbvc[i] * a.e_new[i] + a.vnewc[i] * a.vnewc[i] * a.bvc[i] * a.p_new[i], a.rho0);
        a.q_new[i] = ssc * a.ql_old[i] + a.qq_old[i];
        if (fabs(a.q_new[i]) < a.q_cut) a.q_new[i] = 0.0;
    }
}

constexpr int FIR_COEFFLEN = 16;
__constant__ double fir_coeff[FIR_COEFFLEN];

__global__ void fir_k(const double *in, double *out, int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (i < n) {
        double sum = 0.0;
        for (int j = 0; j < FIR_COEFFLEN; ++j) sum += fir_coeff[j] * in[i + j];
        out[i] = sum;
    }
}

// One thread per phi entry (z, g, m), looping over directions d: phi writes are coalesced.
__global__ void ltimes_k(double *phi, const double *ell, const double *psi, int64_t num_z)
{
    int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (t >= LT_M * LT_G * num_z) return;
    int64_t m = t % LT_M, g = (t / LT_M) % LT_G, z = t / (LT_M * LT_G);
    for (int64_t d = 0; d < LT_D; ++d) {
        phi[m + g * LT_M + z * LT_M * LT_G] += ell[d + m * LT_D] * psi[d + g * LT_D + z * LT_D * LT_G];
    }
}

struct StencilCoefs {
    const double *c[14];
};

__global__ void matvec_3d_k(double *b, const double *x, StencilCoefs cs, const int64_t *zones, int64_t nzones,
                            int64_t jp, int64_t kp)
{
    int64_t ii = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (ii >= nzones) return;
    const double *dbl = cs.c[0], *dbc = cs.c[1], *dbr = cs.c[2], *dcl = cs.c[3], *dcc = cs.c[4], *dcr = cs.c[5];
    const double *dfl = cs.c[6], *dfc = cs.c[7], *dfr = cs.c[8], *cbl = cs.c[9], *cbc = cs.c[10];
    const double *cbr = cs.c[11], *ccl = cs.c[12], *ccc = cs.c[13];
    const int64_t i = zones[ii], j = jp, k = kp;
    // Upper-half coefficients are shifted aliases of the lower half ("X shifted by s" = X[i + s]).
    b[i] = dbl[i] * x[i - k - j - 1] + dbc[i] * x[i - k - j] + dbr[i] * x[i - k - j + 1] +
           dcl[i] * x[i - k - 1] + dcc[i] * x[i - k] + dcr[i] * x[i - k + 1] +
           dfl[i] * x[i - k + j - 1] + dfc[i] * x[i - k + j] + dfr[i] * x[i - k + j + 1] +
           cbl[i] * x[i - j - 1] + cbc[i] * x[i - j] + cbr[i] * x[i - j + 1] +
           ccl[i] * x[i - 1] + ccc[i] * x[i] + ccl[i + 1] * x[i + 1] +
           cbr[i + j - 1] * x[i + j - 1] + cbc[i + j] * x[i + j] + cbl[i + j + 1] * x[i + j + 1] +
           dfr[i + k - j - 1] * x[i + k - j - 1] + dfc[i + k - j] * x[i + k - j] +
           dfl[i + k - j + 1] * x[i + k - j + 1] + dcr[i + k - 1] * x[i + k - 1] + dcc[i + k] * x[i + k] +
           dcl[i + k + 1] * x[i + k + 1] + dbr[i + k + j - 1] * x[i + k + j - 1] +
           dbc[i + k + j] * x[i + k + j] + dbl[i + k + j + 1] * x[i + k + j + 1];
}

__global__ void pressure_1(const double *compression, double *bvc, double cls, int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (i < n) bvc[i] = cls * (compression[i] + 1.0);
}

__global__ void pressure_2(const double *bvc, double *p_new, const double *e_old, const double *vnewc,
                           double p_cut, double pmin, double eosvmax, int64_t n)
{
    int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (i < n) {
        p_new[i] = bvc[i] * e_old[i];
        if (fabs(p_new[i]) < p_cut) p_new[i] = 0.0;
        if (vnewc[i] >= eosvmax) p_new[i] = 0.0;
        if (p_new[i] < pmin) p_new[i] = pmin;
    }
}

__global__ void vol3d_k(const double *x, const double *y, const double *z, double *vol, int64_t jp, int64_t kp,
                        int64_t fpz, int64_t lpz)
{
    int64_t i = fpz + blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
    if (i > lpz) return;
    int64_t n0 = i, n1 = i + 1, n2 = i + jp, n3 = i + 1 + jp;
    int64_t n4 = i + kp, n5 = i + 1 + kp, n6 = i + jp + kp, n7 = i + 1 + jp + kp;
    double x71 = x[n7] - x[n1], x72 = x[n7] - x[n2], x74 = x[n7] - x[n4];
    double x30 = x[n3] - x[n0], x50 = x[n5] - x[n0], x60 = x[n6] - x[n0];
    double y71 = y[n7] - y[n1], y72 = y[n7] - y[n2], y74 = y[n7] - y[n4];
    double y30 = y[n3] - y[n0], y50 = y[n5] - y[n0], y60 = y[n6] - y[n0];
    double z71 = z[n7] - z[n1], z72 = z[n7] - z[n2], z74 = z[n7] - z[n4];
    double z30 = z[n3] - z[n0], z50 = z[n5] - z[n0], z60 = z[n6] - z[n0];

    double xps = x71 + x60, yps = y71 + y60, zps = z71 + z60;
    double cyz = y72 * z30 - z72 * y30;
    double czx = z72 * x30 - x72 * z30;
    double cxy = x72 * y30 - y72 * x30;
    double v = xps * cyz + yps * czx + zps * cxy;

    xps = x72 + x50;
    yps = y72 + y50;
    zps = z72 + z50;
    cyz = y74 * z60 - z74 * y60;
    czx = z74 * x60 - x74 * z60;
    cxy = x74 * y60 - y74 * x60;
    v += xps * cyz + yps * czx + zps * cxy;

    // As documented: this term reuses the d74 x d60 cross product.
    xps = x74 + x30;
    yps = y74 + y30;
    zps = z74 + z30;
    v += xps * cyz + yps * czx + zps * cxy;

    cyz = y71 * z50 - z71 * y50;
    czx = z71 * x50 - x71 * z50;
    cxy = x71 * y50 - y71 * x50;
    v += xps * cyz + yps * czx + zps * cxy;

    vol[i] = v * 0.083333333333333333;
}

Outcome run_del_dot_vec_2d(const Spec &s)
{
    rp_adomain dom = domain(s.target, 2);
    int64_t nn = dom.nnalls, nz = dom.n_real_zones;
    int counter = 0;
    std::vector<double> x = init_const(nn, 0.0, &counter);
    std::vector<double> y = init_const(nn, 0.0, &counter);
    std::vector<int64_t> zones(static_cast<size_t>(nn));
    rp_init_data_const_index(zones.data(), nn, -1, &counter);
    rp_adomain_real_zones(&dom, zones.data());
    zones.resize(static_cast<size_t>(nz));
    rp_adomain_mesh_2d(&dom, 0.2, 0.1, x.data(), y.data());
    std::vector<double> xdot = init_data(nn, &counter);
    std::vector<double> ydot = init_data(nn, &counter);
    std::vector<double> div = init_const(nn, 0.0, &counter);
    DevBuf<double> dx(x), dy(y), dxdot(xdot), dydot(ydot), ddiv(div);
    DevBuf<int64_t> dzones(zones);
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep)
        LAUNCH(del_dot_vec_2d_k, grid_for(nz), BLOCK)(dx.p, dy.p, dxdot.p, dydot.p, ddiv.p, dzones.p, nz, dom.jp);
    t.stop();
    ddiv.to_host(div);
    double bytes = (4.0 * nn + nz) * 8 + nz * 8.0;
    return {nz, cks(div, 1.0), t.seconds, bytes};
}

Outcome run_energy(const Spec &s)
{
    int64_t n = s.target;
    int counter = 0;
    std::vector<double> e_new = init_const(n, 0.0, &counter);
    std::vector<double> e_old = init_data(n, &counter);
    std::vector<double> delvc = init_data(n, &counter);
    std::vector<double> p_new = init_data(n, &counter);
    std::vector<double> p_old = init_data(n, &counter);
    std::vector<double> q_new = init_const(n, 0.0, &counter);
    std::vector<double> q_old = init_data(n, &counter);
    std::vector<double> work = init_data(n, &counter);
    std::vector<double> comp_half_step = init_data(n, &counter);
    std::vector<double> p_half_step = init_data(n, &counter);
    std::vector<double> bvc = init_data(n, &counter);
    std::vector<double> pbvc = init_data(n, &counter);
    std::vector<double> ql_old = init_data(n, &counter);
    std::vector<double> qq_old = init_data(n, &counter);
    std::vector<double> vnewc = init_data(n, &counter);
    double rho0 = rp_init_scalar(&counter);
    double e_cut = rp_init_scalar(&counter);
    double emin = rp_init_scalar(&counter);
    double q_cut = rp_init_scalar(&counter);
    DevBuf<double> d_e_new(e_new), d_e_old(e_old), d_delvc(delvc), d_p_new(p_new), d_p_old(p_old);
    DevBuf<double> d_q_new(q_new), d_q_old(q_old), d_work(work), d_chs(comp_half_step), d_phs(p_half_step);
    DevBuf<double> d_bvc(bvc), d_pbvc(pbvc), d_ql(ql_old), d_qq(qq_old), d_vnewc(vnewc);
    EnergyArrays a{d_e_new.p, d_q_new.p, d_e_old.p, d_delvc.p, d_p_new.p, d_p_old.p, d_q_old.p, d_work.p,
                   d_chs.p,   d_phs.p,   d_bvc.p,   d_pbvc.p,  d_ql.p,    d_qq.p,    d_vnewc.p,
                   rho0,      e_cut,     emin,      q_cut};
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) {
        LAUNCH(energy_1, grid_for(n), BLOCK)(a, n);
        LAUNCH(energy_2, grid_for(n), BLOCK)(a, n);
        LAUNCH(energy_3, grid_for(n), BLOCK)(a, n);
        LAUNCH(energy_4, grid_for(n), BLOCK)(a, n);
        LAUNCH(energy_5, grid_for(n), BLOCK)(a, n);
        LAUNCH(energy_6, grid_for(n), BLOCK)(a, n);
    }
    t.stop();
    d_e_new.to_host(e_new);
    d_q_new.to_host(q_new);
    return {n, cks(e_new, 1.0) + cks(q_new, 1.0), t.seconds, 27.0 * 8 * n};
}

Outcome run_fir(const Spec &s)
{
    const double coeff[FIR_COEFFLEN] = {3.0,  -1.0, -1.0, -1.0, -1.0, 3.0,  -1.0, -1.0,
                                        -1.0, -1.0, 3.0,  -1.0, -1.0, -1.0, -1.0, 3.0};
    int64_t n = s.target;
    int counter = 0;
    std::vector<double> in = init_data(n + FIR_COEFFLEN - 1, &counter);
    std::vector<double> out = init_const(n, 0.0, &counter);
    DevBuf<double> din(in), dout(out);
    CUDA_CHECK(cudaMemcpyToSymbol(fir_coeff, coeff, sizeof(coeff)));
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) LAUNCH(fir_k, grid_for(n), BLOCK)(din.p, dout.p, n);
    t.stop();
    dout.to_host(out);
    double bytes = static_cast<double>(in.size() + out.size()) * 8;
    return {n, cks(out, size_scale(0.0001, ps_1d, s.target)), t.seconds, bytes};
}

Outcome run_ltimes(const Spec &s)
{
    int64_t nz = ltimes_num_z(s.target);
    int counter = 0;
    std::vector<double> phi = init_const(LT_M * LT_G * nz, 0.0, &counter);
    std::vector<double> ell = init_data(LT_D * LT_M, &counter);
    std::vector<double> psi = init_data(LT_D * LT_G * nz, &counter);
    DevBuf<double> dphi(phi), dell(ell), dpsi(psi);
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep)
        LAUNCH(ltimes_k, grid_for(LT_M * LT_G * nz), BLOCK)(dphi.p, dell.p, dpsi.p, nz);
    t.stop();
    dphi.to_host(phi);
    double bytes = static_cast<double>(2 * phi.size() + ell.size() + psi.size()) * 8;
    return {ps_ltimes(s.target), cks(phi, size_scale(0.001, ps_ltimes, s.target)), t.seconds, bytes};
}

Outcome run_matvec_3d_stencil(const Spec &s)
{
    rp_adomain dom = domain(s.target, 3);
    int64_t len = dom.lpz + 1, nz = dom.n_real_zones;
    int counter = 0;
    std::vector<double> b = init_const(len, 0.0, &counter);
    std::vector<double> x = init_data(len, &counter);
    std::vector<std::vector<double>> coefs;
    for (int c = 0; c < 14; ++c) coefs.push_back(init_data(len, &counter));
    std::vector<int64_t> zones(static_cast<size_t>(nz));
    rp_adomain_real_zones(&dom, zones.data());
    DevBuf<double> db(b), dx(x);
    DevBuf<int64_t> dzones(zones);
    std::vector<std::unique_ptr<DevBuf<double>>> dcoefs;
    StencilCoefs cs;
    for (int c = 0; c < 14; ++c) {
        dcoefs.push_back(std::make_unique<DevBuf<double>>(coefs[c]));
        cs.c[c] = dcoefs.back()->p;
    }
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep)
        LAUNCH(matvec_3d_k, grid_for(nz), BLOCK)(db.p, dx.p, cs, dzones.p, nz, dom.jp, dom.kp);
    t.stop();
    db.to_host(b);
    double bytes = 16.0 * nz * 8 + nz * 8.0;
    return {nz, cks(b, size_scale(1.0, ps_zones_3d, s.target)), t.seconds, bytes};
}

Outcome run_pressure(const Spec &s)
{
    int64_t n = s.target;
    int counter = 0;
    std::vector<double> compression = init_data(n, &counter);
    std::vector<double> bvc = init_data(n, &counter);
    std::vector<double> p_new = init_const(n, 0.0, &counter);
    std::vector<double> e_old = init_data(n, &counter);
    std::vector<double> vnewc = init_data(n, &counter);
    double cls = rp_init_scalar(&counter);
    double p_cut = rp_init_scalar(&counter);
    double pmin = rp_init_scalar(&counter);
    double eosvmax = rp_init_scalar(&counter);
    DevBuf<double> dcomp(compression), dbvc(bvc), dp(p_new), de(e_old), dv(vnewc);
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep) {
        LAUNCH(pressure_1, grid_for(n), BLOCK)(dcomp.p, dbvc.p, cls, n);
        LAUNCH(pressure_2, grid_for(n), BLOCK)(dbvc.p, dp.p, de.p, dv.p, p_cut, pmin, eosvmax, n);
    }
    t.stop();
    dp.to_host(p_new);
    return {n, cks(p_new, 1.0), t.seconds, 6.0 * 8 * n};
}

Outcome run_vol3d(const Spec &s)
{
    rp_adomain dom = domain(s.target, 3);
    int64_t nn = dom.nnalls;
    int counter = 0;
    std::vector<double> x = init_const(nn, 0.0, &counter);
    std::vector<double> y = init_const(nn, 0.0, &counter);
    std::vector<double> z = init_const(nn, 0.0, &counter);
    rp_adomain_mesh_3d(&dom, 0.3, 0.2, 0.1, x.data(), y.data(), z.data());
    std::vector<double> vol = init_const(nn, 0.0, &counter);
    DevBuf<double> dx(x), dy(y), dz(z), dvol(vol);
    int64_t nzones = dom.lpz + 1 - dom.fpz;
    RepTimer t;
    t.start();
    for (int64_t rep = 0; rep < s.reps; ++rep)
        LAUNCH(vol3d_k, grid_for(nzones), BLOCK)(dx.p, dy.p, dz.p, dvol.p, dom.jp, dom.kp, dom.fpz, dom.lpz);
    t.stop();
    dvol.to_host(vol);
    double bytes = (3.0 * nn + nzones) * 8;
    return {dom.n_real_zones, cks(vol, size_scale(0.001, ps_zones_3d, s.target)), t.seconds, bytes};
}

} // namespace

const KernelEntry APPS_KERNELS[] = {
    {"Apps_DEL_DOT_VEC_2D", "Apps", 100, false, run_del_dot_vec_2d},
    {"Apps_ENERGY", "Apps", 130, false, run_energy},
    {"Apps_FIR", "Apps", 160, false, run_fir},
    {"Apps_LTIMES", "Apps", 50, false, run_ltimes},
    {"Apps_MATVEC_3D_STENCIL", "Apps", 100, false, run_matvec_3d_stencil},
    {"Apps_PRESSURE", "Apps", 700, false, run_pressure},
    {"Apps_VOL3D", "Apps", 100, false, run_vol3d},
};
const int APPS_COUNT = sizeof(APPS_KERNELS) / sizeof(APPS_KERNELS[0]);
