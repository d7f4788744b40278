// The suite always builds the host-plugin image too: that is how CI runs every target region through
// libomptarget without a GPU. OMP_RS_OFFLOAD_ARCH still overrides the list.
fn main() {
    let archs = std::env::var("OMP_RS_OFFLOAD_ARCH").unwrap_or_else(|_| "sm_90,gfx90a,gfx942,host".to_string());
    omp_build::Builder::new().arch(&archs).compile();
}
