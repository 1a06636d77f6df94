#!/usr/bin/env bash
# The Quick start's main job: operator tuning (OPAT) of a bundled model on the reference Ascend
# simulator. Installs the Debian packages it needs, builds the `aoe` command (Release), runs it.
#
#   scripts/tune-model.sh                                  ResNet-50, job type 2 (OPAT)
#   scripts/tune-model.sh --model=examples/models/bert_base.json --search=bayesian
#   scripts/tune-model.sh --framework=5 --model=../shared/models/ch_PP-OCRv4_det_infer.onnx \
#                         --input_shape="x:1,3,640,640" --job_type=2     an ONNX model
#
# Any argument is passed on to `aoe` (see docs/cli.md). The knowledge bank goes to
# $TUNE_BANK_PATH (default here: ./aoe_bank) and the result files to $ASCEND_WORK_PATH
# (default here: ./aoe_work), so a second run reuses what the first one stored.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
"$root/scripts/install-deps.sh"

build="$root/build/tools-release"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DAOE_BUILD_TESTS=OFF \
  -DAOE_BUILD_EXAMPLES=OFF -DAOE_BUILD_BENCHMARKS=OFF -DAOE_BUILD_TOOLS=ON >/dev/null
cmake --build "$build" --target aoe_tool_aoe

export TUNE_BANK_PATH="${TUNE_BANK_PATH:-$PWD/aoe_bank}"
export ASCEND_WORK_PATH="${ASCEND_WORK_PATH:-$PWD/aoe_work}"
mkdir -p "$TUNE_BANK_PATH" "$ASCEND_WORK_PATH"

args=("$@")
if [[ ${#args[@]} -eq 0 ]]; then
  args=(--model="$root/examples/models/resnet50.json" --job_type=2)
fi
exec "$build/tools/aoe" "${args[@]}"
