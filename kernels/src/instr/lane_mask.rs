//! [`LaneMask`]: the `membermask` operand of every `.sync` instruction.

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

    /// `bits` as a mask if it contains the calling lane (checked with
    /// [`lanemask_eq`](super::sreg::lanemask_eq)), `None` otherwise. GPU only.
    #[inline(always)]
    pub fn new(bits: u32) -> Option<LaneMask> {
        (bits & super::sreg::lanemask_eq() != 0).then_some(LaneMask(bits))
    }
}
