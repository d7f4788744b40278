/* rpdata: RAJAPerf-compatible input initialisation, rand() reproduction and long double
 * checksums, written from docs/rajaperf-kernels.md section 0.
 *
 * One C implementation serves two programs: the Rust suite (omp-bench links it through FFI,
 * and its tests exercise every routine here) and the CUDA baseline in bench/cuda (host side).
 * The file compiles as C99 and as C++ (nvcc / g++), so both agree by construction.
 *
 * Build with -ffp-contract=off and without fast-math: the formulas must round exactly like
 * the reference build (-O3 -ffp-contract=off). */
#ifndef RPDATA_H
#define RPDATA_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- glibc random() (TYPE_3) reproduction: rand() with srand(seed) ---- */
typedef struct rp_rand {
    uint32_t ring[31]; /* the last 31 values of the r[] sequence */
    int64_t next;      /* index i of the next r[i] to compute */
} rp_rand;

void rp_srand(rp_rand *st, uint32_t seed);
/* Next rand() value in [0, 2^31 - 1). */
int32_t rp_rand_next(rp_rand *st);

/* ---- init routines; each reads then increments *counter ---- */
#define RP_RAND_SEED 4793u
#define RP_RAND_MAX 2147483647.0

/* f = 0.1 for an odd counter, 0.2 for an even one. */
double rp_init_factor(int counter);
void rp_init_data(double *a, int64_t n, int *counter);
void rp_init_data_const(double *a, int64_t n, double v, int *counter);
void rp_init_data_const_index(int64_t *a, int64_t n, int64_t v, int *counter);
void rp_init_data_rand_sign(double *a, int64_t n, int *counter);
void rp_init_data_rand_value(double *a, int64_t n, int *counter);
void rp_init_data_int(int32_t *a, int64_t n, int *counter);
double rp_init_scalar(int *counter);

/* ---- checksums: accumulate into an 80-bit long double held by the caller ---- */
/* *acc += cks(a, n, scale): Kahan sum of (|sin(j+1)|+0.5) * a[j] in long double, times scale. */
void rp_cks_add_f64(long double *acc, const double *a, int64_t n, double scale);
void rp_cks_add_i32(long double *acc, const int32_t *a, int64_t n, double scale);
/* *acc += v (reduction results are added directly). */
void rp_ld_add_f64(long double *acc, double v);
void rp_ld_add_i64(long double *acc, int64_t v);
/* Scale factor c * (default_size / actual_size), formed in long double, rounded to double. */
double rp_scale(double c, int64_t default_size, int64_t actual_size);
double rp_ld_to_f64(const long double *x);
/* |a - b| / |b| (|a - b| when b == 0), computed in long double. */
double rp_ld_rel_diff(const long double *a, const long double *b);
/* Decimal text with 21 significant digits, exponent form (round-trips a 64-bit mantissa).
 * Returns the length snprintf reports. */
int rp_ld_format(const long double *x, char *buf, int len);
/* Parses text written by rp_ld_format (strtold). Returns 0 on success. */
int rp_ld_parse(long double *x, const char *text);

/* ---- ADomain (section 0.5): mesh helper for the Apps kernels ---- */
typedef struct rp_adomain {
    int ndims;
    int64_t imin, imax, jmin, jmax, kmin, kmax; /* real-zone bounds per dimension */
    int64_t jp, kp;                             /* strides of j and k */
    int64_t nnalls;                             /* nodes including ghosts */
    int64_t n_real_zones;
    int64_t fpz, lpz;                           /* first and last zone index */
} rp_adomain;

/* m = real nodes per dimension, ndims = 2 or 3. */
void rp_adomain_init(rp_adomain *d, int64_t m, int ndims);
/* Real-zone index list, n_real_zones entries, i fastest. */
void rp_adomain_real_zones(const rp_adomain *d, int64_t *zones);
/* Node coordinates x = i*dx, y = j*dy (2D; all nnalls nodes). */
void rp_adomain_mesh_2d(const rp_adomain *d, double dx, double dy, double *x, double *y);
/* Node coordinates x = i*dx, y = j*dy, z = k*dz (3D; all nnalls nodes). */
void rp_adomain_mesh_3d(const rp_adomain *d, double dx, double dy, double dz,
                        double *x, double *y, double *z);

/* m for a target size: trunc(root(target) + 1 + root(ndims) - 1), root = sqrt or cbrt. */
int64_t rp_adomain_nodes_per_dim(int64_t target, int ndims);

#ifdef __cplusplus
}
#endif

#endif
