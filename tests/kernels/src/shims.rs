//! One shim kernel per instruction wrapper, and the instruction it must contain.
//!
//! Each family is one [`shims!`] list. On nvptx64 every entry becomes a kernel that loads its
//! operands from the thread's 4 words of `io`, calls the wrapper once and stores the result;
//! on the host the same list becomes a table of [`Shim`]s (kernel name, instruction, count,
//! first target), which `warpkit-tests` checks against the PTX: the instruction appears
//! exactly `count` times, with no call and no branch, on every target from `since`; below it
//! (`redux.sync` on older targets) the instruction is absent and the shim shuffles instead.
//! This is stdarch's `assert_instr`, with the expectation one line from the call.

/// One shim kernel and the instruction it must contain.
#[derive(Clone, Copy, Debug)]
pub struct Shim {
    /// The kernel's name in the PTX.
    pub kernel: &'static str,
    /// The instruction text that must appear, e.g. `shfl.sync.up.b32`.
    pub instruction: &'static str,
    /// How many times (a 64-bit shuffle is two 32-bit ones).
    pub count: usize,
    /// The first target that has the instruction (`sm_70`, `sm_80`, `sm_100a`): an
    /// arch-specific one means only arch-specific targets from there.
    pub since: &'static str,
}

/// `shims! { pub FAMILY { kernel => "instruction" * count, since sm_XX: |a, b, c| expr; ... } }`
/// (`|a, b, c, p|` also binds the thread's `io` pointer, 4 words, to `p`).
#[macro_export]
macro_rules! shims {
    ($(#[$doc:meta])* pub $family:ident {
        $($name:ident => $instr:literal * $count:literal, since $since:ident:
            |$a:ident, $b:ident, $c:ident $(, $p:ident)?| $e:expr;)*
    }) => {
        $(#[$doc])*
        #[cfg(not(target_arch = "nvptx64"))]
        pub const $family: &[$crate::shims::Shim] = &[$($crate::shims::Shim {
            kernel: stringify!($name),
            instruction: $instr,
            count: $count,
            since: stringify!($since),
        },)*];

        $(
            #[allow(clippy::missing_safety_doc)]
            #[warpkit::kernel]
            pub unsafe fn $name(io: *mut u32) {
                // SAFETY: io holds 4 words per thread. Per-lane data: a warp-uniform value
                // would let ptxas prove a shuffle is the identity and drop it.
                let (io, $a, $b, $c) = unsafe {
                    let io = io.add(4 * warpkit::kernel::thread_idx_x() as usize);
                    (io, *io, *io.add(1), *io.add(2))
                };
                $(let $p = io;)?
                let r: u32 = $e;
                // SAFETY: as above.
                unsafe { *io.add(3) = r };
            }
        )*
    };
}

#[cfg(not(feature = "legacy-shfl"))]
#[cfg_attr(not(target_arch = "nvptx64"), allow(unused_imports, dead_code))]
mod families {
    use warpkit::LaneMask;
    // Below sm_90 its shims are compiled out.
    #[cfg_attr(not(target_feature = "sm_80"), allow(unused_imports))]
    use warpkit::instr::mbarrier::*;
    use warpkit::instr::simd::*;
    use warpkit::instr::{
        activemask::*, atomic::*, barrier::*, matching::*, memory::*, redux::*, shfl::*,
    };
    #[cfg_attr(not(target_feature = "sm_90"), allow(unused_imports))]
    use warpkit::instr::{cluster::*, griddepcontrol::*};
    use warpkit::instr::{sreg::*, vote::*};
    use warpkit::ops::Sum;
    use warpkit::warp::{Tile, shfl::*};

    const M: LaneMask = LaneMask::FULL;

    shims! {
        /// `shfl.sync`: the raw forms with and without predicate, and the CUDA-style forms on
        /// 8-, 12- and 64-bit values (one instruction per 32-bit word).
        pub SHFL {
            warpkit_instr_shfl_sync_up_b32 => "shfl.sync.up.b32" * 1, since sm_70: |a, b, c| shfl_sync_up_b32(a, b, c, M);
            warpkit_instr_shfl_sync_down_b32 => "shfl.sync.down.b32" * 1, since sm_70: |a, b, c| shfl_sync_down_b32(a, b, c, M);
            warpkit_instr_shfl_sync_bfly_b32 => "shfl.sync.bfly.b32" * 1, since sm_70: |a, b, c| shfl_sync_bfly_b32(a, b, c, M);
            warpkit_instr_shfl_sync_idx_b32 => "shfl.sync.idx.b32" * 1, since sm_70: |a, b, c| shfl_sync_idx_b32(a, b, c, M);
            warpkit_instr_shfl_sync_up_b32_pred => "shfl.sync.up.b32" * 1, since sm_70: |a, b, c| { let (d, p) = shfl_sync_up_b32_pred(a, b, c, M); d ^ p as u32 };
            warpkit_instr_shfl_sync_down_b32_pred => "shfl.sync.down.b32" * 1, since sm_70: |a, b, c| { let (d, p) = shfl_sync_down_b32_pred(a, b, c, M); d ^ p as u32 };
            warpkit_instr_shfl_sync_bfly_b32_pred => "shfl.sync.bfly.b32" * 1, since sm_70: |a, b, c| { let (d, p) = shfl_sync_bfly_b32_pred(a, b, c, M); d ^ p as u32 };
            warpkit_instr_shfl_sync_idx_b32_pred => "shfl.sync.idx.b32" * 1, since sm_70: |a, b, c| { let (d, p) = shfl_sync_idx_b32_pred(a, b, c, M); d ^ p as u32 };
            warpkit_instr_shfl_sync_f64 => "shfl.sync.idx.b32" * 2, since sm_70: |a, b, _c| { let x = f64::from_bits((a as u64) << 32 | b as u64); shfl_sync(M, x, a, 32).to_bits() as u32 };
            warpkit_instr_shfl_down_sync_u8 => "shfl.sync.down.b32" * 1, since sm_70: |a, b, _c| shfl_down_sync(M, a as u8, b, 16) as u32;
            warpkit_instr_shfl_xor_sync_12_bytes => "shfl.sync.bfly.b32" * 3, since sm_70: |a, b, c| { let x = shfl_xor_sync(M, [a, b, c], b, 32); x[0] ^ x[1] ^ x[2] };
        }
    }

    shims! {
        /// `vote.sync`: every mode, the negated forms, the ballot.
        pub VOTE {
            warpkit_instr_vote_sync_all_pred => "vote.sync.all.pred" * 1, since sm_70: |a, _b, _c| vote_sync_all_pred(M, a != 0) as u32;
            warpkit_instr_vote_sync_any_pred => "vote.sync.any.pred" * 1, since sm_70: |a, _b, _c| vote_sync_any_pred(M, a != 0) as u32;
            warpkit_instr_vote_sync_uni_pred => "vote.sync.uni.pred" * 1, since sm_70: |a, _b, _c| vote_sync_uni_pred(M, a != 0) as u32;
            warpkit_instr_vote_sync_all_pred_not => "vote.sync.all.pred" * 1, since sm_70: |a, _b, _c| vote_sync_all_pred_not(M, a != 0) as u32;
            warpkit_instr_vote_sync_any_pred_not => "vote.sync.any.pred" * 1, since sm_70: |a, _b, _c| vote_sync_any_pred_not(M, a != 0) as u32;
            warpkit_instr_vote_sync_ballot_b32 => "vote.sync.ballot.b32" * 1, since sm_70: |a, _b, _c| vote_sync_ballot_b32(M, a != 0);
        }
    }

    shims! {
        /// `match.sync`: any and all, 32 and 64 bits.
        pub MATCH {
            warpkit_instr_match_any_sync_b32 => "match.any.sync.b32" * 1, since sm_70: |a, _b, _c| match_any_sync_b32(M, a).bits();
            warpkit_instr_match_any_sync_b64 => "match.any.sync.b64" * 1, since sm_70: |a, b, _c| match_any_sync_b64(M, (a as u64) << 32 | b as u64).bits();
            warpkit_instr_match_all_sync_b32 => "match.all.sync.b32" * 1, since sm_70: |a, _b, _c| { let (m, p) = match_all_sync_b32(M, a); m ^ p as u32 };
            warpkit_instr_match_all_sync_b64 => "match.all.sync.b64" * 1, since sm_70: |a, b, _c| { let (m, p) = match_all_sync_b64(M, (a as u64) << 32 | b as u64); m ^ p as u32 };
            warpkit_instr_match_any_sync_generic_i64 => "match.any.sync.b64" * 1, since sm_70: |a, b, _c| warpkit::warp::matching::match_any_sync(M, (a as i64) << 32 | b as i64).bits();
        }
    }

    shims! {
        /// `redux.sync`: every integer form (sm_80+), two `f32` forms (sm_100a), and a warp
        /// sum through `Tile` (which must use the instruction where the target has it).
        pub REDUX {
            warpkit_instr_redux_sync_add_u32 => "redux.sync.add.u32" * 1, since sm_80: |a, _b, _c| redux_sync_add_u32(M, a);
            warpkit_instr_redux_sync_min_u32 => "redux.sync.min.u32" * 1, since sm_80: |a, _b, _c| redux_sync_min_u32(M, a);
            warpkit_instr_redux_sync_max_u32 => "redux.sync.max.u32" * 1, since sm_80: |a, _b, _c| redux_sync_max_u32(M, a);
            warpkit_instr_redux_sync_add_i32 => "redux.sync.add.s32" * 1, since sm_80: |a, _b, _c| redux_sync_add_i32(M, a as i32) as u32;
            warpkit_instr_redux_sync_min_i32 => "redux.sync.min.s32" * 1, since sm_80: |a, _b, _c| redux_sync_min_i32(M, a as i32) as u32;
            warpkit_instr_redux_sync_max_i32 => "redux.sync.max.s32" * 1, since sm_80: |a, _b, _c| redux_sync_max_i32(M, a as i32) as u32;
            warpkit_instr_redux_sync_and_b32 => "redux.sync.and.b32" * 1, since sm_80: |a, _b, _c| redux_sync_and_b32(M, a);
            warpkit_instr_redux_sync_or_b32 => "redux.sync.or.b32" * 1, since sm_80: |a, _b, _c| redux_sync_or_b32(M, a);
            warpkit_instr_redux_sync_xor_b32 => "redux.sync.xor.b32" * 1, since sm_80: |a, _b, _c| redux_sync_xor_b32(M, a);
            warpkit_instr_redux_sync_min_f32 => "redux.sync.min.f32" * 1, since sm_100a: |a, _b, _c| redux_sync_min_f32(M, f32::from_bits(a)).to_bits();
            warpkit_instr_redux_sync_max_abs_nan_f32 => "redux.sync.max.abs.NaN.f32" * 1, since sm_100a: |a, _b, _c| redux_sync_max_abs_nan_f32(M, f32::from_bits(a)).to_bits();
            warpkit_instr_warp_sum_u32 => "redux.sync.add.u32" * 1, since sm_80: |a, _b, _c| Tile::<32>::full().reduce(a, Sum);
        }
    }

    shims! {
        /// Special registers and `activemask`. (`%tid.x` is read by every shim to index `io`.)
        pub SREG {
            warpkit_instr_laneid => "%laneid" * 1, since sm_70: |_a, _b, _c| laneid();
            warpkit_instr_lanemask_eq => "%lanemask_eq" * 1, since sm_70: |_a, _b, _c| lanemask_eq();
            warpkit_instr_lanemask_lt => "%lanemask_lt" * 1, since sm_70: |_a, _b, _c| lanemask_lt();
            warpkit_instr_lanemask_le => "%lanemask_le" * 1, since sm_70: |_a, _b, _c| lanemask_le();
            warpkit_instr_lanemask_gt => "%lanemask_gt" * 1, since sm_70: |_a, _b, _c| lanemask_gt();
            warpkit_instr_lanemask_ge => "%lanemask_ge" * 1, since sm_70: |_a, _b, _c| lanemask_ge();
            warpkit_instr_tid_y => "%tid.y" * 1, since sm_70: |_a, _b, _c| tid_y();
            warpkit_instr_ctaid_x => "%ctaid.x" * 1, since sm_70: |_a, _b, _c| ctaid_x();
            warpkit_instr_ntid_x => "%ntid.x" * 1, since sm_70: |_a, _b, _c| ntid_x();
            warpkit_instr_nctaid_x => "%nctaid.x" * 1, since sm_70: |_a, _b, _c| nctaid_x();
            warpkit_instr_activemask_b32 => "activemask.b32" * 1, since sm_70: |_a, _b, _c| activemask_b32().bits();
        }
    }

    shims! {
        /// Barriers: `bar.warp.sync` and `bar.sync 0`.
        pub BARRIER {
            warpkit_instr_bar_warp_sync => "bar.warp.sync" * 1, since sm_70: |a, _b, _c| { bar_warp_sync(M); a };
            warpkit_instr_bar_sync_0 => "bar.sync" * 1, since sm_70: |a, _b, _c| { unsafe { bar_sync_0() }; a };
        }
    }

    // SAFETY (the `unsafe` blocks below): `p` is the thread's own 4 aligned words of global
    // memory; every thread of the block reaches `bar.sync 0`.
    shims! {
        /// Memory-order instructions (not atomics), on the thread's own `io` words.
        pub MEMORY {
            warpkit_instr_ld_relaxed_gpu_u32 => "ld.relaxed.gpu.u32" * 1, since sm_70: |_a, _b, _c, p| unsafe { ld_relaxed_gpu_u32(p) };
            warpkit_instr_ld_relaxed_gpu_u64 => "ld.relaxed.gpu.u64" * 1, since sm_70: |_a, _b, _c, p| unsafe { ld_relaxed_gpu_u64(p.cast()) } as u32;
            warpkit_instr_st_relaxed_gpu_u32 => "st.relaxed.gpu.u32" * 1, since sm_70: |a, _b, _c, p| { unsafe { st_relaxed_gpu_u32(p.add(2), a) }; a };
            warpkit_instr_st_relaxed_gpu_u64 => "st.relaxed.gpu.u64" * 1, since sm_70: |a, b, _c, p| { unsafe { st_relaxed_gpu_u64(p.cast(), (a as u64) << 32 | b as u64) }; a };
            warpkit_instr_ld_relaxed_gpu_v2_u64 => "ld.relaxed.gpu.v2.u64" * 1, since sm_70: |_a, _b, _c, p| {
                let [x, y] = unsafe { ld_relaxed_gpu_v2_u64(p.cast()) };
                (x ^ y ^ (x >> 32) ^ (y >> 32)) as u32
            };
            warpkit_instr_st_relaxed_gpu_v2_u64 => "st.relaxed.gpu.v2.u64" * 1, since sm_70: |a, b, _c, p| {
                unsafe { st_relaxed_gpu_v2_u64(p.cast(), [(a as u64) << 32 | b as u64, (b as u64) << 32 | a as u64]) };
                a
            };
            warpkit_instr_nanosleep => "nanosleep.u32" * 1, since sm_70: |a, _b, _c| { nanosleep(a); a };
            // `a` is no shared address: these two are assembled and inspected, never launched.
            warpkit_instr_cvta_shared_u64 => "cvta.shared.u64" * 1, since sm_70: |a, _b, _c| unsafe { cvta_shared_u64(a as u64) } as u32;
            warpkit_instr_cvta_to_shared_u64 => "cvta.to.shared.u64" * 1, since sm_70: |a, _b, _c| unsafe { cvta_to_shared_u64(a as u64) } as u32;
            // Twice: LLVM converts the `io` parameter with the same instruction.
            warpkit_instr_cvta_to_global_u64 => "cvta.to.global.u64" * 2, since sm_70: |a, _b, _c| cvta_to_global_u64(a as u64) as u32;
            warpkit_instr_ld_global_nc_v4_u32 => "ld.global.nc.v4.u32" * 1, since sm_70: |_a, _b, _c, p| {
                let words = unsafe { ld_global_nc_v4_u32(cvta_to_global_u64(p as u64)) };
                words[0] ^ words[1] ^ words[2] ^ words[3]
            };
            warpkit_instr_st_global_cs_v4_u32 => "st.global.cs.v4.u32" * 1, since sm_70: |a, b, _c, p| {
                unsafe { st_global_cs_v4_u32(cvta_to_global_u64(p as u64), [a, b, a ^ b, a | b]) };
                a
            };
            warpkit_instr_prefetch_global_l2 => "prefetch.global.L2" * 1, since sm_70: |a, _b, _c, p| {
                unsafe { prefetch_global_l2(cvta_to_global_u64(p as u64)) };
                a
            };
            warpkit_instr_ld_shared_v4_u32 => "ld.shared.v4.u32" * 1, since sm_70: |a, _b, _c| {
                let words = warpkit::shared_array!(LD_SHARED_V4: [u32; 1024]) as *mut [u32; 4];
                let mine = unsafe { words.add(warpkit::kernel::thread_idx_x() as usize % 256) };
                unsafe { *mine = [a; 4] };
                let words = unsafe { ld_shared_v4_u32(cvta_to_shared_u64(mine as u64)) };
                words[0] ^ words[1] ^ words[2] ^ words[3]
            };
            warpkit_instr_st_shared_v4_u32 => "st.shared.v4.u32" * 1, since sm_70: |a, b, _c| {
                let words = warpkit::shared_array!(ST_SHARED_V4: [u32; 1024]) as *mut [u32; 4];
                let mine = unsafe { words.add(warpkit::kernel::thread_idx_x() as usize % 256) };
                unsafe { st_shared_v4_u32(cvta_to_shared_u64(mine as u64), [a, b, a ^ b, a | b]) };
                let words = unsafe { *mine };
                words[0] ^ words[1] ^ words[2] ^ words[3]
            };
        }
    }

    // SAFETY (the `unsafe` blocks below): each thread copies its own 16 `io` bytes into its
    // own 16 bytes of shared memory and reads them only after the wait.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
    shims! {
        /// The asynchronous global-to-shared copy (sm_80+; absent below).
        pub ASYNC_COPY {
            warpkit_instr_cp_async_cg_shared_global_16 => "cp.async.cg.shared.global" * 1, since sm_80: |_a, _b, _c, p| {
                let words = warpkit::shared_array!(CP_ASYNC: [u32; 1024]) as *mut [u32; 4];
                let mine = unsafe { words.add(warpkit::kernel::thread_idx_x() as usize % 256) };
                unsafe { cp_async_cg_shared_global_16(cvta_to_shared_u64(mine as u64), cvta_to_global_u64(p as u64)) };
                cp_async_wait_all();
                unsafe { (*mine)[0] }
            };
            warpkit_instr_cp_async_ca_shared_global_4 => "cp.async.ca.shared.global" * 1, since sm_80: |_a, _b, _c, p| {
                let words = warpkit::shared_array!(CP_ASYNC_CA_4: [u32; 256]).cast::<u32>();
                let mine = unsafe { words.add(warpkit::kernel::thread_idx_x() as usize % 256) };
                unsafe { cp_async_ca_shared_global_4(cvta_to_shared_u64(mine as u64), cvta_to_global_u64(p as u64)) };
                cp_async_wait_all();
                unsafe { *mine }
            };
            warpkit_instr_cp_async_ca_shared_global_8 => "cp.async.ca.shared.global" * 1, since sm_80: |_a, _b, _c, p| {
                let words = warpkit::shared_array!(CP_ASYNC_CA_8: [u64; 256]).cast::<u64>();
                let mine = unsafe { words.add(warpkit::kernel::thread_idx_x() as usize % 256) };
                unsafe { cp_async_ca_shared_global_8(cvta_to_shared_u64(mine as u64), cvta_to_global_u64(p as u64)) };
                cp_async_wait_all();
                unsafe { *mine as u32 }
            };
            warpkit_instr_cp_async_wait_all => "cp.async.wait_all" * 1, since sm_80: |a, _b, _c| { cp_async_wait_all(); a };
            warpkit_instr_cp_async_commit_group => "cp.async.commit_group" * 1, since sm_80: |a, _b, _c| { cp_async_commit_group(); a };
            warpkit_instr_cp_async_wait_group => "cp.async.wait_group 1" * 1, since sm_80: |a, _b, _c| { cp_async_wait_group::<1>(); a };
        }
    }
    // SAFETY (the `unsafe` block below): `p` is the thread's own words of global memory.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_87"))]
    shims! {
        /// L2 eviction-priority hints (PTX 7.4: sm_87+ here; absent below).
        pub L2_HINTS {
            warpkit_instr_prefetch_global_l2_evict_last => "prefetch.global.L2::evict_last" * 1, since sm_87: |a, _b, _c, p| {
                unsafe { prefetch_global_l2_evict_last(cvta_to_global_u64(p as u64)) };
                a
            };
        }
    }
    // SAFETY (the `unsafe` block below): `p` is the thread's own 16 aligned bytes of global
    // memory.
    #[cfg(any(
        not(target_arch = "nvptx64"),
        all(target_feature = "sm_90", target_feature = "ptx80")
    ))]
    shims! {
        /// The bulk L2 prefetch (PTX 8.0, sm_90+; absent below).
        pub BULK_PREFETCH {
            warpkit_instr_cp_async_bulk_prefetch_l2_global => "cp.async.bulk.prefetch.L2.global" * 1, since sm_90: |a, _b, _c, p| {
                unsafe { cp_async_bulk_prefetch_l2_global(cvta_to_global_u64(p as u64), 16) };
                a
            };
        }
    }
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    shims! {
        /// Programmatic dependent launch (PTX 7.8: sm_90+ here; absent below).
        pub GRIDDEPCONTROL {
            warpkit_instr_griddepcontrol_wait => "griddepcontrol.wait" * 1, since sm_90: |a, _b, _c| { griddepcontrol_wait(); a };
            warpkit_instr_griddepcontrol_launch_dependents => "griddepcontrol.launch_dependents" * 1, since sm_90: |a, _b, _c| { griddepcontrol_launch_dependents(); a };
        }
    }
    // SAFETY (the `unsafe` blocks below): every thread arrives once and then waits; each thread
    // accesses only its own word of its own block's shared memory (its block is the cluster's
    // rank `cluster_ctarank()`, alive while it runs).
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    shims! {
        /// Thread block clusters: the cluster barrier, the block's rank and the cluster's size,
        /// and distributed shared memory (PTX 7.8: sm_90+; absent below).
        pub CLUSTER {
            warpkit_instr_barrier_cluster_arrive => "barrier.cluster.arrive" * 1, since sm_90: |a, _b, _c| { unsafe { barrier_cluster_arrive(); barrier_cluster_wait() }; a };
            warpkit_instr_barrier_cluster_wait => "barrier.cluster.wait" * 1, since sm_90: |a, _b, _c| { unsafe { barrier_cluster_arrive(); barrier_cluster_wait() }; a };
            warpkit_instr_barrier_cluster_arrive_relaxed => "barrier.cluster.arrive.relaxed" * 1, since sm_90: |a, _b, _c| { unsafe { barrier_cluster_arrive_relaxed(); barrier_cluster_wait() }; a };
            warpkit_instr_cluster_ctarank => "%cluster_ctarank" * 1, since sm_90: |_a, _b, _c| cluster_ctarank();
            warpkit_instr_cluster_nctarank => "%cluster_nctarank" * 1, since sm_90: |_a, _b, _c| cluster_nctarank();
            warpkit_instr_mapa_shared_cluster_u64 => "mapa.shared::cluster.u64" * 1, since sm_90: |a, b, _c| mapa_shared_cluster_u64((a as u64) << 32 | b as u64, a & 15) as u32;
            warpkit_instr_mapa_u64 => "mapa.u64" * 1, since sm_90: |a, b, _c| mapa_u64((a as u64) << 32 | b as u64, a & 15) as u32;
            warpkit_instr_ld_shared_cluster_u32 => "ld.shared::cluster.u32" * 1, since sm_90: |a, _b, _c| {
                let mine = unsafe { warpkit::shared_array!(LD_CLUSTER_U32: [u32; 1024]).cast::<u32>().add(warpkit::kernel::thread_idx_x() as usize % 1024) };
                unsafe { *mine = a };
                unsafe { ld_shared_cluster_u32(mapa_shared_cluster_u64(cvta_to_shared_u64(mine as u64), cluster_ctarank())) }
            };
            warpkit_instr_ld_shared_cluster_u64 => "ld.shared::cluster.u64" * 1, since sm_90: |a, b, _c| {
                let mine = unsafe { warpkit::shared_array!(LD_CLUSTER_U64: [u64; 1024]).cast::<u64>().add(warpkit::kernel::thread_idx_x() as usize % 1024) };
                unsafe { *mine = (a as u64) << 32 | b as u64 };
                unsafe { ld_shared_cluster_u64(mapa_shared_cluster_u64(cvta_to_shared_u64(mine as u64), cluster_ctarank())) as u32 }
            };
            warpkit_instr_st_shared_cluster_u32 => "st.shared::cluster.u32" * 1, since sm_90: |a, _b, _c| {
                let mine = unsafe { warpkit::shared_array!(ST_CLUSTER_U32: [u32; 1024]).cast::<u32>().add(warpkit::kernel::thread_idx_x() as usize % 1024) };
                unsafe { st_shared_cluster_u32(mapa_shared_cluster_u64(cvta_to_shared_u64(mine as u64), cluster_ctarank()), a) };
                unsafe { *mine }
            };
            warpkit_instr_st_shared_cluster_u64 => "st.shared::cluster.u64" * 1, since sm_90: |a, b, _c| {
                let mine = unsafe { warpkit::shared_array!(ST_CLUSTER_U64: [u64; 1024]).cast::<u64>().add(warpkit::kernel::thread_idx_x() as usize % 1024) };
                unsafe { st_shared_cluster_u64(mapa_shared_cluster_u64(cvta_to_shared_u64(mine as u64), cluster_ctarank()), (a as u64) << 32 | b as u64) };
                unsafe { *mine as u32 }
            };
        }
    }
    // SAFETY (the `unsafe` blocks below): each thread initialises its own 8-byte word of shared
    // memory as an mbarrier once, and only it touches that word, through mbarrier operations.
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
    shims! {
        /// mbarrier init and arrive (PTX 7.0: sm_80+; absent below).
        pub MBARRIER {
            warpkit_instr_mbarrier_init_shared_b64 => "mbarrier.init.shared.b64" * 1, since sm_80: |a, _b, _c| {
                let mine = unsafe { cvta_to_shared_u64(warpkit::shared_array!(MBAR_INIT: [u64; 1024]).cast::<u64>().add(warpkit::kernel::thread_idx_x() as usize % 1024) as u64) };
                unsafe { mbarrier_init_shared_b64(mine, 1 + (a & 255)) };
                a
            };
            warpkit_instr_mbarrier_arrive_shared_b64 => "mbarrier.arrive.shared.b64" * 1, since sm_80: |_a, _b, _c| {
                let mine = unsafe { cvta_to_shared_u64(warpkit::shared_array!(MBAR_ARRIVE: [u64; 1024]).cast::<u64>().add(warpkit::kernel::thread_idx_x() as usize % 1024) as u64) };
                unsafe { mbarrier_init_shared_b64(mine, 1) };
                unsafe { mbarrier_arrive_shared_b64(mine) as u32 }
            };
        }
    }
    // SAFETY (the `unsafe` blocks below): as above; the `st.async` shims send to the thread's own
    // block (rank `cluster_ctarank()`) and complete on the thread's own mbarrier. These kernels
    // are assembled and inspected, never launched: a shim cannot loop (the check refuses
    // branches), so the `st.async` ones could exit before their store completes, and launched
    // without a cluster of two or more blocks their `st.async` would be undefined.
    #[cfg(any(
        not(target_arch = "nvptx64"),
        all(target_feature = "sm_90", target_feature = "ptx81")
    ))]
    shims! {
        /// mbarrier transaction counts, cluster-scoped waits and `st.async` (PTX 8.0 and 8.1:
        /// sm_90+; absent below).
        pub MBARRIER_TX {
            warpkit_instr_mbarrier_arrive_expect_tx_shared_b64 => "mbarrier.arrive.expect_tx.shared.b64" * 1, since sm_90: |a, _b, _c| {
                let mine = unsafe { cvta_to_shared_u64(warpkit::shared_array!(MBAR_EXPECT: [u64; 1024]).cast::<u64>().add(warpkit::kernel::thread_idx_x() as usize % 1024) as u64) };
                unsafe { mbarrier_init_shared_b64(mine, 1) };
                unsafe { mbarrier_arrive_expect_tx_shared_b64(mine, a & 1023) as u32 }
            };
            warpkit_instr_mbarrier_try_wait_parity_shared_b64 => "mbarrier.try_wait.parity.shared.b64" * 1, since sm_90: |a, _b, _c| {
                let mine = unsafe { cvta_to_shared_u64(warpkit::shared_array!(MBAR_WAIT: [u64; 1024]).cast::<u64>().add(warpkit::kernel::thread_idx_x() as usize % 1024) as u64) };
                unsafe { mbarrier_init_shared_b64(mine, 1) };
                unsafe { mbarrier_arrive_shared_b64(mine) };
                unsafe { mbarrier_try_wait_parity_shared_b64(mine, a & 1) as u32 }
            };
            warpkit_instr_mbarrier_try_wait_parity_acquire_cluster_shared_b64 => "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64" * 1, since sm_90: |a, _b, _c| {
                let mine = unsafe { cvta_to_shared_u64(warpkit::shared_array!(MBAR_WAIT_CLUSTER: [u64; 1024]).cast::<u64>().add(warpkit::kernel::thread_idx_x() as usize % 1024) as u64) };
                unsafe { mbarrier_init_shared_b64(mine, 1) };
                unsafe { mbarrier_arrive_shared_b64(mine) };
                unsafe { mbarrier_try_wait_parity_acquire_cluster_shared_b64(mine, a & 1) as u32 }
            };
            warpkit_instr_fence_mbarrier_init_release_cluster => "fence.mbarrier_init.release.cluster" * 1, since sm_90: |a, _b, _c| { fence_mbarrier_init_release_cluster(); a };
            warpkit_instr_st_async_shared_cluster_mbarrier_complete_tx_bytes_b32 => "st.async.shared::cluster.mbarrier::complete_tx::bytes.b32" * 1, since sm_90: |a, _b, _c| {
                let words = unsafe { warpkit::shared_array!(ST_ASYNC_B32: [u64; 2048]).cast::<u64>().add(2 * (warpkit::kernel::thread_idx_x() as usize % 1024)) };
                let (mbar, word) = unsafe { (cvta_to_shared_u64(words as u64), cvta_to_shared_u64(words as u64 + 8)) };
                unsafe { mbarrier_init_shared_b64(mbar, 1) };
                unsafe { mbarrier_arrive_expect_tx_shared_b64(mbar, 4) };
                let rank = cluster_ctarank();
                unsafe { st_async_shared_cluster_mbarrier_complete_tx_bytes_b32(mapa_shared_cluster_u64(word, rank), a, mapa_shared_cluster_u64(mbar, rank)) };
                a
            };
            warpkit_instr_st_async_shared_cluster_mbarrier_complete_tx_bytes_b64 => "st.async.shared::cluster.mbarrier::complete_tx::bytes.b64" * 1, since sm_90: |a, b, _c| {
                let words = unsafe { warpkit::shared_array!(ST_ASYNC_B64: [u64; 2048]).cast::<u64>().add(2 * (warpkit::kernel::thread_idx_x() as usize % 1024)) };
                let (mbar, word) = unsafe { (cvta_to_shared_u64(words as u64), cvta_to_shared_u64(words as u64 + 8)) };
                unsafe { mbarrier_init_shared_b64(mbar, 1) };
                unsafe { mbarrier_arrive_expect_tx_shared_b64(mbar, 8) };
                let rank = cluster_ctarank();
                unsafe { st_async_shared_cluster_mbarrier_complete_tx_bytes_b64(mapa_shared_cluster_u64(word, rank), (a as u64) << 32 | b as u64, mapa_shared_cluster_u64(mbar, rank)) };
                a
            };
        }
    }
    shims! {
        /// Byte permute (every target).
        pub PERMUTE {
            warpkit_instr_prmt_b32 => "prmt.b32" * 1, since sm_70: |a, b, c| prmt_b32(a, b, c);
        }
    }
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
    shims! {
        /// Packed 16-bit integer arithmetic (PTX 8.0: sm_90+; absent below).
        pub SIMD {
            warpkit_instr_min_u16x2 => "min.u16x2" * 1, since sm_90: |a, b, _c| min_u16x2(a, b);
        }
    }
    #[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_80"))]
    shims! {
        /// Packed `f16`/`bf16` min and max (PTX 7.0: sm_80+; absent below).
        pub HALF_SIMD {
            warpkit_instr_min_f16x2 => "min.f16x2" * 1, since sm_80: |a, b, _c| min_f16x2(a, b);
            warpkit_instr_max_f16x2 => "max.f16x2" * 1, since sm_80: |a, b, _c| max_f16x2(a, b);
            warpkit_instr_min_bf16x2 => "min.bf16x2" * 1, since sm_80: |a, b, _c| min_bf16x2(a, b);
            warpkit_instr_max_bf16x2 => "max.bf16x2" * 1, since sm_80: |a, b, _c| max_bf16x2(a, b);
        }
    }

    // SAFETY (the `unsafe` blocks below): `p + 2` is the thread's own 8-byte-aligned words of
    // global memory, touched by no other thread.
    shims! {
        /// Scoped atomics (`atom{.sem}{.scope}.op.type`): every semantics and scope of `add.u32`,
        /// and every operation and type at one of them, on the thread's own `io` words.
        pub ATOMIC {
            warpkit_instr_atom_add_relaxed_cta_u32 => "atom.relaxed.cta.add.u32" * 1, since sm_70: |a, _b, _c, p| unsafe { atom_add_relaxed_cta_u32(p.add(2), a) };
            warpkit_instr_atom_add_relaxed_gpu_u32 => "atom.relaxed.gpu.add.u32" * 1, since sm_70: |a, _b, _c, p| unsafe { atom_add_relaxed_gpu_u32(p.add(2), a) };
            warpkit_instr_atom_add_relaxed_sys_u32 => "atom.relaxed.sys.add.u32" * 1, since sm_70: |a, _b, _c, p| unsafe { atom_add_relaxed_sys_u32(p.add(2), a) };
            warpkit_instr_atom_add_acquire_cta_u32 => "atom.acquire.cta.add.u32" * 1, since sm_70: |a, _b, _c, p| unsafe { atom_add_acquire_cta_u32(p.add(2), a) };
            warpkit_instr_atom_add_acquire_gpu_u32 => "atom.acquire.gpu.add.u32" * 1, since sm_70: |a, _b, _c, p| unsafe { atom_add_acquire_gpu_u32(p.add(2), a) };
            warpkit_instr_atom_add_acquire_sys_u32 => "atom.acquire.sys.add.u32" * 1, since sm_70: |a, _b, _c, p| unsafe { atom_add_acquire_sys_u32(p.add(2), a) };
            warpkit_instr_atom_add_release_cta_u32 => "atom.release.cta.add.u32" * 1, since sm_70: |a, _b, _c, p| unsafe { atom_add_release_cta_u32(p.add(2), a) };
            warpkit_instr_atom_add_release_gpu_u32 => "atom.release.gpu.add.u32" * 1, since sm_70: |a, _b, _c, p| unsafe { atom_add_release_gpu_u32(p.add(2), a) };
            warpkit_instr_atom_add_release_sys_u32 => "atom.release.sys.add.u32" * 1, since sm_70: |a, _b, _c, p| unsafe { atom_add_release_sys_u32(p.add(2), a) };
            warpkit_instr_atom_add_acq_rel_cta_u32 => "atom.acq_rel.cta.add.u32" * 1, since sm_70: |a, _b, _c, p| unsafe { atom_add_acq_rel_cta_u32(p.add(2), a) };
            warpkit_instr_atom_add_acq_rel_gpu_u32 => "atom.acq_rel.gpu.add.u32" * 1, since sm_70: |a, _b, _c, p| unsafe { atom_add_acq_rel_gpu_u32(p.add(2), a) };
            warpkit_instr_atom_add_acq_rel_sys_u32 => "atom.acq_rel.sys.add.u32" * 1, since sm_70: |a, _b, _c, p| unsafe { atom_add_acq_rel_sys_u32(p.add(2), a) };
            warpkit_instr_atom_add_relaxed_gpu_u64 => "atom.relaxed.gpu.add.u64" * 1, since sm_70: |a, b, _c, p| unsafe { atom_add_relaxed_gpu_u64(p.add(2).cast(), (a as u64) << 32 | b as u64) as u32 };
            warpkit_instr_atom_add_relaxed_gpu_f32 => "atom.relaxed.gpu.add.f32" * 1, since sm_70: |a, _b, _c, p| unsafe { atom_add_relaxed_gpu_f32(p.add(2).cast(), f32::from_bits(a)) }.to_bits();
            warpkit_instr_atom_add_relaxed_gpu_f64 => "atom.relaxed.gpu.add.f64" * 1, since sm_70: |a, b, _c, p| unsafe { atom_add_relaxed_gpu_f64(p.add(2).cast(), f64::from_bits((a as u64) << 32 | b as u64)) }.to_bits() as u32;
            warpkit_instr_atom_min_relaxed_gpu_u32 => "atom.relaxed.gpu.min.u32" * 1, since sm_70: |a, _b, _c, p| unsafe { atom_min_relaxed_gpu_u32(p.add(2), a) };
            warpkit_instr_atom_min_relaxed_gpu_u64 => "atom.relaxed.gpu.min.u64" * 1, since sm_70: |a, b, _c, p| unsafe { atom_min_relaxed_gpu_u64(p.add(2).cast(), (a as u64) << 32 | b as u64) as u32 };
            warpkit_instr_atom_max_relaxed_gpu_u32 => "atom.relaxed.gpu.max.u32" * 1, since sm_70: |a, _b, _c, p| unsafe { atom_max_relaxed_gpu_u32(p.add(2), a) };
            warpkit_instr_atom_max_relaxed_gpu_u64 => "atom.relaxed.gpu.max.u64" * 1, since sm_70: |a, b, _c, p| unsafe { atom_max_relaxed_gpu_u64(p.add(2).cast(), (a as u64) << 32 | b as u64) as u32 };
            warpkit_instr_atom_exch_relaxed_gpu_b32 => "atom.relaxed.gpu.exch.b32" * 1, since sm_70: |a, _b, _c, p| unsafe { atom_exch_relaxed_gpu_b32(p.add(2), a) };
            warpkit_instr_atom_exch_relaxed_gpu_b64 => "atom.relaxed.gpu.exch.b64" * 1, since sm_70: |a, b, _c, p| unsafe { atom_exch_relaxed_gpu_b64(p.add(2).cast(), (a as u64) << 32 | b as u64) as u32 };
            warpkit_instr_atom_cas_acq_rel_gpu_b32 => "atom.acq_rel.gpu.cas.b32" * 1, since sm_70: |a, b, _c, p| unsafe { atom_cas_acq_rel_gpu_b32(p.add(2), a, b) };
            warpkit_instr_atom_cas_acq_rel_gpu_b64 => "atom.acq_rel.gpu.cas.b64" * 1, since sm_70: |a, b, c, p| unsafe { atom_cas_acq_rel_gpu_b64(p.add(2).cast(), a as u64, (b as u64) << 32 | c as u64) as u32 };
            warpkit_instr_atom_and_relaxed_gpu_b32 => "atom.relaxed.gpu.and.b32" * 1, since sm_70: |a, _b, _c, p| unsafe { atom_and_relaxed_gpu_b32(p.add(2), a) };
            warpkit_instr_atom_and_relaxed_gpu_b64 => "atom.relaxed.gpu.and.b64" * 1, since sm_70: |a, b, _c, p| unsafe { atom_and_relaxed_gpu_b64(p.add(2).cast(), (a as u64) << 32 | b as u64) as u32 };
            warpkit_instr_atom_or_relaxed_gpu_b32 => "atom.relaxed.gpu.or.b32" * 1, since sm_70: |a, _b, _c, p| unsafe { atom_or_relaxed_gpu_b32(p.add(2), a) };
            warpkit_instr_atom_or_relaxed_gpu_b64 => "atom.relaxed.gpu.or.b64" * 1, since sm_70: |a, b, _c, p| unsafe { atom_or_relaxed_gpu_b64(p.add(2).cast(), (a as u64) << 32 | b as u64) as u32 };
            warpkit_instr_atom_xor_relaxed_gpu_b32 => "atom.relaxed.gpu.xor.b32" * 1, since sm_70: |a, _b, _c, p| unsafe { atom_xor_relaxed_gpu_b32(p.add(2), a) };
            warpkit_instr_atom_xor_relaxed_gpu_b64 => "atom.relaxed.gpu.xor.b64" * 1, since sm_70: |a, b, _c, p| unsafe { atom_xor_relaxed_gpu_b64(p.add(2).cast(), (a as u64) << 32 | b as u64) as u32 };
        }
    }
}

#[cfg(all(not(target_arch = "nvptx64"), not(feature = "legacy-shfl")))]
pub use families::*;

/// Every family, by name, for the host tests.
#[cfg(all(not(target_arch = "nvptx64"), not(feature = "legacy-shfl")))]
pub const FAMILIES: &[(&str, &[Shim])] = &[
    ("shfl", SHFL),
    ("vote", VOTE),
    ("match", MATCH),
    ("redux", REDUX),
    ("sreg", SREG),
    ("barrier", BARRIER),
    ("memory", MEMORY),
    ("atomic", ATOMIC),
    ("permute", PERMUTE),
    ("simd", SIMD),
    ("half simd", HALF_SIMD),
    ("async copy", ASYNC_COPY),
    ("L2 hints", L2_HINTS),
    ("bulk prefetch", BULK_PREFETCH),
    ("grid dependency", GRIDDEPCONTROL),
    ("cluster", CLUSTER),
    ("mbarrier", MBARRIER),
    ("mbarrier transactions", MBARRIER_TX),
];
