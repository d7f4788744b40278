// Device images for NVIDIA sm_90, AMD gfx90a/gfx942 and libomptarget's host plugin (the test runs the ranks through
// it without a GPU). `OMP_RS_OFFLOAD_ARCH` overrides the list.
fn main() {
    let archs = std::env::var("OMP_RS_OFFLOAD_ARCH").unwrap_or_else(|_| "sm_90,gfx90a,gfx942,host".to_string());
    omp_build::Builder::new().arch(&archs).compile();
}
