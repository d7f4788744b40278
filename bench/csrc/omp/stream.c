/* Stream kernels with OpenMP (Base_OpenMP style: a parallel for inside the rep loop). */
#include <stdint.h>

#include "par.h"

void comp_stream_copy(const double *a, double *c, int64_t n, int64_t reps)
{
    for (int64_t rep = 0; rep < reps; ++rep) {
PAR_FOR()
        for (int64_t i = 0; i < n; ++i) {
            c[i] = a[i];
        }
    }
}

void comp_stream_mul(double *b, const double *c, double alpha, int64_t n, int64_t reps)
{
    for (int64_t rep = 0; rep < reps; ++rep) {
PAR_FOR()
        for (int64_t i = 0; i < n; ++i) {
            b[i] = alpha * c[i];
        }
    }
}

void comp_stream_add(const double *a, const double *b, double *c, int64_t n, int64_t reps)
{
    for (int64_t rep = 0; rep < reps; ++rep) {
PAR_FOR()
        for (int64_t i = 0; i < n; ++i) {
            c[i] = a[i] + b[i];
        }
    }
}

void comp_stream_triad(double *a, const double *b, const double *c, double alpha, int64_t n,
                       int64_t reps)
{
    for (int64_t rep = 0; rep < reps; ++rep) {
PAR_FOR()
        for (int64_t i = 0; i < n; ++i) {
            a[i] = b[i] + alpha * c[i];
        }
    }
}

void comp_stream_dot(const double *a, const double *b, int64_t n, int64_t reps, double *m_dot)
{
    for (int64_t rep = 0; rep < reps; ++rep) {
        double dot = 0.0;
PAR_FOR(reduction(+ : dot) TARGET_ONLY(map(tofrom: dot)))
        for (int64_t i = 0; i < n; ++i) {
            dot += a[i] * b[i];
        }
        *m_dot += dot;
    }
}
