//! The instruction each wrapper promises, checked in the PTX of a one-call shim kernel per
//! wrapper (as stdarch's `assert_instr` does). The kernels are in `entry.rs`; this table is
//! shared with the host tests.

/// One shim kernel and the instruction it must contain.
#[derive(Clone, Copy, Debug)]
pub struct InstrShim {
    /// The kernel's name in the PTX.
    pub kernel: &'static str,
    /// The instruction text that must appear, e.g. `shfl.sync.up.b32`.
    pub instruction: &'static str,
    /// How many times (a 64-bit shuffle is two 32-bit ones).
    pub count: usize,
    /// The lowest compute capability (times ten) where the instruction is emitted; below it
    /// the wrapper is a shuffle fallback and the instruction must be absent.
    pub since: u32,
    /// Only on arch-specific targets (`sm_100a`).
    pub arch_specific: bool,
}

macro_rules! shims {
    ($(($kernel:literal, $instr:literal, $count:literal, $since:literal, $arch:literal);)*) => {
        /// Every instruction shim.
        pub const SHIMS: &[InstrShim] = &[$(InstrShim {
            kernel: $kernel, instruction: $instr, count: $count, since: $since, arch_specific: $arch,
        },)*];
    };
}

shims! {
    ("warpkit_instr_shfl_up", "shfl.sync.up.b32", 1, 70, false);
    ("warpkit_instr_shfl_down", "shfl.sync.down.b32", 1, 70, false);
    ("warpkit_instr_shfl_bfly", "shfl.sync.bfly.b32", 1, 70, false);
    ("warpkit_instr_shfl_idx", "shfl.sync.idx.b32", 1, 70, false);
    ("warpkit_instr_shfl_up_pred", "shfl.sync.up.b32", 1, 70, false);
    ("warpkit_instr_shfl_down_pred", "shfl.sync.down.b32", 1, 70, false);
    ("warpkit_instr_shfl_bfly_pred", "shfl.sync.bfly.b32", 1, 70, false);
    ("warpkit_instr_shfl_idx_pred", "shfl.sync.idx.b32", 1, 70, false);
    ("warpkit_instr_shfl_f64", "shfl.sync.idx.b32", 2, 70, false);
    ("warpkit_instr_shfl_u8", "shfl.sync.down.b32", 1, 70, false);
    ("warpkit_instr_shfl_12_bytes", "shfl.sync.bfly.b32", 3, 70, false);
    ("warpkit_instr_vote_all", "vote.sync.all.pred", 1, 70, false);
    ("warpkit_instr_vote_any", "vote.sync.any.pred", 1, 70, false);
    ("warpkit_instr_vote_uni", "vote.sync.uni.pred", 1, 70, false);
    ("warpkit_instr_vote_none", "vote.sync.all.pred", 1, 70, false);
    ("warpkit_instr_vote_not_all", "vote.sync.any.pred", 1, 70, false);
    ("warpkit_instr_ballot", "vote.sync.ballot.b32", 1, 70, false);
    ("warpkit_instr_match_any_b32", "match.any.sync.b32", 1, 70, false);
    ("warpkit_instr_match_any_b64", "match.any.sync.b64", 1, 70, false);
    ("warpkit_instr_match_all_b32", "match.all.sync.b32", 1, 70, false);
    ("warpkit_instr_match_all_b64", "match.all.sync.b64", 1, 70, false);
    ("warpkit_instr_activemask", "activemask.b32", 1, 70, false);
    ("warpkit_instr_warp_sync", "bar.warp.sync", 1, 70, false);
    ("warpkit_instr_lane_id", "%laneid", 1, 70, false);
    ("warpkit_instr_lanemask_lt", "%lanemask_lt", 1, 70, false);
    ("warpkit_instr_redux_add_u32", "redux.sync.add.u32", 1, 80, false);
    ("warpkit_instr_redux_min_u32", "redux.sync.min.u32", 1, 80, false);
    ("warpkit_instr_redux_max_u32", "redux.sync.max.u32", 1, 80, false);
    ("warpkit_instr_redux_add_i32", "redux.sync.add.s32", 1, 80, false);
    ("warpkit_instr_redux_min_i32", "redux.sync.min.s32", 1, 80, false);
    ("warpkit_instr_redux_max_i32", "redux.sync.max.s32", 1, 80, false);
    ("warpkit_instr_redux_and", "redux.sync.and.b32", 1, 80, false);
    ("warpkit_instr_redux_or", "redux.sync.or.b32", 1, 80, false);
    ("warpkit_instr_redux_xor", "redux.sync.xor.b32", 1, 80, false);
    ("warpkit_instr_redux_min_f32", "redux.sync.min.f32", 1, 100, true);
    ("warpkit_instr_redux_max_abs_nan_f32", "redux.sync.max.abs.NaN.f32", 1, 100, true);
    ("warpkit_instr_warp_sum_u32", "redux.sync.add.u32", 1, 80, false);
}
