/* See rpdata.h. Every formula here follows docs/rajaperf-kernels.md section 0. */
#include "rpdata.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ---------------------------------------------------------------- rand() */

void rp_srand(rp_rand *st, uint32_t seed)
{
    /* r[0] = seed; r[i] = 16807 * r[i-1] mod (2^31 - 1) for i = 1..30 (exact in 64 bits);
     * r[31..33] = r[0..2]; r[i] = r[i-31] + r[i-3] mod 2^32 from i = 34 on.
     * rand() call k returns r[k + 344] >> 1. */
    uint32_t r[34];
    r[0] = seed;
    for (int i = 1; i < 31; ++i) {
        r[i] = (uint32_t)((16807 * (int64_t)r[i - 1]) % 2147483647);
    }
    for (int i = 31; i < 34; ++i) {
        r[i] = r[i - 31];
    }
    /* The ring holds r[i] at slot i % 31: r[i-31] shares the slot that r[i] will take. */
    for (int i = 3; i < 34; ++i) {
        st->ring[i % 31] = r[i];
    }
    st->next = 34;
    for (int k = 34; k < 344; ++k) {
        (void)rp_rand_next(st);
    }
}

int32_t rp_rand_next(rp_rand *st)
{
    int64_t i = st->next;
    uint32_t v = st->ring[i % 31] + st->ring[(i - 3) % 31]; /* mod 2^32 by unsigned wrap */
    st->ring[i % 31] = v;
    st->next = i + 1;
    return (int32_t)(v >> 1);
}

static double rp_rand_unit(rp_rand *st)
{
    return (double)rp_rand_next(st) / RP_RAND_MAX;
}

/* ---------------------------------------------------------------- init routines */

double rp_init_factor(int counter)
{
    return (counter % 2 != 0) ? 0.1 : 0.2;
}

void rp_init_data(double *a, int64_t n, int *counter)
{
    double f = rp_init_factor(*counter);
    for (int64_t i = 0; i < n; ++i) {
        double di = (double)i;
        a[i] = (f * (di + 1.1)) / (di + 1.12345);
    }
    *counter += 1;
}

void rp_init_data_const(double *a, int64_t n, double v, int *counter)
{
    for (int64_t i = 0; i < n; ++i) {
        a[i] = v;
    }
    *counter += 1;
}

void rp_init_data_const_index(int64_t *a, int64_t n, int64_t v, int *counter)
{
    for (int64_t i = 0; i < n; ++i) {
        a[i] = v;
    }
    *counter += 1;
}

void rp_init_data_rand_sign(double *a, int64_t n, int *counter)
{
    double f = rp_init_factor(*counter);
    rp_rand st;
    rp_srand(&st, RP_RAND_SEED);
    for (int64_t i = 0; i < n; ++i) {
        double s = rp_rand_unit(&st);
        double sign = (s < 0.5) ? -1.0 : 1.0;
        double di = (double)i;
        a[i] = ((sign * f) * (di + 1.1)) / (di + 1.12345);
    }
    *counter += 1;
}

void rp_init_data_rand_value(double *a, int64_t n, int *counter)
{
    rp_rand st;
    rp_srand(&st, RP_RAND_SEED);
    for (int64_t i = 0; i < n; ++i) {
        a[i] = rp_rand_unit(&st);
    }
    *counter += 1;
}

void rp_init_data_int(int32_t *a, int64_t n, int *counter)
{
    rp_rand st;
    rp_srand(&st, RP_RAND_SEED);
    for (int64_t i = 0; i < n; ++i) {
        a[i] = (rp_rand_unit(&st) < 0.5) ? -1 : 1;
    }
    double s = rp_rand_unit(&st);
    a[(int64_t)((double)n * s)] = -58;
    s = rp_rand_unit(&st);
    a[(int64_t)((double)n * s)] = 19;
    *counter += 1;
}

double rp_init_scalar(int *counter)
{
    double f = rp_init_factor(*counter);
    *counter += 1;
    return (f * 1.1) / 1.12345;
}

/* ---------------------------------------------------------------- checksums */

/* Weight of element j: computed in double (glibc sin), widened by the caller. */
static double rp_weight(int64_t j)
{
    return fabs(sin((double)j + 1.0)) + 0.5;
}

void rp_cks_add_f64(long double *acc, const double *a, int64_t n, double scale)
{
    long double sum = 0.0L, comp = 0.0L;
    for (int64_t j = 0; j < n; ++j) {
        long double x = (long double)rp_weight(j) * (long double)a[j];
        long double y = x - comp;
        long double t = sum + y;
        comp = (t - sum) - y;
        sum = t;
    }
    *acc += sum * (long double)scale;
}

void rp_cks_add_i32(long double *acc, const int32_t *a, int64_t n, double scale)
{
    long double sum = 0.0L, comp = 0.0L;
    for (int64_t j = 0; j < n; ++j) {
        long double x = (long double)rp_weight(j) * (long double)a[j];
        long double y = x - comp;
        long double t = sum + y;
        comp = (t - sum) - y;
        sum = t;
    }
    *acc += sum * (long double)scale;
}

void rp_ld_add_f64(long double *acc, double v)
{
    *acc += (long double)v;
}

void rp_ld_add_i64(long double *acc, int64_t v)
{
    *acc += (long double)v;
}

double rp_scale(double c, int64_t default_size, int64_t actual_size)
{
    long double ratio = (long double)default_size / (long double)actual_size;
    return (double)((long double)c * ratio);
}

double rp_ld_to_f64(const long double *x)
{
    return (double)*x;
}

double rp_ld_rel_diff(const long double *a, const long double *b)
{
    long double d = fabsl(*a - *b);
    long double m = fabsl(*b);
    return (double)(m > 0.0L ? d / m : d);
}

int rp_ld_format(const long double *x, char *buf, int len)
{
    /* Exponent form keeps trailing zeros: always 21 significant digits. */
    return snprintf(buf, (size_t)len, "%.20Le", *x);
}

int rp_ld_parse(long double *x, const char *text)
{
    char *end = NULL;
    *x = strtold(text, &end);
    return (end == text || *end != '\0') ? -1 : 0;
}

/* ---------------------------------------------------------------- ADomain */

void rp_adomain_init(rp_adomain *d, int64_t m, int ndims)
{
    /* Two ghost nodes on the low side, one on the high side. */
    int64_t lo = 2, hi = lo + m - 1, nodes = m + 3;
    d->ndims = ndims;
    d->imin = lo; d->imax = hi;
    d->jmin = lo; d->jmax = hi;
    d->kmin = (ndims == 3) ? lo : 0;
    d->kmax = (ndims == 3) ? hi : 1;
    d->jp = nodes;
    d->kp = (ndims == 3) ? nodes * nodes : 0;
    d->nnalls = (ndims == 3) ? nodes * nodes * nodes : nodes * nodes;
    d->n_real_zones = (ndims == 3) ? (m - 1) * (m - 1) * (m - 1) : (m - 1) * (m - 1);
    if (ndims == 3) {
        d->fpz = d->kp + d->jp + 1;
        d->lpz = d->imax * d->kp + d->imax * d->jp + d->imax;
    } else {
        d->fpz = d->jp + 1;
        d->lpz = d->imax * d->jp + d->imax;
    }
}

void rp_adomain_real_zones(const rp_adomain *d, int64_t *zones)
{
    int64_t l = 0;
    for (int64_t k = d->kmin; k < d->kmax; ++k) {
        for (int64_t j = d->jmin; j < d->jmax; ++j) {
            for (int64_t i = d->imin; i < d->imax; ++i) {
                zones[l++] = i + j * d->jp + k * d->kp;
            }
        }
    }
}

void rp_adomain_mesh_2d(const rp_adomain *d, double dx, double dy, double *x, double *y)
{
    int64_t nodes = d->jp;
    for (int64_t j = 0; j < nodes; ++j) {
        for (int64_t i = 0; i < nodes; ++i) {
            int64_t n = i + j * d->jp;
            x[n] = (double)i * dx;
            y[n] = (double)j * dy;
        }
    }
}

void rp_adomain_mesh_3d(const rp_adomain *d, double dx, double dy, double dz,
                        double *x, double *y, double *z)
{
    int64_t nodes = d->jp;
    for (int64_t k = 0; k < nodes; ++k) {
        for (int64_t j = 0; j < nodes; ++j) {
            for (int64_t i = 0; i < nodes; ++i) {
                int64_t n = i + j * d->jp + k * d->kp;
                x[n] = (double)i * dx;
                y[n] = (double)j * dy;
                z[n] = (double)k * dz;
            }
        }
    }
}

int64_t rp_adomain_nodes_per_dim(int64_t target, int ndims)
{
    double t = (double)target;
    double m = (ndims == 3) ? cbrt(t) + 1.0 + cbrt(3.0) - 1.0
                            : sqrt(t) + 1.0 + sqrt(2.0) - 1.0;
    return (int64_t)m;
}
