//! `vote.sync`: warp-wide predicates and ballots.
//!
//! The `.all`, `.any` and `.uni` modes reduce a predicate over the non-exited lanes of
//! `membermask`; `.ballot.b32` returns one bit per lane. The source predicate may be negated
//! (`!a`): [`vote_sync_all_pred_not`] is true when no lane's predicate is true,
//! [`vote_sync_any_pred_not`] when some lane's is false.
//!
//! PTX ISA: [`vote.sync`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-vote-sync).
//! PTX 6.0, sm_30+. The CUDA-style names are in [`crate::warp::vote`].

use super::LaneMask;

macro_rules! vote_pred {
    ($(#[$doc:meta])* $name:ident, $mode:literal, $neg:literal) => {
        $(#[$doc])*
        ///
        #[doc = include_str!("convergence.md")]
        ///
        /// PTX ISA: [`vote.sync`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-vote-sync).
        /// PTX 6.0, sm_30+.
        #[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
        #[inline(always)]
        pub fn $name(membermask: LaneMask, predicate: bool) -> bool {
            crate::device_only! {
                let r: u32;
                // SAFETY: the calling lane is in `membermask` (LaneMask's invariant).
                unsafe {
                    core::arch::asm!(
                        "{{",
                        ".reg .pred %a, %d;",
                        "setp.ne.u32 %a, {a}, 0;",
                        concat!("vote.sync.", $mode, ".pred %d, ", $neg, "%a, {m};"),
                        "selp.u32 {r}, 1, 0, %d;",
                        "}}",
                        r = out(reg32) r, a = in(reg32) predicate as u32, m = in(reg32) membermask.bits(),
                        options(nomem, nostack, preserves_flags));
                }
                r != 0
            }
        }
    };
}

vote_pred!(
    /// `vote.sync.all.pred d, a, membermask`: true if `predicate` is true in every non-exited
    /// lane of `membermask`.
    #[doc(alias = "__all_sync")]
    vote_sync_all_pred, "all", ""
);
vote_pred!(
    /// `vote.sync.any.pred d, a, membermask`: true if `predicate` is true in any non-exited
    /// lane of `membermask`.
    #[doc(alias = "__any_sync")]
    vote_sync_any_pred, "any", ""
);
vote_pred!(
    /// `vote.sync.uni.pred d, a, membermask`: true if `predicate` has the same value in every
    /// non-exited lane of `membermask`.
    #[doc(alias = "__uni_sync")]
    vote_sync_uni_pred, "uni", ""
);
vote_pred!(
    /// `vote.sync.all.pred d, !a, membermask`: true if `predicate` is false in every
    /// non-exited lane of `membermask` (none is true).
    vote_sync_all_pred_not, "all", "!"
);
vote_pred!(
    /// `vote.sync.any.pred d, !a, membermask`: true if `predicate` is false in some
    /// non-exited lane of `membermask` (not all are true).
    vote_sync_any_pred_not, "any", "!"
);

/// `vote.sync.ballot.b32 d, a, membermask`: bit `i` is `predicate` of lane `i`; lanes outside
/// `membermask` give 0.
///
#[doc = include_str!("convergence.md")]
///
/// PTX ISA: [`vote.sync`](https://docs.nvidia.com/cuda/parallel-thread-execution/index.html#parallel-synchronization-and-communication-instructions-vote-sync).
/// PTX 6.0, sm_30+.
#[doc(alias = "__ballot_sync")]
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_variables))]
#[inline(always)]
pub fn vote_sync_ballot_b32(membermask: LaneMask, predicate: bool) -> u32 {
    crate::device_only! {
        let r: u32;
        // SAFETY: the calling lane is in `membermask` (LaneMask's invariant).
        unsafe {
            core::arch::asm!(
                "{{",
                ".reg .pred %a;",
                "setp.ne.u32 %a, {a}, 0;",
                "vote.sync.ballot.b32 {r}, %a, {m};",
                "}}",
                r = out(reg32) r, a = in(reg32) predicate as u32, m = in(reg32) membermask.bits(),
                options(nomem, nostack, preserves_flags));
        }
        r
    }
}
