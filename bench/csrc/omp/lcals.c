/* Lcals kernels with OpenMP (Base_OpenMP style). */
#include <math.h>
#include <stdint.h>

#include "par.h"

void comp_lcals_diff_predict(double *px, const double *cx, int64_t n, int64_t reps)
{
    for (int64_t rep = 0; rep < reps; ++rep) {
PAR_FOR()
        for (int64_t i = 0; i < n; ++i) {
            double carry = cx[i + 4 * n];
            for (int64_t r = 4; r <= 12; ++r) {
                double next = carry - px[i + r * n];
                px[i + r * n] = carry;
                carry = next;
            }
            px[i + 13 * n] = carry;
        }
    }
}

void comp_lcals_eos(double *x, const double *y, const double *z, const double *u, double q,
                    double r, double t, int64_t n, int64_t reps)
{
    for (int64_t rep = 0; rep < reps; ++rep) {
PAR_FOR()
        for (int64_t i = 0; i < n; ++i) {
            x[i] = u[i] + r * (z[i] + r * y[i]) +
                   t * (u[i + 3] + r * (u[i + 2] + r * u[i + 1]) +
                        t * (u[i + 6] + q * (u[i + 5] + q * u[i + 4])));
        }
    }
}

void comp_lcals_first_diff(double *x, const double *y, int64_t n, int64_t reps)
{
    for (int64_t rep = 0; rep < reps; ++rep) {
PAR_FOR()
        for (int64_t i = 0; i < n; ++i) {
            x[i] = y[i + 1] - y[i];
        }
    }
}

void comp_lcals_hydro_1d(double *x, const double *y, const double *z, double q, double r,
                         double t, int64_t n, int64_t reps)
{
    for (int64_t rep = 0; rep < reps; ++rep) {
PAR_FOR()
        for (int64_t i = 0; i < n; ++i) {
            x[i] = q + y[i] * (r * z[i + 10] + t * z[i + 11]);
        }
    }
}

struct hydro2d_arrays {
    double *zrout, *zzout, *za, *zb;
    const double *zm, *zp, *zq, *zr;
    double *zu, *zv;
    const double *zz;
};

void comp_lcals_hydro_2d(const struct hydro2d_arrays *a, int64_t kn, int64_t jn, double s,
                         double t, int64_t reps)
{
    double *zrout = a->zrout, *zzout = a->zzout, *za = a->za, *zb = a->zb;
    const double *zm = a->zm, *zp = a->zp, *zq = a->zq, *zr = a->zr, *zz = a->zz;
    double *zu = a->zu, *zv = a->zv;
#define AT(k, j) ((j) + (k) * jn)
    for (int64_t rep = 0; rep < reps; ++rep) {
        /* Three loops, each with its implied barrier: nest 2 reads za/zb of neighbour rows. */
PAR_FOR()
        for (int64_t k = 1; k < kn - 1; ++k) {
            for (int64_t j = 1; j < jn - 1; ++j) {
                za[AT(k, j)] = (zp[AT(k + 1, j - 1)] + zq[AT(k + 1, j - 1)] - zp[AT(k, j - 1)] -
                                zq[AT(k, j - 1)]) *
                               (zr[AT(k, j)] + zr[AT(k, j - 1)]) /
                               (zm[AT(k, j - 1)] + zm[AT(k + 1, j - 1)]);
                zb[AT(k, j)] = (zp[AT(k, j - 1)] + zq[AT(k, j - 1)] - zp[AT(k, j)] - zq[AT(k, j)]) *
                               (zr[AT(k, j)] + zr[AT(k - 1, j)]) /
                               (zm[AT(k, j)] + zm[AT(k, j - 1)]);
            }
        }
PAR_FOR()
        for (int64_t k = 1; k < kn - 1; ++k) {
            for (int64_t j = 1; j < jn - 1; ++j) {
                int64_t c = AT(k, j);
                zu[c] += s * (za[c] * (zz[c] - zz[AT(k, j + 1)]) -
                              za[AT(k, j - 1)] * (zz[c] - zz[AT(k, j - 1)]) -
                              zb[c] * (zz[c] - zz[AT(k - 1, j)]) +
                              zb[AT(k + 1, j)] * (zz[c] - zz[AT(k + 1, j)]));
                zv[c] += s * (za[c] * (zr[c] - zr[AT(k, j + 1)]) -
                              za[AT(k, j - 1)] * (zr[c] - zr[AT(k, j - 1)]) -
                              zb[c] * (zr[c] - zr[AT(k - 1, j)]) +
                              zb[AT(k + 1, j)] * (zr[c] - zr[AT(k + 1, j)]));
            }
        }
PAR_FOR()
        for (int64_t k = 1; k < kn - 1; ++k) {
            for (int64_t j = 1; j < jn - 1; ++j) {
                int64_t c = AT(k, j);
                zrout[c] = zr[c] + t * zu[c];
                zzout[c] = zz[c] + t * zv[c];
            }
        }
    }
#undef AT
}

void comp_lcals_planckian(const double *x, double *y, const double *u, const double *v,
                          double *w, int64_t n, int64_t reps)
{
    for (int64_t rep = 0; rep < reps; ++rep) {
PAR_FOR()
        for (int64_t i = 0; i < n; ++i) {
            y[i] = u[i] / v[i];
            w[i] = x[i] / (exp(y[i]) - 1.0);
        }
    }
}
