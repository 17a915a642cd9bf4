// CUB's figures for the cases warpkit's benchmark measures, on the same GPU in the same run.
// Usage: cub_bench <reduce_sum|reduce_min|reduce_max|scan_inclusive_sum|scan_exclusive_sum|
//                   rows_reduce_sum|rows_scan_sum> <u32|f32|u64|f64> <n> [width]
// Prints the median time of one operation in milliseconds, over rotating input buffers.
// `--version` prints CUB's version.
#include <cub/cub.cuh>
#include <cuda/std/functional>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cstdint>
#include <vector>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

template <typename T, int WIDTH>
__global__ void rows_reduce(const T* in, T* out, size_t rows) {
  using WarpReduce = cub::WarpReduce<T>;
  __shared__ typename WarpReduce::TempStorage tmp[8];
  size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  for (; warp < rows; warp += (size_t)gridDim.x * blockDim.x / 32) {
    T acc = 0;
    const T* row = in + warp * WIDTH;
    for (int i = lane; i < WIDTH; i += 32) acc += row[i];
    T total = WarpReduce(tmp[w]).Sum(acc);
    if (lane == 0) out[warp] = total;
  }
}

template <typename T, int WIDTH>
__global__ void rows_scan(const T* in, T* out, size_t rows) {
  using WarpScan = cub::WarpScan<T>;
  __shared__ typename WarpScan::TempStorage tmp[8];
  size_t warp = (blockIdx.x * (size_t)blockDim.x + threadIdx.x) / 32;
  int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  for (; warp < rows; warp += (size_t)gridDim.x * blockDim.x / 32) {
    T carry = 0;
    for (int base = 0; base < WIDTH; base += 32 * 4) {
      T items[4];
      for (int k = 0; k < 4; k++) { int i = base + lane * 4 + k; items[k] = i < WIDTH ? in[warp * WIDTH + i] : T(0); }
      T total = items[0] + items[1] + items[2] + items[3], before, aggregate;
      WarpScan(tmp[w]).ExclusiveSum(total, before, aggregate);
      T run = carry + before;
      for (int k = 0; k < 4; k++) { int i = base + lane * 4 + k; run += items[k]; if (i < WIDTH) out[warp * WIDTH + i] = run; }
      carry += aggregate;
    }
  }
}

template <typename T>
double run(const char* algo, size_t n) {
  size_t bytes = n * sizeof(T);
  int buffers = (int)std::max<size_t>(1, std::min<size_t>(8, (size_t)(256u << 20) / std::max<size_t>(bytes, 1)));
  std::vector<T*> in(buffers);
  std::vector<T> host(n);
  for (size_t i = 0; i < n; i++) host[i] = (T)((i * 2654435761u) % 1000) - (T)(std::is_unsigned<T>::value ? 0 : 500);
  for (auto& p : in) { CHECK(cudaMalloc(&p, bytes)); CHECK(cudaMemcpy(p, host.data(), bytes, cudaMemcpyHostToDevice)); }
  T* out; CHECK(cudaMalloc(&out, bytes));
  void* tmp = nullptr; size_t tmp_bytes = 0;
  bool reduce = strncmp(algo, "reduce", 6) == 0;
  auto op = [&](T* src) {
    if (!strcmp(algo, "reduce_sum")) CHECK(cub::DeviceReduce::Sum(tmp, tmp_bytes, src, out, n));
    else if (!strcmp(algo, "reduce_min")) CHECK(cub::DeviceReduce::Min(tmp, tmp_bytes, src, out, n));
    else if (!strcmp(algo, "reduce_max")) CHECK(cub::DeviceReduce::Max(tmp, tmp_bytes, src, out, n));
    else if (!strcmp(algo, "scan_inclusive_sum")) CHECK(cub::DeviceScan::InclusiveSum(tmp, tmp_bytes, src, out, n));
    else if (!strcmp(algo, "scan_exclusive_sum")) CHECK(cub::DeviceScan::ExclusiveSum(tmp, tmp_bytes, src, out, n));
    else if (!strcmp(algo, "rows_reduce_sum")) { if (tmp) rows_reduce<T, 1024><<<(unsigned)std::min<size_t>(n / 1024 / 8 + 1, 132 * 64), 256>>>(src, out, n / 1024); }
    else if (!strcmp(algo, "rows_scan_sum")) { if (tmp) rows_scan<T, 1024><<<(unsigned)std::min<size_t>(n / 1024 / 8 + 1, 132 * 64), 256>>>(src, out, n / 1024); }
    else { fprintf(stderr, "unknown algorithm %s\n", algo); exit(2); }
  };
  op(in[0]);
  if (tmp_bytes == 0) tmp_bytes = 1;
  CHECK(cudaMalloc(&tmp, tmp_bytes));
  (void)reduce;
  for (int i = 0; i < 3; i++) op(in[i % buffers]);
  CHECK(cudaDeviceSynchronize());
  // Timed as warpkit's side is: back-to-back operations between two events, the median of
  // the per-operation averages of several batches.
  cudaEvent_t a, b; CHECK(cudaEventCreate(&a)); CHECK(cudaEventCreate(&b));
  std::vector<float> times;
  int per_batch = n >= (1u << 26) ? 4 : n >= (1u << 22) ? 32 : 256;
  for (int batch = 0; batch < 15; batch++) {
    CHECK(cudaEventRecord(a));
    for (int r = 0; r < per_batch; r++) op(in[(batch * per_batch + r) % buffers]);
    CHECK(cudaEventRecord(b));
    CHECK(cudaEventSynchronize(b));
    float ms; CHECK(cudaEventElapsedTime(&ms, a, b)); times.push_back(ms / per_batch);
  }
  CHECK(cudaGetLastError());
  std::sort(times.begin(), times.end());
  for (auto p : in) cudaFree(p);
  cudaFree(out); cudaFree(tmp);
  return times[times.size() / 2];
}

int main(int argc, char** argv) {
  if (argc == 2 && !strcmp(argv[1], "--version")) { printf("%d.%d.%d\n", CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION); return 0; }
  if (argc < 4) { fprintf(stderr, "usage: cub_bench ALGO TYPE N\n"); return 2; }
  size_t n = strtoull(argv[3], nullptr, 10);
  double ms;
  if (!strcmp(argv[2], "u32")) ms = run<uint32_t>(argv[1], n);
  else if (!strcmp(argv[2], "f32")) ms = run<float>(argv[1], n);
  else if (!strcmp(argv[2], "u64")) ms = run<uint64_t>(argv[1], n);
  else if (!strcmp(argv[2], "f64")) ms = run<double>(argv[1], n);
  else { fprintf(stderr, "unknown type %s\n", argv[2]); return 2; }
  printf("%.6f\n", ms);
  return 0;
}
