#!/usr/bin/env bash
# Builds the libFuzzer targets (docs/reliability.md#fuzzing) with Debian's clang 16, AddressSanitizer
# and UndefinedBehaviorSanitizer, into build/fuzz/ (or $1):
#   aoe_fuzz       the JSON readers; AOE_FUZZ_TARGET picks one (fuzz/aoe_fuzz.cpp)
#   aoe_fuzz_onnx  the ONNX loader (when libonnx-dev is installed)
# Packages: clang-16 libfuzzer-16-dev libclang-rt-16-dev (scripts/install-deps.sh).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
out="${1:-build/fuzz}"
mkdir -p "$out"
cxx="${AOE_FUZZ_CXX:-clang++-16}"
if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "fuzz/build.sh: $cxx not found (apt-get install clang-16 libfuzzer-16-dev libclang-rt-16-dev)" >&2
  exit 1
fi
# -O1 with line tables (file:line in every report, less to compile than full -g): the sanitizers'
# usual setting; every UB report is fatal.
flags=(-std=c++20 -O1 -gline-tables-only -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
  -fno-omit-frame-pointer -Iinclude -DBOOST_JSON_NO_LIB)
launcher=()
if command -v ccache >/dev/null 2>&1; then launcher=(ccache); fi
pids=()
"${launcher[@]}" "$cxx" "${flags[@]}" fuzz/aoe_fuzz.cpp -o "$out/aoe_fuzz" -lboost_json -lz &
pids+=($!)
if [[ -f /usr/include/onnx/onnx_pb.h ]]; then
  "${launcher[@]}" "$cxx" "${flags[@]}" -DONNX_NAMESPACE=onnx -DONNX_ML=1 -DAOE_WITH_ONNX=1 \
    fuzz/aoe_fuzz_onnx.cpp -o "$out/aoe_fuzz_onnx" -lonnx -lonnx_proto -lprotobuf -lboost_json -lz &
  pids+=($!)
else
  echo "fuzz/build.sh: no libonnx-dev: the ONNX target is not built" >&2
fi
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
exit $status
