//! Safe wrappers over `csrc/rpdata.c`: RAJAPerf's init routines, its rand() sequence, the
//! 80-bit long double checksum and the ADomain mesh helper.
//!
//! The C file is the single implementation of these rules: the CUDA baseline (`bench/cuda`)
//! compiles the same file, so the tests here cover its host side too.

use std::ffi::{c_char, c_int, CStr, CString};
use std::fmt;
use std::str::FromStr;

mod ffi {
    use super::RandState;
    use std::ffi::{c_char, c_int};

    #[repr(C)]
    #[derive(Clone, Copy, Default, Debug)]
    pub(crate) struct ADomainRaw {
        pub ndims: c_int,
        pub imin: i64,
        pub imax: i64,
        pub jmin: i64,
        pub jmax: i64,
        pub kmin: i64,
        pub kmax: i64,
        pub jp: i64,
        pub kp: i64,
        pub nnalls: i64,
        pub n_real_zones: i64,
        pub fpz: i64,
        pub lpz: i64,
    }

    extern "C" {
        pub(crate) fn rp_srand(st: *mut RandState, seed: u32);
        pub(crate) fn rp_rand_next(st: *mut RandState) -> i32;

        pub(crate) fn rp_init_factor(counter: c_int) -> f64;
        pub(crate) fn rp_init_data(a: *mut f64, n: i64, counter: *mut c_int);
        pub(crate) fn rp_init_data_const(a: *mut f64, n: i64, v: f64, counter: *mut c_int);
        pub(crate) fn rp_init_data_const_index(a: *mut i64, n: i64, v: i64, counter: *mut c_int);
        pub(crate) fn rp_init_data_rand_sign(a: *mut f64, n: i64, counter: *mut c_int);
        pub(crate) fn rp_init_data_rand_value(a: *mut f64, n: i64, counter: *mut c_int);
        pub(crate) fn rp_init_data_int(a: *mut i32, n: i64, counter: *mut c_int);
        pub(crate) fn rp_init_scalar(counter: *mut c_int) -> f64;

        pub(crate) fn rp_cks_add_f64(acc: *mut u8, a: *const f64, n: i64, scale: f64);
        pub(crate) fn rp_cks_add_i32(acc: *mut u8, a: *const i32, n: i64, scale: f64);
        pub(crate) fn rp_ld_add_f64(acc: *mut u8, v: f64);
        pub(crate) fn rp_ld_add_i64(acc: *mut u8, v: i64);
        pub(crate) fn rp_scale(c: f64, default_size: i64, actual_size: i64) -> f64;
        pub(crate) fn rp_ld_to_f64(x: *const u8) -> f64;
        pub(crate) fn rp_ld_rel_diff(a: *const u8, b: *const u8) -> f64;
        pub(crate) fn rp_ld_format(x: *const u8, buf: *mut c_char, len: c_int) -> c_int;
        pub(crate) fn rp_ld_parse(x: *mut u8, text: *const c_char) -> c_int;

        pub(crate) fn rp_adomain_init(d: *mut ADomainRaw, m: i64, ndims: c_int);
        pub(crate) fn rp_adomain_real_zones(d: *const ADomainRaw, zones: *mut i64);
        pub(crate) fn rp_adomain_mesh_2d(d: *const ADomainRaw, dx: f64, dy: f64, x: *mut f64, y: *mut f64);
        pub(crate) fn rp_adomain_mesh_3d(d: *const ADomainRaw, dx: f64, dy: f64, dz: f64, x: *mut f64, y: *mut f64, z: *mut f64);
        pub(crate) fn rp_adomain_nodes_per_dim(target: i64, ndims: c_int) -> i64;
    }
}

/// Seed every RAJAPerf init routine passes to `srand`.
pub const RAND_SEED: u32 = 4793;

/// glibc `rand()` after `srand(seed)`, reproduced from its TYPE_3 recurrence.
#[repr(C)]
#[derive(Clone, Debug)]
pub struct RandState {
    ring: [u32; 31],
    next: i64,
}

impl RandState {
    /// The state `srand(seed)` leaves.
    pub fn new(seed: u32) -> Self {
        let mut st = RandState { ring: [0; 31], next: 0 };
        // SAFETY: `st` is a valid, exclusively borrowed rp_rand.
        unsafe { ffi::rp_srand(&mut st, seed) };
        st
    }

    /// The next `rand()` value, in `[0, 2^31 - 1)`.
    pub fn next_value(&mut self) -> i32 {
        // SAFETY: `self` is a valid rp_rand initialised by rp_srand.
        unsafe { ffi::rp_rand_next(self) }
    }
}

/// A kernel's init counter and the init routines that read and advance it (doc section 0.3).
#[derive(Debug, Default)]
pub struct Init {
    counter: c_int,
}

fn len_i64(n: usize) -> i64 {
    i64::try_from(n).expect("array length fits in i64")
}

impl Init {
    /// Counter reset to 0, as at the start of every kernel variant's setUp.
    pub fn new() -> Self {
        Init { counter: 0 }
    }

    /// The counter value the next init routine will read.
    pub fn counter(&self) -> i32 {
        self.counter
    }

    /// The factor `f` (0.2 or 0.1) the next init routine uses.
    pub fn factor(&self) -> f64 {
        // SAFETY: pure function of an integer.
        unsafe { ffi::rp_init_factor(self.counter) }
    }

    /// `initData(real array)`: `a[i] = f*(i+1.1)/(i+1.12345)`.
    pub fn data(&mut self, n: usize) -> Vec<f64> {
        let mut a = vec![0.0; n];
        // SAFETY: `a` has `n` elements; the counter is a valid int.
        unsafe { ffi::rp_init_data(a.as_mut_ptr(), len_i64(n), &mut self.counter) };
        a
    }

    /// `initDataConst(real array, v)`.
    pub fn constant(&mut self, n: usize, v: f64) -> Vec<f64> {
        let mut a = vec![0.0; n];
        // SAFETY: as in `data`.
        unsafe { ffi::rp_init_data_const(a.as_mut_ptr(), len_i64(n), v, &mut self.counter) };
        a
    }

    /// `initDataConst(index array, v)`.
    pub fn constant_index(&mut self, n: usize, v: i64) -> Vec<i64> {
        let mut a = vec![0_i64; n];
        // SAFETY: as in `data`.
        unsafe { ffi::rp_init_data_const_index(a.as_mut_ptr(), len_i64(n), v, &mut self.counter) };
        a
    }

    /// `initDataRandSign`: `initData` values with random signs from `srand(4793)`.
    pub fn rand_sign(&mut self, n: usize) -> Vec<f64> {
        let mut a = vec![0.0; n];
        // SAFETY: as in `data`.
        unsafe { ffi::rp_init_data_rand_sign(a.as_mut_ptr(), len_i64(n), &mut self.counter) };
        a
    }

    /// `initDataRandValue`: `rand()/RAND_MAX` from `srand(4793)`.
    pub fn rand_value(&mut self, n: usize) -> Vec<f64> {
        let mut a = vec![0.0; n];
        // SAFETY: as in `data`.
        unsafe { ffi::rp_init_data_rand_value(a.as_mut_ptr(), len_i64(n), &mut self.counter) };
        a
    }

    /// `initData(int array)`: random +-1 with one -58 and one 19. `n` must be at least 1.
    pub fn int_data(&mut self, n: usize) -> Vec<i32> {
        assert!(n > 0, "initData(int) writes two marker entries");
        let mut a = vec![0_i32; n];
        // SAFETY: as in `data`; the marker indices trunc(n*s), s in [0,1), are < n.
        unsafe { ffi::rp_init_data_int(a.as_mut_ptr(), len_i64(n), &mut self.counter) };
        a
    }

    /// `initData(real scalar)`: `f*1.1/1.12345`.
    pub fn scalar(&mut self) -> f64 {
        // SAFETY: the counter is a valid int.
        unsafe { ffi::rp_init_scalar(&mut self.counter) }
    }
}

/// `c * (default_size / actual_size)` formed in long double and rounded to double, the
/// checksum scale of kernels whose scale depends on the problem size.
pub fn scale(c: f64, default_size: usize, actual_size: usize) -> f64 {
    // SAFETY: pure function of its arguments.
    unsafe { ffi::rp_scale(c, len_i64(default_size), len_i64(actual_size)) }
}

/// A kernel checksum: a C `long double` (80-bit x87 on x86-64), only ever touched by
/// rpdata.c. Rust has no such type, so the bytes are opaque here.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
pub struct Checksum {
    bytes: [u8; 16],
}

impl Default for Checksum {
    fn default() -> Self {
        Self::zero()
    }
}

impl Checksum {
    /// 0.0 (all-zero bytes are +0.0 in every long double format).
    pub fn zero() -> Self {
        Checksum { bytes: [0; 16] }
    }

    /// Adds `cks(a, a.len(), scale)`.
    pub fn add_array(&mut self, a: &[f64], scale: f64) -> &mut Self {
        // SAFETY: `a` is a valid slice; `bytes` is 16-byte aligned long double storage.
        unsafe { ffi::rp_cks_add_f64(self.bytes.as_mut_ptr(), a.as_ptr(), len_i64(a.len()), scale) };
        self
    }

    /// Adds `cks(a, a.len(), scale)` for an int array.
    pub fn add_int_array(&mut self, a: &[i32], scale: f64) -> &mut Self {
        // SAFETY: as in `add_array`.
        unsafe { ffi::rp_cks_add_i32(self.bytes.as_mut_ptr(), a.as_ptr(), len_i64(a.len()), scale) };
        self
    }

    /// Adds a reduction result widened to long double.
    pub fn add_value(&mut self, v: f64) -> &mut Self {
        // SAFETY: `bytes` is long double storage.
        unsafe { ffi::rp_ld_add_f64(self.bytes.as_mut_ptr(), v) };
        self
    }

    /// Adds an integer reduction result widened to long double.
    pub fn add_int(&mut self, v: i64) -> &mut Self {
        // SAFETY: `bytes` is long double storage.
        unsafe { ffi::rp_ld_add_i64(self.bytes.as_mut_ptr(), v) };
        self
    }

    /// Nearest double.
    pub fn to_f64(&self) -> f64 {
        // SAFETY: `bytes` is long double storage.
        unsafe { ffi::rp_ld_to_f64(self.bytes.as_ptr()) }
    }

    /// `|self - baseline| / |baseline|` (absolute difference when the baseline is 0).
    pub fn rel_diff(&self, baseline: &Checksum) -> f64 {
        // SAFETY: both are long double storage.
        unsafe { ffi::rp_ld_rel_diff(self.bytes.as_ptr(), baseline.bytes.as_ptr()) }
    }
}

impl fmt::Display for Checksum {
    /// 21 significant digits: enough to round-trip a 64-bit mantissa.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0 as c_char; 64];
        // SAFETY: `buf` has 64 bytes and the length passed says so; snprintf NUL-terminates.
        let n = unsafe { ffi::rp_ld_format(self.bytes.as_ptr(), buf.as_mut_ptr(), 64) };
        if n < 0 {
            return Err(fmt::Error);
        }
        // SAFETY: snprintf wrote a NUL-terminated string into `buf`.
        let text = unsafe { CStr::from_ptr(buf.as_ptr()) };
        f.write_str(&text.to_string_lossy())
    }
}

impl fmt::Debug for Checksum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Checksum({self})")
    }
}

/// A checksum string that `strtold` does not accept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseChecksumError(pub String);

impl fmt::Display for ParseChecksumError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a decimal checksum: {:?}", self.0)
    }
}

impl std::error::Error for ParseChecksumError {}

impl FromStr for Checksum {
    type Err = ParseChecksumError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let text = CString::new(s.trim()).map_err(|_| ParseChecksumError(s.to_owned()))?;
        let mut c = Checksum::zero();
        // SAFETY: `text` is NUL-terminated; `c.bytes` is long double storage.
        let rc = unsafe { ffi::rp_ld_parse(c.bytes.as_mut_ptr(), text.as_ptr()) };
        if rc == 0 {
            Ok(c)
        } else {
            Err(ParseChecksumError(s.to_owned()))
        }
    }
}

/// RAJAPerf's ADomain mesh (doc section 0.5): ghost layers, strides and the real-zone range.
#[derive(Clone, Copy, Debug)]
pub struct ADomain {
    raw: ffi::ADomainRaw,
}

impl ADomain {
    /// Domain for a target size: `m = trunc(root(target) + 1 + root(ndims) - 1)` real nodes
    /// per dimension.
    pub fn for_target(target: usize, ndims: u32) -> Self {
        assert!(ndims == 2 || ndims == 3, "ADomain is 2D or 3D");
        // SAFETY: pure function of its arguments.
        let m = unsafe { ffi::rp_adomain_nodes_per_dim(len_i64(target), ndims as c_int) };
        Self::new(m.max(2) as usize, ndims)
    }

    /// Domain with `m` real nodes per dimension.
    pub fn new(m: usize, ndims: u32) -> Self {
        assert!(ndims == 2 || ndims == 3, "ADomain is 2D or 3D");
        let mut raw = ffi::ADomainRaw::default();
        // SAFETY: `raw` is a valid rp_adomain to fill.
        unsafe { ffi::rp_adomain_init(&mut raw, len_i64(m), ndims as c_int) };
        ADomain { raw }
    }

    /// Stride of j.
    pub fn jp(&self) -> usize {
        self.raw.jp as usize
    }
    /// Stride of k (0 in 2D).
    pub fn kp(&self) -> usize {
        self.raw.kp as usize
    }
    /// Nodes including ghosts.
    pub fn nnalls(&self) -> usize {
        self.raw.nnalls as usize
    }
    /// Real zones.
    pub fn n_real_zones(&self) -> usize {
        self.raw.n_real_zones as usize
    }
    /// First zone index (one ghost layer included).
    pub fn fpz(&self) -> usize {
        self.raw.fpz as usize
    }
    /// Last zone index; zonal arrays have `lpz + 1` entries.
    pub fn lpz(&self) -> usize {
        self.raw.lpz as usize
    }
    /// Lowest real index per dimension.
    pub fn imin(&self) -> usize {
        self.raw.imin as usize
    }
    /// One past the highest real zone index per dimension.
    pub fn imax(&self) -> usize {
        self.raw.imax as usize
    }

    /// Real-zone index list (i fastest, then j, then k).
    pub fn real_zones(&self) -> Vec<i64> {
        let mut zones = vec![0_i64; self.n_real_zones()];
        // SAFETY: `zones` has n_real_zones entries, which is what rp_adomain_real_zones writes.
        unsafe { ffi::rp_adomain_real_zones(&self.raw, zones.as_mut_ptr()) };
        zones
    }

    /// Writes node coordinates `x = i*dx, y = j*dy` into arrays of `nnalls` entries (2D).
    pub fn mesh_2d(&self, dx: f64, dy: f64, x: &mut [f64], y: &mut [f64]) {
        assert!(self.raw.ndims == 2 && x.len() >= self.nnalls() && y.len() >= self.nnalls());
        // SAFETY: both arrays hold at least nnalls entries (checked above).
        unsafe { ffi::rp_adomain_mesh_2d(&self.raw, dx, dy, x.as_mut_ptr(), y.as_mut_ptr()) };
    }

    /// Writes node coordinates `x = i*dx, y = j*dy, z = k*dz` (3D).
    pub fn mesh_3d(&self, d: [f64; 3], x: &mut [f64], y: &mut [f64], z: &mut [f64]) {
        let n = self.nnalls();
        assert!(self.raw.ndims == 3 && x.len() >= n && y.len() >= n && z.len() >= n);
        // SAFETY: all three arrays hold at least nnalls entries (checked above).
        unsafe { ffi::rp_adomain_mesh_3d(&self.raw, d[0], d[1], d[2], x.as_mut_ptr(), y.as_mut_ptr(), z.as_mut_ptr()) };
    }
}

#[cfg(test)]
mod test;
