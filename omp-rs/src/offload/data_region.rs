//! Data environments as the directive macros expand them: `#[omp::target_data]` blocks ([`DataRegion`] and one
//! mapping token per variable), `omp::target_update!`, `omp::target_enter_data!` / `omp::target_exit_data!` on
//! the user's variables.
//!
//! A `target_data` block is sound by the borrow checker, not by reading the user's code: each mapped variable is
//! borrowed by a token ([`MappedRef`] for `to`/`alloc`, [`MappedMut`] for `from`/`tofrom` or data the block's
//! regions write) that begins the mapping when made and ends it (copying back) when dropped at the end of the
//! block, and the expansion shadows the variable's name with a reference to the token, which itself has a name the
//! block cannot write (so no code of the block can forget or move it: its copy back always runs). Host code of the
//! block reaches the host copy only through a view the token lends (`x.host()`, `x.host_mut()`, borrowing the
//! token, after waiting for the device's queued work): indexing the token itself is a compile error naming the
//! variable, no region or update of the block runs while a view lives, and the copy back writes memory the token
//! still borrows exclusively. What a view shows is OpenMP's host copy: stale where the device wrote and nothing
//! copied it back, defined in every case. Target regions, updates and
//! nested data regions reach the data through the tokens (`omp::__private::as_slice[_mut]`). libomptarget's
//! present table plus omp-rs's overlap checks turn a mismatched section into an [`Error`] rather than a copy
//! outside it.

use core::ffi::c_void;
use std::marker::PhantomData;
use std::panic::Location;
use std::ptr::NonNull;
use std::slice::SliceIndex;

use super::device::{self, Decision, Device};
use super::map::{self, ExitKind, MapKind, Modifiers, Section};
use super::policy::{self, log, Policy};
use super::registry;
use super::registry::ImageSet;
use super::repr::Pod;
use super::result::{DataOp, Ident, MapArgs};
use crate::host::storage::{Sealed, SliceStorage, SliceStorageMut};
use crate::Error;

/// An active `#[omp::target_data]` block: where its variables are mapped (a device, or the host when the block
/// does not offload). The mappings themselves belong to the tokens made from it.
#[derive(Debug)]
pub struct DataRegion {
    device: Option<Device>,
    loc: &'static Ident,
}

/// One mapped section, as begun on a device (ended by the token's drop).
#[derive(Debug)]
struct Entry {
    device: Device,
    addr: usize,
    bytes: usize,
    exit: ExitKind,
    loc: &'static Ident,
}

impl Drop for Entry {
    fn drop(&mut self) {
        let Ok(r) = registry::runtime() else { return };
        // SAFETY: mapped by `DataRegion::map` on this device; the token that owns this entry holds the borrow of
        // the section for as long as the entry lives (exclusively when `exit` copies back into it).
        unsafe { super::data::exit_raw(r.rt, self.loc, self.device.0, self.addr, self.bytes, self.exit) };
        // The end of the block is where the host sees the device's results: a queued region's failure surfaces here.
        if let Err(e) = super::queue::take_error(self.device.0) {
            if std::thread::panicking() {
                eprintln!("omp-rs: {e}");
            } else {
                panic!("{e}");
            }
        }
    }
}

/// Registers the crate's image set (`images`) before a data construct uses a device: registering creates the
/// devices, so a data region or `target_enter_data!` that is the process's first offload operation maps onto the
/// device rather than finding none. A failure leaves the construct to the usual device selection (host, or an
/// error under MANDATORY).
pub fn register_images(images: Option<&'static ImageSet>, if_cond: bool) {
    if let (Some(set), true) = (images, if_cond && policy::policy() != Policy::Disabled) {
        if registry::runtime().is_ok() {
            let _ = registry::ensure_registered(set);
        }
    }
}

impl DataRegion {
    /// Decides where the block's data lives (`device`, `if`); `images`: the crate's image set, registered first so
    /// that its devices exist. Maps nothing yet: each variable is mapped by its token.
    ///
    /// # Errors
    /// Device selection errors.
    #[track_caller]
    pub fn begin(device: Option<i64>, if_cond: bool, images: Option<&'static ImageSet>) -> Result<DataRegion, Error> {
        let at = Location::caller();
        let loc = Ident::at(at, "target data");
        register_images(images, if_cond);
        let device = match device::resolve(device, if_cond)? {
            Decision::Offload(d) => Some(d),
            Decision::Host(reason) => {
                // The user's line: `Location::caller()` inside the closure would be this file's.
                log(|| format!("target data at {at}: host ({reason})"));
                None
            }
        };
        Ok(DataRegion { device, loc })
    }

    /// The device the scope maps on (`None`: host).
    pub fn device(&self) -> Option<Device> {
        self.device
    }

    /// Begins the mapping of `section` (of a variable whose whole elements the token will hold).
    fn map<T: Pod>(&self, section: &[T], kind: MapKind, exit: ExitKind, mods: Modifiers, var: &str) -> Result<Option<Entry>, Error> {
        let Some(d) = self.device else { return Ok(None) };
        let bytes = std::mem::size_of_val(section);
        if bytes == 0 {
            return Ok(None);
        }
        let rt = registry::runtime()?.rt;
        let addr = section.as_ptr() as usize;
        // SAFETY: the caller's token holds the borrow of the section until the entry (which ends the mapping) is
        // dropped; `enter_raw` checks it against the present table first.
        unsafe { super::data::enter_raw(rt, self.loc, d.0, addr, bytes, kind, mods, var)? };
        Ok(Some(Entry { device: d, addr, bytes, exit, loc: self.loc }))
    }

    /// `map(to: x[section])` or `map(alloc: …)` (`to = false`) of a variable the block only reads: the token
    /// shares `x`'s borrow.
    ///
    /// # Errors
    /// `present` on unmapped data, sections overlapping other mappings.
    pub fn map_ref<'s, 'a, T: Pod, R: SliceIndex<[T], Output = [T]> + std::fmt::Debug>(
        &'s self,
        x: &'a [T],
        section: R,
        to: bool,
        mods: Modifiers,
        var: &'static str,
    ) -> Result<MappedRef<'s, 'a, T>, Error> {
        let kind = if to { MapKind::To } else { MapKind::Alloc };
        let entry = self.map(section_of(x, section, var)?, kind, ExitKind::Release, mods, var)?;
        // Only read by the block: the host copy stays current, so a region elsewhere may copy it.
        Ok(MappedRef { data: Elems::shared(x), var, shape: Vec::new(), owner: None, _entry: entry, _scope: self })
    }

    /// `map(from|tofrom: x[section])`, or `alloc` of a variable the block may write: the token holds `x`
    /// exclusively (the copy back, or the block's regions, write it).
    ///
    /// # Errors
    /// As [`DataRegion::map_ref`].
    pub fn map_mut<'s, 'a, T: Pod, R: SliceIndex<[T], Output = [T]> + std::fmt::Debug>(
        &'s self,
        x: &'a mut [T],
        section: R,
        kind: MapKind,
        mods: Modifiers,
        var: &'static str,
    ) -> Result<MappedMut<'s, 'a, T>, Error> {
        let exit = if kind.writes_host() { ExitKind::From } else { ExitKind::Release };
        let entry = self.map(section_of(x, section, var)?, kind, exit, mods, var)?;
        let shared = MappedRef { data: Elems::exclusive(x), var, shape: Vec::new(), owner: self.device, _entry: entry, _scope: self };
        Ok(MappedMut { shared, _exclusive: PhantomData })
    }
}

/// `x[section]`, or an error naming the variable.
fn section_of<'x, T, R: SliceIndex<[T], Output = [T]> + std::fmt::Debug>(x: &'x [T], section: R, var: &str) -> Result<&'x [T], Error> {
    let what = format!("{section:?}");
    x.get(section)
        .ok_or_else(|| Error::InvalidAccess { detail: format!("the section `{var}[{what}]` is outside its {} elements", x.len()) })
}

/// The elements a token holds: a pointer with a reference's rules. A [`MappedRef`] made by
/// [`DataRegion::map_ref`] holds them as `&'a [T]`; a [`MappedMut`] holds them exclusively (made from `&'a mut
/// [T]`) and lends its [`MappedRef`] part through `Deref`, so that `&mut MappedMut` passes where a function takes
/// `&MappedRef`, as `&mut [T]` passes for `&[T]`.
struct Elems<'a, T> {
    ptr: NonNull<T>,
    len: usize,
    _borrow: PhantomData<&'a [T]>,
}

// SAFETY: `Elems` is a `&'a [T]` (a `MappedMut` adds the `&'a mut [T]` marker for its own auto traits): shared
// across threads and sent to one as a shared slice is.
unsafe impl<T: Sync> Send for Elems<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for Elems<'_, T> {}

impl<'a, T> Elems<'a, T> {
    fn shared(x: &'a [T]) -> Self {
        Elems { ptr: NonNull::from(x).cast(), len: x.len(), _borrow: PhantomData }
    }

    fn exclusive(x: &'a mut [T]) -> Self {
        let len = x.len();
        Elems { ptr: NonNull::from(x).cast(), len, _borrow: PhantomData }
    }

    fn get(&self) -> &[T] {
        // SAFETY: `ptr`/`len` come from a live borrow of `'a` (shared or exclusive); while `&self` lives nothing
        // writes through this `Elems` (writes need the `&mut` of the `MappedMut` that owns it).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// # Safety
    /// `self` was made by [`Elems::exclusive`] (only a [`MappedMut`]'s own part is).
    unsafe fn get_mut(&mut self) -> &mut [T] {
        // SAFETY: made from a `&'a mut [T]` (the caller's promise) that this `Elems` holds for `'a`; `&mut self`
        // excludes every other use of it for the slice's life.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

/// A variable mapped `to`/`alloc` by an enclosing `target_data` block (the expansion gives it the variable's
/// name): host code can ask its `len()`, target regions and updates use its data; it cannot be indexed nor
/// printed (it has no `Debug`), and it holds the variable's borrow until the block ends.
pub struct MappedRef<'s, 'a, T> {
    data: Elems<'a, T>,
    var: &'static str,
    /// The extents of the ndarray array it maps (empty: a slice).
    shape: Vec<usize>,
    /// The device whose copy is the current one (the block's regions may write it there), `None` when the host's is.
    owner: Option<Device>,
    _entry: Option<Entry>,
    _scope: &'s DataRegion,
}

/// A variable mapped `from`/`tofrom` (or written by the block's regions) by an enclosing `target_data` block: as
/// [`MappedRef`] (which it dereferences to: `&mut MappedMut` passes for `&MappedRef`), holding the variable
/// exclusively until the mapping ends.
pub struct MappedMut<'s, 'a, T> {
    shared: MappedRef<'s, 'a, T>,
    _exclusive: PhantomData<&'a mut [T]>,
}

impl<'s, 'a, T> std::ops::Deref for MappedMut<'s, 'a, T> {
    type Target = MappedRef<'s, 'a, T>;
    fn deref(&self) -> &MappedRef<'s, 'a, T> {
        &self.shared
    }
}

impl<T> MappedMut<'_, '_, T> {
    fn elems_mut(&mut self) -> &mut [T] {
        // SAFETY: a `MappedMut`'s `Elems` is made by `Elems::exclusive` (`DataRegion::map_mut`) and never lent out
        // as another `MappedMut`'s.
        unsafe { self.shared.data.get_mut() }
    }
}

impl<T> MappedRef<'_, '_, T> {
    /// The number of elements of the mapped variable.
    pub fn len(&self) -> usize {
        self.data.len
    }

    /// Whether the mapped variable has no elements.
    pub fn is_empty(&self) -> bool {
        self.data.len == 0
    }

    /// The variable's name.
    pub fn var(&self) -> &'static str {
        self.var
    }

    /// The device holding the current copy (the block's device when its regions may write the variable; `None`
    /// when the host's copy is current: read only, or the block runs on the host). For macro expansions: a region
    /// launching on another device is refused.
    #[doc(hidden)]
    pub fn owner_device(&self) -> Option<Device> {
        self.owner
    }

    /// The token of an ndarray array (mapped as its standard-layout elements) remembers its extents, so that target
    /// regions in the block index it as `u[[i, j]]`. For macro expansions.
    #[doc(hidden)]
    pub fn shaped(mut self, shape: &[usize]) -> Self {
        self.shape = shape.to_vec();
        self
    }
}

impl<T> MappedMut<'_, '_, T> {
    /// As [`MappedRef::shaped`]. For macro expansions.
    #[doc(hidden)]
    pub fn shaped(mut self, shape: &[usize]) -> Self {
        self.shared.shape = shape.to_vec();
        self
    }
}

// An explicit `Drop`, though the mapping ends in `Entry`'s: without it the borrow of the variable would end at the
// token's last use (drop check sees that `Entry` does not use it), and a `macro_rules!` defined before the block,
// which names the variable itself, could read the stale host copy after that point.
impl<T> Drop for MappedRef<'_, '_, T> {
    fn drop(&mut self) {}
}

impl<T> Drop for MappedMut<'_, '_, T> {
    fn drop(&mut self) {}
}

macro_rules! mapped_common {
    ($t:ident) => {
        // The block's regions take the array apart as they would the ndarray array (`host::nd`); its elements are
        // the mapped, row-major ones the token was made from.
        impl<T> crate::host::nd::NdArray for $t<'_, '_, T> {
            type Elem = T;
            fn __omp_nd_shape(&self) -> std::borrow::Cow<'_, [usize]> {
                std::borrow::Cow::Borrowed(&self.shape)
            }
            fn __omp_nd_flat(&self) -> Option<&[T]> {
                Some(self.data.get())
            }
        }

        // No `Debug`: `println!("{a:?}")` inside the block must not compile (it could only show host data that
        // the device copy has outdated).

        impl<T> Sealed for $t<'_, '_, T> {}
        impl<T> SliceStorage for $t<'_, '_, T> {
            type Elem = T;
            fn storage(&self) -> &[T] {
                self.data.get()
            }
        }

        impl<T, I> std::ops::Index<I> for $t<'_, '_, T>
        where
            Self: HostAccess,
        {
            type Output = T;
            fn index(&self, _: I) -> &T {
                unreachable!("HostAccess is never implemented")
            }
        }
    };
}
mapped_common!(MappedRef);
mapped_common!(MappedMut);

// Host views: inside a `target_data` block the host copy is ordinary memory, as in OpenMP. A view waits first for
// the work queued on the block's device (a device panic there is reported here, where the host observes), so no
// kernel or copy runs while host code holds it; the borrow of the token keeps the block's regions and updates
// from running while the view lives.
impl<T> MappedRef<'_, '_, T> {
    /// The host copy of the mapped variable, as OpenMP's host code sees it inside the data region: what the host
    /// last wrote or `omp::target_update!(from: x)` last copied back. Writes the block's regions made on the device
    /// since then are not in it (OpenMP's semantics: a stale value, never undefined behaviour). Waits for the work
    /// queued on the block's device first.
    ///
    /// # Panics
    /// When a region queued on the device panicked (its panic is reported here).
    #[track_caller]
    pub fn host(&self) -> &[T] {
        host_view_waits(self._scope, self.var);
        self.data.get()
    }
}

impl<T> MappedMut<'_, '_, T> {
    /// The host copy, writable, as OpenMP's host code writes it inside the data region: the device copy is not
    /// changed until `omp::target_update!(to: x)` sends it (and a `from`/`tofrom` mapping's copy back at the end of
    /// the block overwrites it with the device's). A variable the block maps `to:`/`alloc:` gets a token that can
    /// give this view when the block calls `x.host_mut()`. Waits for the work queued on the block's device first.
    ///
    /// # Panics
    /// When a region queued on the device panicked (its panic is reported here).
    #[track_caller]
    pub fn host_mut(&mut self) -> &mut [T] {
        host_view_waits(self._scope, self.var);
        self.elems_mut()
    }
}

/// Before a host view of a mapped variable: nothing of the block's device still runs (kernels and copies queued on
/// it), and what failed there is reported.
#[track_caller]
fn host_view_waits(scope: &DataRegion, var: &str) {
    if let Some(d) = scope.device {
        if let Err(e) = super::queue::sync(d.0) {
            panic!("omp: before the host view of `{var}` at {}: {e}", Location::caller());
        }
    }
}

impl<'s, T> MappedMut<'s, '_, T> {
    /// The same mapped variable, read-only: for a function that only reads it in its target regions
    /// (`fn f(x: &omp::MappedRef<'_, '_, f64>)`, which `f(x)` reaches through `Deref` too), as a value of its own. The
    /// mapping stays this token's.
    pub fn as_mapped_ref(&self) -> MappedRef<'s, '_, T> {
        let data = Elems::shared(self.data.get());
        MappedRef { data, var: self.var, shape: self.shape.clone(), owner: self.owner, _entry: None, _scope: self._scope }
    }
}

// A region of the block that runs on the host (`if(false)`, no device image for it) works on the host copy: a
// variable whose current copy is on the device is brought back first and sent again after, so that the block's
// copy back at its end does not overwrite the region's results with the device's older ones.
impl<T: Pod> MappedMut<'_, '_, T> {
    /// Before a region of the block runs on the host: the device's copy to the host. For macro expansions.
    #[doc(hidden)]
    #[track_caller]
    pub fn host_region_begins(&mut self) {
        if let Some(d) = self.owner {
            let var = self.var;
            update_from(self.elems_mut(), var, Some(i64::from(d.num())), true).unwrap_or_else(|e| panic!("{e}"));
        }
    }

    /// After a region of the block ran on the host: the host's copy (with the region's writes) to the device.
    #[doc(hidden)]
    #[track_caller]
    pub fn host_region_ends(&mut self) {
        if let Some(d) = self.owner {
            update_to(self.data.get(), self.var, Some(i64::from(d.num())), true).unwrap_or_else(|e| panic!("{e}"));
        }
    }

    /// Before a region of the block runs on the host with this token borrowed shared (`let src = &*a;`): as
    /// [`MappedRef::host_region_begins`], the device's copy cannot come back through the borrow.
    #[doc(hidden)]
    #[track_caller]
    pub fn host_region_begins_shared(&self) {
        if let Some(d) = self.owner {
            shared_host_region(self.var, d);
        }
    }
}

/// A region about to run on the host reads a variable through a shared borrow while its current copy is on `d`.
#[track_caller]
fn shared_host_region(var: &str, d: impl std::fmt::Display) -> ! {
    panic!(
        "omp: a target region at {} would run on the host, but `{var}` is current only on {d} (its target_data \
         block's regions write it there): build device images for the region, drop its `if` clause, or pass the \
         variable mutably (`&mut MappedMut`) so that omp-rs can bring the device copy back",
        Location::caller(),
    )
}

impl<T> MappedRef<'_, '_, T> {
    /// Before a region of the block runs on the host: a read-only view of a variable whose current copy is on the
    /// device cannot be refreshed (the host data is borrowed shared), so such a region must not run on the host.
    #[doc(hidden)]
    #[track_caller]
    pub fn host_region_begins(&self) {
        if let Some(d) = self.owner {
            shared_host_region(self.var, d);
        }
    }

    /// As [`MappedRef::host_region_begins`] (the token reached through a shared borrow).
    #[doc(hidden)]
    #[track_caller]
    pub fn host_region_begins_shared(&self) {
        self.host_region_begins();
    }

    /// After a region of the block ran on the host: nothing to send (read only).
    #[doc(hidden)]
    pub fn host_region_ends(&self) {}
}

impl<T> crate::host::nd::NdArrayMut for MappedMut<'_, '_, T> {
    fn __omp_nd_flat_mut(&mut self) -> Option<&mut [T]> {
        Some(self.elems_mut())
    }
}

impl<T> SliceStorageMut for MappedMut<'_, '_, T> {
    fn storage_mut(&mut self) -> &mut [T] {
        self.elems_mut()
    }
}

/// Never implemented: indexing a mapped variable in host code is a compile error with this explanation.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is mapped to the device by an enclosing `#[omp::target_data]` (or a pending `nowait` region \
               before the next `omp::taskwait!()`): host code there cannot access its elements",
    label = "the device copy is the current one here",
    note = "use it in a target region, or read its host copy with `x.host()` (after `omp::target_update!(from: x)` \
            for the device's values) and write it with `x.host_mut()` (then `omp::target_update!(to: x)`); after the \
            block (after the `omp::taskwait!()` for a `nowait` region) the variable is itself again"
)]
pub trait HostAccess {}

fn update(addr: usize, bytes: usize, bits: i64, device: Option<i64>, if_cond: bool, var: &str, loc: &'static Ident) -> Result<(), Error> {
    let Decision::Offload(d) = device::resolve(device, if_cond)? else { return Ok(()) };
    if bytes == 0 {
        return Ok(());
    }
    let rt = registry::runtime()?.rt;
    map::check_sections(rt, d.0, &[Section { addr, bytes, present: true, var: var.into() }])?;
    let p = addr as *mut c_void;
    let mut a = MapArgs::with_capacity(1);
    a.push(p, p, bytes as i64, bits);
    // Queued kernels may still write what `from` copies back or read what `to` overwrites.
    super::queue::settle(d.0);
    // SAFETY: present (checked); `update_from` holds an exclusive borrow of the host section it writes; the queue
    // is settled.
    unsafe { rt.data(DataOp::Update, loc, d.0, &mut a) };
    super::queue::take_error(d.0)
}

/// `omp::target_update!(to: x)`: copies the host section to its device copy (no-op on the host).
///
/// # Errors
/// [`Error::NotPresent`] when `x` is not mapped.
#[track_caller]
pub fn update_to<T: Pod>(x: &[T], var: &str, device: Option<i64>, if_cond: bool) -> Result<(), Error> {
    let loc = Ident::at(Location::caller(), "target update");
    update(x.as_ptr() as usize, std::mem::size_of_val(x), libomptarget_sys::maptype::TO, device, if_cond, var, loc)
}

/// `omp::target_update!(from: x)`: copies the device copy to the host section.
///
/// # Errors
/// [`Error::NotPresent`] when `x` is not mapped.
#[track_caller]
pub fn update_from<T: Pod>(x: &mut [T], var: &str, device: Option<i64>, if_cond: bool) -> Result<(), Error> {
    let loc = Ident::at(Location::caller(), "target update");
    update(x.as_ptr() as usize, std::mem::size_of_val(x), libomptarget_sys::maptype::FROM, device, if_cond, var, loc)
}

/// `omp::target_enter_data!(map(to|alloc: x))` on a variable (no-op on the host).
///
/// # Errors
/// As [`DataRegion::map_ref`].
#[track_caller]
pub fn enter_data<T: Pod>(x: &[T], to: bool, mods: Modifiers, device: Option<i64>, if_cond: bool) -> Result<(), Error> {
    if !if_cond {
        return Ok(());
    }
    let kind = if to { MapKind::To } else { MapKind::Alloc };
    // SAFETY: the section comes from a live borrow; a later exit or kernel re-derives its own section, and the
    // overlap checks reject one that no longer matches (e.g. the buffer was reallocated) instead of copying
    // outside it.
    unsafe { super::data::target_enter_data_raw(x, kind, mods, device) }.map(|_| ())
}

/// `omp::target_exit_data!(map(from: x))` on a variable (no-op on the host): copies back and releases.
///
/// # Errors
/// [`Error::NotPresent`] when `x` is not mapped.
#[track_caller]
pub fn exit_data_from<T: Pod>(x: &mut [T], var: &str, device: Option<i64>, if_cond: bool) -> Result<(), Error> {
    let Decision::Offload(d) = device::resolve(device, if_cond)? else { return Ok(()) };
    // SAFETY: `x` is exclusively borrowed for the call, so the copy back writes memory nobody else sees.
    unsafe { super::data::exit_section(x, ExitKind::From, d, var) }
}

/// `omp::target_exit_data!(map(release|delete: x))` on a variable (no-op on the host): no copy, so a shared
/// borrow is enough.
///
/// # Errors
/// [`Error::NotPresent`] when `x` is not mapped.
#[track_caller]
pub fn exit_data_release<T: Pod>(x: &[T], delete: bool, var: &str, device: Option<i64>, if_cond: bool) -> Result<(), Error> {
    let Decision::Offload(d) = device::resolve(device, if_cond)? else { return Ok(()) };
    let kind = if delete { ExitKind::Delete } else { ExitKind::Release };
    // SAFETY: no copy back (`Release`/`Delete`), so nothing writes `x`; it is borrowed for the call.
    unsafe { super::data::exit_section(x, kind, d, var) }
}

/// A target region whose crate was built without a device image for it (no device toolchain, or a kernel that
/// could not be compiled: `why`, when the build said): runs on the host, except under
/// `OMP_TARGET_OFFLOAD=MANDATORY`.
///
/// # Errors
/// [`Error::NoDevice`] under `MANDATORY`.
#[track_caller]
pub fn region_without_image(kernel: &str, why: Option<&str>) -> Result<(), Error> {
    let loc = Location::caller();
    let pol = policy::policy();
    let reason = match why {
        Some(why) => format!("target region `{kernel}` at {loc} has no device kernel: {why}"),
        None => format!(
            "target region `{kernel}` at {loc} was built without a device image (install the device toolchain with \
             `cargo omp setup` or scripts/setup-gpu-toolchain.sh, and rebuild)"
        ),
    };
    if pol == Policy::Mandatory {
        return Err(Error::NoDevice { policy: pol, reason });
    }
    log(|| format!("region `{kernel}` at {loc}: host ({reason})"));
    Ok(())
}
