#!/usr/bin/env bash
# Download, on a machine with PyPI access, the wheels that Kernel Tuner needs on
# the GPU machine (which has no package index), for bench/cuda/kernel_tuner_gemm.py.
#
# Usage: scripts/fetch-gpu-wheels.sh [--pythons "3.12 3.13"] [--no-bayes] [--with-scipy] [DIR]
#   DIR          target folder (default: .whl in the repository root, git-ignored)
#   --pythons    CPython versions to fetch the compiled wheels for (default: 3.12).
#                Pure-Python wheels (py3-none-any) serve every version.  Kernel
#                Tuner 1.5.0 needs >= 3.10, python-constraint2 2.9.0 needs >= 3.11.
#   --no-bayes   skip the "bayes" group (scipy, scikit-learn and deps, ~45 MiB):
#                bayes_opt (and basinhopping/dual_annealing/minimize) will then
#                fail with an ImportError that kernel_tuner_gemm.py reports per
#                strategy; the rest still works.  Core alone is ~10 MiB.
#   --with-scipy also scipy (35 MiB), left out by default: the GPU machine has it
#                (JAX needs it), and the 64 MiB that travel with a check must also
#                hold the binaries.  Default total: about 18 MiB.
#
# The pins live in bench/cuda/requirements-gpu.txt ("NAME==VERSION  # GROUP").
# Every wheel is fetched with --no-deps: the list is complete by construction
# (numpy and cupy come from the GPU machine).  Platform: x86-64 glibc >= 2.28.
#
# DIR/requirements.txt records what was fetched; install on the GPU machine with
#   python3 -m pip install --no-index --no-deps --find-links DIR \
#       --target /tmp/site -r DIR/requirements.txt
#   export PYTHONPATH=/tmp/site
# (--find-links lets pip pick the wheel matching the interpreter when several
# --pythons were fetched; `pip install DIR/*.whl` works only with one version.)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

pythons="3.12"
with_bayes=1
with_scipy=0
dir=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --pythons) pythons="$2"; shift 2 ;;
        --no-bayes) with_bayes=0; shift ;;
        --with-scipy) with_scipy=1; shift ;;
        -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
        -*) echo "fetch-gpu-wheels.sh: unknown option $1" >&2; exit 2 ;;
        *) dir="$1"; shift ;;
    esac
done
dir="${dir:-.whl}"
reqs="bench/cuda/requirements-gpu.txt"
[[ -f "$reqs" ]] || { echo "fetch-gpu-wheels.sh: $reqs not found" >&2; exit 2; }
mkdir -p "$dir"

# "name==version group" pairs from the pin list, comments and blank lines dropped.
mapfile -t pins < <(sed -n 's/^\([A-Za-z0-9_.-]*==[^ #]*\)[ ]*#[ ]*\([a-z]*\).*/\1 \2/p' "$reqs")
[[ ${#pins[@]} -gt 0 ]] || { echo "fetch-gpu-wheels.sh: no pins parsed from $reqs" >&2; exit 2; }

platforms=(--platform manylinux_2_28_x86_64 --platform manylinux_2_27_x86_64
           --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 --platform any)
: > "$dir/requirements.txt"
for entry in "${pins[@]}"; do
    spec="${entry% *}"
    group="${entry#* }"
    if [[ "$group" == bayes && $with_bayes -eq 0 ]]; then continue; fi
    if [[ "$group" == scipy && $with_scipy -eq 0 ]]; then continue; fi
    for py in $pythons; do
        python3 -m pip download --quiet --disable-pip-version-check --no-deps \
            --only-binary=:all: --python-version "$py" --implementation cp \
            "${platforms[@]}" -d "$dir" "$spec"
    done
    echo "$spec" >> "$dir/requirements.txt"
done

# Check that every pin arrived (wheel names normalise '-' to '_').
missing=0
while read -r spec; do
    name="${spec%%==*}"; version="${spec#*==}"
    stem="$(echo "$name" | tr '-' '_')-$version-"
    shopt -s nocaseglob nullglob
    found=("$dir/$stem"*.whl)
    shopt -u nocaseglob nullglob
    if [[ ${#found[@]} -eq 0 ]]; then
        echo "fetch-gpu-wheels.sh: no wheel for $spec in $dir" >&2
        missing=1
    fi
done < "$dir/requirements.txt"
[[ $missing -eq 0 ]] || exit 1

echo "Wheels in $dir (pythons: $pythons; bayes group: $([[ $with_bayes -eq 1 ]] && echo yes || echo no)):"
for w in "$dir"/*.whl; do printf '  %10d  %s\n' "$(stat -c %s "$w")" "$w"; done
du -cb "$dir"/*.whl | tail -1 | awk '{ printf "Total: %d bytes (%.1f MiB)\n", $1, $1 / 1048576 }'
echo "Install on the GPU machine:"
echo "  python3 -m pip install --no-index --no-deps --find-links $dir --target /tmp/site -r $dir/requirements.txt"
echo "  export PYTHONPATH=/tmp/site"
