#!/bin/sh
# Compile time of a user's translation unit, per umbrella header (docs/getting_started.md,
# "Which header"). Each TU is a header and an empty main, compiled like a Release build
# (-O2 -std=c++20), REPEATS times; prints JSON with, per TU, the median wall time, the median
# CPU time (user + system: what the wall time is on an idle machine) and the peak memory.
#
#   bench/compile_time.sh [CXX]          (CXX defaults to $CXX, else g++)
#
# Environment: REPEATS (3); AOE_INCLUDE (the include/ directory to measure, default this
# checkout's; e.g. an older version's, for a before/after comparison); CASES (names of the
# cases below to run, space-separated; default all). A case whose includes are file:PATH compiles
# that file of this checkout (an example: what a user compiles) instead of a header and a main. Needs GNU time (/usr/bin/time) and the Debian packages of
# scripts/install-deps.sh. Each TU's CPU time is also given as a ratio to the first case,
# `baseline` (<vector>, <string> and <map> only: what any C++ file costs), measured in the same
# run, so that machines and loads compare. The goals (docs/getting_started.md#which-header):
# <aoe.hpp> at most 6 times the baseline, a search policy author's headers (`search_author`:
# the vocabulary and the concepts) at most 2 times.
# INSTRUCTIONS=1 also counts the instructions the compiler executes for each TU (valgrind's
# callgrind over the driver and its children, once per TU: minutes, not seconds), a figure that
# the machine's load does not move, and their ratio to the baseline's
# (`instructions_millions`, `instruction_ratio_to_baseline`; null without INSTRUCTIONS=1).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
cxx=${1:-${CXX:-g++}}
repeats=${REPEATS:-3}
include=${AOE_INCLUDE:-$here/include}
only=${CASES:-}
count_instructions=${INSTRUCTIONS:-0}
[ -x /usr/bin/time ] || { echo "compile_time.sh: needs GNU time (/usr/bin/time)" >&2; exit 2; }
if [ "$count_instructions" = 1 ] && ! command -v valgrind > /dev/null; then
  echo "compile_time.sh: INSTRUCTIONS=1 needs valgrind" >&2
  exit 2
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# name|includes (comma-separated)|extra flags
cases="baseline|vector,string,map|
search_author|aoe/space/space.hpp,aoe/vocab/trial.hpp,aoe/tuner/concepts.hpp|
aoe.hpp|aoe.hpp|
search.hpp|aoe/search.hpp|
tuner_random_host|aoe/tuner/tuner.hpp,aoe/search/random_search.hpp,aoe/measure/host_runner.hpp|
sqlite.hpp|aoe/sqlite.hpp|
simulator.hpp|aoe/simulator.hpp|
replay.hpp|aoe/replay.hpp|
jobs.hpp|aoe/jobs.hpp|
experiment.hpp|aoe/experiment.hpp|
example_research_own_policy|file:examples/research_own_policy.cpp|"

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '{\n  "compiler": "%s",\n  "flags": "-std=c++20 -O2",\n  "repeats": %s,\n  "load_average": "%s",\n  "translation_units": [\n' \
  "$($cxx --version | head -n 1)" "$repeats" "$(cut -d' ' -f1-3 /proc/loadavg)"
first=1
echo "$cases" | while IFS='|' read -r name includes extra; do
  [ -n "$name" ] || continue
  if [ -n "$only" ]; then
    case " $only " in *" $name "*) ;; *) continue ;; esac
  fi
  tu="$work/$name.cpp"
  case "$includes" in
    file:*) tu="$here/${includes#file:}" ;;  # a whole program of this checkout (an example)
    *)
      : > "$tu"
      for h in $(echo "$includes" | tr ',' ' '); do echo "#include <$h>" >> "$tu"; done
      echo "int main() {}" >> "$tu"
      ;;
  esac
  : > "$work/times"
  i=0
  while [ "$i" -lt "$repeats" ]; do
    /usr/bin/time -f '%e %U %S %M' -o "$work/one" \
      "$cxx" -std=c++20 -O2 -I"$include" -isystem /usr/include/eigen3 $extra \
      -c "$tu" -o "$work/out.o"
    cat "$work/one" >> "$work/times"
    i=$((i + 1))
  done
  wall=$(awk '{ print $1 }' "$work/times" | median)
  cpu=$(awk '{ printf "%.2f\n", $2 + $3 }' "$work/times" | median)
  mem=$(awk '{ print $4 }' "$work/times" | sort -n | tail -n 1)
  instructions=null
  iratio=null
  if [ "$count_instructions" = 1 ]; then
    # Every process's "Collected : N" (the driver, cc1plus, as), summed, in millions.
    valgrind --tool=callgrind --trace-children=yes --callgrind-out-file=/dev/null \
      "$cxx" -std=c++20 -O2 -I"$include" -isystem /usr/include/eigen3 $extra \
      -c "$tu" -o "$work/out.o" 2> "$work/callgrind.log"
    instructions=$(awk '/Collected :/ { n += $NF } END { printf "%.0f", n / 1e6 }' "$work/callgrind.log")
    [ "$name" = baseline ] && echo "$instructions" > "$work/baseline_instructions"
    if [ -s "$work/baseline_instructions" ]; then
      iratio=$(awk -v c="$instructions" -v b="$(cat "$work/baseline_instructions")" 'BEGIN { if (b > 0) printf "%.2f", c / b; else print "null" }')
    fi
  fi
  [ "$first" -eq 1 ] || printf ',\n'
  first=0
  [ "$name" = baseline ] && echo "$cpu" > "$work/baseline_cpu"
  ratio=null
  if [ -s "$work/baseline_cpu" ]; then
    ratio=$(awk -v c="$cpu" -v b="$(cat "$work/baseline_cpu")" 'BEGIN { if (b > 0) printf "%.2f", c / b; else print "null" }')
  fi
  printf '    {"name": "%s", "includes": "%s", "wall_seconds": %s, "cpu_seconds": %s, "peak_kb": %s, "ratio_to_baseline": %s, "instructions_millions": %s, "instruction_ratio_to_baseline": %s}' \
    "$name" "$includes" "$wall" "$cpu" "$mem" "$ratio" "$instructions" "$iratio"
done
printf '\n  ]\n}\n'
