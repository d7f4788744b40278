//! Kernel launch: [`KernelRef`] (one `static` per target region), [`ArgPack`] (the kernel ABI slots), [`Geometry`],
//! [`should_offload`] and [`launch`].
//!
//! The kernel ABI (ARCHITECTURE.md): the kernel is `fn(dyn_ptr, slot_0, slot_1, ...)` with 8-byte slots. An array is two
//! slots (device base pointer, length as a `LITERAL`), a scalar one `LITERAL` slot, a loop dimension three
//! (first, trip count, step), a reduction one (pointer to `num_teams` partials in pinned host memory).
//! `KernelArgsTy` version 3 makes libomptarget prepend `dyn_ptr`.

use core::ffi::c_void;
use std::any::{type_name, TypeId};
use std::cell::Cell;
use std::marker::PhantomData;
use std::ops::Range;
use std::panic::Location;
use std::sync::{Mutex, OnceLock};

use libomptarget_sys::{self as sys, maptype as mt};
use omp_rs_abi::SlotKind;

use super::buffer::DeviceBuffer;
use super::device::{self, Decision, Device, HostReason};
use super::map::{self, MapKind, Section, VarName};
use super::policy::{self, log, Policy};
use super::profile::{self, Phase};
use super::queue::{self, LaunchMode, QueuedLaunch, Target};
use super::registry::ImageSet;
use super::registry::{self, Family, PanicRecord, Registered};
use super::repr::{Pod, Scalar};
use super::result::{Ident, MapArgs, Rt};
use crate::host::Ownership;
use crate::Error;

/// A pooled reduction partial buffer (pinned host memory, never freed: reused by later launches).
#[derive(Debug)]
struct PartialBuf {
    device: i32,
    ptr: usize,
    cap: usize,
}

/// The device copy of a value argument ([`ArgPack::value`]) that a region keeps between launches.
#[derive(Debug)]
struct ValueCopy {
    device: i32,
    arg: usize,
    /// The device allocation: its address and size.
    ptr: usize,
    size: usize,
    /// What it holds (empty until the first copy succeeded).
    bytes: Vec<u8>,
}

/// A kernel of an image set, named as the build pipeline named it. Declare one `static` per target region;
/// the name is resolved (and the image set registered) once, on first use.
#[derive(Debug)]
pub struct KernelRef {
    set: &'static ImageSet,
    name: &'static str,
    resolved: OnceLock<Result<(&'static Registered, usize), Error>>,
    ident: OnceLock<&'static Ident>,
    partials: Mutex<Vec<PartialBuf>>,
    /// Device copies of the region's value arguments, one per (device, slot), never freed.
    values: Mutex<Vec<ValueCopy>>,
    /// File and first/last line of the region's body, to tell which queued region a device panic came from.
    body: Option<(&'static str, u32, u32)>,
    /// The queue target on the first device the kernel ran on (a region runs on one device nearly always).
    first_target: OnceLock<(i32, Option<Target>)>,
    /// The slots the kernel was compiled for (the build's manifest; `None`: not known, not checked).
    layout: Option<&'static [SlotKind]>,
    /// Whether the first pack matched `layout` (every pack of a region has the same kinds).
    layout_checked: OnceLock<Result<(), Error>>,
}

impl KernelRef {
    /// A kernel `name` of `set`.
    pub const fn new(set: &'static ImageSet, name: &'static str) -> KernelRef {
        KernelRef::with_body(set, name, None)
    }

    /// A kernel `name` of `set` whose region body spans lines `first..=last` of `file` (`file!()`).
    pub const fn with_body(set: &'static ImageSet, name: &'static str, body: Option<(&'static str, u32, u32)>) -> KernelRef {
        KernelRef::with_layout(set, name, body, None)
    }

    /// [`with_body`](Self::with_body) of a kernel compiled for the argument slots `layout` (after `dyn_ptr`): its
    /// region's first launch checks that the pack it built has exactly these slots, so that a kernel can never read
    /// an argument from a slot the host filled with something else.
    pub const fn with_layout(
        set: &'static ImageSet,
        name: &'static str,
        body: Option<(&'static str, u32, u32)>,
        layout: Option<&'static [SlotKind]>,
    ) -> KernelRef {
        KernelRef {
            set,
            name,
            resolved: OnceLock::new(),
            ident: OnceLock::new(),
            partials: Mutex::new(Vec::new()),
            values: Mutex::new(Vec::new()),
            body,
            first_target: OnceLock::new(),
            layout,
            layout_checked: OnceLock::new(),
        }
    }

    /// The pack's slots against the kernel's layout, compared on the first launch only.
    fn check_layout(&self, packed: &[SlotKind]) -> Result<(), Error> {
        let Some(layout) = self.layout else { return Ok(()) };
        self.layout_checked
            .get_or_init(|| match layout_mismatch(packed, layout) {
                None => Ok(()),
                Some(detail) => Err(Error::KernelLayout { kernel: self.name.to_owned(), detail }),
            })
            .clone()
    }

    /// The kernel's name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// Register the image set if needed and find the kernel's host entry address.
    pub(crate) fn resolve(&'static self) -> Result<(&'static Registered, usize), Error> {
        self.resolved
            .get_or_init(|| {
                let reg = registry::ensure_registered(self.set)?;
                let addr = reg.kernel_addr(self.name).ok_or_else(|| Error::KernelMissing {
                    kernel: self.name.to_owned(),
                    image: format!("image set listing {:?}", self.set.kernels()),
                })?;
                Ok((reg, addr))
            })
            .clone()
    }

    /// Where to queue this kernel on `device` (`None`: its launches there are synchronous).
    fn target(&'static self, device: Device, reg: &'static Registered) -> Option<Target> {
        let (first, t) = *self.first_target.get_or_init(|| (device.0, queue::target(device, reg, self.name)));
        if first == device.0 {
            t
        } else {
            queue::target(device, reg, self.name)
        }
    }

    fn ident(&'static self, loc: &'static Location<'static>) -> &'static Ident {
        self.ident.get_or_init(|| Ident::at(loc, self.name))
    }
}

/// Where `packed` (the host's slots) differs from `declared` (the kernel's), if it does.
fn layout_mismatch(packed: &[SlotKind], declared: &[SlotKind]) -> Option<String> {
    if let Some(i) = packed.iter().zip(declared).position(|(p, d)| !p.matches(*d)) {
        return Some(format!("slot {i}: the region passes {:?}, the kernel reads {:?}", packed[i], declared[i]));
    }
    (packed.len() != declared.len())
        .then(|| format!("the region passes {} slots, the kernel has {} parameters after dyn_ptr", packed.len(), declared.len()))
}

/// One reduction slot of an [`ArgPack`].
#[derive(Debug, Clone, Copy)]
struct RedSlot {
    arg: usize,
    size: usize,
    align: usize,
    elem: TypeId,
    elem_name: &'static str,
}

/// The walk slots of an [`ArgPack`] (see [`ArgPack::walk`]).
#[derive(Debug, Clone, Copy)]
struct WalkSlots {
    arg: usize,
    inner: u64,
}

/// How a collapsed nest's kernel walks the nest (`omp_device::launch::Walk`): tiles of `rows` rows × 32 innermost
/// iterations, `per_row` tiles side by side, `count` in all; `rows == 0`: flat.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Tiles {
    pub rows: u64,
    pub per_row: u64,
    pub count: u64,
}

/// The kernel arguments of one launch, in slot order (the kernel ABI). Borrows every slice it maps for `'a`.
///
/// One pointer: the builder calls of a region move it by value, and its buffers go back to the thread when it
/// drops (see [`PackBuffers`]).
#[derive(Debug)]
#[must_use = "an ArgPack does nothing until passed to `launch`"]
pub struct ArgPack<'a> {
    bufs: Recycled,
    _borrows: PhantomData<&'a mut ()>,
}

/// Everything an [`ArgPack`] holds, and the scratch of its launch, in buffers handed to the thread's next pack when
/// it drops: a time loop builds thousands of packs, and allocating and moving them was a visible part of the
/// microsecond that omp-rs adds to liboffload's queued launch (H200, bench/RESULTS.md).
#[derive(Debug, Default)]
struct PackBuffers {
    args: MapArgs,
    /// The kind of each slot of `args`, compared once per kernel with the layout the kernel was compiled for.
    kinds: Vec<SlotKind>,
    secs: Vec<Section>,
    /// The argument index of each of `secs`.
    sec_args: Vec<usize>,
    /// The value arguments: (slot, host address, bytes).
    values: Vec<(usize, usize, usize)>,
    /// Devices that mapped/device arguments live on (`None`: host region).
    owners: Vec<(&'static str, Option<Device>)>,
    reductions: Vec<RedSlot>,
    /// Device byte ranges of the `is_device_ptr` arguments (the queue orders launches by what they reach).
    buffers: Vec<Range<u64>>,
    /// The walk slots of a collapsed nest's kernel and the nest's innermost trip count.
    walk: Option<WalkSlots>,
    last_named: Option<usize>,
    /// Index in `args` of the last mapped (not literal) argument, for the map-type modifiers.
    last_mapped: Option<usize>,
    /// An argument that cannot be passed (reported by `launch`, before anything reaches libomptarget).
    deferred: Option<Error>,
    /// The region carries `nowait`: a queued launch returns before the kernel has finished.
    nowait: bool,
    /// [`ArgPack::team_adds`].
    team_adds: bool,
    /// Scratch of a queued launch: its slots with device addresses, and the device memory it reaches.
    slots: Vec<u64>,
    footprint: Vec<Range<u64>>,
}

thread_local! {
    static SPARE_BUFFERS: Cell<Option<Box<PackBuffers>>> = const { Cell::new(None) };
}

impl PackBuffers {
    /// The thread's spare buffers (empty), or new ones.
    fn take() -> Box<PackBuffers> {
        // `try_with`: a pack may be built or dropped while the thread's locals are being destroyed.
        SPARE_BUFFERS
            .try_with(Cell::take)
            .ok()
            .flatten()
            .unwrap_or_else(|| Box::new(PackBuffers { args: MapArgs::with_capacity(24), ..PackBuffers::default() }))
    }

    /// Emptied, they become the thread's spare buffers.
    fn give_back(mut self: Box<Self>) {
        let PackBuffers {
            args,
            kinds,
            secs,
            sec_args,
            values,
            owners,
            reductions,
            buffers,
            walk,
            last_named,
            last_mapped,
            deferred,
            nowait,
            team_adds,
            slots,
            footprint,
        } = &mut *self;
        *nowait = false;
        *team_adds = false;
        args.clear();
        kinds.clear();
        secs.clear();
        sec_args.clear();
        values.clear();
        owners.clear();
        reductions.clear();
        buffers.clear();
        slots.clear();
        footprint.clear();
        (*walk, *last_named, *last_mapped, *deferred) = (None, None, None, None);
        let _ = SPARE_BUFFERS.try_with(|s| s.set(Some(self)));
    }
}

/// The [`PackBuffers`] of one pack, back to the thread when it drops.
#[derive(Debug)]
struct Recycled(Option<Box<PackBuffers>>);

impl std::ops::Deref for Recycled {
    type Target = PackBuffers;
    fn deref(&self) -> &PackBuffers {
        self.0.as_deref().expect("taken only by drop")
    }
}

impl std::ops::DerefMut for Recycled {
    fn deref_mut(&mut self) -> &mut PackBuffers {
        self.0.as_deref_mut().expect("taken only by drop")
    }
}

impl Drop for Recycled {
    fn drop(&mut self) {
        if let Some(b) = self.0.take() {
            b.give_back();
        }
    }
}

impl Default for ArgPack<'_> {
    fn default() -> Self {
        ArgPack::new()
    }
}

impl<'a> ArgPack<'a> {
    /// An empty pack.
    pub fn new() -> ArgPack<'a> {
        ArgPack { bufs: Recycled(Some(PackBuffers::take())), _borrows: PhantomData }
    }

    /// A `LITERAL` slot of `kind`. It ends the naming of the last mapped array ([`ArgPack::var`] names what precedes
    /// it only).
    fn literal(&mut self, kind: SlotKind, v: u64) {
        let p = v as usize as *mut c_void;
        self.bufs.args.push(p, p, 8, mt::TARGET_PARAM | mt::LITERAL);
        self.bufs.kinds.push(kind);
        self.bufs.last_named = None;
    }

    fn mapped<T: Pod>(mut self, ptr: *const T, len: usize, kind: MapKind) -> Self {
        let bytes = len * std::mem::size_of::<T>();
        if bytes == 0 {
            // Nothing to map: a dangling, aligned, non-null base (kernels declare array bases as references) and a
            // zero length, so the kernel never dereferences it.
            self.literal(SlotKind::ArrayBase, std::mem::align_of::<T>() as u64);
            self.literal(SlotKind::ArrayLen, len as u64);
            return self;
        }
        let p = ptr.cast_mut().cast::<c_void>();
        let arg = self.bufs.args.len();
        self.bufs.last_mapped = Some(arg);
        self.bufs.sec_args.push(arg);
        self.bufs.args.push(p, p, bytes as i64, mt::TARGET_PARAM | kind.bits());
        self.bufs.kinds.push(SlotKind::ArrayBase);
        let var = VarName::Arg { slot: arg, ty: type_name::<T>(), len };
        self.bufs.secs.push(Section { addr: ptr as usize, bytes, present: false, var });
        self.literal(SlotKind::ArrayLen, len as u64);
        self.bufs.last_named = Some(self.bufs.secs.len() - 1);
        self
    }

    /// A value the kernel only reads (a struct passed by value, OpenMP's firstprivate): the region keeps a device
    /// copy of its bytes between launches and copies them again only when they changed, so the launch maps nothing
    /// (a time loop's regions stay on the device's queue). The kernel sees it as a one-element array.
    pub fn value<T: Pod>(self, v: &'a T) -> Self {
        self.values_of(std::slice::from_ref(v))
    }

    /// [`value`](Self::value) of a fixed-size array (a `private` / `firstprivate` `[T; N]`), seen as `N` elements.
    pub fn value_array<T: Pod, const N: usize>(self, a: &'a [T; N]) -> Self {
        self.values_of(&a[..])
    }

    /// Values above this size are mapped `to` per launch instead: comparing them at every launch would cost more
    /// than the mapping saves.
    const VALUE_BYTES_MAX: usize = 64 << 10;

    fn values_of<T: Pod>(mut self, x: &'a [T]) -> Self {
        let bytes = std::mem::size_of_val(x);
        if bytes > Self::VALUE_BYTES_MAX {
            return self.to(x);
        }
        if bytes == 0 {
            self.literal(SlotKind::ArrayBase, std::mem::align_of::<T>() as u64);
        } else {
            let arg = self.bufs.args.len();
            self.bufs.values.push((arg, x.as_ptr() as usize, bytes));
            // The device copy's address, filled in by the launch.
            self.literal(SlotKind::ArrayBase, 0);
        }
        self.literal(SlotKind::ArrayLen, x.len() as u64);
        self
    }

    /// `map(to: x)`: copied in unless already present.
    pub fn to<T: Pod>(self, x: &'a [T]) -> Self {
        self.mapped(x.as_ptr(), x.len(), MapKind::To)
    }

    /// `map(tofrom: x)`: copied in and back unless already present.
    pub fn tofrom<T: Pod>(self, x: &'a mut [T]) -> Self {
        self.mapped(x.as_ptr(), x.len(), MapKind::ToFrom)
    }

    /// `map(from: x)`: copied back unless already present.
    pub fn from<T: Pod>(self, x: &'a mut [T]) -> Self {
        self.mapped(x.as_ptr(), x.len(), MapKind::From)
    }

    /// `map(alloc: x)`: device storage, never copied back (initialised from `x`: see `MapKind::bits`).
    pub fn alloc<T: Pod>(self, x: &'a mut [T]) -> Self {
        self.mapped(x.as_ptr(), x.len(), MapKind::Alloc)
    }

    /// The `always` map-type modifier on the last mapped argument: copy even when the data is present.
    pub fn always(mut self) -> Self {
        if let Some(i) = self.bufs.last_mapped {
            let ty = self.bufs.args.type_of(i) | mt::ALWAYS;
            self.bufs.args.set_type(i, ty);
        }
        self
    }

    /// The `present` map-type modifier on the last mapped argument: it must already be mapped (checked by omp-rs,
    /// which returns [`Error::NotPresent`] instead of libomptarget's abort).
    pub fn require_present(mut self) -> Self {
        if let (Some(_), Some(s)) = (self.bufs.last_mapped, self.bufs.last_named.and_then(|k| self.bufs.secs.get_mut(k))) {
            s.present = true;
        }
        self
    }

    /// The argument just added is a `target_data` block's variable whose current copy is on `device` (`None`: the
    /// host's copy is current, and the region may map it itself). A region on another device than the block's would copy the
    /// host's data to its own device, and the block would copy its stale copy back over the results: refused at
    /// launch with both devices named.
    pub fn mapped_by(mut self, var: &'static str, device: Option<Device>) -> Self {
        if device.is_some() {
            self.bufs.owners.push((var, device));
        }
        self
    }

    /// The ownership of the written array just added (the kernel ABI): its slots follow the array's base and length,
    /// so each GPU iteration can check it writes only its own elements. `inner`: the kernel's number of
    /// sequential-loop term slots.
    pub fn owned<const D: usize>(mut self, own: &Ownership<D>, inner: usize) -> Self {
        match own.device_slots(inner) {
            Some(slots) => {
                // Named by position as the kernel ABI lays them out (omp_rs_abi::owner_slots): a count the kernel
                // does not expect shows as a layout mismatch at launch.
                for (k, s) in slots.into_iter().enumerate() {
                    let kind = match k {
                        0 => SlotKind::OwnerMode,
                        1 => SlotKind::OwnerOrigin,
                        2 => SlotKind::OwnerWidth,
                        k if k < 3 + D => SlotKind::OwnerStride,
                        k if (k - 3 - D) % 2 == 0 => SlotKind::OwnerInnerStride,
                        _ => SlotKind::OwnerInnerCount,
                    };
                    self.literal(kind, s);
                }
            }
            None => {
                self.bufs.deferred.get_or_insert(Error::InvalidAccess {
                    detail: format!(
                        "the index `{}[{}]` of this target region reaches elements beyond 64 bits for these loop bounds",
                        own.array(),
                        own.index()
                    ),
                });
            }
        }
        self
    }

    /// A by-value argument (`firstprivate`): one `LITERAL` slot.
    pub fn scalar<T: Scalar>(mut self, v: T) -> Self {
        self.literal(T::SLOT, v.to_slot());
        self
    }

    /// A small fixed-size array passed by value, one `LITERAL` slot per element (kernel parameters: the GPU's
    /// constant bank).
    pub fn scalars<T: Scalar + Copy, const N: usize>(mut self, a: &[T; N]) -> Self {
        for v in a {
            self.literal(T::SLOT, v.to_slot());
        }
        self
    }

    /// An `is_device_ptr` argument: device pointer and length, both `LITERAL`.
    pub fn device_buffer<T: Pod>(mut self, b: &'a DeviceBuffer<T>) -> Self {
        self.bufs.owners.push(("DeviceBuffer", Some(b.device())));
        let start = b.device_ptr() as u64;
        self.bufs.buffers.push(start..start + (b.len() * std::mem::size_of::<T>()) as u64);
        self.literal(SlotKind::ArrayBase, start);
        self.literal(SlotKind::ArrayLen, b.len() as u64);
        self
    }

    /// A written `is_device_ptr` argument (exclusive borrow for the launch).
    pub fn device_buffer_mut<T: Pod>(self, b: &'a mut DeviceBuffer<T>) -> Self {
        self.device_buffer(&*b)
    }

    /// A loop dimension: first value, trip count, step (outermost first, after the captures).
    pub fn dim(mut self, first: i64, count: u64, step: i64) -> Self {
        self.literal(SlotKind::LoopFirst, first as u64);
        self.literal(SlotKind::LoopTrips, count);
        self.literal(SlotKind::LoopStep, step as u64);
        self
    }

    /// A loop dimension whose kernel was compiled for step 1 (a plain `a..b` or `a..=b`): the step is checked here,
    /// so that the kernel's literal step can never walk other values than the host's loop would.
    pub fn unit_dim(self, first: i64, count: u64, step: i64) -> Self {
        assert_eq!(step, 1, "omp-rs internal error: a kernel compiled for a unit-step loop got step {step}; please report it");
        self.dim(first, count, step)
    }

    /// The walk slots of a collapsed nest's kernel (after its dimensions), whose innermost loop runs `inner` times:
    /// [`launch`] fills them with the tiles the kernel's threads walk the nest in (rows, tiles per row, tiles; rows
    /// 0 for the flat walk; see [`Geometry`]).
    pub fn walk(mut self, inner: u64) -> Self {
        self.bufs.walk = Some(WalkSlots { arg: self.bufs.args.len(), inner });
        for kind in [SlotKind::WalkTileRows, SlotKind::WalkTilesPerRow, SlotKind::WalkTiles] {
            self.literal(kind, 0);
        }
        self
    }

    /// A reduction variable of type `T`: one slot pointing at `num_teams` partials the kernel writes
    /// (`partials[team]`); [`LaunchOutcome::partials`] returns them.
    pub fn reduction<T: Pod>(mut self) -> Self {
        let arg = self.bufs.args.len();
        self.bufs.reductions.push(RedSlot {
            arg,
            size: std::mem::size_of::<T>(),
            align: std::mem::align_of::<T>(),
            elem: TypeId::of::<T>(),
            elem_name: type_name::<T>(),
        });
        self.literal(SlotKind::ReductionPartials, 0);
        self
    }

    /// The region carries `nowait` (OpenMP's deferred target task): on the device's queue the launch returns at once,
    /// and `taskwait!`, the end of the data region or a read of the data meets it. Without it a region has finished
    /// (kernel and copies back) when its launch returns, as OpenMP specifies.
    pub fn nowait(mut self) -> Self {
        self.bufs.nowait = true;
        self
    }

    /// The kernel combines atomic additions per team (`omp_device::view::TeamAdds`): its default grid gives each
    /// thread several iterations, as a reduction's does, so that fewer teams add their copies to global memory.
    pub fn team_adds(mut self) -> Self {
        self.bufs.team_adds = true;
        self
    }

    /// Name the last mapped array in error messages.
    pub fn var(mut self, name: &'static str) -> Self {
        if let Some(i) = self.bufs.last_named {
            self.bufs.secs[i].var = VarName::Name(name);
        }
        self
    }

    /// Number of 8-byte slots after `dyn_ptr`.
    pub fn slots(&self) -> usize {
        self.bufs.args.len()
    }
}

/// Launch geometry. `None` fields take the default: 256 threads per team and enough teams to give each
/// thread one iteration (regions with reductions or team-combined atomic additions: eight, but at least four teams
/// per SM while there are iterations for them; collapsed nests walked flat: four, but at least the teams that fill
/// the GPU's threads), at most 128 teams per SM (regions with reductions: 32; 132 SMs when the SM count is unknown).
///
/// A collapsed nest ([`ArgPack::walk`]) on a GPU is walked in tiles of `threads / 32` rows × 32 innermost
/// iterations, one tile per team at a time, when its innermost loop runs at least 32 times, the nest has at least
/// a tile's rows and fewer than 2^32 iterations, and padding the edges to whole tiles idles at most a third as many
/// threads as there are iterations (CUDA codes pad like this: a 100-wide row in 128-wide blocks); the default grid
/// then has one team per tile (same cap).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Geometry {
    /// `num_teams(n)`: grid size (1..=2^31-1).
    pub num_teams: Option<i64>,
    /// `thread_limit(n)`: threads per team (1..=1024).
    pub thread_limit: Option<i64>,
    /// Flattened iteration count of the loop nest (for the default grid).
    pub iterations: u64,
}

impl Geometry {
    /// Default geometry for `iterations` iterations.
    pub fn for_iterations(iterations: u64) -> Geometry {
        Geometry { num_teams: None, thread_limit: None, iterations }
    }

    /// Teams, threads and tiles to launch a kernel of `shape` with, validated.
    pub(crate) fn resolve(&self, kernel: &str, sms: Option<u32>, shape: KernelShape) -> Result<(u32, u32, Tiles), Error> {
        let bad = |detail: String| Error::BadGeometry { kernel: kernel.to_owned(), detail };
        let threads = match self.thread_limit {
            None => 256,
            Some(t) if (1..=1024).contains(&t) => t as u32,
            Some(t) => {
                return Err(bad(format!(
                    "thread_limit({t}) is outside 1..=1024 threads per team; pick a value in range (256 is a good default)"
                )))
            }
        };
        let tiles = shape.tile_inner.map_or_else(Tiles::default, |inner| tiles(threads, self.iterations, inner));
        let teams = match self.num_teams {
            Some(n) if (1..=i64::from(i32::MAX)).contains(&n) => n as u32,
            Some(n) => return Err(bad(format!("num_teams({n}) is outside 1..={}; use at least one team", i32::MAX))),
            None => {
                let cap = u64::from(sms.unwrap_or(132)) * u64::from(teams_per_sm(shape.reducing));
                let one_each = self.iterations.div_ceil(u64::from(threads));
                let wanted = if tiles.rows != 0 {
                    tiles.count
                } else if shape.reducing {
                    // Several iterations per thread, but never fewer teams than fill the GPU: a reduction over
                    // 1e5 heavy iterations (hausdorff's) at 8 per thread would run 49 teams on 132 SMs.
                    let fill = u64::from(sms.unwrap_or(132)) * REDUCTION_MIN_TEAMS_PER_SM;
                    self.iterations.div_ceil(u64::from(threads) * REDUCTION_ITERATIONS_PER_THREAD).max(one_each.min(fill))
                } else if shape.flat_nest {
                    // Several iterations per thread once the GPU's threads are all busy: each thread's set-up (its
                    // parameters, the choice of its kernel copy) then serves several of them.
                    let full = u64::from(sms.unwrap_or(132)) * (THREADS_PER_SM / u64::from(threads)).max(1);
                    one_each.div_ceil(nest_iterations_per_thread()).max(full).min(one_each)
                } else {
                    one_each
                };
                wanted.clamp(1, cap) as u32
            }
        };
        Ok((teams, threads, tiles))
    }
}

/// What a kernel's default grid depends on besides its iteration count.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct KernelShape {
    /// The innermost trip count of a collapsed nest that may walk in tiles (`None`: flat, or not a GPU).
    pub tile_inner: Option<u64>,
    /// Whether the region has reductions.
    pub reducing: bool,
    /// Whether it is a collapsed nest (two loops or more) walked flat, not in tiles.
    pub flat_nest: bool,
}

/// Iterations per thread a reduction region's default grid aims at: each thread folds several iterations into its
/// private copy before the team combines them, and fewer partials reach the host's fold. H200, 2026-12-01, at 1e6
/// iterations (about 4 teams per SM instead of 32): REDUCE3_INT 2.69 -> 1.01 ms, Stream_DOT 47.2 -> 31.8 ms,
/// PI_REDUCE 1.16 -> 0.76 ms; a flat cap of 4 teams per SM instead cost DOT at 32e6 (98 -> 86 % of the copy
/// ceiling), where the usual cap already gives each thread 30 iterations (bench/RESULTS.md).
const REDUCTION_ITERATIONS_PER_THREAD: u64 = 8;

/// Teams per SM a reduction region's default grid has at least (when its loop has a thread per iteration for them):
/// four 256-thread teams fill an SM's 2048 threads. Below that, iterations that each take long (a nearest-point
/// search, an inner loop over all particles) left SMs idle.
const REDUCTION_MIN_TEAMS_PER_SM: u64 = 4;

/// Resident threads per SM on NVIDIA sm_80 and sm_90, the GPUs the default grid was measured on: the threads that
/// fill the GPU.
const THREADS_PER_SM: u64 = 2048;

/// Iterations per thread a flat collapsed nest's default grid aims at once the GPU's threads are all busy
/// (`OMP_RS_NEST_ITERATIONS_PER_THREAD` sets it, a tuning knob; 1 gives every thread one iteration up to the cap).
fn nest_iterations_per_thread() -> u64 {
    static T: OnceLock<Option<u32>> = OnceLock::new();
    grid_knob(&T, "OMP_RS_NEST_ITERATIONS_PER_THREAD").map_or(NEST_ITERATIONS_PER_THREAD, u64::from)
}

/// A default-grid tuning knob from the environment, read once into `cell`: a number in 1..=1024, else unset.
fn grid_knob(cell: &'static OnceLock<Option<u32>>, name: &str) -> Option<u32> {
    *cell.get_or_init(|| std::env::var(name).ok().and_then(|v| v.trim().parse().ok()).filter(|t| (1..=1024).contains(t)))
}

/// See [`nest_iterations_per_thread`]. H100, 2026-12-05, same binary and call, four against one: iso2dfd's 2048 x 2048
/// nest 38.6 against 43.9 µs per step, RAJAPerf NESTED_INIT 7.3 against 8.1 ms, HEAT_3D 8.5 against 9.1 ms (HYDRO_2D
/// 8.08 against 7.93 ms, the one loss; bench/RESULTS.md).
const NEST_ITERATIONS_PER_THREAD: u64 = 4;

/// Columns of a tile (the kernels locate their iterations with the same constant).
use omp_rs_abi::TILE_COLUMNS;

/// The tiles a team of `threads` walks an `iterations`-long collapsed nest in, whose innermost loop runs `inner`
/// times; rows 0 for the flat walk (see [`Geometry`]). The kernel tiles in 32 bits only.
fn tiles(threads: u32, iterations: u64, inner: u64) -> Tiles {
    let threads = u64::from(threads);
    if inner < TILE_COLUMNS || threads % TILE_COLUMNS != 0 || iterations > u64::from(u32::MAX) {
        return Tiles::default();
    }
    let rows = threads / TILE_COLUMNS;
    let outer = iterations / inner;
    let per_row = inner.div_ceil(TILE_COLUMNS);
    let count = outer.div_ceil(rows) * per_row;
    let idle = (count * threads).saturating_sub(iterations);
    if outer < rows || idle > iterations / 3 {
        return Tiles::default();
    }
    Tiles { rows, per_row, count }
}

/// Most teams per SM of the default grid (`OMP_RS_TEAMS_PER_SM` sets both, a tuning knob): beyond it each thread
/// runs several iterations of the loop. Up to it every thread runs at most one, which the kernels' loop-free path
/// makes cheapest. 128 (a million-iteration loop gets one thread per iteration up to ~4.3 M iterations on an H200):
/// at 32e6 the streaming kernels run 2-4 % faster than with 32 (Stream_COPY 96 -> 98 % of the copy ceiling,
/// FIRST_DIFF 91 -> 94 %); reductions keep 32, as more teams means more partials to combine (Stream_DOT 97 -> 87 %
/// with 128; bench/RESULTS.md, 2026-12-01).
fn teams_per_sm(reducing: bool) -> u32 {
    static T: OnceLock<Option<u32>> = OnceLock::new();
    grid_knob(&T, "OMP_RS_TEAMS_PER_SM").unwrap_or(if reducing { 32 } else { 128 })
}

/// What a launch did.
#[derive(Debug)]
pub enum LaunchOutcome {
    /// The kernel ran on the device.
    Ran(Ran),
    /// libomptarget declined (`__tgt_target_kernel` returned -1): the caller must run the host fallback.
    NotOffloaded,
}

/// A completed launch: the geometry used and the reduction partials.
#[derive(Debug)]
pub struct Ran {
    /// The device.
    pub device: Device,
    /// Teams launched.
    pub teams: u32,
    /// Threads per team.
    pub threads: u32,
    /// Partials written per reduction (`teams` on GPUs, 1 on the host plugin, which calls the kernel once).
    pub partial_count: usize,
    reds: Vec<(RedSlot, PartialBuf)>,
    pool: &'static Mutex<Vec<PartialBuf>>,
}

impl Ran {
    /// The partials of reduction `i` (in order of [`ArgPack::reduction`] calls), one per team in team order.
    ///
    /// # Errors
    /// [`Error::InvalidAccess`] for a wrong index or element type.
    pub fn partials<T: Pod>(&self, i: usize) -> Result<&[T], Error> {
        let (slot, buf) = self.reds.get(i).ok_or_else(|| Error::InvalidAccess {
            detail: format!("the launch has {} reduction(s); index {i} is out of range", self.reds.len()),
        })?;
        if slot.elem != TypeId::of::<T>() {
            return Err(Error::InvalidAccess { detail: format!("reduction {i} holds {}, not {}", slot.elem_name, type_name::<T>()) });
        }
        // SAFETY: the buffer holds at least `partial_count` elements of `T` (allocated for `teams`, aligned by
        // the pinned allocator's page alignment), written by the kernel before the synchronous launch returned;
        // any bit pattern is a valid `T: Pod`; it stays leased to `self` while the slice lives.
        Ok(unsafe { std::slice::from_raw_parts(buf.ptr as *const T, self.partial_count) })
    }

    /// Fold the partials of reduction `i` in team order, starting from `init` (the variable's original value).
    ///
    /// # Errors
    /// As [`partials`](Self::partials).
    pub fn reduce<T: Pod>(&self, i: usize, init: T, op: impl Fn(T, T) -> T) -> Result<T, Error> {
        Ok(self.partials::<T>(i)?.iter().fold(init, |a, &b| op(a, b)))
    }
}

impl Drop for Ran {
    fn drop(&mut self) {
        if self.reds.is_empty() {
            return;
        }
        let mut pool = self.pool.lock().unwrap_or_else(|p| p.into_inner());
        pool.extend(self.reds.drain(..).map(|(_, b)| b));
    }
}

impl LaunchOutcome {
    /// The completed launch, or `None` when the host fallback must run.
    pub fn ran(&self) -> Option<&Ran> {
        match self {
            LaunchOutcome::Ran(r) => Some(r),
            LaunchOutcome::NotOffloaded => None,
        }
    }
}

/// Decide where a target region runs: `device = None` is the default device, `if_cond` the `if` clause.
/// Registers the region's image set on first use. Logs the decision when `OMP_RS_LOG=info`.
///
/// # Errors
/// [`Error::InvalidDevice`] for a device number out of range; under `MANDATORY`, every reason that would keep
/// the region on the host except `if(false)` and an explicit initial device ([`Error::NoDevice`],
/// [`Error::LibraryNotFound`], [`Error::ImageArchMismatch`], [`Error::KernelMissing`]).
#[track_caller]
pub fn should_offload(kernel: &'static KernelRef, device: Option<i64>, if_cond: bool) -> Result<Decision, Error> {
    let loc = Location::caller();
    profile::region_begins(loc, kernel.name);
    let d = decide(kernel, device, if_cond);
    profile::passed(Phase::Decide);
    log(|| match &d {
        Ok(Decision::Offload(dev)) => {
            let archs = kernel.resolve().map(|(r, _)| r.archs.join(",")).unwrap_or_default();
            format!("region `{}` at {loc}: {dev} (image {archs})", kernel.name)
        }
        Ok(Decision::Host(r)) => format!("region `{}` at {loc}: host ({r})", kernel.name),
        Err(e) => format!("region `{}` at {loc}: error: {e}", kernel.name),
    });
    d
}

fn decide(kernel: &'static KernelRef, device: Option<i64>, if_cond: bool) -> Result<Decision, Error> {
    if !if_cond {
        return Ok(Decision::Host(HostReason::IfFalse));
    }
    let pol = policy::policy();
    if pol == Policy::Disabled {
        return Ok(Decision::Host(HostReason::Disabled));
    }
    if let Err(e) = registry::runtime() {
        return if pol == Policy::Mandatory { Err(e) } else { Ok(Decision::Host(HostReason::NoLibrary(e.to_string()))) };
    }
    if let Err(e) = kernel.resolve() {
        return if pol == Policy::Mandatory { Err(e) } else { Ok(Decision::Host(HostReason::NoImage(e.to_string()))) };
    }
    device::resolve(device, true)
}

/// Launch `kernel` on `device` (from [`should_offload`]) synchronously, then check the panic record.
///
/// # Errors
/// [`Error::BadGeometry`], [`Error::NotPresent`] / [`Error::MappingConflict`] for arguments libomptarget would
/// abort on, [`Error::InvalidAccess`] when a `present` argument lives on another device, [`Error::DevicePanic`]
/// when a kernel thread panicked, plus registration errors.
#[track_caller]
pub fn launch<'a>(kernel: &'static KernelRef, device: Device, pack: ArgPack<'a>, geometry: Geometry) -> Result<LaunchOutcome, Error> {
    let region = Location::caller();
    profile::passed(Phase::Prepare);
    let outcome = launch_impl(kernel, device, pack, geometry, kernel.ident(region), region);
    profile::passed(Phase::Wait);
    outcome
}

/// Launch through the device's queue when every mapped argument is present (no copy either way) and the queue
/// exists; wait for it unless the region carries `nowait` (OpenMP's end of region) and the host reads nothing back
/// (reductions). Otherwise, or with `OMP_RS_LAUNCH=sync`, the synchronous `__tgt_target_kernel` (after the queue has
/// drained).
pub(crate) fn launch_impl(
    kernel: &'static KernelRef,
    device: Device,
    mut pack: ArgPack<'_>,
    geometry: Geometry,
    ident: &'static Ident,
    region: &'static Location<'static>,
) -> Result<LaunchOutcome, Error> {
    if let Some(e) = pack.bufs.deferred.take() {
        return Err(e);
    }
    kernel.check_layout(&pack.bufs.kinds)?;
    let nowait = pack.bufs.nowait;
    let (reg, addr) = kernel.resolve()?;
    let rtm = registry::runtime()?;
    let rt: Rt = rtm.rt;
    let n = rt.num_devices();
    if device.0 < 0 || device.0 >= n {
        return Err(Error::InvalidDevice { device: i64::from(device.0), num_devices: n });
    }
    let state = reg.device_state(device.0)?;
    // Tiles on GPUs only: the host plugin calls the kernel once, as one thread.
    let on_host = reg.family == Family::Host || device::is_host_plugin(device);
    let tile_inner = pack.bufs.walk.filter(|_| !on_host).map(|w| w.inner);
    let loops = pack.bufs.kinds.iter().filter(|k| **k == SlotKind::LoopTrips).count();
    let flat_nest = loops >= 2 && tile_inner.is_none() && !on_host;
    let shape = KernelShape { tile_inner, reducing: !pack.bufs.reductions.is_empty() || pack.bufs.team_adds, flat_nest };
    let (teams, threads, tiles) = geometry.resolve(kernel.name, rtm.sm_count(), shape)?;
    if let Some(w) = pack.bufs.walk {
        for (i, v) in [tiles.rows, tiles.per_row, tiles.count].into_iter().enumerate() {
            let p = v as usize as *mut c_void;
            pack.bufs.args.base[w.arg + i] = p;
            pack.bufs.args.begin[w.arg + i] = p;
        }
    }
    for (var, owner) in &pack.bufs.owners {
        if *owner != Some(device) {
            return Err(Error::InvalidAccess {
                detail: format!(
                    "`{var}` lives on {} but kernel `{}` runs on {device}; map it on the same device (give the region the \
                     `device(..)` of its `target_data` block)",
                    owner.map_or("the host (its data region did not offload)".to_owned(), |d| d.to_string()),
                    kernel.name
                ),
            });
        }
    }
    // Value arguments point at the region's device copies, refreshed where their bytes changed. Held until the
    // launch is queued or done: another thread's launch of this region with other bytes waits, and then its copy
    // (which waits for the device's queue first) cannot change what this launch reads.
    let _values = if pack.bufs.values.is_empty() { None } else { Some(value_copies(kernel, rt, device, &mut pack.bufs)?) };
    // From the lookups to the enqueue, no other thread ends a mapping the arguments are found in (shared hold). A
    // synchronous launch holds it exclusively instead, see below; under `OMP_RS_LAUNCH=sync` from the start.
    let mode = queue::mode();
    let mut changing = (mode == LaunchMode::Sync).then(map::changing_mappings);
    let lookups = changing.is_none().then(map::lookups_stay_valid);
    let presence = map::check_sections(rt, device.0, &pack.bufs.secs)?;

    // Reduction partial buffers: leased from the kernel's pool, sized for `teams`.
    let partial_count = if on_host { 1 } else { teams as usize };
    let mut reds = Vec::with_capacity(pack.bufs.reductions.len());
    let bufs = &mut *pack.bufs;
    for slot in &bufs.reductions {
        let need = slot.size * teams as usize;
        let buf = {
            let mut pool = kernel.partials.lock().unwrap_or_else(|p| p.into_inner());
            pool.iter().position(|b| b.device == device.0 && b.cap >= need).map(|i| pool.swap_remove(i))
        };
        let buf = match buf {
            Some(b) => b,
            None => {
                let cap = need.max(4096).next_power_of_two();
                let p = rt.alloc_host(cap, device.0)?;
                debug_assert!(p.as_ptr() as usize % slot.align == 0);
                PartialBuf { device: device.0, ptr: p.as_ptr() as usize, cap }
            }
        };
        let p = buf.ptr as *mut c_void;
        bufs.args.base[slot.arg] = p;
        bufs.args.begin[slot.arg] = p;
        reds.push((*slot, buf));
    }
    let ran = Ran { device, teams, threads, partial_count, reds, pool: &kernel.partials };

    if lookups.is_some() {
        if let (true, Some(target)) = (pack.bufs.device_slots(&presence), kernel.target(device, reg)) {
            pack.bufs.footprint(&presence);
            let l = QueuedLaunch {
                kernel: kernel.name,
                addr,
                ident,
                region,
                span: kernel.body,
                slots: &pack.bufs.slots,
                footprint: &pack.bufs.footprint,
                teams,
                threads,
                record: state.panic_record,
            };
            profile::passed(Phase::Checks);
            // SAFETY: `slots` follow the kernel ABI with the device addresses of mappings that outlive the launch (their
            // owners end them through libomptarget, which settles the queue first) and literals; reduction slots
            // point at buffers leased to `ran` until the wait below.
            unsafe { target.launch(&l)? };
            profile::passed(Phase::Enqueue);
            // OpenMP's end of region: without `nowait` the region has finished when the construct ends (a host clock
            // around it, MPI after it, "the GPU is idle now"). `OMP_RS_LAUNCH=queued` leaves every region queued.
            let waits = match mode {
                LaunchMode::OpenMp => !nowait,
                LaunchMode::Queued => false,
                LaunchMode::Wait | LaunchMode::Sync => true,
            };
            if waits || !ran.reds.is_empty() {
                queue::sync(device.0)?;
            }
            return Ok(LaunchOutcome::Ran(ran));
        }
    }

    // libomptarget maps what is not present for the launch and ends those mappings after it: exclusive, so that no
    // other thread's queued launch finds such a short-lived mapping present (and none ends a mapping this launch
    // found present before libomptarget counts its reference). Checked again once the shared hold became exclusive.
    if changing.is_none() {
        drop(lookups);
        changing = Some(map::changing_mappings());
        map::check_sections(rt, device.0, &pack.bufs.secs)?;
    }
    let _exclusive = changing; // held until the launch has returned
                               // Earlier queued regions finish (and report) before a synchronous launch.
    queue::sync(device.0)?;
    let mut ka = pack.bufs.args.kernel_args(teams, threads);
    profile::passed(Phase::Checks);
    // SAFETY: `addr` is the entry of a kernel registered (and verified present in the image) for this device
    // family; the slots follow the kernel ABI; mapped sections are borrowed by `pack` for the call and were checked
    // above; the geometry is validated; reduction slots point at leased pinned buffers of `teams` elements.
    let rc = unsafe { rt.target_kernel(ident, device.0, addr as *mut c_void, &mut ka) };
    if pack.bufs.args.types.iter().any(|t| t & mt::LITERAL == 0) {
        // The launch ended the mappings it made for its arguments.
        map::mappings_changed();
    }
    profile::passed(Phase::Enqueue);
    if rc != sys::OMP_TGT_SUCCESS {
        log(|| format!("kernel `{}`: libomptarget returned {rc}; running the host fallback", kernel.name));
        return Ok(LaunchOutcome::NotOffloaded);
    }
    if let Some(rec) = state.panic_record {
        super::device_output::flush(rec);
        check_panic(kernel.name, region, device, rec)?;
    }
    Ok(LaunchOutcome::Ran(ran))
}

impl PackBuffers {
    /// Fill `slots` with the kernel's slots, device addresses in place of mapped arguments, when nothing needs
    /// copying: every mapped section present (`presence`, from the check made before) and no `always` modifier.
    /// `false`: the launch must go through libomptarget, which maps.
    fn device_slots(&mut self, presence: &[map::Presence]) -> bool {
        let a = &self.args;
        self.slots.clear();
        self.slots.extend(a.begin.iter().map(|p| *p as usize as u64));
        for (&arg, p) in self.sec_args.iter().zip(presence) {
            match p {
                map::Presence::Present(dev) if a.types[arg] & mt::ALWAYS == 0 => self.slots[arg] = *dev as u64,
                _ => return false,
            }
        }
        true
    }

    /// Fill `footprint` with the device memory a queued kernel can reach: its mapped sections where they are present
    /// and its device buffers (kernels reach memory only through these arguments, bounds-checked).
    fn footprint(&mut self, presence: &[map::Presence]) {
        self.footprint.clear();
        self.footprint.extend_from_slice(&self.buffers);
        for (sec, p) in self.secs.iter().zip(presence) {
            if let map::Presence::Present(dev) = p {
                self.footprint.push(*dev as u64..(*dev + sec.bytes) as u64);
            }
        }
    }
}

/// Point the value slots of `bufs` at `kernel`'s device copies on `device` (made on first use, copied again when the
/// bytes differ from the last launch's); returns the cache's lock.
fn value_copies<'k>(
    kernel: &'k KernelRef,
    rt: Rt,
    device: Device,
    bufs: &mut PackBuffers,
) -> Result<std::sync::MutexGuard<'k, Vec<ValueCopy>>, Error> {
    let mut cache = kernel.values.lock().unwrap_or_else(|p| p.into_inner());
    for &(arg, addr, bytes) in &bufs.values {
        // SAFETY: `addr..addr+bytes` is a `Pod` value (no padding: every byte initialised) that the pack borrows for
        // its lifetime, which spans this launch.
        let now = unsafe { std::slice::from_raw_parts(addr as *const u8, bytes) };
        let i = match cache.iter().position(|c| c.device == device.0 && c.arg == arg && c.size == bytes) {
            Some(i) => i,
            None => {
                let ptr = rt.target_alloc(bytes, device.0)?.as_ptr() as usize;
                cache.push(ValueCopy { device: device.0, arg, ptr, size: bytes, bytes: Vec::new() });
                cache.len() - 1
            }
        };
        let copy = &mut cache[i];
        if copy.bytes != now {
            // No queued launch may still read the old bytes.
            queue::sync(device.0)?;
            // SAFETY: `copy.ptr` is `bytes` of this device's memory that only this cache writes, under its lock; the
            // device's queue is settled (above), so no queued launch still reads the old bytes.
            unsafe { rt.memcpy_to_device(copy.ptr as *mut c_void, now.as_ptr(), bytes, device.0)? };
            copy.bytes.clear();
            copy.bytes.extend_from_slice(now);
        }
        let p = copy.ptr as *mut c_void;
        bufs.args.base[arg] = p;
        bufs.args.begin[arg] = p;
    }
    Ok(cache)
}

/// Read (and reset) the pinned panic record after a synchronous launch.
fn check_panic(kernel: &str, region: &Location<'_>, device: Device, rec: usize) -> Result<(), Error> {
    let p = rec as *mut PanicRecord;
    // SAFETY: `rec` is this device's pinned `PanicRecord` (registry::device_state); the launch has completed, so
    // the device no longer writes it. Volatile: the device wrote it behind the compiler's back.
    let r = unsafe { p.read_volatile() };
    if r.count == 0 {
        return Ok(());
    }
    // SAFETY: as above; resetting for the next launch.
    unsafe { p.write_volatile(r.cleared()) };
    Err(Error::DevicePanic {
        kernel: kernel.to_owned(),
        region: region.to_string(),
        device: device.0,
        file: registry::panic_file(device.0, &r),
        line: r.line as u32,
        column: r.column as u32,
        count: r.count,
        block: r.block,
        thread: r.thread,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every builder call records the kinds of the slots it fills, so that a pack is compared slot by slot with
    /// the kernel's layout; a value slot matches any value kind, nothing else matches across kinds.
    #[test]
    fn a_pack_records_its_slot_kinds_and_a_wrong_layout_is_refused() {
        use SlotKind::*;
        let (x, mut y, p) = (vec![1.0f64; 4], vec![0.0f32; 4], [3u8; 2]);
        let pack =
            ArgPack::new().to(&x).tofrom(&mut y).var("y").scalar(2.5f64).scalar(7i32).scalars(&p).dim(0, 4, 1).walk(4).reduction::<f64>();
        let want = [
            ArrayBase,
            ArrayLen,
            ArrayBase,
            ArrayLen,
            Float64,
            Int,
            Int,
            Int,
            LoopFirst,
            LoopTrips,
            LoopStep,
            WalkTileRows,
            WalkTilesPerRow,
            WalkTiles,
            ReductionPartials,
        ];
        assert_eq!(pack.bufs.kinds, want);
        assert_eq!(pack.slots(), want.len());
        assert_eq!(layout_mismatch(&pack.bufs.kinds, &want), None);
        // A kernel that decodes the f64 as an integer reads the same bits: rustc typed both sides.
        let mut as_int = want;
        as_int[4] = Int;
        assert_eq!(layout_mismatch(&pack.bufs.kinds, &as_int), None);
        let mut shifted = want.to_vec();
        shifted.remove(1);
        let e = layout_mismatch(&pack.bufs.kinds, &shifted).expect("a missing length is a mismatch");
        assert!(e.contains("slot 1") && e.contains("ArrayLen") && e.contains("ArrayBase"), "{e}");
        let e = layout_mismatch(&pack.bufs.kinds, &want[..want.len() - 1]).expect("an extra slot is a mismatch");
        assert!(e.contains("15 slots") && e.contains("14 parameters"), "{e}");

        static SET: ImageSet = ImageSet::new(&[], &["omp_k_layout"], &[]);
        static WRONG: KernelRef = KernelRef::with_layout(&SET, "omp_k_layout", None, Some(&[ArrayBase, ArrayLen, Int]));
        let pack = ArgPack::new().to(&x).dim(0, 4, 1);
        match WRONG.check_layout(&pack.bufs.kinds) {
            Err(Error::KernelLayout { kernel, detail }) => assert!(kernel == "omp_k_layout" && detail.contains("slot 2"), "{detail}"),
            other => panic!("expected a layout error, got {other:?}"),
        }
        static RIGHT: KernelRef =
            KernelRef::with_layout(&SET, "omp_k_layout", None, Some(&[ArrayBase, ArrayLen, LoopFirst, LoopTrips, LoopStep]));
        assert_eq!(RIGHT.check_layout(&pack.bufs.kinds), Ok(()));
    }

    /// An ownership's slots are named as `omp_rs_abi::owner_slots` lays them out.
    #[test]
    fn ownership_slots_are_recorded_as_the_abi_lays_them_out() {
        let mut y = vec![0.0f64; 64];
        let (i, k) = (crate::host::Dim::from(0i64..8), crate::host::Dim::from(0i64..4));
        let own = crate::host::Affine::new(Some(0), [8]).term(0, Some(8), &i).inner(Some(2), &k).check("y", "8 * i + 2 * k");
        let pack = ArgPack::new().tofrom(&mut y).owned(&own, 1);
        let want: Vec<SlotKind> = [SlotKind::ArrayBase, SlotKind::ArrayLen].into_iter().chain(omp_rs_abi::owner_slots(1, 1)).collect();
        assert_eq!(pack.bufs.kinds, want);
    }

    fn tiled(inner: u64) -> KernelShape {
        KernelShape { tile_inner: Some(inner), reducing: false, flat_nest: false }
    }

    #[test]
    fn collapsed_nests_get_tiles_when_the_padding_is_small() {
        // GEMM's 1000 x 1000: 125 rows of 32 tiles of 8 x 32, one team per tile.
        let g = Geometry::for_iterations(1_000_000);
        assert_eq!(g.resolve("k", Some(132), tiled(1000)).unwrap(), (4000, 256, Tiles { rows: 8, per_row: 32, count: 4000 }));
        // 100-wide rows pad to 128 (a third idle at most): tiled; 33-wide rows would idle nearly half: flat.
        assert_eq!(tiles(256, 100 * 10_000, 100), Tiles { rows: 8, per_row: 4, count: 5000 });
        assert_eq!(tiles(256, 33 * 10_000, 33), Tiles::default());
        // Rows shorter than a warp, fewer rows than a tile, teams not made of warps, 2^32 iterations: flat.
        assert_eq!(tiles(256, 31 * 1000, 31), Tiles::default());
        assert_eq!(tiles(256, 7 * 1000, 1000), Tiles::default());
        assert_eq!(tiles(100, 1000 * 1000, 1000), Tiles::default());
        assert_eq!(tiles(256, 1 << 32, 1 << 16), Tiles::default());
        // The cap on the default grid holds for tiles too; num_teams(n) stays n.
        let big = Geometry::for_iterations(4000 * 4000);
        assert_eq!(big.resolve("k", Some(132), tiled(4000)).unwrap().0, 132 * teams_per_sm(false));
        let three = Geometry { num_teams: Some(3), ..g };
        assert_eq!(three.resolve("k", Some(132), tiled(1000)).unwrap().0, 3);
        // Not a collapsed nest (or not a GPU): flat, the grid as before.
        assert_eq!(g.resolve("k", Some(132), KernelShape::default()).unwrap(), (3907, 256, Tiles::default()));
    }

    #[test]
    fn flat_nests_give_threads_several_iterations_once_the_gpu_is_full() {
        let flat_nest = KernelShape { tile_inner: None, reducing: false, flat_nest: true };
        let teams = |iterations: u64| Geometry::for_iterations(iterations).resolve("k", Some(132), flat_nest).unwrap().0;
        // iso2dfd's 2048 x 2048: 16384 teams of one iteration per thread become 4096 of four.
        assert_eq!(teams(2048 * 2048), 16384 / nest_iterations_per_thread() as u32);
        // A million iterations: never fewer teams than fill the GPU (132 SMs x 8 teams of 256 threads); with the
        // default four per thread, exactly those.
        let per = nest_iterations_per_thread() as u32;
        assert_eq!(teams(1_000_000), 3907u32.div_ceil(per).max(1056));
        // Fewer iterations than the GPU has threads: one each.
        assert_eq!(teams(100_000), 391);
        // The cap holds.
        assert_eq!(teams(1 << 30), 132 * teams_per_sm(false));
    }

    #[test]
    fn reduction_grids_fill_the_gpu_before_giving_threads_several_iterations() {
        let reducing = KernelShape { tile_inner: None, reducing: true, flat_nest: false };
        // 1e5 iterations: a thread each (391 teams), not 8 each (49 teams on 132 SMs).
        assert_eq!(Geometry::for_iterations(100_000).resolve("k", Some(132), reducing).unwrap().0, 391);
        // 1e6: 8 each (489 teams) would leave SMs with fewer than 4 teams; 528 is 4 per SM.
        assert_eq!(Geometry::for_iterations(1_000_000).resolve("k", Some(132), reducing).unwrap().0, 528);
        // 32e6: 8 each (15625) until the cap of 32 per SM.
        assert_eq!(Geometry::for_iterations(32_000_000).resolve("k", Some(132), reducing).unwrap().0, 132 * teams_per_sm(true));
        // A short loop: a thread each (1000 iterations, 4 teams); num_teams(n) is kept.
        assert_eq!(Geometry::for_iterations(1000).resolve("k", Some(132), reducing).unwrap().0, 4);
        assert_eq!(Geometry::for_iterations(10).resolve("k", Some(132), reducing).unwrap().0, 1);
        let g = Geometry::for_iterations(1_000_000);
        assert_eq!(Geometry { num_teams: Some(5000), ..g }.resolve("k", Some(132), reducing).unwrap().0, 5000);
    }

    #[test]
    fn packs_reuse_the_threads_buffers() {
        let first = ArgPack::new().scalar(1.5f64).unit_dim(0, 4, 1);
        let base = first.bufs.args.base.as_ptr();
        drop(first);
        let second = ArgPack::new();
        assert_eq!(second.slots(), 0, "handed back empty");
        assert_eq!(second.bufs.args.base.as_ptr(), base, "the same allocation");
        let third = ArgPack::new();
        assert_ne!(third.bufs.args.base.as_ptr(), base, "one pack at a time owns them");
    }

    #[test]
    fn a_unit_step_dimension_checks_its_step() {
        let pack = ArgPack::new().unit_dim(3, 10, 1).dim(9, 4, -2);
        assert_eq!(pack.bufs.args.begin.len(), 6, "three slots per dimension");
        let other = std::panic::catch_unwind(|| ArgPack::new().unit_dim(0, 10, 2));
        let msg = other.expect_err("step 2 for a kernel compiled with step 1");
        assert!(msg.downcast_ref::<String>().is_some_and(|m| m.contains("unit-step loop got step 2")));
    }
}
