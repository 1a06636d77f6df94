#!/usr/bin/env bash
# Prepares, on a machine of this project (Debian 12, no GPU), what scripts/gpu-check.sh runs on
# the GPU machine (which has CUDA 13 and its driver but none of our Debian packages):
#   .gpu/bin/   the CUDA tests and the two CUDA examples (ci preset), bench/cuda_bench (release)
#   .gpu/lib/   the shared libraries they need that a bare machine may lack (Boost.JSON, zlib,
#               the C++ runtime), found with ldd; the CUDA libraries are the GPU machine's own
#   .whl/       Kernel Tuner and its dependencies as wheels (scripts/fetch-gpu-wheels.sh)
# Both folders are git-ignored; the device tool carries them (`carry: [".gpu", ".whl"]`), 64 MiB
# at most with the sources. docs/cuda.md#on-a-gpu.
#
#   scripts/gpu-pack.sh            build (presets ci and release, the CUDA targets only) and pack
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

# The tests and examples with the ci preset's flags, in a build tree of their own (build/ci
# builds only the test areas that the asan preset leaves out, AOE_ONLY_TEST_AREAS, and cuda is
# not one of them); the bench from the release preset (-O2: the ci preset only checks that the
# benchmarks compile; docs/building.md#presets-and-workflows).
targets=(aoe_test_cuda aoe_example_cuda_gemm aoe_example_cuda_convolution)
pack_build=build/gpu-pack
if [[ ! -f "$pack_build/build.ninja" ]]; then
  cmake --preset ci -B "$pack_build" -DAOE_ONLY_TEST_AREAS=cuda >/dev/null
fi
cmake --build "$pack_build" --target "${targets[@]}"
if [[ ! -f build/release/build.ninja ]]; then
  cmake --preset release >/dev/null
fi
cmake --build build/release --target aoe_bench_cuda_bench

rm -rf .gpu
mkdir -p .gpu/bin .gpu/lib
cp "$pack_build/tests/aoe_test_cuda" .gpu/bin/
cp "$pack_build/examples/aoe_example_cuda_gemm" "$pack_build/examples/aoe_example_cuda_convolution" .gpu/bin/
cp build/release/bench/cuda_bench .gpu/bin/
# Every library ldd resolves outside the C library's own and outside the CUDA toolkit.
for binary in .gpu/bin/*; do
  ldd "$binary" | awk '$3 ~ /^\// {print $3}'
done | sort -u | while read -r lib; do
  case "$(basename "$lib")" in
    libc.so.*|libm.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*) continue ;;
  esac
  case "$lib" in
    /usr/local/cuda*) continue ;;  # NVRTC, cuBLAS, the runtime: the GPU machine's own
  esac
  cp -L "$lib" .gpu/lib/
done
strip --strip-unneeded .gpu/bin/* 2>/dev/null || true

if [[ ! -f .whl/requirements.txt ]]; then
  scripts/fetch-gpu-wheels.sh .whl
fi
echo "gpu-pack: $(du -sh .gpu | cut -f1) in .gpu, $(du -sh .whl | cut -f1) in .whl:"
ls -l .gpu/bin .gpu/lib
echo "run on the GPU machine: scripts/gpu-check.sh OUT_DIR (carry .gpu and .whl)"
