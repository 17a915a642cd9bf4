// CUB behind a C interface, for warpkit's benchmark: built by `nvcc -shared` into
// libwarpkit_cub.so at bench start (benches/src/cub.rs) and loaded into the benchmark's
// process, so CUB runs on the same stream and the same buffers as warpkit.
//
// Every function enqueues one CUB call on `stream` and returns its cudaError_t. As in CUB,
// `temp == NULL` only writes the temporary storage the call needs to `*temp_bytes`.
//   warpkit_cub_<algo>_<type>(in, out, n, temp, temp_bytes, stream)
//     algo: reduce_{sum,min,max}            cub::DeviceReduce::Sum/Min/Max
//           scan_{inclusive,exclusive}_sum  cub::DeviceScan::InclusiveSum/ExclusiveSum
//           scan_{inclusive,exclusive}_{min,max}
//                                           cub::DeviceScan::InclusiveScan/ExclusiveScan with
//                                           cuda::minimum<>/cuda::maximum<> (exclusive: the
//                                           operator's identity, +-inf for floats, as init)
//   warpkit_cub_rows_<algo>_<type>(in, out, rows, width, temp, temp_bytes, stream)
//     rows_reduce_sum  cub::DeviceSegmentedReduce::Sum, uniform rows of `width` (offsets from
//                      a counting iterator: no offset array is read)
//     rows_scan_sum    cub::DeviceScan::InclusiveSumByKey with key = index / width (computed,
//                      not read): CUB 3.0 has no segmented scan, this is its closest analogue
//     rows_warp_reduce_sum, rows_warp_scan_sum (inclusive)
//                      one warp per row with cub::WarpReduce / cub::WarpScan in a kernel of
//                      ours, as warpkit's rows operations work (no temporary storage)
//     type: u32 i32 u64 i64 f32 f64
//   and seven more, beside warpkit's own forms of them (in the common unit), and the same for
//   bf16 (__nv_bfloat16; arg_min_bf16 as arg_min_f16), all but arg_min_f32/_f64:
//     warpkit_cub_reduce_sum_f16          __half in, one float out: cub::DeviceReduce::Reduce
//                                         with cuda::std::plus<float> and init 0.0f (f32
//                                         accumulation, as warpkit's f16 reduce)
//     warpkit_cub_scan_inclusive_sum_f16  __half in and out: cub::DeviceScan::InclusiveScan
//                                         with cuda::std::plus<float> (f32 accumulator, each
//                                         output rounded once to __half, as warpkit's)
//     warpkit_cub_reduce_{min,max}_f16    __half in and out: cub::DeviceReduce::Min/Max (the
//                                         extreme in bytes 0-1 of warpkit's 4-byte f32 slot,
//                                         bytes 2-3 left as they were)
//     warpkit_cub_arg_min_f32             float in; out: the float minimum, then its index
//                                         as a uint32 (8 bytes, warpkit's layout):
//                                         cub::DeviceReduce::ArgMin (CUB >= 2.8 form with
//                                         separate value and index outputs)
//     warpkit_cub_arg_min_f64             the same for double, the index as a uint64 (16 bytes)
//     warpkit_cub_arg_min_f16             __half in; out: the __half minimum in bytes 0-1 (2-3
//                                         left as they were), its index as a uint32 at byte 4
//                                         (warpkit's layout but for those two bytes, which
//                                         warpkit writes as zero)
// Item counts below 2^32 use 32-bit offsets (CUB's fastest path), larger ones 64-bit.
// -DWK_SKIP_<TYPE> (U32 ... F64) and -DWK_SKIP_COMMON leave parts out, so that the builder can
// compile one type per nvcc process in parallel and link the objects.
// benches/src/cub.rs lists the same names; a unit test there compares the two lists.
#include <cub/cub.cuh>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda/functional>
#include <cuda/std/limits>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <cstdint>

namespace {

// Calls f with n as the narrowest unsigned type that holds it.
template <typename F>
cudaError_t with_count(uint64_t n, F f) {
  if (n <= 0xffffffffull) return f(static_cast<uint32_t>(n));
  return f(n);
}

template <typename T> T max_identity() {
  return cuda::std::numeric_limits<T>::has_infinity ? -cuda::std::numeric_limits<T>::infinity()
                                                    : cuda::std::numeric_limits<T>::lowest();
}
template <typename T> T min_identity() {
  return cuda::std::numeric_limits<T>::has_infinity ? cuda::std::numeric_limits<T>::infinity()
                                                    : cuda::std::numeric_limits<T>::max();
}

template <typename T> cudaError_t reduce_sum(const void* in, void* out, uint64_t n, void* temp, size_t* temp_bytes, cudaStream_t s) {
  return with_count(n, [&](auto c) { return cub::DeviceReduce::Sum(temp, *temp_bytes, static_cast<const T*>(in), static_cast<T*>(out), c, s); });
}
template <typename T> cudaError_t reduce_min(const void* in, void* out, uint64_t n, void* temp, size_t* temp_bytes, cudaStream_t s) {
  return with_count(n, [&](auto c) { return cub::DeviceReduce::Min(temp, *temp_bytes, static_cast<const T*>(in), static_cast<T*>(out), c, s); });
}
template <typename T> cudaError_t reduce_max(const void* in, void* out, uint64_t n, void* temp, size_t* temp_bytes, cudaStream_t s) {
  return with_count(n, [&](auto c) { return cub::DeviceReduce::Max(temp, *temp_bytes, static_cast<const T*>(in), static_cast<T*>(out), c, s); });
}
template <typename T> cudaError_t scan_inclusive_sum(const void* in, void* out, uint64_t n, void* temp, size_t* temp_bytes, cudaStream_t s) {
  return with_count(n, [&](auto c) { return cub::DeviceScan::InclusiveSum(temp, *temp_bytes, static_cast<const T*>(in), static_cast<T*>(out), c, s); });
}
template <typename T> cudaError_t scan_exclusive_sum(const void* in, void* out, uint64_t n, void* temp, size_t* temp_bytes, cudaStream_t s) {
  return with_count(n, [&](auto c) { return cub::DeviceScan::ExclusiveSum(temp, *temp_bytes, static_cast<const T*>(in), static_cast<T*>(out), c, s); });
}
template <typename T> cudaError_t scan_inclusive_min(const void* in, void* out, uint64_t n, void* temp, size_t* temp_bytes, cudaStream_t s) {
  return with_count(n, [&](auto c) { return cub::DeviceScan::InclusiveScan(temp, *temp_bytes, static_cast<const T*>(in), static_cast<T*>(out), cuda::minimum<>{}, c, s); });
}
template <typename T> cudaError_t scan_inclusive_max(const void* in, void* out, uint64_t n, void* temp, size_t* temp_bytes, cudaStream_t s) {
  return with_count(n, [&](auto c) { return cub::DeviceScan::InclusiveScan(temp, *temp_bytes, static_cast<const T*>(in), static_cast<T*>(out), cuda::maximum<>{}, c, s); });
}
template <typename T> cudaError_t scan_exclusive_min(const void* in, void* out, uint64_t n, void* temp, size_t* temp_bytes, cudaStream_t s) {
  return with_count(n, [&](auto c) { return cub::DeviceScan::ExclusiveScan(temp, *temp_bytes, static_cast<const T*>(in), static_cast<T*>(out), cuda::minimum<>{}, min_identity<T>(), c, s); });
}
template <typename T> cudaError_t scan_exclusive_max(const void* in, void* out, uint64_t n, void* temp, size_t* temp_bytes, cudaStream_t s) {
  return with_count(n, [&](auto c) { return cub::DeviceScan::ExclusiveScan(temp, *temp_bytes, static_cast<const T*>(in), static_cast<T*>(out), cuda::maximum<>{}, max_identity<T>(), c, s); });
}

template <typename I> struct RowStart {
  I width;
  __host__ __device__ I operator()(I i) const { return i * width; }
};
template <typename I> struct RowOf {
  I width;
  __host__ __device__ I operator()(I i) const { return i / width; }
};

template <typename T> cudaError_t rows_reduce_sum(const void* in, void* out, uint64_t rows, uint64_t width, void* temp, size_t* temp_bytes, cudaStream_t s) {
  if (width == 0) return cudaErrorInvalidValue;
  auto run = [&](auto zero) {
    using I = decltype(zero);
    auto starts = thrust::make_transform_iterator(thrust::make_counting_iterator<I>(0), RowStart<I>{static_cast<I>(width)});
    return cub::DeviceSegmentedReduce::Sum(temp, *temp_bytes, static_cast<const T*>(in), static_cast<T*>(out),
                                           static_cast<int64_t>(rows), starts, starts + 1, s);
  };
  return rows * width < 0x7fffffffull ? run(int32_t{0}) : run(int64_t{0});
}
template <typename T> cudaError_t rows_scan_sum(const void* in, void* out, uint64_t rows, uint64_t width, void* temp, size_t* temp_bytes, cudaStream_t s) {
  if (width == 0) return cudaErrorInvalidValue;
  return with_count(rows * width, [&](auto c) {
    using I = decltype(c);
    auto keys = thrust::make_transform_iterator(thrust::make_counting_iterator<I>(0), RowOf<I>{static_cast<I>(width)});
    return cub::DeviceScan::InclusiveSumByKey(temp, *temp_bytes, keys, static_cast<const T*>(in), static_cast<T*>(out), c,
                                              cuda::std::equal_to<>{}, s);
  });
}

// One warp per row, as warpkit's rows operations: cub::WarpReduce / cub::WarpScan in a plain
// grid-stride kernel of 256 threads (the comparison the README's rows figures were taken with).
template <typename T>
__global__ void rows_warp_reduce_kernel(const T* in, T* out, uint64_t rows, uint64_t width) {
  using WarpReduce = cub::WarpReduce<T>;
  __shared__ typename WarpReduce::TempStorage tmp[8];
  const unsigned lane = threadIdx.x % 32, w = threadIdx.x / 32;
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x / 32;
  for (uint64_t row = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; row < rows; row += stride) {
    const T* r = in + row * width;
    T acc = T(0);
    for (uint64_t i = lane; i < width; i += 32) acc += r[i];
    T total = WarpReduce(tmp[w]).Sum(acc);
    if (lane == 0) out[row] = total;
    __syncwarp();
  }
}

template <typename T>
__global__ void rows_warp_scan_kernel(const T* in, T* out, uint64_t rows, uint64_t width) {
  using WarpScan = cub::WarpScan<T>;
  __shared__ typename WarpScan::TempStorage tmp[8];
  const unsigned lane = threadIdx.x % 32, w = threadIdx.x / 32;
  const uint64_t stride = (uint64_t)gridDim.x * blockDim.x / 32;
  for (uint64_t row = ((uint64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32; row < rows; row += stride) {
    const T* r = in + row * width;
    T* o = out + row * width;
    T carry = T(0);
    for (uint64_t base = 0; base < width; base += 32 * 4) {
      T items[4];
      for (int k = 0; k < 4; k++) {
        uint64_t i = base + lane * 4 + k;
        items[k] = i < width ? r[i] : T(0);
      }
      T total = items[0] + items[1] + items[2] + items[3], before, aggregate;
      WarpScan(tmp[w]).ExclusiveSum(total, before, aggregate);
      __syncwarp();
      T run = carry + before;
      for (int k = 0; k < 4; k++) {
        uint64_t i = base + lane * 4 + k;
        run += items[k];
        if (i < width) o[i] = run;
      }
      carry += aggregate;
    }
  }
}

// Blocks for the warp-per-row kernels: 8 rows per block, at most 64 blocks per SM.
inline cudaError_t row_blocks(uint64_t rows, unsigned* blocks) {
  int device = 0, sms = 0;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  uint64_t want = rows / 8 + 1, most = (uint64_t)sms * 64;
  *blocks = (unsigned)(want < most ? want : most);
  return e;
}

template <typename T> cudaError_t rows_warp_reduce_sum(const void* in, void* out, uint64_t rows, uint64_t width, void* temp, size_t* temp_bytes, cudaStream_t s) {
  if (temp == nullptr) { *temp_bytes = 0; return cudaSuccess; }
  unsigned blocks;
  cudaError_t e = row_blocks(rows, &blocks);
  if (e != cudaSuccess) return e;
  rows_warp_reduce_kernel<T><<<blocks, 256, 0, s>>>(static_cast<const T*>(in), static_cast<T*>(out), rows, width);
  return cudaGetLastError();
}
template <typename T> cudaError_t rows_warp_scan_sum(const void* in, void* out, uint64_t rows, uint64_t width, void* temp, size_t* temp_bytes, cudaStream_t s) {
  if (temp == nullptr) { *temp_bytes = 0; return cudaSuccess; }
  unsigned blocks;
  cudaError_t e = row_blocks(rows, &blocks);
  if (e != cudaSuccess) return e;
  rows_warp_scan_kernel<T><<<blocks, 256, 0, s>>>(static_cast<const T*>(in), static_cast<T*>(out), rows, width);
  return cudaGetLastError();
}

}  // namespace

#define WK_ARGS const void *in, void *out, uint64_t n, void *temp, size_t *temp_bytes, cudaStream_t stream
#define WK_PASS in, out, n, temp, temp_bytes, stream
#define WK_ROW_ARGS const void *in, void *out, uint64_t rows, uint64_t width, void *temp, size_t *temp_bytes, cudaStream_t stream
#define WK_ROW_PASS in, out, rows, width, temp, temp_bytes, stream

#ifndef WK_SKIP_COMMON
// CUB_VERSION: major * 100000 + minor * 100 + patch.
extern "C" int warpkit_cub_version(void) { return CUB_VERSION; }
extern "C" const char* warpkit_cub_error_string(int error) { return cudaGetErrorString(static_cast<cudaError_t>(error)); }
// The halves (H: __half, __nv_bfloat16) with an f32 accumulator: the accumulator type CUB
// picks is the operator's result, plus<float>(float, H) -> float.
template <typename H> cudaError_t half_reduce_sum(WK_ARGS) {
  return with_count(n, [&](auto c) {
    return cub::DeviceReduce::Reduce(temp, *temp_bytes, static_cast<const H*>(in), static_cast<float*>(out), c,
                                     cuda::std::plus<float>{}, 0.0f, stream);
  });
}
template <typename H> cudaError_t half_scan_inclusive_sum(WK_ARGS) {
  return with_count(n, [&](auto c) {
    return cub::DeviceScan::InclusiveScan(temp, *temp_bytes, static_cast<const H*>(in), static_cast<H*>(out),
                                          cuda::std::plus<float>{}, c, stream);
  });
}
// The value, then its index (an unsigned integer of the value's width, at byte IndexAt: 4 for
// the halves, whose value leaves bytes 2-3 as they were): warpkit's layout.
template <typename T, typename Index, size_t IndexAt = sizeof(T)>
int arg_min(WK_ARGS) {
  T* value = static_cast<T*>(out);
  Index* index = reinterpret_cast<Index*>(static_cast<char*>(out) + IndexAt);
  return cub::DeviceReduce::ArgMin(temp, *temp_bytes, static_cast<const T*>(in), value, index,
                                   static_cast<int64_t>(n), stream);
}
extern "C" int warpkit_cub_reduce_sum_f16(WK_ARGS) { return half_reduce_sum<__half>(WK_PASS); }
extern "C" int warpkit_cub_reduce_min_f16(WK_ARGS) { return reduce_min<__half>(WK_PASS); }
extern "C" int warpkit_cub_reduce_max_f16(WK_ARGS) { return reduce_max<__half>(WK_PASS); }
extern "C" int warpkit_cub_scan_inclusive_sum_f16(WK_ARGS) { return half_scan_inclusive_sum<__half>(WK_PASS); }
extern "C" int warpkit_cub_arg_min_f16(WK_ARGS) { return arg_min<__half, uint32_t, 4>(WK_PASS); }
extern "C" int warpkit_cub_reduce_sum_bf16(WK_ARGS) { return half_reduce_sum<__nv_bfloat16>(WK_PASS); }
extern "C" int warpkit_cub_reduce_min_bf16(WK_ARGS) { return reduce_min<__nv_bfloat16>(WK_PASS); }
extern "C" int warpkit_cub_reduce_max_bf16(WK_ARGS) { return reduce_max<__nv_bfloat16>(WK_PASS); }
extern "C" int warpkit_cub_scan_inclusive_sum_bf16(WK_ARGS) { return half_scan_inclusive_sum<__nv_bfloat16>(WK_PASS); }
extern "C" int warpkit_cub_arg_min_bf16(WK_ARGS) { return arg_min<__nv_bfloat16, uint32_t, 4>(WK_PASS); }
extern "C" int warpkit_cub_arg_min_f32(WK_ARGS) { return arg_min<float, uint32_t>(WK_PASS); }
extern "C" int warpkit_cub_arg_min_f64(WK_ARGS) { return arg_min<double, uint64_t>(WK_PASS); }
#endif

// u32
#ifndef WK_SKIP_U32
extern "C" int warpkit_cub_reduce_sum_u32(WK_ARGS) { return reduce_sum<uint32_t>(WK_PASS); }
extern "C" int warpkit_cub_reduce_min_u32(WK_ARGS) { return reduce_min<uint32_t>(WK_PASS); }
extern "C" int warpkit_cub_reduce_max_u32(WK_ARGS) { return reduce_max<uint32_t>(WK_PASS); }
extern "C" int warpkit_cub_scan_inclusive_sum_u32(WK_ARGS) { return scan_inclusive_sum<uint32_t>(WK_PASS); }
extern "C" int warpkit_cub_scan_exclusive_sum_u32(WK_ARGS) { return scan_exclusive_sum<uint32_t>(WK_PASS); }
extern "C" int warpkit_cub_scan_inclusive_min_u32(WK_ARGS) { return scan_inclusive_min<uint32_t>(WK_PASS); }
extern "C" int warpkit_cub_scan_inclusive_max_u32(WK_ARGS) { return scan_inclusive_max<uint32_t>(WK_PASS); }
extern "C" int warpkit_cub_scan_exclusive_min_u32(WK_ARGS) { return scan_exclusive_min<uint32_t>(WK_PASS); }
extern "C" int warpkit_cub_scan_exclusive_max_u32(WK_ARGS) { return scan_exclusive_max<uint32_t>(WK_PASS); }
extern "C" int warpkit_cub_rows_reduce_sum_u32(WK_ROW_ARGS) { return rows_reduce_sum<uint32_t>(WK_ROW_PASS); }
extern "C" int warpkit_cub_rows_scan_sum_u32(WK_ROW_ARGS) { return rows_scan_sum<uint32_t>(WK_ROW_PASS); }
extern "C" int warpkit_cub_rows_warp_reduce_sum_u32(WK_ROW_ARGS) { return rows_warp_reduce_sum<uint32_t>(WK_ROW_PASS); }
extern "C" int warpkit_cub_rows_warp_scan_sum_u32(WK_ROW_ARGS) { return rows_warp_scan_sum<uint32_t>(WK_ROW_PASS); }
#endif
// i32
#ifndef WK_SKIP_I32
extern "C" int warpkit_cub_reduce_sum_i32(WK_ARGS) { return reduce_sum<int32_t>(WK_PASS); }
extern "C" int warpkit_cub_reduce_min_i32(WK_ARGS) { return reduce_min<int32_t>(WK_PASS); }
extern "C" int warpkit_cub_reduce_max_i32(WK_ARGS) { return reduce_max<int32_t>(WK_PASS); }
extern "C" int warpkit_cub_scan_inclusive_sum_i32(WK_ARGS) { return scan_inclusive_sum<int32_t>(WK_PASS); }
extern "C" int warpkit_cub_scan_exclusive_sum_i32(WK_ARGS) { return scan_exclusive_sum<int32_t>(WK_PASS); }
extern "C" int warpkit_cub_scan_inclusive_min_i32(WK_ARGS) { return scan_inclusive_min<int32_t>(WK_PASS); }
extern "C" int warpkit_cub_scan_inclusive_max_i32(WK_ARGS) { return scan_inclusive_max<int32_t>(WK_PASS); }
extern "C" int warpkit_cub_scan_exclusive_min_i32(WK_ARGS) { return scan_exclusive_min<int32_t>(WK_PASS); }
extern "C" int warpkit_cub_scan_exclusive_max_i32(WK_ARGS) { return scan_exclusive_max<int32_t>(WK_PASS); }
extern "C" int warpkit_cub_rows_reduce_sum_i32(WK_ROW_ARGS) { return rows_reduce_sum<int32_t>(WK_ROW_PASS); }
extern "C" int warpkit_cub_rows_scan_sum_i32(WK_ROW_ARGS) { return rows_scan_sum<int32_t>(WK_ROW_PASS); }
extern "C" int warpkit_cub_rows_warp_reduce_sum_i32(WK_ROW_ARGS) { return rows_warp_reduce_sum<int32_t>(WK_ROW_PASS); }
extern "C" int warpkit_cub_rows_warp_scan_sum_i32(WK_ROW_ARGS) { return rows_warp_scan_sum<int32_t>(WK_ROW_PASS); }
#endif
// u64
#ifndef WK_SKIP_U64
extern "C" int warpkit_cub_reduce_sum_u64(WK_ARGS) { return reduce_sum<uint64_t>(WK_PASS); }
extern "C" int warpkit_cub_reduce_min_u64(WK_ARGS) { return reduce_min<uint64_t>(WK_PASS); }
extern "C" int warpkit_cub_reduce_max_u64(WK_ARGS) { return reduce_max<uint64_t>(WK_PASS); }
extern "C" int warpkit_cub_scan_inclusive_sum_u64(WK_ARGS) { return scan_inclusive_sum<uint64_t>(WK_PASS); }
extern "C" int warpkit_cub_scan_exclusive_sum_u64(WK_ARGS) { return scan_exclusive_sum<uint64_t>(WK_PASS); }
extern "C" int warpkit_cub_scan_inclusive_min_u64(WK_ARGS) { return scan_inclusive_min<uint64_t>(WK_PASS); }
extern "C" int warpkit_cub_scan_inclusive_max_u64(WK_ARGS) { return scan_inclusive_max<uint64_t>(WK_PASS); }
extern "C" int warpkit_cub_scan_exclusive_min_u64(WK_ARGS) { return scan_exclusive_min<uint64_t>(WK_PASS); }
extern "C" int warpkit_cub_scan_exclusive_max_u64(WK_ARGS) { return scan_exclusive_max<uint64_t>(WK_PASS); }
extern "C" int warpkit_cub_rows_reduce_sum_u64(WK_ROW_ARGS) { return rows_reduce_sum<uint64_t>(WK_ROW_PASS); }
extern "C" int warpkit_cub_rows_scan_sum_u64(WK_ROW_ARGS) { return rows_scan_sum<uint64_t>(WK_ROW_PASS); }
extern "C" int warpkit_cub_rows_warp_reduce_sum_u64(WK_ROW_ARGS) { return rows_warp_reduce_sum<uint64_t>(WK_ROW_PASS); }
extern "C" int warpkit_cub_rows_warp_scan_sum_u64(WK_ROW_ARGS) { return rows_warp_scan_sum<uint64_t>(WK_ROW_PASS); }
#endif
// i64
#ifndef WK_SKIP_I64
extern "C" int warpkit_cub_reduce_sum_i64(WK_ARGS) { return reduce_sum<int64_t>(WK_PASS); }
extern "C" int warpkit_cub_reduce_min_i64(WK_ARGS) { return reduce_min<int64_t>(WK_PASS); }
extern "C" int warpkit_cub_reduce_max_i64(WK_ARGS) { return reduce_max<int64_t>(WK_PASS); }
extern "C" int warpkit_cub_scan_inclusive_sum_i64(WK_ARGS) { return scan_inclusive_sum<int64_t>(WK_PASS); }
extern "C" int warpkit_cub_scan_exclusive_sum_i64(WK_ARGS) { return scan_exclusive_sum<int64_t>(WK_PASS); }
extern "C" int warpkit_cub_scan_inclusive_min_i64(WK_ARGS) { return scan_inclusive_min<int64_t>(WK_PASS); }
extern "C" int warpkit_cub_scan_inclusive_max_i64(WK_ARGS) { return scan_inclusive_max<int64_t>(WK_PASS); }
extern "C" int warpkit_cub_scan_exclusive_min_i64(WK_ARGS) { return scan_exclusive_min<int64_t>(WK_PASS); }
extern "C" int warpkit_cub_scan_exclusive_max_i64(WK_ARGS) { return scan_exclusive_max<int64_t>(WK_PASS); }
extern "C" int warpkit_cub_rows_reduce_sum_i64(WK_ROW_ARGS) { return rows_reduce_sum<int64_t>(WK_ROW_PASS); }
extern "C" int warpkit_cub_rows_scan_sum_i64(WK_ROW_ARGS) { return rows_scan_sum<int64_t>(WK_ROW_PASS); }
extern "C" int warpkit_cub_rows_warp_reduce_sum_i64(WK_ROW_ARGS) { return rows_warp_reduce_sum<int64_t>(WK_ROW_PASS); }
extern "C" int warpkit_cub_rows_warp_scan_sum_i64(WK_ROW_ARGS) { return rows_warp_scan_sum<int64_t>(WK_ROW_PASS); }
#endif
// f32
#ifndef WK_SKIP_F32
extern "C" int warpkit_cub_reduce_sum_f32(WK_ARGS) { return reduce_sum<float>(WK_PASS); }
extern "C" int warpkit_cub_reduce_min_f32(WK_ARGS) { return reduce_min<float>(WK_PASS); }
extern "C" int warpkit_cub_reduce_max_f32(WK_ARGS) { return reduce_max<float>(WK_PASS); }
extern "C" int warpkit_cub_scan_inclusive_sum_f32(WK_ARGS) { return scan_inclusive_sum<float>(WK_PASS); }
extern "C" int warpkit_cub_scan_exclusive_sum_f32(WK_ARGS) { return scan_exclusive_sum<float>(WK_PASS); }
extern "C" int warpkit_cub_scan_inclusive_min_f32(WK_ARGS) { return scan_inclusive_min<float>(WK_PASS); }
extern "C" int warpkit_cub_scan_inclusive_max_f32(WK_ARGS) { return scan_inclusive_max<float>(WK_PASS); }
extern "C" int warpkit_cub_scan_exclusive_min_f32(WK_ARGS) { return scan_exclusive_min<float>(WK_PASS); }
extern "C" int warpkit_cub_scan_exclusive_max_f32(WK_ARGS) { return scan_exclusive_max<float>(WK_PASS); }
extern "C" int warpkit_cub_rows_reduce_sum_f32(WK_ROW_ARGS) { return rows_reduce_sum<float>(WK_ROW_PASS); }
extern "C" int warpkit_cub_rows_scan_sum_f32(WK_ROW_ARGS) { return rows_scan_sum<float>(WK_ROW_PASS); }
extern "C" int warpkit_cub_rows_warp_reduce_sum_f32(WK_ROW_ARGS) { return rows_warp_reduce_sum<float>(WK_ROW_PASS); }
extern "C" int warpkit_cub_rows_warp_scan_sum_f32(WK_ROW_ARGS) { return rows_warp_scan_sum<float>(WK_ROW_PASS); }
#endif
// f64
#ifndef WK_SKIP_F64
extern "C" int warpkit_cub_reduce_sum_f64(WK_ARGS) { return reduce_sum<double>(WK_PASS); }
extern "C" int warpkit_cub_reduce_min_f64(WK_ARGS) { return reduce_min<double>(WK_PASS); }
extern "C" int warpkit_cub_reduce_max_f64(WK_ARGS) { return reduce_max<double>(WK_PASS); }
extern "C" int warpkit_cub_scan_inclusive_sum_f64(WK_ARGS) { return scan_inclusive_sum<double>(WK_PASS); }
extern "C" int warpkit_cub_scan_exclusive_sum_f64(WK_ARGS) { return scan_exclusive_sum<double>(WK_PASS); }
extern "C" int warpkit_cub_scan_inclusive_min_f64(WK_ARGS) { return scan_inclusive_min<double>(WK_PASS); }
extern "C" int warpkit_cub_scan_inclusive_max_f64(WK_ARGS) { return scan_inclusive_max<double>(WK_PASS); }
extern "C" int warpkit_cub_scan_exclusive_min_f64(WK_ARGS) { return scan_exclusive_min<double>(WK_PASS); }
extern "C" int warpkit_cub_scan_exclusive_max_f64(WK_ARGS) { return scan_exclusive_max<double>(WK_PASS); }
extern "C" int warpkit_cub_rows_reduce_sum_f64(WK_ROW_ARGS) { return rows_reduce_sum<double>(WK_ROW_PASS); }
extern "C" int warpkit_cub_rows_scan_sum_f64(WK_ROW_ARGS) { return rows_scan_sum<double>(WK_ROW_PASS); }
extern "C" int warpkit_cub_rows_warp_reduce_sum_f64(WK_ROW_ARGS) { return rows_warp_reduce_sum<double>(WK_ROW_PASS); }
extern "C" int warpkit_cub_rows_warp_scan_sum_f64(WK_ROW_ARGS) { return rows_warp_scan_sum<double>(WK_ROW_PASS); }
#endif
