// Definitions shared by the host crates and the device library `omp_device` (which compiles this file as its
// `abi_shared` module): no dependencies, `core` only, no crate-level attributes.

/// Version of the kernel ABI: how target regions become kernels (leading `dyn_ptr`, 8-byte slots, slot order),
/// the panic record, the device globals. A manifest or device library of another version is refused.
pub const ABI_VERSION: u32 = 3;

/// Name of the device global through which kernels record panics: a pointer to a [`PanicRecord`] in pinned host
/// memory, set by the runtime after it loads an image (null: a panicking thread just ends).
pub const PANIC_RECORD_GLOBAL: &str = "__omp_rs_panic_record";

/// Device globals every image exports (name, size in bytes), registered with libomptarget beside the kernels.
pub const DEVICE_GLOBALS: &[(&str, u64)] = &[(PANIC_RECORD_GLOBAL, 8)];

/// Where a kernel panic is recorded (`#[repr(C)]`, 64 bytes, all fields `u64`). A panicking thread bumps `count`;
/// the first one also fills in the rest.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PanicRecord {
    /// Number of threads that panicked.
    pub count: u64,
    /// Line of the first recorded panic (1-based; 0 if unknown).
    pub line: u64,
    /// Column of the first recorded panic (1-based; 0 if unknown).
    pub column: u64,
    /// Address of the file name bytes (UTF-8, not NUL-terminated) in the image's memory: a device address on
    /// GPUs, a host address in the host plugin's `.so`.
    pub file_ptr: u64,
    /// Length of the file name in bytes.
    pub file_len: u64,
    /// Team (block) of the first recorded panic.
    pub block: u64,
    /// Thread within the team of the first recorded panic.
    pub thread: u64,
    /// Zero.
    pub reserved: u64,
}

const _: () = assert!(core::mem::size_of::<PanicRecord>() == 64);

/// Columns of a tile when a collapsed nest walks in tiles: one warp (NVIDIA) or half a wavefront (AMD) along the
/// innermost loop. The runtime computes the tiling with it, the kernels locate their iterations with it.
pub const TILE_COLUMNS: u64 = 32;

/// Bytes of a GPU team's arena: the shared memory where a kernel combines the team's atomic additions into a
/// small array before adding them to the array in global memory (`omp_device::team::TeamArena`). The IR helper
/// declares it; only kernels that use it are given it.
pub const TEAM_ARENA_BYTES: usize = 8192;

/// Whether two strings are equal, in a `const` context (checks that a `#[no_mangle]` name spelled out in code is
/// the one defined here).
pub const fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// What an 8-byte argument slot carries (after libomptarget's leading `dyn_ptr`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum SlotKind {
    /// A device pointer to one value.
    Pointer,
    /// An integer widened to 64 bits (`bool` as 0/1).
    Int,
    /// `f64::to_bits`.
    Float64,
    /// `f32::to_bits` in the low 32 bits.
    Float32,
    /// Base pointer of an array capture.
    ArrayBase,
    /// Length in elements of an array capture.
    ArrayLen,
    /// First value of a loop dimension.
    LoopFirst,
    /// Trip count of a loop dimension.
    LoopTrips,
    /// Step of a loop dimension.
    LoopStep,
    /// Pointer to `num_teams` partial values of a reduction variable.
    ReductionPartials,
    /// Ownership of a written array: its [`OwnerMode`], encoded.
    OwnerMode,
    /// Ownership: the lowest element owned by iteration 0 (i64).
    OwnerOrigin,
    /// Ownership, hull mode: how far an iteration's interval spans above its base.
    OwnerWidth,
    /// Ownership: how far one iteration of a parallel dimension moves the base (i64).
    OwnerStride,
    /// Ownership, lattice mode: stride of a sequential-loop term.
    OwnerInnerStride,
    /// Ownership, lattice mode: iteration count of a sequential-loop term.
    OwnerInnerCount,
    /// Collapsed nests, after the dimensions: rows of the tiles the threads walk the nest in (0: flat), set by the
    /// runtime with the launch geometry.
    WalkTileRows,
    /// Collapsed nests: tiles side by side along the innermost loop.
    WalkTilesPerRow,
    /// Collapsed nests: tiles in all.
    WalkTiles,
}

impl SlotKind {
    /// Whether the slot carries a value passed by value (`Int`, `Float64`, `Float32`). The kernel decodes it as
    /// the type its parameter declares and the host encodes the argument's type; rustc has checked that the two
    /// are one type, so layouts are compared up to which of these kinds a value slot names.
    pub const fn is_value(self) -> bool {
        matches!(self, SlotKind::Int | SlotKind::Float64 | SlotKind::Float32)
    }

    /// Whether a slot the host filled as `self` is the slot a kernel declared as `declared`.
    pub const fn matches(self, declared: SlotKind) -> bool {
        (self.is_value() && declared.is_value()) || self as u8 == declared as u8
    }
}

/// The ownership slots of a written array in a nest of `depth` dimensions with `inner` sequential-loop terms, after
/// its base and length: mode, origin, width, one stride per dimension, then a (stride, count) pair per term.
pub fn owner_slots(depth: usize, inner: usize) -> impl Iterator<Item = SlotKind> {
    [SlotKind::OwnerMode, SlotKind::OwnerOrigin, SlotKind::OwnerWidth]
        .into_iter()
        .chain(core::iter::repeat_n(SlotKind::OwnerStride, depth))
        .chain((0..inner).flat_map(|_| [SlotKind::OwnerInnerStride, SlotKind::OwnerInnerCount]))
}

/// A scalar passed by value in one 8-byte slot: integers widened to 64 bits (sign- or zero-extended), `bool` as
/// 0/1, floats as their bit pattern (`f32` in the low 32 bits). The host encodes with `to_slot`, kernels decode
/// with `from_slot`.
pub trait Scalar: Copy {
    /// The kind of slot the value travels in.
    const SLOT: SlotKind = SlotKind::Int;
    /// The slot's 64 bits.
    fn to_slot(self) -> u64;
    /// The value back from its slot.
    fn from_slot(bits: u64) -> Self;
}

macro_rules! scalar_int {
    ($wide:ty: $($t:ty),*) => {$(
        impl Scalar for $t {
            #[inline(always)]
            fn to_slot(self) -> u64 {
                self as $wide as u64
            }
            #[inline(always)]
            fn from_slot(bits: u64) -> Self {
                // Truncating the widened value restores it (two's complement).
                bits as $t
            }
        }
    )*};
}
scalar_int!(u64: u8, u16, u32, u64, usize);
scalar_int!(i64: i8, i16, i32, i64, isize);

impl Scalar for bool {
    #[inline(always)]
    fn to_slot(self) -> u64 {
        self as u64
    }
    #[inline(always)]
    fn from_slot(bits: u64) -> Self {
        bits != 0
    }
}

impl Scalar for f64 {
    const SLOT: SlotKind = SlotKind::Float64;
    #[inline(always)]
    fn to_slot(self) -> u64 {
        self.to_bits()
    }
    #[inline(always)]
    fn from_slot(bits: u64) -> Self {
        f64::from_bits(bits)
    }
}

impl Scalar for f32 {
    const SLOT: SlotKind = SlotKind::Float32;
    #[inline(always)]
    fn to_slot(self) -> u64 {
        self.to_bits() as u64
    }
    #[inline(always)]
    fn from_slot(bits: u64) -> Self {
        f32::from_bits(bits as u32)
    }
}

/// A loop dimension's first value or step as its slot carries it: the value in two's complement, 64 bits (a
/// descending loop's step is negative). Kernels get the loop variable back with [`LoopIndex::loop_value`].
pub const fn loop_slot(value: i128) -> u64 {
    value as i64 as u64
}

/// Integer types a loop variable can have.
pub trait LoopIndex: Copy {
    /// `first + k·step` in the type's wrapping arithmetic, from the [`loop_slot`]s of the first value and step.
    fn loop_value(first: u64, step: u64, k: u64) -> Self;

    /// The same value computed in 32 bits and widened, which the compiler knows to fit in 32 bits (so that the
    /// body's index arithmetic can narrow): equal to [`loop_value`](LoopIndex::loop_value) whenever every value
    /// of the loop lies in `0..2^32` ([`values_fit_u32`]); types of 32 bits or fewer compute as `loop_value` does.
    fn loop_value_u32(first: u64, step: u64, k: u64) -> Self;
}

macro_rules! loop_index {
    ($($t:ty),*) => {$(
        impl LoopIndex for $t {
            #[inline(always)]
            fn loop_value(first: u64, step: u64, k: u64) -> Self {
                (first as $t).wrapping_add((k as $t).wrapping_mul(step as $t))
            }
            #[inline(always)]
            fn loop_value_u32(first: u64, step: u64, k: u64) -> Self {
                if core::mem::size_of::<$t>() <= 4 {
                    Self::loop_value(first, step, k)
                } else {
                    (first as u32).wrapping_add((k as u32).wrapping_mul(step as u32)) as $t
                }
            }
        }
    )*};
}
loop_index!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

/// Whether every value `first + k·step`, `k < trips`, of a loop (first value and step as [`loop_slot`]s) lies in
/// `0..2^32`, where [`LoopIndex::loop_value_u32`] gives the loop's values. Conservative and cheap, as kernels test
/// it per launch: `true` only where every value fits; `false` too for loops without iterations and for those of
/// `2^32` or more iterations or steps. With the first value, the trip count and the step's magnitude below
/// `2^32`, the last value is exact in 64 bits (a descending loop that passes zero wraps to a value of 64 bits,
/// which fails the test), and a monotone loop's values lie between its first and its last.
#[inline(always)]
pub const fn values_fit_u32(first: u64, step: u64, trips: u64) -> bool {
    let magnitude = (step as i64).unsigned_abs();
    let span = trips.wrapping_sub(1).wrapping_mul(magnitude);
    let last = if (step as i64) < 0 { first.wrapping_sub(span) } else { first.wrapping_add(span) };
    trips != 0 && (first | trips | magnitude | last) >> 32 == 0
}

/// What a device image is: how the runtime registers it and the manifest names it (`cubin`, `hsaco`, `so`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum ImageKind {
    /// NVIDIA cubin (ELF, `e_machine` EM_CUDA = 190) for one `sm_XX`, from ptxas.
    #[cfg_attr(feature = "serde", serde(rename = "cubin"))]
    Cubin,
    /// AMD code object (ELF, `e_machine` EM_AMDGPU = 224, code object version 5) for one `gfxNNN`.
    #[cfg_attr(feature = "serde", serde(rename = "hsaco"))]
    AmdCodeObject,
    /// Shared object for libomptarget's host plugin (CI and tests; each kernel is called once).
    #[cfg_attr(feature = "serde", serde(rename = "so"))]
    HostSo,
}

impl ImageKind {
    /// `true` for the GPU kinds.
    pub const fn is_gpu(self) -> bool {
        !matches!(self, ImageKind::HostSo)
    }

    /// The image file's extension (also its name in the manifest).
    pub const fn extension(self) -> &'static str {
        match self {
            ImageKind::Cubin => "cubin",
            ImageKind::AmdCodeObject => "hsaco",
            ImageKind::HostSo => "so",
        }
    }
}

/// How a written array's ownership slots describe what each iteration owns: the first ownership slot
/// ([`SlotKind::OwnerMode`]). The host runtime encodes it from the array's index form, kernels decode it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OwnerMode {
    /// Each iteration owns an interval: its base and up to `width` elements above it.
    Hull,
    /// Each iteration owns its base plus the points of its sequential-loop terms (`(stride, count)` pairs).
    Lattice,
    /// No iteration owns anything (the loop has no iterations).
    Nothing,
    /// [`OwnerMode::Hull`] whose every owned element lies in `0..2^31`: the kernel checks in 32-bit arithmetic.
    Hull32,
}

impl OwnerMode {
    /// The slot's value.
    #[inline(always)]
    pub const fn encode(self) -> u64 {
        match self {
            OwnerMode::Hull => 0,
            OwnerMode::Lattice => 1,
            OwnerMode::Nothing => 2,
            OwnerMode::Hull32 => 3,
        }
    }

    /// The mode a slot carries. A value no version of [`OwnerMode::encode`] writes owns nothing (every write
    /// through the view is then refused, never allowed).
    #[inline(always)]
    pub const fn decode(slot: u64) -> OwnerMode {
        match slot {
            0 => OwnerMode::Hull,
            1 => OwnerMode::Lattice,
            3 => OwnerMode::Hull32,
            _ => OwnerMode::Nothing,
        }
    }
}

/// OpenMP's reduction operators (`+ * min max & | ^ && ||`) with their identities, one definition for the host
/// runtime and the kernels: each thread folds its iterations into a private copy that starts at `identity()` (the
/// body's own `+=` follows the build profile), and the private copies, the teams' partials and the original value
/// are joined with `combine`. Integer `+` and `*` wrap there: any grouping of the partials then gives the same
/// result, the exact one modulo 2^bits, which is what the sequential loop gives whenever it does not overflow. Float
/// `min`/`max` ignore a NaN operand (`f64::min`).
pub mod reduce {
    /// A reduction operator on `T`: an identity and an associative, commutative combine.
    pub trait Reducer<T> {
        /// The value that leaves any other unchanged under [`Reducer::combine`].
        fn identity() -> T;
        /// Combines two partial results.
        fn combine(a: T, b: T) -> T;
    }

    /// `+` (wrapping for integers).
    #[derive(Debug, Clone, Copy, Default)]
    pub struct Add;
    /// `*` (wrapping for integers).
    #[derive(Debug, Clone, Copy, Default)]
    pub struct Mul;
    /// `min` (floats: a NaN operand is ignored).
    #[derive(Debug, Clone, Copy, Default)]
    pub struct Min;
    /// `max` (floats: a NaN operand is ignored).
    #[derive(Debug, Clone, Copy, Default)]
    pub struct Max;
    /// `&` (integers, bool).
    #[derive(Debug, Clone, Copy, Default)]
    pub struct BitAnd;
    /// `|` (integers, bool).
    #[derive(Debug, Clone, Copy, Default)]
    pub struct BitOr;
    /// `^` (integers, bool).
    #[derive(Debug, Clone, Copy, Default)]
    pub struct BitXor;
    /// `&&` (bool).
    #[derive(Debug, Clone, Copy, Default)]
    pub struct LogAnd;
    /// `||` (bool).
    #[derive(Debug, Clone, Copy, Default)]
    pub struct LogOr;

    macro_rules! reducer {
        ($op:ty, $t:ty, $id:expr, |$a:ident, $b:ident| $e:expr) => {
            impl Reducer<$t> for $op {
                #[inline(always)]
                fn identity() -> $t {
                    $id
                }
                #[inline(always)]
                fn combine($a: $t, $b: $t) -> $t {
                    $e
                }
            }
        };
    }

    macro_rules! int_reducers {
        ($($t:ty)*) => {$(
            reducer!(Add, $t, 0, |a, b| a.wrapping_add(b));
            reducer!(Mul, $t, 1, |a, b| a.wrapping_mul(b));
            reducer!(Min, $t, <$t>::MAX, |a, b| if b < a { b } else { a });
            reducer!(Max, $t, <$t>::MIN, |a, b| if b > a { b } else { a });
            reducer!(BitAnd, $t, !0, |a, b| a & b);
            reducer!(BitOr, $t, 0, |a, b| a | b);
            reducer!(BitXor, $t, 0, |a, b| a ^ b);
        )*};
    }
    int_reducers!(i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize);

    macro_rules! float_reducers {
        ($($t:ty)*) => {$(
            reducer!(Add, $t, 0.0, |a, b| a + b);
            reducer!(Mul, $t, 1.0, |a, b| a * b);
            reducer!(Min, $t, <$t>::INFINITY, |a, b| a.min(b));
            reducer!(Max, $t, <$t>::NEG_INFINITY, |a, b| a.max(b));
        )*};
    }
    float_reducers!(f32 f64);

    reducer!(LogAnd, bool, true, |a, b| a && b);
    reducer!(LogOr, bool, false, |a, b| a || b);
    reducer!(BitAnd, bool, true, |a, b| a & b);
    reducer!(BitOr, bool, false, |a, b| a | b);
    reducer!(BitXor, bool, false, |a, b| a ^ b);
}
