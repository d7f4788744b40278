// Definitions shared by the host crates and the device library `omp_device` (which compiles this file as its
// `abi_shared` module): no dependencies, `core` only, no crate-level attributes.

/// Version of the kernel ABI: how target regions become kernels (leading `dyn_ptr`, 8-byte slots, slot order),
/// the panic record (and the print buffer it points to), the device globals. A manifest or device library of
/// another version is refused.
pub const ABI_VERSION: u32 = 4;

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
    /// Address of the device's [`PrintBuffer`] in pinned host memory (0: kernels' `println!` output is dropped).
    /// Set once by the runtime; kept when the panic fields are cleared ([`PanicRecord::cleared`]).
    pub print_buffer: u64,
}

const _: () = assert!(core::mem::size_of::<PanicRecord>() == 64);

impl PanicRecord {
    /// No panic recorded, the print buffer kept.
    pub const fn cleared(self) -> PanicRecord {
        PanicRecord { count: 0, line: 0, column: 0, file_ptr: 0, file_len: 0, block: 0, thread: 0, print_buffer: self.print_buffer }
    }
}

/// Where kernels that print without the device's own printf (AMD GPUs, the host plugin) put their lines: the header
/// of a pinned host allocation of [`PRINT_BUFFER_BYTES`] whose remaining bytes hold the text. A thread reserves its
/// line's bytes with an atomic add to `used` and copies them in (a line that does not fit is counted in `dropped`);
/// the runtime writes `text[..used]` to standard output when the kernel has finished and resets both counters, as
/// CUDA's driver does with its printf buffer.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PrintBuffer {
    /// Bytes reserved by lines so far (may exceed `capacity`: those lines were dropped).
    pub used: u64,
    /// Bytes of text after this header.
    pub capacity: u64,
    /// Bytes of lines that did not fit.
    pub dropped: u64,
    /// Zero.
    pub reserved: u64,
}

/// Bytes of a device's print buffer, its [`PrintBuffer`] header included (CUDA's printf buffer is 1 MiB too).
pub const PRINT_BUFFER_BYTES: usize = 1 << 20;

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
    #[diagnostic::on_unimplemented(
        message = "`{Self}` is not a reduction operator for `{T}`",
        label = "a `reduction` clause names this operator",
        note = "a user-defined reduction is a `#[omp::declare_reduction(identity = e)] fn {Self}(a: {T}, b: {T}) -> {T}` in scope"
    )]
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

/// Team-local arrays of SPMD regions (`target_teams` + `parallel` with `omp::barrier!()`), one definition for the
/// host runtime and the kernels, and the barrier the host's teams use.
///
/// A team-local array lives in memory the team's threads share (GPU shared memory; on the host, one allocation per
/// team). Its accesses are checked at run time so that no two threads of a team touch an element between two
/// barriers (a *phase*) where one of them writes it, whatever the code generator concluded about the region:
///
/// - every element has a write stamp and a read stamp (`phase << 11 | thread`): a write swaps its stamp in and
///   panics when the old one is another thread's of the same phase; an element read of a phase that writes the
///   array ([`TeamArray::read_checked`]) records itself in the read stamp (or "several") and panics when the write
///   stamp is another thread's of the phase; a writer whose array has such reads checks the read stamp after its
///   own. Each side orders its record before its check with a team-scope sequentially consistent fence, so of two
///   conflicting accesses at least one sees the other and panics before it touches the element;
/// - reads of a phase that writes no element of the array ([`TeamArray::read`]) announce the phase once per thread
///   in the array's read word, writers theirs in its write word (the same fence between announcing and checking
///   the other word): a read is then a plain load.
///
/// The barrier orders the phases: what a phase wrote is what the next phase reads.
pub mod team_local {
    use core::cell::Cell;
    use core::marker::PhantomData;
    use core::sync::atomic::{AtomicBool, AtomicU32, Ordering};

    const THREAD_BITS: u32 = 11;
    const THREAD_MASK: u32 = (1 << THREAD_BITS) - 1;
    /// A read stamp's thread field when several threads read the element in its phase.
    const SEVERAL: u32 = THREAD_MASK;
    /// Teams have fewer threads than this (thread numbers fit the stamps beside [`SEVERAL`]).
    pub const MAX_TEAM: usize = SEVERAL as usize;
    /// Most phases (barriers + 1) one team passes in one region.
    pub const MAX_PHASE: u32 = u32::MAX >> THREAD_BITS;
    /// Most bytes of team-local arrays (stamps included) one region's team may have: a GPU team's static shared
    /// memory.
    pub const MAX_BYTES: usize = 48 * 1024;

    /// A copy of a team-local element as a method call's receiver (`tile[i].norm()`): `Deref` without `DerefMut`,
    /// so that a method taking `&mut self`, which would change the copy and not the team's element, is a compile
    /// error naming this type.
    pub struct TeamLocalElement<T>(pub T);

    impl<T> core::ops::Deref for TeamLocalElement<T> {
        type Target = T;
        #[inline(always)]
        fn deref(&self) -> &T {
            &self.0
        }
    }

    /// Where a team's threads run: the team-scope fence of the checks, the team's memory, the thread's position and
    /// the team's barrier (the kernels' on a GPU, OS threads' on the host).
    pub trait Team {
        /// A fence that orders the calling thread's accesses to team memory before its later ones for every thread
        /// of the team (sequentially consistent, team scope).
        fn team_fence();
        /// The team's memory for team-local arrays: 16-byte aligned, at least `BYTES` bytes (at most
        /// [`MAX_BYTES`]), the same for every thread of the team, used by nothing else while the team runs.
        fn memory<const BYTES: usize>() -> *mut u8;
        /// The calling thread's number in its team and the team's size.
        fn position() -> (u32, u32);
        /// Waits for the team's other threads; orders the accesses before it before those after it.
        fn barrier();
        /// `*p += value` atomically on team memory.
        ///
        /// # Safety
        /// `p` is valid and aligned, and every concurrent access of `*p` is an atomic update.
        unsafe fn add_f32(p: *mut f32, value: f32) {
            // SAFETY: the caller's promise.
            unsafe { cas_add_f32(p, value) }
        }
        /// [`Team::add_f32`] for `f64`.
        ///
        /// # Safety
        /// As [`Team::add_f32`].
        unsafe fn add_f64(p: *mut f64, value: f64) {
            // SAFETY: the caller's promise.
            unsafe { cas_add_f64(p, value) }
        }
    }

    /// The region's team memory, `BYTES` in all, handed out front to back: every thread of the team makes the same
    /// [`Arena::array`] calls in the same order, so every thread gets the same pieces.
    #[derive(Debug)]
    pub struct Arena<P, const BYTES: usize> {
        base: *mut u8,
        used: usize,
        _team: PhantomData<P>,
    }

    impl<P: Team, const BYTES: usize> Arena<P, BYTES> {
        /// The team's memory.
        #[inline(always)]
        pub fn new() -> Self {
            const { assert!(BYTES <= MAX_BYTES, "the team-local arrays of an SPMD region need more than 48 KiB") };
            Arena { base: P::memory::<BYTES>(), used: 0, _team: PhantomData }
        }

        /// A team-local array of dimensions `dims` whose elements start as `value`, named `name` in messages;
        /// `mixed`: whether the region reads it where it also writes it. The team's threads set the elements
        /// together; the region's first phase starts after [`Arena::start`].
        #[inline(always)]
        pub fn array<T: Copy, const D: usize>(
            &mut self,
            name: &'static str,
            dims: [usize; D],
            value: T,
            mixed: bool,
        ) -> TeamArray<T, D, P> {
            let len = elements(dims);
            let start = self.used;
            self.used += bytes::<T>(len);
            if self.used > BYTES || core::mem::align_of::<T>() > 16 {
                arena_overflow(name);
            }
            let (me, size) = P::position();
            if me as usize >= MAX_TEAM {
                team_too_large();
            }
            // SAFETY: `start..start + bytes` lies in the team's `BYTES` bytes (checked above), 16-byte aligned (pieces
            // are multiples of 16 from a 16-byte aligned base); the team's threads set disjoint elements (`me`, `me +
            // size`, ...) and no handle accesses the piece before `start`'s barrier; `me` is unique in the team.
            unsafe {
                let base = self.base.add(start);
                TeamArray::<T, D, P>::init(base, len, value, me as usize, size as usize);
                TeamArray::<T, D, P>::from_base(base, name, dims, me, mixed)
            }
        }

        /// Ends the arrays' set-up (a barrier of the team); the region's first phase number.
        #[inline(always)]
        pub fn start(&self) -> u32 {
            P::barrier();
            1
        }
    }

    impl<P: Team, const BYTES: usize> Default for Arena<P, BYTES> {
        fn default() -> Self {
            Self::new()
        }
    }

    /// `omp::barrier!()`: waits for the team's other threads and starts the next phase.
    #[inline(always)]
    pub fn barrier<P: Team>(phase: &mut u32) {
        P::barrier();
        if *phase >= MAX_PHASE {
            too_many_phases();
        }
        *phase += 1;
    }

    #[cold]
    #[inline(never)]
    fn arena_overflow(name: &str) -> ! {
        panic!("omp-rs internal error: team-local array `{name}` does not fit the region's team memory")
    }

    #[cold]
    #[inline(never)]
    fn team_too_large() -> ! {
        panic!("omp: SPMD regions with team-local arrays have at most 2047 threads per team")
    }

    #[cold]
    #[inline(never)]
    fn too_many_phases() -> ! {
        panic!("omp: an SPMD region's team passed more than 2^21 barriers")
    }

    const fn stamp(phase: u32, thread: u32) -> u32 {
        (phase << THREAD_BITS) | thread
    }

    /// The array's words (the latest phase announced by each kind of access), then its write and read stamps.
    const fn stamps_bytes(len: usize) -> usize {
        (4 * WORDS + 8 * len).next_multiple_of(16)
    }

    /// The array's words: the latest phase in which a thread announced plain reads ([`TeamArray::read`]), writes,
    /// atomic updates, checked reads.
    const WORDS: usize = 4;
    const READS: usize = 0;
    const WRITES: usize = 1;
    const ATOMICS: usize = 2;
    const CHECKED_READS: usize = 3;

    /// Bytes one team-local array of `len` elements of `T` takes (stamps, then elements, each 16-byte aligned).
    pub const fn bytes<T>(len: usize) -> usize {
        stamps_bytes(len) + (core::mem::size_of::<T>() * len).next_multiple_of(16)
    }

    /// Elements of an array of these dimensions.
    pub const fn elements<const D: usize>(dims: [usize; D]) -> usize {
        let (mut n, mut k) = (1usize, 0);
        while k < D {
            n *= dims[k];
            k += 1;
        }
        n
    }

    /// One thread's handle on a team-local array of `D` dimensions in the team's memory.
    #[derive(Debug)]
    pub struct TeamArray<T, const D: usize, F> {
        data: *mut T,
        /// The array's [`WORDS`].
        words: *const AtomicU32,
        writes: *const AtomicU32,
        reads: *const AtomicU32,
        dims: [usize; D],
        name: &'static str,
        me: u32,
        /// Whether the region reads the array where it also writes it ([`TeamArray::read_checked`]): writers then
        /// check the read stamps.
        mixed: bool,
        /// The phase in which this thread last announced each kind of access (by [`WORDS`] index).
        announced: [Cell<u32>; WORDS],
        /// The element this thread last claimed by a checked access, its phase and whether by a write: until the
        /// next barrier its stamp keeps every other thread's access of the element from passing its check, so the
        /// thread's own further accesses of it need none (a read claim covers reads, a write claim both).
        claimed: Cell<(u32, usize, bool)>,
        _fence: PhantomData<F>,
    }

    impl<T: Copy, const D: usize, F: Team> TeamArray<T, D, F> {
        /// Sets elements `first, first + step, ...` of the array at `base` to `value` and zeroes their stamps
        /// (element `first` also the array's words): the team's threads together, or one thread with `first` 0 and
        /// `step` 1.
        ///
        /// # Safety
        /// `base` is 16-byte aligned and valid for [`bytes::<T>(len)`](bytes) bytes that no other thread accesses
        /// at these elements meanwhile.
        pub unsafe fn init(base: *mut u8, len: usize, value: T, first: usize, step: usize) {
            let (words, writes, reads, data) = Self::parts(base, len);
            let mut i = first;
            if i == 0 {
                for k in 0..WORDS {
                    // SAFETY: the words lie in the piece (the caller's promise), nobody else touches them now.
                    unsafe { (*words.add(k)).store(0, Ordering::Relaxed) };
                }
            }
            while i < len {
                // SAFETY: `i < len`: inside the piece; element `i` is this call's alone (the caller's promise).
                unsafe {
                    (*writes.add(i)).store(0, Ordering::Relaxed);
                    (*reads.add(i)).store(0, Ordering::Relaxed);
                    data.add(i).write(value);
                }
                i += step.max(1);
            }
        }

        /// The handle of thread `me` on the array at `base`.
        ///
        /// # Safety
        /// `base` is 16-byte aligned, valid for [`bytes::<T>`](bytes)`(elements(dims))` bytes that only the team's
        /// threads access, and only through handles made by this function, for as long as the handle lives;
        /// [`TeamArray::init`] has set every element, and a barrier of the team separates it from the handle's first
        /// access; `me` is the thread's number in the team, unique, below [`MAX_TEAM`]; phases passed to the accesses
        /// are the team's phase numbers (one more at each barrier, the same in every thread between two barriers).
        pub unsafe fn from_base(base: *mut u8, name: &'static str, dims: [usize; D], me: u32, mixed: bool) -> Self {
            let (words, writes, reads, data) = Self::parts(base, elements(dims));
            TeamArray {
                data,
                words,
                writes,
                reads,
                dims,
                name,
                me,
                mixed,
                announced: [Cell::new(0), Cell::new(0), Cell::new(0), Cell::new(0)],
                claimed: Cell::new((0, 0, false)),
                _fence: PhantomData,
            }
        }

        fn parts(base: *mut u8, len: usize) -> (*const AtomicU32, *const AtomicU32, *const AtomicU32, *mut T) {
            let words = base as *const AtomicU32;
            // Pointer arithmetic only (`wrapping_add`); the pieces lie in the allocation by the callers' promises.
            let writes = words.wrapping_add(WORDS);
            let reads = writes.wrapping_add(len);
            let data = base.wrapping_add(stamps_bytes(len)) as *mut T;
            (words, writes, reads, data)
        }

        /// The first dimension, as `[T; N]::len()`.
        #[inline(always)]
        pub fn len(&self) -> usize {
            self.dims[0]
        }

        /// Whether the first dimension is 0.
        #[inline(always)]
        pub fn is_empty(&self) -> bool {
            self.dims[0] == 0
        }

        /// The element's offset, every index bounds-checked as `[T; N]` indexing checks it.
        #[inline(always)]
        #[track_caller]
        fn flat(&self, idx: [usize; D]) -> usize {
            let mut flat = 0;
            for k in 0..D {
                let (i, n) = (idx[k], self.dims[k]);
                if i >= n {
                    out_of_bounds(n, i);
                }
                flat = flat * n + i;
            }
            flat
        }

        #[inline(always)]
        fn word(&self, k: usize) -> &AtomicU32 {
            // SAFETY: the words lie in the piece (`from_base`'s promise).
            unsafe { &*self.words.add(k) }
        }

        /// Announces this thread's accesses of kind `kind` in `phase` (once per phase) and panics when another thread
        /// announced one of the kinds `excluded` in it: of two such announcements at least one sees the other.
        #[inline(always)]
        #[track_caller]
        fn announce(&self, phase: u32, kind: usize, excluded: &[usize]) {
            if self.announced[kind].get() == phase {
                return;
            }
            self.word(kind).store(phase, Ordering::Relaxed);
            F::team_fence();
            for &k in excluded {
                if self.word(k).load(Ordering::Relaxed) == phase {
                    phase_conflict(self.name, kind, k);
                }
            }
            self.announced[kind].set(phase);
        }

        /// Element `idx` in a phase where the region writes no element of the array.
        #[inline(always)]
        #[track_caller]
        pub fn read(&self, phase: u32, idx: [usize; D]) -> T {
            let i = self.flat(idx);
            self.announce(phase, READS, &[WRITES, ATOMICS]);
            // SAFETY: `i` is in bounds; no thread writes the array in this phase (announced above: a writer of this
            // phase sees the announcement or is seen, and one of the two panics before touching an element).
            unsafe { self.data.add(i).read() }
        }

        /// Element `idx` in a phase where the region also writes the array.
        #[inline(always)]
        #[track_caller]
        pub fn read_checked(&self, phase: u32, idx: [usize; D]) -> T {
            let i = self.flat(idx);
            if !self.mixed {
                unchecked_mode(self.name);
            }
            let (claimed_phase, claimed, _) = self.claimed.get();
            if claimed_phase == phase && claimed == i {
                // SAFETY: in bounds; this thread's claim of the element in this phase stands (see `claimed`).
                return unsafe { self.data.add(i).read() };
            }
            self.announce(phase, CHECKED_READS, &[ATOMICS]);
            let mine = stamp(phase, self.me);
            // SAFETY: `i < len`: the stamps lie in the piece.
            let (reads, writes) = unsafe { (&*self.reads.add(i), &*self.writes.add(i)) };
            let mut old = reads.load(Ordering::Relaxed);
            loop {
                let new = if old >> THREAD_BITS != phase {
                    mine
                } else if old == mine || old & THREAD_MASK == SEVERAL {
                    break;
                } else {
                    stamp(phase, SEVERAL)
                };
                match reads.compare_exchange_weak(old, new, Ordering::Relaxed, Ordering::Relaxed) {
                    Ok(_) => break,
                    Err(now) => old = now,
                }
            }
            F::team_fence();
            let w = writes.load(Ordering::Relaxed);
            if w >> THREAD_BITS == phase && w != mine {
                race(self.name, self.dims, i, w & THREAD_MASK, self.me, "reads");
            }
            self.claimed.set((phase, i, false));
            // SAFETY: in bounds; no other thread writes element `i` in this phase: a writer of the phase sees this
            // read's stamp or this read saw its write stamp, and the one that saw panicked before the access.
            unsafe { self.data.add(i).read() }
        }

        /// Stores `value` at `idx`.
        #[inline(always)]
        #[track_caller]
        pub fn write(&self, phase: u32, idx: [usize; D], value: T) {
            let i = self.flat(idx);
            if self.claimed.get() == (phase, i, true) {
                // SAFETY: in bounds; this thread's write claim of the element in this phase stands (see `claimed`).
                return unsafe { self.data.add(i).write(value) };
            }
            self.announce(phase, WRITES, &[READS, ATOMICS]);
            let mine = stamp(phase, self.me);
            // SAFETY: `i < len`: the stamps lie in the piece.
            let old = unsafe { &*self.writes.add(i) }.swap(mine, Ordering::Relaxed);
            if old >> THREAD_BITS == phase && old != mine {
                race(self.name, self.dims, i, old & THREAD_MASK, self.me, "writes");
            }
            if self.mixed {
                F::team_fence();
                // SAFETY: as above.
                let r = unsafe { &*self.reads.add(i) }.load(Ordering::Relaxed);
                if r >> THREAD_BITS == phase && r != mine {
                    let reader = r & THREAD_MASK;
                    race(self.name, self.dims, i, self.me, reader, "reads");
                }
            }
            self.claimed.set((phase, i, true));
            // SAFETY: in bounds; no other thread touches element `i` in this phase: another writer swapped after
            // this one and panics, a checked reader saw this stamp or was seen above, plain readers of the phase
            // were excluded by the announcement.
            unsafe { self.data.add(i).write(value) }
        }
    }

    impl<T: TeamAtomic, const D: usize, F: Team> TeamArray<T, D, F> {
        /// `#[omp::atomic] a[idx] += value`: atomic updates of one phase mix only with each other.
        #[inline(always)]
        #[track_caller]
        pub fn atomic_add(&self, phase: u32, idx: [usize; D], value: T) {
            let i = self.flat(idx);
            self.announce(phase, ATOMICS, &[READS, WRITES, CHECKED_READS]);
            // SAFETY: in bounds; every other access of the element in this phase is an atomic update too (announced
            // above), and the element is aligned for `T` (the piece's data is 16-byte aligned).
            unsafe { T::add::<F>(self.data.add(i), value) }
        }

        /// `#[omp::atomic] a[idx] -= value`.
        #[inline(always)]
        #[track_caller]
        pub fn atomic_sub(&self, phase: u32, idx: [usize; D], value: T) {
            self.atomic_add(phase, idx, T::negate(value));
        }
    }

    /// Element types of team-local arrays that `#[omp::atomic]` adds to.
    pub trait TeamAtomic: Copy {
        /// Adds `value` to `*p` atomically (integers wrap, as `#[omp::atomic]` on mapped arrays).
        ///
        /// # Safety
        /// `p` is valid and aligned, and every concurrent access of `*p` is an atomic update.
        unsafe fn add<F: Team>(p: *mut Self, value: Self);
        /// `-value` (integers wrap).
        fn negate(value: Self) -> Self;
    }

    macro_rules! int_team_atomic {
        ($($t:ty: $atomic:ty),*) => {$(
            impl TeamAtomic for $t {
                #[inline(always)]
                unsafe fn add<F: Team>(p: *mut Self, value: Self) {
                    // SAFETY: the caller's promise; the atomic type has the integer's size and alignment.
                    unsafe { (*(p as *const $atomic)).fetch_add(value, Ordering::Relaxed) };
                }
                #[inline(always)]
                fn negate(value: Self) -> Self {
                    value.wrapping_neg()
                }
            }
        )*};
    }
    int_team_atomic!(u32: core::sync::atomic::AtomicU32, i32: core::sync::atomic::AtomicI32, u64: core::sync::atomic::AtomicU64,
        i64: core::sync::atomic::AtomicI64, usize: core::sync::atomic::AtomicUsize, isize: core::sync::atomic::AtomicIsize);

    impl TeamAtomic for f32 {
        #[inline(always)]
        unsafe fn add<F: Team>(p: *mut Self, value: Self) {
            // SAFETY: the caller's promise.
            unsafe { F::add_f32(p, value) }
        }
        #[inline(always)]
        fn negate(value: Self) -> Self {
            -value
        }
    }

    impl TeamAtomic for f64 {
        #[inline(always)]
        unsafe fn add<F: Team>(p: *mut Self, value: Self) {
            // SAFETY: the caller's promise.
            unsafe { F::add_f64(p, value) }
        }
        #[inline(always)]
        fn negate(value: Self) -> Self {
            -value
        }
    }

    /// A float addition as a compare-and-swap loop on its bits (for teams without a native one).
    ///
    /// # Safety
    /// `p` is valid and 4-byte aligned, and every concurrent access of `*p` is an atomic update.
    #[inline(always)]
    pub unsafe fn cas_add_f32(p: *mut f32, value: f32) {
        // SAFETY: the caller's promise; `AtomicU32` has `f32`'s size and alignment.
        let a = unsafe { &*(p as *const AtomicU32) };
        let mut old = a.load(Ordering::Relaxed);
        while let Err(now) = a.compare_exchange_weak(old, (f32::from_bits(old) + value).to_bits(), Ordering::Relaxed, Ordering::Relaxed) {
            old = now;
        }
    }

    /// [`cas_add_f32`] for `f64`.
    ///
    /// # Safety
    /// `p` is valid and 8-byte aligned, and every concurrent access of `*p` is an atomic update.
    #[inline(always)]
    pub unsafe fn cas_add_f64(p: *mut f64, value: f64) {
        // SAFETY: the caller's promise; `AtomicU64` has `f64`'s size and alignment on the targets omp-rs builds for.
        let a = unsafe { &*(p as *const core::sync::atomic::AtomicU64) };
        let mut old = a.load(Ordering::Relaxed);
        while let Err(now) = a.compare_exchange_weak(old, (f64::from_bits(old) + value).to_bits(), Ordering::Relaxed, Ordering::Relaxed) {
            old = now;
        }
    }

    #[cold]
    #[inline(never)]
    #[track_caller]
    fn out_of_bounds(len: usize, index: usize) -> ! {
        panic!("index out of bounds: the len is {len} but the index is {index}")
    }

    /// An element's indices (`[i][j]`) from its offset, for messages.
    struct Indices<const D: usize>([usize; D], usize);

    impl<const D: usize> core::fmt::Display for Indices<D> {
        fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
            let (dims, mut rest) = (self.0, self.1);
            let mut idx = [0usize; D];
            for k in (0..D).rev() {
                idx[k] = rest % dims[k].max(1);
                rest /= dims[k].max(1);
            }
            for i in idx {
                write!(f, "[{i}]")?;
            }
            Ok(())
        }
    }

    #[cold]
    #[inline(never)]
    #[track_caller]
    fn race<const D: usize>(name: &str, dims: [usize; D], i: usize, writer: u32, other: u32, other_does: &str) -> ! {
        let at = Indices(dims, i);
        if other == SEVERAL {
            panic!(
                "omp: a race on team-local array `{name}`: thread {writer} writes `{name}{at}` that other threads {other_does} \
                 between the same two barriers; put an `omp::barrier!()` between the write and the other accesses"
            )
        }
        panic!(
            "omp: a race on team-local array `{name}`: thread {writer} writes `{name}{at}` that thread {other} {other_does} \
             between the same two barriers; put an `omp::barrier!()` between the write and the other access"
        )
    }

    #[cold]
    #[inline(never)]
    #[track_caller]
    fn phase_conflict(name: &str, kind: usize, other: usize) -> ! {
        let what = |k: usize| match k {
            READS | CHECKED_READS => "reads",
            WRITES => "writes",
            _ => "updates atomically",
        };
        panic!(
            "omp: a race on team-local array `{name}`: a thread {} it where another {} it between the same two barriers; \
             put an `omp::barrier!()` between them (atomic updates mix only with each other)",
            what(kind),
            what(other)
        )
    }

    #[cold]
    #[inline(never)]
    fn unchecked_mode(name: &str) -> ! {
        panic!("omp-rs internal error: a checked read of team-local array `{name}`, made without read stamps")
    }

    /// A barrier for `n` host threads whose waiting step is the caller's (`relax`: spin, yield), with the phase
    /// order the team-local arrays need (each thread's accesses before the barrier happen before every thread's
    /// after it) and a poison flag: a team whose thread panicked releases the others instead of hanging them.
    #[derive(Debug)]
    pub struct SpinBarrier {
        n: u32,
        arrived: AtomicU32,
        generation: AtomicU32,
        poisoned: AtomicBool,
    }

    /// The barrier was poisoned: another thread of the team panicked.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Poisoned;

    impl SpinBarrier {
        /// A barrier for `n` threads.
        pub const fn new(n: u32) -> Self {
            SpinBarrier { n, arrived: AtomicU32::new(0), generation: AtomicU32::new(0), poisoned: AtomicBool::new(false) }
        }

        /// Waits until all `n` threads have arrived. The last one to arrive runs `last` before any thread leaves.
        pub fn wait(&self, relax: impl Fn(), last: impl FnOnce()) -> Result<(), Poisoned> {
            let generation = self.generation.load(Ordering::Acquire);
            if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
                last();
                self.arrived.store(0, Ordering::Relaxed);
                self.generation.store(generation.wrapping_add(1), Ordering::Release);
                return Ok(());
            }
            while self.generation.load(Ordering::Acquire) == generation {
                if self.poisoned.load(Ordering::Acquire) {
                    return Err(Poisoned);
                }
                relax();
            }
            Ok(())
        }

        /// Releases every waiting thread (and every later one) with [`Poisoned`].
        pub fn poison(&self) {
            self.poisoned.store(true, Ordering::Release);
        }

        /// The number of threads it waits for.
        pub const fn size(&self) -> u32 {
            self.n
        }

        /// Whether [`SpinBarrier::poison`] was called.
        pub fn is_poisoned(&self) -> bool {
            self.poisoned.load(Ordering::Acquire)
        }
    }
}
