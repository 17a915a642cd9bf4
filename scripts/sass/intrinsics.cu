// The CUDA C++ twins of warpkit's instruction shims (tests/kernels/src/shims.rs, `shims!`): the same
// loads and store around the CUDA intrinsic, so their SASS can be compared instruction by
// instruction (scripts/sass-compare.sh). Named `cuda_<shim>`.
#define M 0xffffffffu
#define SHIM(name, expr) \
  extern "C" __global__ void cuda_##name(unsigned* io) { io += 4 * threadIdx.x; unsigned a = io[0], b = io[1], c = io[2]; (void)a; (void)b; (void)c; io[3] = (expr); }

SHIM(shfl_sync_up_b32, __shfl_up_sync(M, a, b))
SHIM(shfl_sync_down_b32, __shfl_down_sync(M, a, b))
SHIM(shfl_sync_bfly_b32, __shfl_xor_sync(M, a, b))
SHIM(shfl_sync_idx_b32, __shfl_sync(M, a, b))
SHIM(shfl_sync_f64, (unsigned)__double_as_longlong(__shfl_sync(M, __longlong_as_double((long long)a << 32 | b), a, 32)))
SHIM(shfl_down_sync_u8, (unsigned)(unsigned char)__shfl_down_sync(M, (unsigned)(unsigned char)a, b, 16))
SHIM(shfl_xor_sync_12_bytes, __shfl_xor_sync(M, a, b) ^ __shfl_xor_sync(M, b, b) ^ __shfl_xor_sync(M, c, b))
SHIM(vote_sync_all_pred, (unsigned)__all_sync(M, a != 0))
SHIM(vote_sync_any_pred, (unsigned)__any_sync(M, a != 0))
SHIM(vote_sync_uni_pred, (unsigned)__uni_sync(M, a != 0))
SHIM(vote_sync_all_pred_not, (unsigned)__all_sync(M, a == 0))
SHIM(vote_sync_any_pred_not, (unsigned)__any_sync(M, a == 0))
SHIM(vote_sync_ballot_b32, __ballot_sync(M, a != 0))
SHIM(match_any_sync_b32, __match_any_sync(M, a))
SHIM(match_any_sync_b64, __match_any_sync(M, (unsigned long long)a << 32 | b))
extern "C" __global__ void cuda_match_all_sync_b32(unsigned* io) { io += 4 * threadIdx.x; int p; unsigned m = __match_all_sync(M, io[0], &p); io[3] = m ^ (unsigned)p; }
extern "C" __global__ void cuda_match_all_sync_b64(unsigned* io) { io += 4 * threadIdx.x; int p; unsigned m = __match_all_sync(M, (long long)io[0] << 32 | (long long)io[1], &p); io[3] = m ^ (unsigned)p; }
SHIM(activemask_b32, __activemask())
extern "C" __global__ void cuda_bar_warp_sync(unsigned* io) { io += 4 * threadIdx.x; unsigned a = io[0]; __syncwarp(M); io[3] = a; }
SHIM(redux_sync_add_u32, __reduce_add_sync(M, a))
SHIM(redux_sync_min_u32, __reduce_min_sync(M, a))
SHIM(redux_sync_max_u32, __reduce_max_sync(M, a))
SHIM(redux_sync_add_i32, (unsigned)__reduce_add_sync(M, (int)a))
SHIM(redux_sync_min_i32, (unsigned)__reduce_min_sync(M, (int)a))
SHIM(redux_sync_max_i32, (unsigned)__reduce_max_sync(M, (int)a))
SHIM(redux_sync_and_b32, __reduce_and_sync(M, a))
SHIM(redux_sync_or_b32, __reduce_or_sync(M, a))
SHIM(redux_sync_xor_b32, __reduce_xor_sync(M, a))
