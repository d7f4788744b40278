//! `cargo-omp census` on a small tree whose answers are known: a program of loops and data regions (expressible),
//! a user-defined reduction, SPMD kernels (one without a barrier, one with team-local arrays and a barrier, one with per-team code, one without
//! its geometry), the split
//! `target` + `teams distribute parallel for` form (and a `target` holding more than that), loop directives nested
//! in a parallel loop, and a Fortran program.

use std::path::Path;
use std::process::Command;

fn write(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

#[test]
fn programs_and_blockers_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        &root.join("saxpy-omp/main.cpp"),
        "void f(int n, float a, float *x, float *y) {\n\
         #pragma omp target data map(to: x[0:n]) map(tofrom: y[0:n])\n\
         {\n\
           #pragma omp target teams distribute parallel for thread_limit(256)\n\
           for (int i = 0; i < n; i++) y[i] += a * x[i];\n\
           #pragma omp target update from(y[0:n])\n\
           check(y, n); // host code inside the data region: a host view\n\
           #pragma omp critical (log)\n\
           { logged++; }\n\
         }\n}\n",
    );
    // Host `parallel` blocks: worksharing steps in a time loop; a per-thread partial sum across the steps; a
    // target region per thread; a `for` in a function the region calls.
    write(
        &root.join("host-omp/main.cpp"),
        "void h(int n, int steps, double *a, double *b) {\n\
         #pragma omp parallel num_threads(4)\n\
         for (int s = 0; s < steps; s++) {\n\
           #pragma omp for\n\
           for (int i = 1; i < n - 1; i++) b[i] = a[i - 1] + a[i + 1];\n\
           #pragma omp barrier\n\
           #pragma omp single\n\
           { swap(a, b); }\n\
         }\n\
         #pragma omp parallel\n\
         {\n\
           double local = 0.0;\n\
           #pragma omp for nowait\n\
           for (int i = 0; i < n; i++) local += a[i];\n\
           #pragma omp critical\n\
           { total += local; }\n\
         }\n\
         #pragma omp parallel\n\
         {\n\
           int t = omp_get_thread_num();\n\
           #pragma omp target teams distribute parallel for\n\
           for (int i = 0; i < n; i++) a[t * n + i] = 0;\n\
         }\n}\n\
         void orphan(int n, double *a) {\n\
         #pragma omp for\n\
           for (int i = 0; i < n; i++) a[i] = 0;\n}\n",
    );
    // Reductions on array elements: literal indices and sections are scalars to omp-rs, a run-time section is not.
    write(
        &root.join("elements-omp/main.cpp"),
        "void e(int n, int k, float *x, float *d, double *beta) {\n\
         #pragma omp target teams distribute parallel for reduction(max: d[0])\n\
         for (int i = 0; i < n; i++) d[0] = fmaxf(d[0], x[i]);\n\
         #pragma omp target teams distribute parallel for reduction(+: beta[:3])\n\
         for (int i = 0; i < n; i++) { beta[0] += x[i]; beta[1] += 1; beta[2] += 2; }\n\
         #pragma omp parallel for reduction(+: beta[0:k])\n\
         for (int i = 0; i < n; i++) beta[i % k] += x[i];\n}\n",
    );
    write(
        &root.join("reduce-omp/main.cpp"),
        "void g(int n, float *x, float *out) {\n\
         #pragma omp target teams num_teams(n/256) thread_limit(256)\n\
         {\n\
           float s[256];\n\
           #pragma omp parallel\n\
           {\n\
             int t = omp_get_thread_num();\n\
             s[t] = x[omp_get_team_num() * 256 + t];\n\
             #pragma omp barrier\n\
             if (t == 0) out[omp_get_team_num()] = s[0];\n\
           }\n\
         }\n}\n",
    );
    // A barrier in a device function the SPMD region calls (a team function, inlined).
    write(
        &root.join("teamfn-omp/main.cpp"),
        "#pragma omp declare target\n\
         void scan(float *s, int t) {\n\
           s[t] += 1.0f;\n\
         #pragma omp barrier\n\
         }\n\
         #pragma omp end declare target\n\
         void f(int n, float *x) {\n\
         #pragma omp target teams num_teams(n/64) thread_limit(64)\n\
         {\n\
           float s[64];\n\
           #pragma omp parallel\n\
           {\n\
             int t = omp_get_thread_num();\n\
             s[t] = x[omp_get_team_num() * 64 + t];\n\
             #pragma omp barrier\n\
             scan(s, t);\n\
             x[omp_get_team_num() * 64 + t] = s[t];\n\
           }\n\
         }\n}\n",
    );
    // The same team function in a header of the program, without `declare target` (HeCBench's sort, heartwall).
    write(
        &root.join("teamhdr-omp/scan.h"),
        "void scan(float *s, int t) {\n\
           s[t] += 1.0f;\n\
         #pragma omp barrier\n\
         }\n",
    );
    write(
        &root.join("teamhdr-omp/main.cpp"),
        "#include \"scan.h\"\n\
         void f(int n, float *x) {\n\
         #pragma omp target teams num_teams(n/64) thread_limit(64)\n\
         {\n\
           float s[64];\n\
           #pragma omp parallel\n\
           {\n\
             int t = omp_get_thread_num();\n\
             s[t] = x[omp_get_team_num() * 64 + t];\n\
             #pragma omp barrier\n\
             scan(s, t);\n\
           }\n\
         }\n}\n",
    );
    // A `parallel` region in a target loop's iteration (logprob): nested, so a team of one thread.
    write(
        &root.join("nestpar-omp/main.cpp"),
        "void lp(int n, int v, const float *x, float *out) {\n\
         #pragma omp target teams distribute parallel for\n\
         for (int r = 0; r < n; r++) {\n\
           float m = -1e30f;\n\
           #pragma omp parallel reduction(max: m)\n\
           for (int i = 0; i < v; i++) m = fmaxf(m, x[r * v + i]);\n\
           out[r] = m;\n\
         }\n}\n",
    );
    write(
        &root.join("perteam-omp/main.cpp"),
        "void p(int n, float *x, float *out) {\n\
         #pragma omp target teams num_teams(n/256) thread_limit(256)\n\
         {\n\
           float s[256];\n\
           int base = omp_get_team_num() * 256;\n\
           #pragma omp parallel\n\
           {\n\
             s[omp_get_thread_num()] = x[base + omp_get_thread_num()];\n\
             #pragma omp barrier\n\
             out[base + omp_get_thread_num()] = s[255 - omp_get_thread_num()];\n\
           }\n\
         }\n}\n",
    );
    write(
        &root.join("split-omp/k.cpp"),
        "void h(int n, double *x, int did) {\n\
         #pragma omp target is_device_ptr(x) device(did)\n\
         #pragma omp teams distribute parallel for\n\
         for (int i = 0; i < n; i++) x[i] = 0;\n\
         #pragma omp target map(tofrom: x[0:n])\n\
         {\n\
           #pragma omp teams distribute parallel for\n\
           for (int i = 0; i < n; i++) x[i] += 1;\n\
         }\n}\n",
    );
    write(
        &root.join("mixed-omp/k.cpp"),
        "void m(int n, double *x) {\n\
         #pragma omp target map(tofrom: x[0:n])\n\
         {\n\
           int k = 1;\n\
           #pragma omp teams distribute parallel for\n\
           for (int i = 0; i < n; i++) x[i] = k;\n\
         }\n}\n",
    );
    write(
        &root.join("fortran-omp/heat.f90"),
        "subroutine step(n, u, v)\n\
         !$omp target teams distribute parallel do collapse(2) &\n\
         !$omp& map(tofrom: u, v)\n\
         do j = 1, n\n  do i = 1, n\n    v(i, j) = u(i, j)\n  end do\nend do\n\
         end subroutine\n",
    );
    write(
        &root.join("nested-omp/csr.cpp"),
        "void spmv(int n, const int *r, const int *c, const double *v, const double *x, double *y) {\n\
         #pragma omp target teams distribute num_teams(n)\n\
         for (int i = 0; i < n; i++) {\n\
           double t = 0;\n\
           #pragma omp parallel for num_threads(32) reduction(+:t)\n\
           for (int j = r[i]; j < r[i+1]; j++) t += v[j] * x[c[j]];\n\
           y[i] = t;\n\
         }\n\
         #pragma omp parallel for\n\
         for (int i = 0; i < n; i++) {\n\
           double t;\n\
           #pragma omp parallel for private(t)\n\
           for (int j = 0; j < n; j++) { t = x[j]; y[i] += t; }\n\
         }\n}\n",
    );
    write(
        &root.join("gid-omp/k.cpp"),
        "void k(int n, float a, float *x, float *y) {\n\
         #pragma omp target teams num_teams((n + 255) / 256) thread_limit(256)\n\
         {\n\
           #pragma omp parallel\n\
           {\n\
             int gid = omp_get_team_num() * omp_get_num_threads() + omp_get_thread_num();\n\
             if (gid < n) y[gid] += a * x[gid];\n\
           }\n\
         }\n}\n",
    );
    write(
        &root.join("geometry-omp/k.cpp"),
        "void z(float *y) {\n\
         #pragma omp target teams num_teams(4)\n\
         #pragma omp parallel\n\
         { y[omp_get_team_num() * omp_get_num_threads() + omp_get_thread_num()] = 0; }\n}\n",
    );
    write(
        &root.join("teamvar-omp/main.cpp"),
        "void b(int n, size_t m, const float *a, float *r) {\n\
         #pragma omp target teams num_teams(n/64) thread_limit(64)\n\
         {\n\
           size_t k;\n\
         #ifdef WIDE\n\
           double lo, hi;\n\
         #else\n\
           float lo, hi;\n\
         #endif\n\
           #pragma omp parallel\n\
           {\n\
             int t = omp_get_thread_num();\n\
             if (t == 0) { k = m / 2; lo = a[0]; hi = a[k]; }\n\
             #pragma omp barrier\n\
             r[omp_get_team_num() * 64 + t] = (a[t] - lo) / (hi - lo);\n\
           }\n\
         }\n}\n",
    );
    write(
        &root.join("rows-omp/main.cpp"),
        "void h(int m, float (*a)[8], float (*c)[8], float **d) {\n\
         #pragma omp target data map(to: a[0:m][0:8]) map(from: c[0:m][0:8])\n\
         {\n\
           #pragma omp target teams distribute parallel for collapse(2)\n\
           for (int i = 0; i < m; i++) for (int j = 0; j < 8; j++) c[i][j] = a[i][j];\n\
         }\n\
         #pragma omp target update from(d[0][0:m])\n\
         }\n",
    );
    write(
        &root.join("scan-omp/k.cpp"),
        "void s(int n, const float *x, float *y) {\n\
         float t = 0;\n\
         #pragma omp target teams distribute parallel for reduction(inscan, +: t) map(to: x[0:n]) map(from: y[0:n])\n\
         for (int i = 0; i < n; i++) {\n\
           y[i] = t;\n\
           #pragma omp scan exclusive(t)\n\
           t += x[i];\n\
         }\n\
         #pragma omp scan inclusive(t)\n\
         }\n",
    );
    // minmax's user-defined reduction of a pair (`#[omp::declare_reduction]`), and one of array elements.
    write(
        &root.join("minmax-omp/main.cpp"),
        "struct MinPair { float val; long idx; };\n\
         #pragma omp declare reduction(minpair : MinPair : omp_out = min_pair(omp_out, omp_in)) initializer(omp_priv = {1e30f, -1})\n\
         void m(int n, const float *x, MinPair *r) {\n\
         MinPair best = {1e30f, -1};\n\
         #pragma omp target teams distribute parallel for reduction(minpair: best) map(to: x[0:n])\n\
         for (int i = 0; i < n; i++) best = min_pair(best, MinPair{x[i], i});\n\
         #pragma omp parallel for reduction(minpair: r[0])\n\
         for (int i = 0; i < n; i++) r[0] = min_pair(r[0], MinPair{x[i], i});\n\
         }\n",
    );
    let out = Command::new(env!("CARGO_BIN_EXE_cargo-omp")).arg("census").arg(root).arg("--list").output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("18 programs, 62 OpenMP directives"), "{text}");
    assert!(text.contains("programs expressible as written:   9 / 18 (50.0 %)"), "{text}");
    assert!(
        text.contains("minmax-omp: 2 of 3 directives expressible; a user-defined reduction of array elements (minmax-omp/main.cpp:7)"),
        "{text}"
    );
    // A scan of a loop with `reduction(inscan, ..)`; not elsewhere.
    assert!(
        text.contains("scan-omp: 2 of 3 directives expressible; `scan` outside a loop with `reduction(inscan, ...)` (scan-omp/k.cpp:9)"),
        "{text}"
    );
    // Team-local variables (declarations without values, `#ifdef` branches) beside the `parallel`.
    assert!(text.contains("teamvar-omp: expressible (3 directives)"), "{text}");
    // Whole rows (`a[0:m][0:8]`) are an array of rows; a row of an array of pointers is not.
    assert!(
        text.contains("rows-omp: 2 of 3 directives expressible; multi-dimensional array sections (a row of an array of pointers, part of each row) (rows-omp/main.cpp:7)"),
        "{text}"
    );
    // Team-local arrays before the `parallel` and its barriers (omp_rs_codegen::desugar::spmd::team); per-team code is not.
    assert!(text.contains("reduce-omp: expressible (3 directives)"), "{text}");
    // SPMD regions: the whole body of a `target teams` with its geometry is the (team, thread) loop nest.
    assert!(text.contains("gid-omp: expressible (2 directives)"), "{text}");
    assert!(
        text.contains("geometry-omp: 0 of 2 directives expressible; SPMD `target teams` + `parallel` without `num_teams` and a team size"),
        "{text}"
    );
    // A nested `parallel for` runs its loop in the enclosing iteration; with private copies it does not.
    assert!(
        text.contains(
            "nested-omp: 3 of 4 directives expressible; loop directives nested in a parallel loop's body (nested-omp/csr.cpp:12)"
        ),
        "{text}"
    );
    assert!(text.contains("saxpy-omp: expressible (4 directives)"), "{text}");
    assert!(
        text.contains(
            "elements-omp: 2 of 3 directives expressible; array-section reductions with run-time bounds (elements-omp/main.cpp:6)"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "host-omp: 7 of 10 directives expressible; per-thread variables across the worksharing steps of a host \
             `parallel` block (host-omp/main.cpp:10); target regions inside a host `parallel` block (one per thread) \
             (host-omp/main.cpp:18); worksharing (`for`, `single`, `master`) outside a `parallel` region (in a function it \
             calls) (host-omp/main.cpp:26)"
        ),
        "{text}"
    );
    assert!(text.contains("fortran-omp: expressible (1 directives)"), "{text}");
    assert!(text.contains("teamfn-omp: expressible (6 directives)"), "a barrier in a team function: {text}");
    assert!(text.contains("teamhdr-omp: expressible (4 directives)"), "a team function in a header: {text}");
    assert!(text.contains("nestpar-omp: expressible (2 directives)"), "a nested parallel region: {text}");
    assert!(
        text.contains("| `parallel` inside `target teams` beside per-team code or team-local pointers (SPMD kernels) | 1 | 1 |"),
        "{text}"
    );
    assert!(text.contains("| `barrier` outside a `parallel` block (in a function the region calls) | 1 | 1 |"), "{text}");
    assert!(text.contains("omp_get_thread_num"), "{text}");
    assert!(text.contains("split-omp: expressible (4 directives)"), "OpenMP's split form is the combined construct: {text}");
    assert!(text.contains("mixed-omp: 1 of 2 directives expressible; `teams` inside a `target` whose body holds more"), "{text}");
}
