#!/usr/bin/env bash
# On the GPU machine (CUDA toolkit there), from the repository root: assembles the sm_90 PTX of
# warpkit's test kernels (carried in .device/ptx) and the CUDA twins in scripts/sass/intrinsics.cu to SASS, and
# prints, per instruction shim, the SASS instruction count of each (NOPs left out) and the
# warp instructions each contains.
set -euo pipefail
out=${OUT:-device-out}; mkdir -p "$out"
ptxas -arch=sm_90 .device/ptx/warpkit_test_kernels.sm_90.ptx -o "$out/warpkit.cubin"
nvcc -cubin -O3 -arch=sm_90 scripts/sass/intrinsics.cu -o "$out/cuda.cubin"
cuobjdump -sass "$out/warpkit.cubin" > "$out/warpkit.sass"
cuobjdump -sass "$out/cuda.cubin" > "$out/cuda.sass"
python3 - "$out/warpkit.sass" "$out/cuda.sass" <<'PY'
import re, sys
def functions(path):
    funcs, name = {}, None
    for line in open(path):
        m = re.search(r"Function : (\S+)", line)
        if m:
            name = m.group(1); funcs[name] = []
        elif name and re.search(r"/\*[0-9a-f]{4}\*/", line):
            op = line.split("*/", 1)[1].strip().rstrip(";").split()
            if op and op[0].startswith("@"): op = op[1:]
            if op and op[0] != "NOP": funcs[name].append(op[0])
    return funcs
ours, cuda = functions(sys.argv[1]), functions(sys.argv[2])
warp = ("SHFL", "VOTE", "MATCH", "REDUX", "WARPSYNC", "S2R", "BAR")
print(f"{'shim':<24}{'warpkit':>8}{'CUDA':>6}  warp instructions (warpkit | CUDA)")
same = 0
for name in sorted(k for k in cuda if k.startswith("cuda_")):
    shim = "warpkit_instr_" + name[5:]
    if shim not in ours: continue
    o, c = ours[shim], cuda[name]
    key = lambda ops: " ".join(sorted(x for x in ops if x.split(".")[0] in warp))
    same += len(o) == len(c)
    print(f"{name[5:]:<24}{len(o):>8}{len(c):>6}  {key(o)} | {key(c)}")
print(f"{same} of {sum(1 for k in cuda if k.startswith('cuda_'))} shims have the same SASS instruction count")
PY
