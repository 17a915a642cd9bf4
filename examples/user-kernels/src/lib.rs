//! A kernel crate of your own: `no_std`, depends on `warpkit`, built into PTX by
//! `warpkit-builder` from the host crate's `build.rs` (see `../user-app`). Compiled for the
//! host, the same crate gives the app one typed launch descriptor per `#[kernel]`. It also
//! defines two value types with their operators, shared with the host: warpkit's device
//! reduce and scan run on them through `warpkit::custom_kernels!` and
//! `warpkit_host::CustomKernels`.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, asm_experimental_arch))]

use half::f16;
// `warpkit::kernel` is both the attribute and the module of kernel-authoring functions.
use warpkit::kernel;
use warpkit::{
    LaneMask,
    block::{self, TempStorage},
    instr::{atomic::*, sreg::lanemask_lt},
    kernel::{dynamic_shared::dynamic_shared, lane_id},
    math,
    ops::{Max, Min, Sum},
    warp::{Tile, Warp, matching::match_any_sync},
};

/// `sums[w]` = the sum of warp `w`'s 32 values, `maxima[g]` = the maximum of each group
/// of 8 lanes (a `Tile<8>`), and `ranks[i]` = how many earlier lanes of the warp hold the
/// same key (`match.any` and a lane mask).
///
/// # Safety
/// One thread per value; `values`, `keys`, `ranks` hold one element per thread, `sums` one
/// per warp, `maxima` one per 8 threads.
#[kernel]
pub unsafe fn warp_stats(
    values: *const f32,
    keys: *const u32,
    sums: *mut f32,
    maxima: *mut f32,
    ranks: *mut u32,
) {
    let i = kernel::global_index();
    // SAFETY: the launch gives one thread per value and sizes every output.
    unsafe {
        let v = *values.add(i);
        let total = Warp::full().reduce(v, Sum);
        let group_max = Tile::<8>::full().reduce(v, Max);
        let same_key: LaneMask = match_any_sync(LaneMask::FULL, *keys.add(i));
        *ranks.add(i) = (same_key.bits() & lanemask_lt()).count_ones();
        if lane_id() == 0 {
            *sums.add(i / 32) = total;
        }
        if lane_id().is_multiple_of(8) {
            *maxima.add(i / 8) = group_max;
        }
    }
}

/// A block-wide inclusive prefix sum with shared memory declared in the kernel.
///
/// # Safety
/// One-dimensional blocks of a multiple of 32 threads; one thread per element.
#[kernel]
pub unsafe fn block_prefix_sums(values: *const u32, out: *mut u32) {
    // SAFETY: a `.shared` variable of this kernel alone, used only by the block scan.
    let storage = unsafe { &*warpkit::shared!(USER_SCAN_STORAGE: TempStorage<u32>) };
    let i = kernel::global_index();
    // SAFETY: every thread of the block calls the block scan with the same storage.
    unsafe {
        let (inclusive, _) = block::inclusive_scan(*values.add(i), Sum, storage);
        *out.add(i) = inclusive;
    }
}

/// Block-wide inclusive prefix sums and the block's total for any block shape (2-D and 3-D
/// blocks: `warpkit::block` orders threads by their linear index): `out[b * threads + t]`
/// for the thread of linear index `t` in block `b`.
///
/// # Safety
/// One-dimensional grid; blocks of any shape with a multiple of 32 threads; `values` and
/// `out` hold one element per thread, `totals` one per block.
#[kernel]
pub unsafe fn block_scan_any_shape(values: *const u32, out: *mut u32, totals: *mut u32) {
    // SAFETY: a `.shared` variable of this kernel alone, used only by the block scan.
    let storage = unsafe { &*warpkit::shared!(USER_SHAPE_STORAGE: TempStorage<u32>) };
    let t = kernel::linear_thread_index();
    let i = (kernel::block_idx_x() * kernel::block_threads() + t) as usize;
    // SAFETY: every thread of the block calls the scan with the same storage.
    unsafe {
        let (inclusive, total) = block::inclusive_scan(*values.add(i), Sum, storage);
        *out.add(i) = inclusive;
        if t == 0 {
            *totals.add(kernel::block_idx_x() as usize) = total;
        }
    }
}

/// A histogram of `values[..n]` into `bins` (values `>= nbins` are counted in the last bin),
/// the largest value into `*max`, and the sum of `weights` into `*total`: each block counts in
/// dynamic shared memory (`nbins` `u32`s, so launch with `shared_mem_bytes = 4 * nbins`) with
/// block-scoped atomics, then adds its counts to `bins` with device-scoped ones.
///
/// # Safety
/// One-dimensional grid; `bins` has `nbins` zeroed words, `values` and `weights` `n`
/// elements; `*max` and `*total` start at 0; `shared_mem_bytes >= 4 * nbins`, `nbins >= 1`.
#[kernel]
pub unsafe fn histogram(
    values: *const u32,
    weights: *const f32,
    n: u32,
    bins: *mut u32,
    nbins: u32,
    max: *mut u32,
    total: *mut f32,
) {
    let local: *mut [u32] = dynamic_shared::<u32>();
    let nbins = (nbins as usize).min(local.len());
    let local = local.cast::<u32>();
    let (tid, threads) = (
        kernel::thread_idx_x() as usize,
        kernel::block_dim_x() as usize,
    );
    // SAFETY: `local` has `nbins` elements (bounded by %dynamic_smem_size); every thread of
    // the block reaches both barriers; global pointers are sized by the caller.
    unsafe {
        for b in (tid..nbins).step_by(threads) {
            *local.add(b) = 0;
        }
        kernel::sync_threads();
        let mut i = kernel::global_index();
        while i < n as usize {
            let v = *values.add(i);
            atom_add_relaxed_cta_u32(local.add((v as usize).min(nbins - 1)), 1);
            atom_max_relaxed_gpu_u32(max, v);
            atom_add_relaxed_gpu_f32(total, *weights.add(i));
            i += kernel::grid_threads();
        }
        kernel::sync_threads();
        for b in (tid..nbins).step_by(threads) {
            let count = *local.add(b);
            if count != 0 {
                atom_add_relaxed_gpu_u32(bins.add(b), count);
            }
        }
    }
}

/// Prints one line from each of the first `lines` threads, with `println!`.
///
/// # Safety
/// None beyond a valid launch.
#[kernel]
pub unsafe fn say_hello(lines: u32, scale: f32) {
    let i = kernel::global_index() as u32;
    if i < lines {
        warpkit::println!(
            "hello from thread {i}: {} squared times {} is {}",
            i,
            scale,
            (i * i) as f32 * scale
        );
    }
}

/// Where the failing assertion of [`checked_divide`] is (the app checks the printed location).
pub const ASSERT_FILE: &str = file!();
/// The line of that assertion.
pub const ASSERT_LINE: u32 = line!() + 14;

/// `out[i] = num[i] / den[i]`, asserting that no denominator is zero: a zero makes the
/// kernel print `panicked at <file>:<line>:<column>: ...` and trap.
///
/// # Safety
/// Arrays of `n` elements.
#[kernel]
pub unsafe fn checked_divide(num: *const u32, den: *const u32, out: *mut u32, n: u32) {
    let i = kernel::global_index();
    if i < n as usize {
        // SAFETY: i < n.
        unsafe {
            let d = *den.add(i);
            assert!(d != 0, "zero denominator at index {i}");
            *out.add(i) = *num.add(i) / d;
        }
    }
}

/// `out[i] = 3 * x[i] + 1` (wrapping), for a chain of short kernels launched with
/// `warpkit_host::launch::launch_dependent`: the prologue waits for the kernel before it on
/// the stream (whose output is `x`) and lets the next one be scheduled.
///
/// # Safety
/// Arrays of `n` elements.
#[kernel]
pub unsafe fn chain_step(x: *const u32, out: *mut u32, n: u32) {
    warpkit::device::kernel_prologue();
    let i = kernel::global_index();
    if i < n as usize {
        // SAFETY: i < n.
        unsafe { *out.add(i) = (*x.add(i)).wrapping_mul(3).wrapping_add(1) };
    }
}

/// Thread block clusters (sm_90+): `sums[c]` = the sum of cluster `c`'s values (one `u32` per
/// thread, summed as `u64`), and `echoes[b]` = block `b`'s own sum as its cluster's rank 0
/// holds it. Each block reduces its values, writes the total into rank 0's shared memory
/// (`cluster::map_shared_rank`), and after the cluster barrier rank 0 adds them in rank order
/// while every block reads its own slot back from rank 0: distributed shared memory both ways.
/// Launch with `warpkit_host::launch::launch_cluster`.
///
/// # Safety
/// One-dimensional grid and blocks, launched in clusters of at most 16 blocks along x;
/// blocks of a multiple of 32 threads; `values` holds one element per thread, `sums` one per
/// cluster, `echoes` one per block.
#[cfg(any(not(target_arch = "nvptx64"), target_feature = "sm_90"))]
#[kernel]
pub unsafe fn cluster_sums(values: *const u32, sums: *mut u64, echoes: *mut u64) {
    use warpkit::kernel::cluster;
    // SAFETY: `.shared` variables of this kernel alone: the block reduce's storage, and one
    // slot per block of the cluster, written by the cluster's blocks only in rank 0.
    let storage = unsafe { &*warpkit::shared!(CLUSTER_SUM_STORAGE: TempStorage<u64>) };
    let slots = warpkit::shared_array!(CLUSTER_SUM_SLOTS: [u64; 16]).cast::<u64>();
    let (rank, blocks) = (cluster::block_rank(), cluster::num_blocks());
    let first = kernel::thread_idx_x() == 0;
    // SAFETY: one value per thread; every thread of the block reduces and every thread of the
    // cluster passes the same three cluster barriers. Rank 0's slots are written after the
    // first barrier (every block has started), read after the second, and rank 0 stays until
    // the third, after every block's read.
    unsafe {
        let value = u64::from(*values.add(kernel::global_index()));
        let total = block::reduce(value, Sum, storage);
        let in_rank0 = cluster::map_shared_rank(slots, 0).add(rank as usize);
        cluster::sync();
        if first {
            *in_rank0 = total;
        }
        cluster::sync();
        if first {
            *echoes.add(kernel::block_idx_x() as usize) = *in_rank0;
            if rank == 0 {
                let sum = (0..blocks as usize).fold(0u64, |s, r| s.wrapping_add(*slots.add(r)));
                // (`max(1)`: the compiler cannot know that a cluster has blocks.)
                *sums.add((kernel::block_idx_x() / blocks.max(1)) as usize) = sum;
            }
        }
        cluster::sync();
    }
}

/// The functions `math_f32`/`math_f64` evaluate, in output order (unary, then binary, then
/// `fma`), with their names in `warpkit::math`.
pub const MATH_FUNCTIONS: &[&str] = &[
    "sqrt", "cbrt", "exp", "exp2", "exp10", "expm1", "log", "log2", "log10", "log1p", "sin", "cos",
    "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "erf", "erfc", "pow", "atan2", "hypot",
    "fma",
];

macro_rules! math_kernel {
    ($name:ident, $t:ty, $($f:ident)*; $($g:ident)*; $fma:ident) => {
        /// `out[k * n + i]` = the `k`-th function of [`MATH_FUNCTIONS`] at `x[i]` (binary ones
        /// at `(x[i], y[i])`, `fma` at `(x[i], y[i], z[i])`).
        ///
        /// # Safety
        /// `x`, `y`, `z` have `n` elements, `out` `n * MATH_FUNCTIONS.len()`.
        #[kernel]
        pub unsafe fn $name(x: *const $t, y: *const $t, z: *const $t, out: *mut $t, n: u32) {
            let i = kernel::global_index();
            let n = n as usize;
            if i < n {
                // SAFETY: as documented.
                unsafe {
                    let (a, b, c) = (*x.add(i), *y.add(i), *z.add(i));
                    let r = [$(math::$f(a),)* $(math::$g(a, b),)* math::$fma(a, b, c)];
                    for (k, v) in r.iter().enumerate() {
                        *out.add(k * n + i) = *v;
                    }
                }
            }
        }
    };
}

math_kernel!(math_f32, f32,
    sqrtf cbrtf expf exp2f exp10f expm1f logf log2f log10f log1pf sinf cosf tanf asinf acosf
    atanf sinhf coshf tanhf erff erfcf; powf atan2f hypotf; fmaf);
math_kernel!(math_f64, f64,
    sqrt cbrt exp exp2 exp10 expm1 log log2 log10 log1p sin cos tan asin acos atan sinh cosh
    tanh erf erfc; pow atan2 hypot; fma);

/// Per warp of `f16` values: the sum, minimum and maximum (`Warp::reduce` with the half
/// operators: combined in `f32`, rounded to `f16` after each combine).
///
/// # Safety
/// One thread per value; outputs hold one element per warp.
#[kernel]
pub unsafe fn half_warp_reduce(
    values: *const f16,
    sums: *mut f16,
    minima: *mut f16,
    maxima: *mut f16,
) {
    let i = kernel::global_index();
    // SAFETY: as documented.
    unsafe {
        let v = *values.add(i);
        let w = Warp::full();
        let (s, lo, hi) = (w.reduce(v, Sum), w.reduce(v, Min), w.reduce(v, Max));
        if lane_id() == 0 {
            *sums.add(i / 32) = s;
            *minima.add(i / 32) = lo;
            *maxima.add(i / 32) = hi;
        }
    }
}

/// The affine map `x -> a*x + b` on wrapping `u32` arithmetic.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Affine {
    pub a: u32,
    pub b: u32,
}

/// Composition, `f` then `g`: associative, not commutative, exact.
#[derive(Clone, Copy, Debug, Default)]
pub struct Compose;

impl warpkit::ops::ReduceOp<Affine> for Compose {
    #[inline(always)]
    fn identity(self) -> Affine {
        Affine { a: 1, b: 0 }
    }
    #[inline(always)]
    fn combine(self, f: Affine, g: Affine) -> Affine {
        Affine {
            a: g.a.wrapping_mul(f.a),
            b: g.a.wrapping_mul(f.b).wrapping_add(g.b),
        }
    }
}

/// A key and the index it came from.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct KeyValue {
    pub key: i32,
    pub index: u32,
}

/// Arg-max by key: the larger key, the lower index on ties.
#[derive(Clone, Copy, Debug, Default)]
pub struct MaxKey;

impl warpkit::ops::ReduceOp<KeyValue> for MaxKey {
    #[inline(always)]
    fn identity(self) -> KeyValue {
        KeyValue {
            key: i32::MIN,
            index: u32::MAX,
        }
    }
    #[inline(always)]
    fn combine(self, a: KeyValue, b: KeyValue) -> KeyValue {
        if b.key > a.key || (b.key == a.key && b.index < a.index) {
            b
        } else {
            a
        }
    }
}

// SAFETY: plain `#[repr(C)]` data of two 4-byte fields, no padding, any bits valid.
#[cfg(not(target_arch = "nvptx64"))]
unsafe impl cudarc::driver::DeviceRepr for Affine {}
// SAFETY: as above.
#[cfg(not(target_arch = "nvptx64"))]
unsafe impl cudarc::driver::ValidAsZeroBits for Affine {}
// SAFETY: as above.
#[cfg(not(target_arch = "nvptx64"))]
unsafe impl cudarc::driver::DeviceRepr for KeyValue {}
// SAFETY: as above.
#[cfg(not(target_arch = "nvptx64"))]
unsafe impl cudarc::driver::ValidAsZeroBits for KeyValue {}

// `user_affine_{reduce,scan,rows_reduce,rows_scan}`, `user_affine_layout`, and the same for `user_argmax`.
warpkit::custom_kernels! { prefix: user_affine, value: Affine, op: Compose }
warpkit::custom_kernels! { prefix: user_argmax, value: KeyValue, op: MaxKey }
