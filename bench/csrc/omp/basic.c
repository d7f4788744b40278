/* Basic kernels with OpenMP (Base_OpenMP style). */
#include <limits.h>
#include <math.h>
#include <stdint.h>

#include "par.h"

void comp_basic_daxpy(double *y, const double *x, double a, int64_t n, int64_t reps)
{
    for (int64_t rep = 0; rep < reps; ++rep) {
PAR_FOR()
        for (int64_t i = 0; i < n; ++i) {
            y[i] += a * x[i];
        }
    }
}

void comp_basic_daxpy_atomic(double *y, const double *x, double a, int64_t n, int64_t reps)
{
    for (int64_t rep = 0; rep < reps; ++rep) {
PAR_FOR()
        for (int64_t i = 0; i < n; ++i) {
#pragma omp atomic
            y[i] += a * x[i];
        }
    }
}

void comp_basic_if_quad(const double *a, const double *b, const double *c, double *x1,
                        double *x2, int64_t n, int64_t reps)
{
    for (int64_t rep = 0; rep < reps; ++rep) {
PAR_FOR()
        for (int64_t i = 0; i < n; ++i) {
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
}

void comp_basic_init3(double *out1, double *out2, double *out3, const double *in1,
                      const double *in2, int64_t n, int64_t reps)
{
    for (int64_t rep = 0; rep < reps; ++rep) {
PAR_FOR()
        for (int64_t i = 0; i < n; ++i) {
            out1[i] = out2[i] = out3[i] = -in1[i] - in2[i];
        }
    }
}

void comp_basic_muladdsub(double *out1, double *out2, double *out3, const double *in1,
                          const double *in2, int64_t n, int64_t reps)
{
    for (int64_t rep = 0; rep < reps; ++rep) {
PAR_FOR()
        for (int64_t i = 0; i < n; ++i) {
            out1[i] = in1[i] * in2[i];
            out2[i] = in1[i] + in2[i];
            out3[i] = in1[i] - in2[i];
        }
    }
}

void comp_basic_nested_init(double *array, int64_t ni, int64_t nj, int64_t nk, int64_t reps)
{
    for (int64_t rep = 0; rep < reps; ++rep) {
PAR_FOR()
        for (int64_t k = 0; k < nk; ++k) {
            for (int64_t j = 0; j < nj; ++j) {
                for (int64_t i = 0; i < ni; ++i) {
                    array[i + ni * (j + nj * k)] = 0.00000001 * (double)i * (double)j * (double)k;
                }
            }
        }
    }
}

void comp_basic_pi_reduce(int64_t n, double dx, int64_t reps, double *result)
{
    for (int64_t rep = 0; rep < reps; ++rep) {
        double pi = 0.0;
PAR_FOR(reduction(+ : pi) TARGET_ONLY(map(tofrom: pi)))
        for (int64_t i = 0; i < n; ++i) {
            double x = ((double)i + 0.5) * dx;
            pi += dx / (1.0 + x * x);
        }
        *result = 4.0 * pi;
    }
}

void comp_basic_reduce3_int(const int32_t *vec, int64_t n, int64_t reps, int32_t *m_vsum,
                            int32_t *m_vmin, int32_t *m_vmax)
{
    for (int64_t rep = 0; rep < reps; ++rep) {
        int32_t vsum = 0, vmin = INT_MAX, vmax = INT_MIN;
PAR_FOR(reduction(+ : vsum) reduction(min : vmin) reduction(max : vmax) TARGET_ONLY(map(tofrom: vsum, vmin, vmax)))
        for (int64_t i = 0; i < n; ++i) {
            vsum += vec[i];
            vmin = vec[i] < vmin ? vec[i] : vmin;
            vmax = vec[i] > vmax ? vec[i] : vmax;
        }
        *m_vsum += vsum;
        *m_vmin = vmin < *m_vmin ? vmin : *m_vmin;
        *m_vmax = vmax > *m_vmax ? vmax : *m_vmax;
    }
}

static inline double trap_int_func(double x, double y, double xp, double yp)
{
    double denom = (x - xp) * (x - xp) + (y - yp) * (y - yp);
    return 1.0 / sqrt(denom);
}

void comp_basic_trap_int(int64_t n, double x0, double xp, double y, double yp, double h,
                         int64_t reps, double *m_sumx)
{
    for (int64_t rep = 0; rep < reps; ++rep) {
        double sumx = 0.0;
PAR_FOR(reduction(+ : sumx) TARGET_ONLY(map(tofrom: sumx)))
        for (int64_t i = 0; i < n; ++i) {
            double x = x0 + (double)i * h;
            sumx += trap_int_func(x, y, xp, yp);
        }
        *m_sumx += sumx * h;
    }
}
