// Compiles the examples' target regions into device images when the device toolchain is installed: NVIDIA sm_90,
// AMD gfx90a/gfx942, and the x86_64 image of libomptarget's host plugin (used by the tests, which run every example
// through libomptarget without a GPU). `OMP_RS_OFFLOAD_ARCH` overrides the list.
fn main() {
    let archs = std::env::var("OMP_RS_OFFLOAD_ARCH").unwrap_or_else(|_| "sm_90,gfx90a,gfx942,host".to_string());
    omp_build::Builder::new().arch(&archs).compile();
}
