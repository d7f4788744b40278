/* Apps kernels with OpenMP (Base_OpenMP style). */
#include <math.h>
#include <stdint.h>

#include "par.h"

void comp_apps_del_dot_vec_2d(const double *x, const double *y, const double *xdot,
                              const double *ydot, double *div, const int64_t *zones,
                              int64_t nzones, int64_t jp, int64_t reps)
{
    const double half = 0.5, ptiny = 1.0e-20;
    for (int64_t rep = 0; rep < reps; ++rep) {
PAR_FOR()
        for (int64_t ii = 0; ii < nzones; ++ii) {
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
    }
}

struct energy_args {
    double *e_new;
    const double *e_old, *delvc, *p_new, *p_old;
    double *q_new;
    const double *q_old, *work, *comp_half_step, *p_half_step, *bvc, *pbvc, *ql_old, *qq_old,
        *vnewc;
    double rho0, e_cut, emin, q_cut;
};

static inline double energy_ssc(double num, double rho0)
{
    double ssc = num / rho0;
    return (ssc <= 0.1111111e-36) ? 0.3333333e-18 : sqrt(ssc);
}

void comp_apps_energy(const struct energy_args *a, int64_t n, int64_t reps)
{
    double *e_new = a->e_new, *q_new = a->q_new;
    const double *e_old = a->e_old, *delvc = a->delvc, *p_new = a->p_new, *p_old = a->p_old;
    const double *q_old = a->q_old, *work = a->work, *comp_half_step = a->comp_half_step;
    const double *p_half_step = a->p_half_step, *bvc = a->bvc, *pbvc = a->pbvc;
    const double *ql_old = a->ql_old, *qq_old = a->qq_old, *vnewc = a->vnewc;
    const double rho0 = a->rho0, e_cut = a->e_cut, emin = a->emin, q_cut = a->q_cut;
    for (int64_t rep = 0; rep < reps; ++rep) {
        /* Six element-wise loops in one region; every loop reads only its own element, so
         * the implied barriers could be dropped (RAJAPerf uses nowait); we keep them. */
PAR_REGION
        {
FOR_IN_REGION
            for (int64_t i = 0; i < n; ++i) {
                e_new[i] = e_old[i] - 0.5 * delvc[i] * (p_old[i] + q_old[i]) + 0.5 * work[i];
            }
FOR_IN_REGION
            for (int64_t i = 0; i < n; ++i) {
                if (delvc[i] > 0.0) {
                    q_new[i] = 0.0;
                } else {
                    double vhalf = 1.0 / (1.0 + comp_half_step[i]);
                    double ssc = energy_ssc(pbvc[i] * e_new[i] + vhalf * vhalf * bvc[i] * p_half_step[i], rho0);
                    q_new[i] = ssc * ql_old[i] + qq_old[i];
                }
            }
FOR_IN_REGION
            for (int64_t i = 0; i < n; ++i) {
                e_new[i] = e_new[i] + 0.5 * delvc[i] *
                                          (3.0 * (p_old[i] + q_old[i]) - 4.0 * (p_half_step[i] + q_new[i]));
            }
FOR_IN_REGION
            for (int64_t i = 0; i < n; ++i) {
                e_new[i] += 0.5 * work[i];
                if (fabs(e_new[i]) < e_cut) e_new[i] = 0.0;
                if (e_new[i] < emin) e_new[i] = emin;
            }
FOR_IN_REGION
            for (int64_t i = 0; i < n; ++i) {
                double q_tilde;
                if (delvc[i] > 0.0) {
                    q_tilde = 0.0;
                } else {
                    double ssc = energy_ssc(pbvc[i] * e_new[i] + vnewc[i] * vnewc[i] * bvc[i] * p_new[i], rho0);
                    q_tilde = ssc * ql_old[i] + qq_old[i];
                }
                e_new[i] = e_new[i] - (7.0 * (p_old[i] + q_old[i]) - 8.0 * (p_half_step[i] + q_new[i]) +
                                       (p_new[i] + q_tilde)) *
                                          delvc[i] / 6.0;
                if (fabs(e_new[i]) < e_cut) e_new[i] = 0.0;
                if (e_new[i] < emin) e_new[i] = emin;
            }
FOR_IN_REGION
            for (int64_t i = 0; i < n; ++i) {
                if (delvc[i] <= 0.0) {
                    double ssc = energy_ssc(pbvc[i] * e_new[i] + vnewc[i] * vnewc[i] * bvc[i] * p_new[i], rho0);
                    q_new[i] = ssc * ql_old[i] + qq_old[i];
                    if (fabs(q_new[i]) < q_cut) q_new[i] = 0.0;
                }
            }
        }
    }
}

#define FIR_COEFFLEN 16

void comp_apps_fir(const double *in, double *out, const double *coeff_in, int64_t ncoeff, int64_t n,
                   int64_t reps)
{
    /* A compile-time tap count and a local copy of the taps, as RAJAPerf's FIR has, so the
     * inner loop is fully unrolled. */
    double coeff[FIR_COEFFLEN];
    if (ncoeff != FIR_COEFFLEN) return;
    for (int j = 0; j < FIR_COEFFLEN; ++j) coeff[j] = coeff_in[j];
    for (int64_t rep = 0; rep < reps; ++rep) {
PAR_FOR()
        for (int64_t i = 0; i < n; ++i) {
            double sum = 0.0;
            for (int j = 0; j < FIR_COEFFLEN; ++j) {
                sum += coeff[j] * in[i + j];
            }
            out[i] = sum;
        }
    }
}

void comp_apps_ltimes(double *phi, const double *ell, const double *psi, int64_t num_d,
                      int64_t num_g, int64_t num_m, int64_t num_z, int64_t reps)
{
    for (int64_t rep = 0; rep < reps; ++rep) {
PAR_FOR()
        for (int64_t z = 0; z < num_z; ++z) {
            for (int64_t g = 0; g < num_g; ++g) {
                for (int64_t m = 0; m < num_m; ++m) {
                    for (int64_t d = 0; d < num_d; ++d) {
                        phi[m + g * num_m + z * num_m * num_g] +=
                            ell[d + m * num_d] * psi[d + g * num_d + z * num_d * num_g];
                    }
                }
            }
        }
    }
}

void comp_apps_matvec_3d_stencil(double *b, const double *x, const double *const *c,
                                 const int64_t *zones, int64_t nzones, int64_t jp, int64_t kp,
                                 int64_t reps)
{
    /* The 14 allocated coefficient arrays; the upper half are shifted aliases. */
    const double *dbl = c[0], *dbc = c[1], *dbr = c[2], *dcl = c[3], *dcc = c[4], *dcr = c[5];
    const double *dfl = c[6], *dfc = c[7], *dfr = c[8], *cbl = c[9], *cbc = c[10], *cbr = c[11];
    const double *ccl = c[12], *ccc = c[13];
    /* "X shifted by s": coefficient at zone i is X[i + s]; every s here is positive. */
    const double *ccr = ccl + 1, *cfl = cbr + (jp - 1), *cfc = cbc + jp, *cfr = cbl + (jp + 1);
    const double *ubl = dfr + (kp - jp - 1), *ubc = dfc + (kp - jp), *ubr = dfl + (kp - jp + 1);
    const double *ucl = dcr + (kp - 1), *ucc = dcc + kp, *ucr = dcl + (kp + 1);
    const double *ufl = dbr + (kp + jp - 1), *ufc = dbc + (kp + jp), *ufr = dbl + (kp + jp + 1);
    const int64_t j = jp, k = kp;
    for (int64_t rep = 0; rep < reps; ++rep) {
PAR_FOR()
        for (int64_t ii = 0; ii < nzones; ++ii) {
            int64_t i = zones[ii];
            b[i] = dbl[i] * x[i - k - j - 1] + dbc[i] * x[i - k - j] + dbr[i] * x[i - k - j + 1] +
                   dcl[i] * x[i - k - 1] + dcc[i] * x[i - k] + dcr[i] * x[i - k + 1] +
                   dfl[i] * x[i - k + j - 1] + dfc[i] * x[i - k + j] + dfr[i] * x[i - k + j + 1] +
                   cbl[i] * x[i - j - 1] + cbc[i] * x[i - j] + cbr[i] * x[i - j + 1] +
                   ccl[i] * x[i - 1] + ccc[i] * x[i] + ccr[i] * x[i + 1] +
                   cfl[i] * x[i + j - 1] + cfc[i] * x[i + j] + cfr[i] * x[i + j + 1] +
                   ubl[i] * x[i + k - j - 1] + ubc[i] * x[i + k - j] + ubr[i] * x[i + k - j + 1] +
                   ucl[i] * x[i + k - 1] + ucc[i] * x[i + k] + ucr[i] * x[i + k + 1] +
                   ufl[i] * x[i + k + j - 1] + ufc[i] * x[i + k + j] + ufr[i] * x[i + k + j + 1];
        }
    }
}

void comp_apps_pressure(const double *compression, double *bvc, double *p_new,
                        const double *e_old, const double *vnewc, double cls, double p_cut,
                        double pmin, double eosvmax, int64_t n, int64_t reps)
{
    for (int64_t rep = 0; rep < reps; ++rep) {
PAR_REGION
        {
FOR_IN_REGION
            for (int64_t i = 0; i < n; ++i) {
                bvc[i] = cls * (compression[i] + 1.0);
            }
FOR_IN_REGION
            for (int64_t i = 0; i < n; ++i) {
                p_new[i] = bvc[i] * e_old[i];
                if (fabs(p_new[i]) < p_cut) p_new[i] = 0.0;
                if (vnewc[i] >= eosvmax) p_new[i] = 0.0;
                if (p_new[i] < pmin) p_new[i] = pmin;
            }
        }
    }
}

void comp_apps_vol3d(const double *x, const double *y, const double *z, double *vol, int64_t jp,
                     int64_t kp, int64_t fpz, int64_t lpz, int64_t reps)
{
    const double vol_factor = 0.083333333333333333;
    for (int64_t rep = 0; rep < reps; ++rep) {
PAR_FOR()
        for (int64_t i = fpz; i <= lpz; ++i) {
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

            xps = x72 + x50; yps = y72 + y50; zps = z72 + z50;
            cyz = y74 * z60 - z74 * y60;
            czx = z74 * x60 - x74 * z60;
            cxy = x74 * y60 - y74 * x60;
            v += xps * cyz + yps * czx + zps * cxy;

            /* As documented: this term reuses the d74 x d60 cross product. */
            xps = x74 + x30; yps = y74 + y30; zps = z74 + z30;
            v += xps * cyz + yps * czx + zps * cxy;

            cyz = y71 * z50 - z71 * y50;
            czx = z71 * x50 - x71 * z50;
            cxy = x71 * y50 - y71 * x50;
            v += xps * cyz + yps * czx + zps * cxy;

            vol[i] = v * vol_factor;
        }
    }
}
