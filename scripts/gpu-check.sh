#!/usr/bin/env bash
# The CUDA runner's check on a real NVIDIA GPU (issue 29; docs/cuda.md#on-a-gpu). Runs on the
# GPU machine, from the repository root, with .gpu/ and .whl/ made here by scripts/gpu-pack.sh:
#   1. finds that machine's NVRTC, cuBLAS and CUDA runtime (or says where it looked: exit 3);
#   2. nvidia-smi's read-only report of the GPU (nothing is ever set: no clock, power or mode);
#   3. the CUDA tests, the `gpu` ones included (tests/cuda), and both CUDA examples;
#   4. Kernel Tuner tunes our GEMM (bench/cuda/kernel_tuner_gemm.py: its default strategies and
#      its best LLM-generated one, the same space, budgets and seed as ours);
#   5. bench/cuda_bench: cuBLAS, the brute-forced record of our GEMM's space and every policy's
#      fraction of its optimum, every policy live at 25..200 evaluations, Kernel Tuner's rows
#      merged: cuda_bench.json and cuda_bench.svg.
# Everything lands in OUT_DIR (at most 8 files: gpu-check.log, nvidia-smi.txt, gpu_tests.log,
# kernel_tuner.json, cuda_bench.json, cuda_bench.svg, the recorded Kernel Tuner cache).
#
#   scripts/gpu-check.sh OUT_DIR [--quick] [--size N] [--record N] [--kt-time-limit S]
#
# --quick: 2048^3, 400 recorded configurations, 30 s per Kernel Tuner strategy (about 4 min);
# the default (4096^3, every valid configuration, 60 s per strategy) takes about 9 min on an H100.
# Exit: 0 all ran, 1 a step failed (the others still run; the log says which), 2 usage, 3 the
# CUDA libraries or .gpu/ not found.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

out="${1:-}"
[[ -n "$out" && "$out" != -* ]] || { sed -n '2,22p' "$0"; exit 2; }
shift
size=4096
record=0
kt_time_limit=60
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) size=2048; record=400; kt_time_limit=30; shift ;;
    --size) size="$2"; shift 2 ;;
    --record) record="$2"; shift 2 ;;
    --kt-time-limit) kt_time_limit="$2"; shift 2 ;;
    *) echo "gpu-check: unknown option $1" >&2; exit 2 ;;
  esac
done
mkdir -p "$out"
log="$out/gpu-check.log"
exec > >(tee -a "$log") 2>&1
start=$SECONDS
failed=()
step() { echo; echo "== [$((SECONDS - start)) s] $*"; }

[[ -x .gpu/bin/cuda_bench ]] || { echo "gpu-check: .gpu/bin/cuda_bench missing: run scripts/gpu-pack.sh here first and carry .gpu"; exit 3; }

# --- 1. The CUDA libraries of this machine ----------------------------------------------------
step "CUDA libraries"
find_lib() {  # prints the directory holding $1, searching the usual places
  local name="$1" d
  for d in /usr/local/cuda/lib64 /usr/local/cuda/targets/x86_64-linux/lib /usr/local/cuda-13*/lib64 \
           /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/lib; do
    [[ -e "$d/$name" ]] && { echo "$d"; return 0; }
  done
  # pip's NVIDIA wheels (PyTorch's, CuPy's): site-packages/nvidia/*/lib
  d=$(python3 - "$name" 2>/dev/null <<'PY'
import glob, site, sys
for base in site.getsitepackages() + [site.getusersitepackages()]:
    for hit in glob.glob(f"{base}/nvidia/**/{sys.argv[1]}", recursive=True):
        print(hit.rsplit("/", 1)[0]); raise SystemExit
PY
)
  [[ -n "$d" ]] && { echo "$d"; return 0; }
  d=$(ldconfig -p 2>/dev/null | awk -v n="$name" '$1 == n {print $NF; exit}')
  [[ -n "$d" ]] && { dirname "$d"; return 0; }
  return 1
}
lib_path="$PWD/.gpu/lib"
for name in libnvrtc.so.13 libnvrtc-builtins.so.13.0 libcublas.so.13 libcublasLt.so.13 libcudart.so.13; do
  if dir=$(find_lib "$name"); then
    echo "$name: $dir"
    [[ ":$lib_path:" == *":$dir:"* ]] || lib_path="$lib_path:$dir"
  else
    echo "gpu-check: $name not found (looked in /usr/local/cuda*/lib64, /usr/lib/x86_64-linux-gnu," \
         "/usr/lib64, /usr/local/lib, python's site-packages/nvidia/*/lib and ldconfig's cache)"
    [[ "$name" == libnvrtc-builtins* ]] || exit 3
  fi
done
# .gpu/lib last but one: this machine's own C++ runtime first when it is new enough.
export LD_LIBRARY_PATH="${lib_path#"$PWD/.gpu/lib:"}:$PWD/.gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
if ! .gpu/bin/cuda_bench --help >/dev/null 2>&1; then
  echo "gpu-check: the binaries do not start with this machine's libraries; trying ours first"
  export LD_LIBRARY_PATH="$PWD/.gpu/lib:$LD_LIBRARY_PATH"
  .gpu/bin/cuda_bench --help >/dev/null || { ldd .gpu/bin/cuda_bench; exit 3; }
fi

# --- 2. The GPU, as it is (read-only) ---------------------------------------------------------
step "nvidia-smi (read-only)"
if command -v nvidia-smi >/dev/null; then
  nvidia-smi -q > "$out/nvidia-smi.txt" 2>&1
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.draw,power.limit,temperature.gpu --format=csv
else
  echo "no nvidia-smi" | tee "$out/nvidia-smi.txt"
fi

# --- 3. Tests and examples --------------------------------------------------------------------
step "tests/cuda (the gpu cases included)"
# The CPU emulation's cases find tests/ here (they need a C++ compiler; skipped without one).
AOE_TESTS_SOURCE_DIR="$PWD/tests" .gpu/bin/aoe_test_cuda --no-version --duration=true \
  > "$out/gpu_tests.log" 2>&1
rc=$?
tail -n 25 "$out/gpu_tests.log"
grep -q "SKIPPED: no CUDA GPU" "$out/gpu_tests.log" && { echo "gpu-check: the gpu tests skipped: no GPU seen"; failed+=(tests); }
[[ $rc -eq 0 ]] || failed+=(tests)
step "examples"
# Exit 77 (skipped: no GPU) is a failure here: this script is for a machine with one.
.gpu/bin/aoe_example_cuda_gemm --size 1024 --evaluations 25 || failed+=(cuda_gemm)
.gpu/bin/aoe_example_cuda_convolution --size 2048 --evaluations 25 || failed+=(cuda_convolution)

# --- 4. Kernel Tuner on the same kernel -------------------------------------------------------
step "Kernel Tuner (bench/cuda/kernel_tuner_gemm.py)"
spec_dir=$(mktemp -d)
kt_json=""
if .gpu/bin/cuda_bench --export-kernel-tuner "$spec_dir" --size "$size"; then
  if python3 -m pip install -q --no-index --no-deps --no-cache-dir --find-links .whl \
       --target /tmp/aoe_site -r .whl/requirements.txt; then
    python3 -c "import scipy" 2>/dev/null || echo "gpu-check: no scipy here: bayes_opt will be an error row (fetch-gpu-wheels.sh --with-scipy)"
    if PYTHONPATH=/tmp/aoe_site PYTHONUNBUFFERED=1 python3 bench/cuda/kernel_tuner_gemm.py \
         --spec "$spec_dir/kernel_tuner_spec.json" --json "$out/kernel_tuner.json" \
         --time-limit "$kt_time_limit"; then
      kt_json="$out/kernel_tuner.json"
    else
      failed+=(kernel_tuner)
    fi
  else
    echo "gpu-check: the wheels in .whl did not install"; failed+=(kernel_tuner)
  fi
else
  failed+=(kernel_tuner_spec)
fi

# --- 5. Our GEMM, cuBLAS, the recorded space, every policy ------------------------------------
step "bench/cuda_bench --size $size --record $record"
.gpu/bin/cuda_bench --json "$out/cuda_bench.json" --svg "$out/cuda_bench.svg" --size "$size" \
  --record "$record" --batch 16 ${kt_json:+--kernel-tuner-json "$kt_json"} || failed+=(cuda_bench)
[[ -f "$out/cuda_bench.json" ]] && python3 - "$out/cuda_bench.json" <<'PY' || true
import json, sys
d = json.load(open(sys.argv[1]))
print(f"{d['device']} ({d['compute_capability']}), {d['clock_mhz']} MHz, NVRTC {d['nvrtc']}, "
      f"{d['size']}^3, {d['space_valid']} valid configurations, {d['bench_seconds']:.0f} s")
for r in d["results"]:
    extra = f"  fraction {r['fraction_of_optimum']:.3f}" if "fraction_of_optimum" in r else ""
    print(f"  {r['tuner']:<40} {r['evaluations']:>4} eval  {r.get('best_gflops') or 0:9.1f} GFLOP/s"
          f"  {r.get('wall_seconds') or 0:7.1f} s{extra}")
PY

step "done in $((SECONDS - start)) s"
if [[ ${#failed[@]} -gt 0 ]]; then
  echo "gpu-check: failed: ${failed[*]}"
  exit 1
fi
echo "gpu-check: every step ran"
