//! `vote.sync`: warp-wide predicates and ballots (PTX ISA 9.7.13.x; PTX 6.0, sm_30+).
//!
//! The `.all`, `.any` and `.uni` modes reduce a predicate over the non-exited lanes of
//! `membermask`; `.ballot` returns one bit per lane. Negating the source predicate gives
//! [`vote_none`] (`.all` of `!a`) and [`vote_not_all`] (`.any` of `!a`).

#[cfg(target_arch = "nvptx64")]
use crate::lane::LaneMask;

#[cfg(target_arch = "nvptx64")]
macro_rules! vote_pred {
    ($(#[$doc:meta])* $name:ident, $mode:literal, $neg:literal) => {
        $(#[$doc])*
        #[inline(always)]
        pub fn $name(membermask: LaneMask, predicate: bool) -> bool {
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
    };
}

#[cfg(target_arch = "nvptx64")]
vote_pred!(
    /// `vote.sync.all.pred`: true if `predicate` is true in every non-exited lane of `membermask`.
    vote_all, "all", ""
);
#[cfg(target_arch = "nvptx64")]
vote_pred!(
    /// `vote.sync.any.pred`: true if `predicate` is true in any lane of `membermask`.
    vote_any, "any", ""
);
#[cfg(target_arch = "nvptx64")]
vote_pred!(
    /// `vote.sync.uni.pred`: true if `predicate` has the same value in every non-exited lane
    /// of `membermask`.
    vote_uni, "uni", ""
);
#[cfg(target_arch = "nvptx64")]
vote_pred!(
    /// `vote.sync.all.pred d, !a`: true if `predicate` is false in every lane of `membermask`.
    vote_none, "all", "!"
);
#[cfg(target_arch = "nvptx64")]
vote_pred!(
    /// `vote.sync.any.pred d, !a`: true if `predicate` is false in some lane of `membermask`.
    vote_not_all, "any", "!"
);

/// `vote.sync.ballot.b32`: bit `i` is `predicate` of lane `i`; lanes outside `membermask`
/// give 0 (`__ballot_sync`).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn ballot(membermask: LaneMask, predicate: bool) -> u32 {
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
