//! The tile status of the device scan (what each tile publishes for the tiles after it), and
//! the same flagged format for the device reduce's partials ([`SlotArray`]).
//!
//! Slots (see [`crate::abi::layout::scan_status_slots`]): tile `t`'s aggregate at `t`; then,
//! per group `g` of [`SCAN_GROUP`] tiles, the group's aggregate and the group's inclusive
//! prefix. A slot is one 64-bit word per 32 bits of the value, each word holding 32 bits of the
//! value in its low half and the run's flag (`epoch + 1`) in its high half. A word is read and
//! written whole (the two words of an 8-byte value in one `.v2` instruction, which the memory
//! model treats as two accesses, each whole), and each slot is written at most once per run,
//! so a reader that finds this run's flag in every word of a slot has the value: no fences, no
//! acquire loads (which would invalidate L1 on every poll), and no clearing between runs.
//!
//! [`SlotArray`] is the same format over plain consecutive slots with a fixed flag: the device
//! reduce's flagged partials, which its last block zeroes after reading them.

use crate::abi::layout::{SCAN_GROUP, status_words_per_slot};
use crate::instr::memory::{
    cvta_to_global_u64, ld_relaxed_gpu_u64, ld_relaxed_gpu_v2_u64, st_relaxed_gpu_u64,
    st_relaxed_gpu_v2_u64,
};
use crate::warp::shfl::map_words;
use bytemuck::Pod;
use core::mem::size_of;

/// Which slot of the tile status.
#[derive(Clone, Copy)]
pub enum Slot {
    /// A tile's aggregate.
    Tile(u32),
    /// A group's aggregate (the fixed-tree reduction of its tiles' aggregates).
    Group(u32),
    /// A group's inclusive prefix: everything up to and including the group.
    GroupPrefix(u32),
}

/// The tile status array, apart from any run.
#[derive(Clone, Copy)]
pub struct StatusArray {
    /// 16-byte aligned.
    pub words: *mut u64,
    /// A power of two, at least the number of tiles and at least [`SCAN_GROUP`].
    pub capacity: u32,
}

/// A run's view of the tile status.
#[derive(Clone, Copy)]
pub struct TileStatus {
    pub array: StatusArray,
    /// `epoch + 1` of this run: never 0, the value of zeroed storage.
    pub flag: u32,
}

impl StatusArray {
    /// Asks L2 for the line holding `slot` (values of `A`), so that a first read of it later
    /// need not wait for DRAM (after the status has left L2).
    ///
    /// # Safety
    /// The slot is inside the status array.
    #[inline(always)]
    pub unsafe fn prefetch<A>(self, slot: Slot) {
        let a = cvta_to_global_u64(self.slot::<A>(slot) as u64);
        // Kept in L2 before the streaming tiles where the target's PTX has the hint: the
        // look-back's polls come after the tile's loads, which would evict a normal line.
        // SAFETY: the caller's condition: a global address inside the status array.
        #[cfg(any(
            not(target_arch = "nvptx64"),
            target_feature = "sm_87",
            all(target_feature = "sm_80", target_feature = "ptx74")
        ))]
        unsafe {
            crate::instr::memory::prefetch_global_l2_evict_last(a)
        }
        // SAFETY: as above.
        #[cfg(all(
            target_arch = "nvptx64",
            not(any(
                target_feature = "sm_87",
                all(target_feature = "sm_80", target_feature = "ptx74")
            ))
        ))]
        unsafe {
            crate::instr::memory::prefetch_global_l2(a)
        }
    }

    #[inline(always)]
    fn slot<A>(self, slot: Slot) -> *mut u64 {
        let c = self.capacity as usize;
        let groups = c / SCAN_GROUP + 1;
        // One-word slots: a group's two slots are adjacent, so a lane reads both from one
        // address (one register pair less in the look-back, which lets 4-byte scans fit 40
        // registers). Wider slots: one array of group prefixes, then one of aggregates (so
        // the address of the prefix a group's last tile publishes after its look-back is
        // formed from the capacity and the tile alone: kept through the look-back instead,
        // it spilled in the 8-byte min and max scans under their 40 registers).
        let index = match (slot, status_words_per_slot(size_of::<A>()) == 1) {
            (Slot::Tile(t), _) => t as usize,
            (Slot::Group(g), true) => c + 2 * g as usize,
            (Slot::GroupPrefix(g), true) => c + 2 * g as usize + 1,
            (Slot::GroupPrefix(g), false) => c + g as usize,
            (Slot::Group(g), false) => c + groups + g as usize,
        };
        // SAFETY: in bounds for the tiles the host sized the status for.
        unsafe {
            self.words
                .add(index * status_words_per_slot(size_of::<A>()))
        }
    }
}

impl TileStatus {
    #[inline(always)]
    fn slot<A>(self, slot: Slot) -> *mut u64 {
        self.array.slot::<A>(slot)
    }

    /// Publishes `value` in `slot`.
    ///
    /// # Safety
    /// The slot is inside the status array and nothing else writes it in this run.
    #[inline(always)]
    pub unsafe fn publish<A: Pod>(self, slot: Slot, value: A) {
        // SAFETY: forwarded.
        unsafe { publish_at(self.slot::<A>(slot), self.flag, value) }
    }

    /// The value in `slot` if it was published in this run.
    ///
    /// # Safety
    /// The slot is inside the status array.
    #[inline(always)]
    pub unsafe fn read<A: Pod>(self, slot: Slot) -> Option<A> {
        // SAFETY: forwarded.
        unsafe { read_at(self.slot::<A>(slot), self.flag) }
    }
}

/// Consecutive slots of one value each, flagged as the status's (the device reduce's
/// partials): slot `i` is [`status_words_per_slot`] words from `words + i × that`.
#[derive(Clone, Copy)]
pub struct SlotArray {
    /// 16-byte aligned.
    pub words: *mut u64,
    /// What a slot's words carry beside the value once published; never 0.
    pub flag: u32,
}

impl SlotArray {
    /// # Safety
    /// Slot `i` is inside the array.
    #[inline(always)]
    unsafe fn slot<A>(self, i: usize) -> *mut u64 {
        // SAFETY: the caller's condition.
        unsafe { self.words.add(i * status_words_per_slot(size_of::<A>())) }
    }

    /// Publishes `value` in slot `i`.
    ///
    /// # Safety
    /// The slot is inside the array and nothing else writes it until it is cleared.
    #[inline(always)]
    pub unsafe fn publish<A: Pod>(self, i: usize, value: A) {
        // SAFETY: forwarded.
        unsafe { publish_at(self.slot::<A>(i), self.flag, value) }
    }

    /// The value in slot `i` if it is published.
    ///
    /// # Safety
    /// The slot is inside the array.
    #[inline(always)]
    pub unsafe fn read<A: Pod>(self, i: usize) -> Option<A> {
        // SAFETY: forwarded.
        unsafe { read_at(self.slot::<A>(i), self.flag) }
    }

    /// Writes zeros over slot `i` (a flag that nothing publishes with).
    ///
    /// # Safety
    /// The slot is inside the array, and nothing else accesses it until it is published again.
    #[inline(always)]
    pub unsafe fn clear<A: Pod>(self, i: usize) {
        // A zero value under flag 0: every word of the slot written as 0, as a publish writes
        // them.
        // SAFETY: the caller's condition.
        unsafe { publish_at(self.slot::<A>(i), 0, A::zeroed()) }
    }
}

/// Writes `value` with `flag` into the slot at `base`.
///
/// # Safety
/// `base` is a slot of `A` inside a status array, 16-byte aligned if the slot has two words.
#[inline(always)]
unsafe fn publish_at<A: Pod>(base: *mut u64, flag: u32, value: A) {
    let flag = (flag as u64) << 32;
    // Two-word slots go out in one instruction (each word still written whole).
    let paired = status_words_per_slot(size_of::<A>()) == 2;
    let mut pair = [0u64; 2];
    let mut k = 0;
    map_words(value, |w| {
        let word = flag | w as u64;
        if paired {
            pair[k & 1] = word; // `& 1`: no bounds check
        } else {
            // SAFETY: word k of the slot lies inside the status array.
            unsafe { st_relaxed_gpu_u64(base.add(k), word) };
        }
        k += 1;
        w
    });
    if paired {
        // SAFETY: a two-word slot lies inside the status array, 16-byte aligned.
        unsafe { st_relaxed_gpu_v2_u64(base.cast(), pair) };
    }
}

/// The value in the slot at `base` if every word of it carries `flag`.
///
/// # Safety
/// As [`publish_at`].
#[inline(always)]
unsafe fn read_at<A: Pod>(base: *const u64, flag: u32) -> Option<A> {
    // Two-word slots come in one instruction (each word still read whole).
    let pair = (status_words_per_slot(size_of::<A>()) == 2)
        // SAFETY: a two-word slot lies inside the status array, 16-byte aligned.
        .then(|| unsafe { ld_relaxed_gpu_v2_u64(base.cast()) });
    let mut valid = true;
    let mut k = 0;
    let value = map_words(A::zeroed(), |_| {
        let word = match pair {
            Some(words) => words[k & 1], // `& 1`: no bounds check
            // SAFETY: word k of the slot lies inside the status array.
            None => unsafe { ld_relaxed_gpu_u64(base.add(k)) },
        };
        k += 1;
        valid &= (word >> 32) as u32 == flag;
        word as u32
    });
    valid.then_some(value)
}

#[cfg(test)]
mod tests {
    use super::{Slot, StatusArray};
    use crate::abi::layout::{SCAN_GROUP, scan_status_words, status_words_per_slot};
    use core::mem::size_of;

    /// Every slot of a status array for `capacity` tiles (each tile's, each group's aggregate
    /// and prefix) lies inside the words the host allocates, 16-byte aligned where it has two
    /// words, and no two slots share a word: for values of 4, 8 and 16 bytes.
    fn slots_are_disjoint<A>() {
        let mut words = [0u64; 4 * (1024 + 2 * (1024 / SCAN_GROUP + 1))];
        let per_slot = status_words_per_slot(size_of::<A>());
        for capacity in [32u32, 64, 256, 1024] {
            let len = scan_status_words(capacity as usize, size_of::<A>());
            let array = StatusArray {
                words: words.as_mut_ptr(),
                capacity,
            };
            let groups = capacity / SCAN_GROUP as u32 + 1;
            let slots = (0..capacity)
                .map(Slot::Tile)
                .chain((0..groups).map(Slot::Group))
                .chain((0..groups).map(Slot::GroupPrefix));
            let mut owner = [false; 4 * (1024 + 2 * (1024 / SCAN_GROUP + 1))];
            for slot in slots {
                // SAFETY: both pointers are into `words` (the offset is what is checked).
                let first = unsafe { array.slot::<A>(slot).offset_from(words.as_ptr()) } as usize;
                assert!(
                    first + per_slot <= len,
                    "capacity {capacity}: a slot past the end"
                );
                assert!(
                    per_slot == 1 || first.is_multiple_of(2),
                    "a two-word slot off 16 bytes"
                );
                for (w, owned) in owner.iter_mut().enumerate().skip(first).take(per_slot) {
                    assert!(!*owned, "capacity {capacity}: word {w} in two slots");
                    *owned = true;
                }
            }
            assert!(
                owner[..len].iter().all(|&o| o),
                "capacity {capacity}: unused words"
            );
        }
    }

    #[test]
    fn status_slots_are_disjoint_and_inside_the_array() {
        slots_are_disjoint::<u32>();
        slots_are_disjoint::<u64>();
        slots_are_disjoint::<[u64; 2]>();
    }
}
