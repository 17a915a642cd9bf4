//! Lane identity, lane masks, `activemask` and `bar.warp.sync`.

/// A `membermask` that contains the calling lane.
///
/// Every `.sync` warp instruction is undefined if the executing lane is not in its
/// `membermask`; taking a `LaneMask` instead of a `u32` moves that check to where the mask is
/// made, so the instructions themselves stay single instructions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct LaneMask(u32);

impl LaneMask {
    /// All 32 lanes (`0xffffffff`).
    pub const FULL: LaneMask = LaneMask(u32::MAX);

    /// The mask as the instruction's 32-bit operand: bit `i` is lane `i`.
    #[inline(always)]
    pub const fn bits(self) -> u32 {
        self.0
    }

    /// A mask from raw bits, without checking that it contains the calling lane.
    ///
    /// # Safety
    /// The calling lane's bit must be set in `bits`.
    #[inline(always)]
    pub const unsafe fn from_bits_unchecked(bits: u32) -> LaneMask {
        LaneMask(bits)
    }

    /// Whether lane `lane` (0..32) is in the mask.
    #[inline(always)]
    pub const fn contains(self, lane: u32) -> bool {
        lane < 32 && self.0 & (1 << lane) != 0
    }

    /// The number of lanes in the mask.
    #[inline(always)]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// The lowest lane in the mask: the leader of a group.
    #[inline(always)]
    pub const fn first(self) -> u32 {
        self.0.trailing_zeros()
    }

    /// `bits` as a mask if it contains the calling lane, `None` otherwise.
    #[cfg(target_arch = "nvptx64")]
    #[inline(always)]
    pub fn new(bits: u32) -> Option<LaneMask> {
        (bits & lanemask_eq() != 0).then_some(LaneMask(bits))
    }
}

/// Defines one function per special register (`mov.u32 d, %reg;`).
macro_rules! special_register {
    ($($(#[$doc:meta])* $name:ident => $reg:literal;)*) => {$(
        $(#[$doc])*
        #[cfg(target_arch = "nvptx64")]
        #[inline(always)]
        pub fn $name() -> u32 {
            let r: u32;
            // SAFETY: reading a special register has no precondition.
            unsafe {
                core::arch::asm!(concat!("mov.u32 {r}, ", $reg, ";"), r = out(reg32) r,
                    options(pure, nomem, nostack, preserves_flags));
            }
            r
        }
    )*};
}

special_register! {
    /// The calling thread's lane in its warp, 0..32 (`%laneid`).
    lane_id => "%laneid";
    /// The bit of the calling lane alone (`%lanemask_eq`).
    lanemask_eq => "%lanemask_eq";
    /// The bits of the lanes below the calling lane (`%lanemask_lt`); with a ballot,
    /// `(ballot & lanemask_lt()).count_ones()` is the lane's rank among the voters.
    lanemask_lt => "%lanemask_lt";
    /// The bits of the lanes at or below the calling lane (`%lanemask_le`).
    lanemask_le => "%lanemask_le";
    /// The bits of the lanes above the calling lane (`%lanemask_gt`).
    lanemask_gt => "%lanemask_gt";
    /// The bits of the lanes at or above the calling lane (`%lanemask_ge`).
    lanemask_ge => "%lanemask_ge";
}

/// The lanes of the warp that are executing this instruction now (`activemask.b32`, PTX 6.2,
/// sm_30+). Not a synchronization point: lanes that are merely behind are not in it.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn activemask() -> LaneMask {
    let r: u32;
    // SAFETY: activemask has no precondition.
    unsafe {
        core::arch::asm!("activemask.b32 {r};", r = out(reg32) r, options(nomem, nostack, preserves_flags));
    }
    LaneMask(r)
}

/// Waits until every lane in `mask` has reached a `bar.warp.sync` with the same mask, and
/// orders their memory accesses (`bar.warp.sync`, PTX 6.0, sm_30+; `__syncwarp`).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn warp_sync(mask: LaneMask) {
    // SAFETY: the calling lane is in `mask` (LaneMask's invariant).
    unsafe {
        core::arch::asm!("bar.warp.sync {m};", m = in(reg32) mask.0, options(nostack, preserves_flags));
    }
}
