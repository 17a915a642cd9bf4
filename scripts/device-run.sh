#!/usr/bin/env bash
# Runs on the GPU machine (no cargo there), from the repository root, over the executables
# that `cargo xtask gpu-pack` put in .device/bin (carried as .device/pack.tar.xz). Usage: scripts/device-run.sh [suite|bench|pairs|sanitize|multi]...
# Results and logs go to $OUT (the device tool's output folder) or ./device-out.
set -u
# NVLink SHARP needs multicast objects, which these machines must not create: NCCL must not try.
export NCCL_NVLS_ENABLE=0
out=${OUT:-device-out}; mkdir -p "$out"
bin=.device/bin
# gpu-pack's archive (what is carried): unpacked when newer than the last unpacking.
if [ -f .device/pack.tar.xz ] && [ ! .device/unpacked -nt .device/pack.tar.xz ]; then
  rm -rf "$bin" && python3 -c 'import tarfile; tarfile.open(".device/pack.tar.xz").extractall(".device")' \
    && touch .device/unpacked
fi
status=0
run() { echo "== $*"; "$@" 2>&1 | tee -a "$out/log.txt"; local s=${PIPESTATUS[0]}; [ "$s" = 0 ] || { echo "FAILED ($s): $*"; status=1; }; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$out/gpu.txt"
for task in "${@:-suite}"; do
  case $task in
    suite)
      # WARPKIT_REQUIRE_GPU=1: a test that finds no GPU fails instead of skipping.
      for t in "$bin"/test-conformance "$bin"/test-algorithms "$bin"/test-defects "$bin"/test-determinism "$bin"/test-cust; do
        [ -e "$t" ] || { echo "FAILED: $t was not carried"; status=1; continue; }
        WARPKIT_REQUIRE_GPU=1 run "$t" --test-threads=1 --nocapture
      done
      # A crate outside the workspace, as the README tells a new user: its own custom-operator scan.
      run "$bin"/bin-outside-user
      # The example app: every authoring feature, and module load times (cold JIT: no cache).
      CUDA_CACHE_DISABLE=1 run "$bin"/bin-user-app ;;
    bench|pairs)
      # The benchmarks build CUB's library (benches/cub/cub_lib.cu) with nvcc at start.
      export PATH="$PATH:/usr/local/cuda/bin"
      # bench-pairs: checks every CUB entry point, then paired CUB A/A and copy-vs-CUB timings.
      WARPKIT_BENCH_OUT="$out/bench" run "$bin"/bench-pairs --bench
      [ "$task" = pairs ] || WARPKIT_BENCH_OUT="$out/bench" run "$bin"/bench-throughput --bench ${BENCH_ARGS:-} ;;
    sanitize)
      # Every kernel family through the CLI (which checks each result against the CPU), at
      # ragged sizes: reduce, arg-reduce, inclusive and exclusive scans, rows, segments.
      for tool in memcheck racecheck synccheck initcheck; do
        cs() { run compute-sanitizer --tool $tool --error-exitcode 1 "$bin"/bin-warpkit "$@"; }
        cs reduce --type f32 --n 1000003
        cs reduce --type f16 --op max --n 300007
        cs arg-min --type f64 --n 1000003
        cs arg-max --type i32 --n 70001
        cs arg-min --type bf16 --n 300007 --offset 1
        cs inclusive-scan --type u64 --op max --n 1000003
        cs exclusive-scan --type f64 --n 70001
        cs inclusive-scan --type bf16 --n 70001
        # At most 16 tiles: one thread block cluster on sm_90+ (tile totals in shared memory).
        cs inclusive-scan --type f32 --n 65533
        cs exclusive-scan --type f64 --n 32763 --offset 1
        # Grids of several waves (more tiles than resident blocks), a partial last tile.
        cs inclusive-scan --type u32 --n 8388613
        cs exclusive-scan --type f64 --n 4194311
        # Inputs and outputs 1-3 items into their buffers (unaligned tiles).
        cs inclusive-scan --type u32 --n 8388613 --offset 1
        cs exclusive-scan --type f32 --n 1000003 --offset 3
        cs inclusive-scan --type i64 --op min --n 4194311 --offset 1
        cs inclusive-scan --type f16 --n 1000003 --offset 1
        cs reduce --type u64 --n 1000003 --offset 1
        cs rows-reduce --type f32 --n 300007 --width 1000
        # Rows of 4096 items or more: a block per row (vectors where aligned, items otherwise).
        cs rows-reduce --type f32 --n 300005 --width 60001 --offset 1
        cs rows-reduce --type u64 --op max --n 262144 --width 65536
        cs rows-scan --type i64 --op min --n 300007 --width 333 --exclusive
        cs segments-reduce --type u32 --n 300007 --width 500
        cs segments-scan --type f32 --n 300007 --width 500
        cs segments-scan --type u64 --op max --n 300007 --width 77 --exclusive
      done
      # The example app (custom types through custom_kernels!, user kernels) under memcheck.
      # Its children apart: the `assert` child traps on purpose (memcheck reports the trap),
      # and on one GPU (the app's NCCL child under a sanitized parent hangs; `multi` runs it).
      CUDA_VISIBLE_DEVICES=0 run compute-sanitizer --tool memcheck --target-processes application-only \
        --error-exitcode 1 "$bin"/bin-user-app
      run compute-sanitizer --tool memcheck --error-exitcode 1 "$bin"/bin-user-app --child print ;;
    multi)
      # Sharded reduce/scan over the GPUs through NCCL (pip wheel nvidia-nccl-cu13, found at
      # run time; WARPKIT_NCCL_LIB=/path/libnccl.so.2 overrides). MULTI_GPUS=2 makes a machine
      # with fewer GPUs fail instead of testing the one-rank path only.
      WARPKIT_REQUIRE_GPU=1 WARPKIT_REQUIRE_GPUS=${MULTI_GPUS:-0} run "$bin"/test-multi --test-threads=1 --nocapture
      # A user's own type (the example app's affine maps) over two GPUs: one process, then one
      # rank per process (MultiGpu::from_rank).
      WARPKIT_REQUIRE_GPUS=${MULTI_GPUS:-0} run "$bin"/bin-user-app --child multi
      WARPKIT_BENCH_OUT="$out/bench" run "$bin"/bench-multi --bench ${BENCH_ARGS:-}
      # memcheck over the sharded kernels at small ragged sizes (slow with NCCL: one test).
      # NCCL's own initialisation returns CUDA API errors it handles (peer access already
      # enabled, kernel-image probes): memcheck reports memory errors only.
      WARPKIT_REQUIRE_GPU=1 run compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 1 \
        "$bin"/test-multi --test-threads=1 --nocapture ragged_shards_small ;;
  esac
done
exit $status
