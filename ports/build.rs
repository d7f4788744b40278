// Compiles the ports' target regions into device images when the device toolchain is installed: NVIDIA sm_90, AMD
// gfx90a/gfx942, and the x86_64 image of libomptarget's host plugin (the panel test runs every port through it).
// `OMP_RS_OFFLOAD_ARCH` overrides the list.
fn main() {
    let archs = std::env::var("OMP_RS_OFFLOAD_ARCH").unwrap_or_else(|_| "sm_90,gfx90a,gfx942,host".to_string());
    omp_build::Builder::new().arch(&archs).compile();
}
