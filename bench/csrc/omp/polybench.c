/* Polybench kernels with OpenMP (Base_OpenMP style). */
#include <stdint.h>

#include "par.h"

void comp_polybench_atax(double *tmp, const double *x, const double *a, double *y, int64_t n,
                         int64_t reps)
{
    for (int64_t rep = 0; rep < reps; ++rep) {
PAR_FOR()
        for (int64_t i = 0; i < n; ++i) {
            y[i] = 0.0;
            double dot = 0.0;
            for (int64_t j = 0; j < n; ++j) {
                dot += a[j + i * n] * x[j];
            }
            tmp[i] = dot;
        }
PAR_FOR()
        for (int64_t j = 0; j < n; ++j) {
            double dot = y[j];
            for (int64_t i = 0; i < n; ++i) {
                dot += a[j + i * n] * tmp[i];
            }
            y[j] = dot;
        }
    }
}

void comp_polybench_gemm(const double *a, const double *b, double *c, int64_t ni, int64_t nj,
                         int64_t nk, double alpha, int64_t reps)
{
    for (int64_t rep = 0; rep < reps; ++rep) {
PAR_FOR(collapse(2))
        for (int64_t i = 0; i < ni; ++i) {
            for (int64_t j = 0; j < nj; ++j) {
                double dot = 0.0;
                for (int64_t k = 0; k < nk; ++k) {
                    dot += alpha * a[k + i * nk] * b[j + k * nj];
                }
                c[j + i * nj] = dot;
            }
        }
    }
}

static void heat_3d_step(const double *src, double *dst, int64_t n)
{
#define AT(i, j, k) ((k) + n * ((j) + n * (i)))
PAR_FOR(collapse(2))
    for (int64_t i = 1; i < n - 1; ++i) {
        for (int64_t j = 1; j < n - 1; ++j) {
            for (int64_t k = 1; k < n - 1; ++k) {
                double c = src[AT(i, j, k)];
                dst[AT(i, j, k)] = 0.125 * (src[AT(i + 1, j, k)] - 2.0 * c + src[AT(i - 1, j, k)]) +
                                   0.125 * (src[AT(i, j + 1, k)] - 2.0 * c + src[AT(i, j - 1, k)]) +
                                   0.125 * (src[AT(i, j, k + 1)] - 2.0 * c + src[AT(i, j, k - 1)]) +
                                   c;
            }
        }
    }
#undef AT
}

void comp_polybench_heat_3d(double *a, double *b, int64_t n, int64_t tsteps, int64_t reps)
{
    for (int64_t rep = 0; rep < reps; ++rep) {
        for (int64_t t = 0; t < tsteps; ++t) {
            heat_3d_step(a, b, n);
            heat_3d_step(b, a, n);
        }
    }
}

void comp_polybench_jacobi_1d(double *a, double *b, int64_t n, int64_t tsteps, int64_t reps)
{
    for (int64_t rep = 0; rep < reps; ++rep) {
        for (int64_t t = 0; t < tsteps; ++t) {
PAR_FOR()
            for (int64_t i = 1; i < n - 1; ++i) {
                b[i] = 0.33333 * (a[i - 1] + a[i] + a[i + 1]);
            }
PAR_FOR()
            for (int64_t i = 1; i < n - 1; ++i) {
                a[i] = 0.33333 * (b[i - 1] + b[i] + b[i + 1]);
            }
        }
    }
}

static void jacobi_2d_step(const double *src, double *dst, int64_t n)
{
PAR_FOR(collapse(2))
    for (int64_t i = 1; i < n - 1; ++i) {
        for (int64_t j = 1; j < n - 1; ++j) {
            dst[j + i * n] = 0.2 * (src[j + i * n] + src[j - 1 + i * n] + src[j + 1 + i * n] +
                                    src[j + (i + 1) * n] + src[j + (i - 1) * n]);
        }
    }
}

void comp_polybench_jacobi_2d(double *a, double *b, int64_t n, int64_t tsteps, int64_t reps)
{
    for (int64_t rep = 0; rep < reps; ++rep) {
        for (int64_t t = 0; t < tsteps; ++t) {
            jacobi_2d_step(a, b, n);
            jacobi_2d_step(b, a, n);
        }
    }
}
