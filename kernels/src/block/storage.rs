//! [`TempStorage<T>`]: the typed shared memory of the block-wide algorithms.

use core::cell::UnsafeCell;
use core::mem::MaybeUninit;

/// Shared memory for one block-wide reduce or scan: one `T` per warp of the block (32 slots,
/// enough for 1024 threads), as CUB's `BlockReduce::TempStorage`.
///
/// It lives in `.shared` memory and is written by several threads, so the slots are
/// [`UnsafeCell`]s and the block functions take it by shared reference. Get one with
/// [`shared!`](crate::shared) (`&*shared!(NAME: TempStorage<T>)`), or carve it out of a
/// larger shared buffer with [`TempStorage::from_ptr`]; [`TempStorage::BYTES`] says how much
/// room it needs. Its contents are uninitialized until the block functions write them.
#[repr(C)]
pub struct TempStorage<T> {
    slots: [UnsafeCell<MaybeUninit<T>>; 32],
}

impl<T: Copy> TempStorage<T> {
    /// Its size in bytes: `32 * size_of::<T>()`.
    pub const BYTES: usize = core::mem::size_of::<Self>();

    /// The storage at `p`.
    ///
    /// # Safety
    /// `p` points to at least [`Self::BYTES`] bytes of shared memory, aligned for `T`, that
    /// nothing else uses while the returned reference is in use by the block functions.
    #[inline(always)]
    pub unsafe fn from_ptr<'a>(p: *mut TempStorage<T>) -> &'a TempStorage<T> {
        // SAFETY: the caller's conditions; every bit pattern is a valid `MaybeUninit`.
        unsafe { &*p }
    }

    /// Writes slot `i` (`i < 32`).
    ///
    /// # Safety
    /// `i < 32`, and no other thread accesses slot `i` until the block synchronizes.
    #[inline(always)]
    pub(crate) unsafe fn write(&self, i: u32, value: T) {
        // SAFETY: the caller gives this thread exclusive use of slot `i`, which exists.
        unsafe { (*self.slots.get_unchecked(i as usize).get()).write(value) };
    }

    /// Reads slot `i` (`i < 32`).
    ///
    /// # Safety
    /// `i < 32`; slot `i` was written, and the block has synchronized since.
    #[inline(always)]
    pub(crate) unsafe fn read(&self, i: u32) -> T {
        // SAFETY: the caller's conditions.
        unsafe { (*self.slots.get_unchecked(i as usize).get()).assume_init() }
    }
}
