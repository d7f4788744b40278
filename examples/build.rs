// Compiles the target regions of the examples into GPU images (when the device toolchain is installed).
fn main() {
    omp_build::Builder::new().compile();
}
