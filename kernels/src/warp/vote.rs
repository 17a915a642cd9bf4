//! The CUDA-style votes: `__all_sync`, `__any_sync`, `__uni_sync`, `__ballot_sync`, with
//! CUDA's names and argument order, each one [`vote.sync`](crate::instr::vote) instruction.

use crate::instr::LaneMask;
use crate::instr::vote::{
    vote_sync_all_pred, vote_sync_any_pred, vote_sync_ballot_b32, vote_sync_uni_pred,
};

/// `__all_sync`: true if `predicate` is true in every non-exited lane of `mask`
/// ([`vote_sync_all_pred`]).
#[doc(alias = "__all_sync")]
#[inline(always)]
pub fn all_sync(mask: LaneMask, predicate: bool) -> bool {
    vote_sync_all_pred(mask, predicate)
}

/// `__any_sync`: true if `predicate` is true in any non-exited lane of `mask`
/// ([`vote_sync_any_pred`]).
#[doc(alias = "__any_sync")]
#[inline(always)]
pub fn any_sync(mask: LaneMask, predicate: bool) -> bool {
    vote_sync_any_pred(mask, predicate)
}

/// `__uni_sync`: true if `predicate` is the same in every non-exited lane of `mask`
/// ([`vote_sync_uni_pred`]).
#[doc(alias = "__uni_sync")]
#[inline(always)]
pub fn uni_sync(mask: LaneMask, predicate: bool) -> bool {
    vote_sync_uni_pred(mask, predicate)
}

/// `__ballot_sync`: bit `i` is `predicate` of lane `i`, 0 outside `mask`
/// ([`vote_sync_ballot_b32`]).
#[doc(alias = "__ballot_sync")]
#[inline(always)]
pub fn ballot_sync(mask: LaneMask, predicate: bool) -> u32 {
    vote_sync_ballot_b32(mask, predicate)
}
