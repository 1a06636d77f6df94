#!/usr/bin/env bash
# Runs every libFuzzer target for a while (docs/reliability.md#fuzzing):
#   fuzz/run.sh [seconds per target, default 15] [build dir, default build/fuzz]
# Builds the targets first (fuzz/build.sh), then runs them one per core at a time (FUZZ_JOBS).
# Each target starts from its seed corpus fuzz/corpus/<target>/ (read only) and grows a working
# corpus in <build dir>/corpus/<target>/.
# A finding stops its target and leaves crash-*/leak-*/timeout-* in <build dir>/findings/; the
# script then exits 1 after the others ran. Prints one line per target: execs/s, cov, ft.
# CI runs it with 15 s per target; fuzz/run_long.sh runs it long.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
seconds="${1:-15}"
out="${2:-build/fuzz}"
fuzz/build.sh "$out"
targets=(model knowledge_bank graph_bank gdat_bank profile cluster kernel_tuner t4)
if [[ -x "$out/aoe_fuzz_onnx" ]]; then
  targets+=(onnx)
else
  printf '%-15s %-8s (no libonnx-dev: the ONNX target was not built)\n' onnx skipped
fi
mkdir -p "$out/findings"
# Symbolised stack traces in a finding's report, where a symbolizer is installed.
if [[ -z ${ASAN_SYMBOLIZER_PATH:-} ]]; then
  for s in llvm-symbolizer-16 llvm-symbolizer; do
    if command -v "$s" >/dev/null 2>&1; then
      export ASAN_SYMBOLIZER_PATH="$(command -v "$s")"
      break
    fi
  done
fi
# One target per core at a time (FUZZ_JOBS, default nproc): each runs its own process for its
# own time, so running them side by side shortens the phase without shortening any target's run.
jobs=${FUZZ_JOBS:-$(nproc)}
run_target() {
  local t=$1 binary="$out/aoe_fuzz"
  [[ $t == onnx ]] && binary="$out/aoe_fuzz_onnx"
  # -rss_limit_mb: the inputs are small; -timeout: one input taking over 10 s is a finding.
  if AOE_FUZZ_TARGET="$t" "$binary" "$out/corpus/$t" "fuzz/corpus/$t" \
    -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$out/findings/$t-" >"$out/$t.log" 2>&1; then
    echo ok >"$out/$t.status"
  else
    echo FINDING >"$out/$t.status"
  fi
}
running=0
for t in "${targets[@]}"; do
  mkdir -p "$out/corpus/$t"
  rm -f "$out/$t.status"
  run_target "$t" &
  running=$((running + 1))
  if ((running >= jobs)); then
    wait -n || true
    running=$((running - 1))
  fi
done
wait
failed=()
for t in "${targets[@]}"; do
  log="$out/$t.log"
  status=$(cat "$out/$t.status" 2>/dev/null || echo FINDING)
  [[ $status == ok ]] || failed+=("$t")
  execs=$(grep -m1 'stat::number_of_executed_units' "$log" | awk '{print $2}')
  rate=$(grep -m1 'stat::average_exec_per_sec' "$log" | awk '{print $2}')
  last=$(grep -E '^#[0-9]+' "$log" | tail -n1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  printf '%-15s %-8s %6ss execs=%-9s execs/s=%-7s cov=%-6s ft=%s\n' "$t" "$status" "$seconds" \
    "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}"
done
if [[ ${#failed[@]} -gt 0 ]]; then
  # The report itself, so that a CI log on record says what was found and where.
  for t in "${failed[@]}"; do
    echo "== $t: the sanitizer's report (from $out/$t.log)" >&2
    sed -n '/^==[0-9]*== *ERROR\|runtime error\|^SUMMARY\|^    #[0-9]/p' "$out/$t.log" | head -n 60 >&2 ||
      true # head may close the pipe before sed ends: not a failure of the report
    for f in "$out/findings/$t-"*; do
      [[ -f $f ]] || continue
      size=$(stat -c %s "$f")
      shown="base64"
      ((size > 8192)) && shown="its first 8192 bytes in base64 (the whole file stays in $out/findings/)"
      echo "== $t: $f, $size bytes, $shown:" >&2
      head -c 8192 "$f" | base64 -w 0 >&2
      echo >&2
    done
  done
  echo "fuzz/run.sh: findings in: ${failed[*]} (see $out/findings/ and $out/<target>.log)" >&2
  exit 1
fi
