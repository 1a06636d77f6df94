#!/usr/bin/env bash
# Installs the Debian 12 packages OpenAOE needs to build and test: the ONE list, used by
# scripts/test.sh and .ci/run. Skips apt entirely when everything is already installed.
#
#   scripts/install-deps.sh            install what is missing (root, or sudo)
#   scripts/install-deps.sh --list     print the package list
#   scripts/install-deps.sh --check    exit 1 if something is missing, install nothing
#
# Boost must be 1.81: Debian 12's default libboost-dev (1.74) has no Boost.JSON, and
# libboost1.81-dev conflicts with libboost1.74-dev, so never add libboost-dev here.
set -euo pipefail

AOE_DEBIAN_PACKAGES=(
  g++                    # GCC 12: C++20
  cmake                  # 3.25: presets v6, workflow presets
  ninja-build
  meson                  # 1.0
  pkg-config             # aoe.pc consumer test; Meson's dependency lookup
  python3                # cmake/list_files.py (Meson file discovery)
  python3-venv           # bench/peers/run: the peers' own virtual environment (pip, bench only)
  python3-numpy          # scripts/bootstrap_ci.py (the docs' intervals over seeds)
  libboost1.81-dev       # Boost headers (Hana, Describe, System, ...)
  libboost-json1.81-dev  # Boost.JSON (compiled library)
  libeigen3-dev          # Eigen 3.4
  doctest-dev            # doctest 2.4 + doctest.cmake (doctest_discover_tests)
  libcli11-dev           # CLI11, for tools/
  libbenchmark-dev       # Google Benchmark, for bench/
  zlib1g-dev
  libsqlite3-dev         # SQLite 3: the optional tuning database (aoe::sqlite, tools/aoe-db)
  libxgboost-dev         # XGBoost C API: the optional learned cost model (aoe::xgboost)
  libonnx-dev            # ONNX import (aoe::onnx): onnx + onnx_proto libraries, headers
  libprotobuf-dev        # protobuf, which libonnx's messages need
  protobuf-compiler      # protoc (libonnx-dev's CMake package looks for protobuf)
  libonnx-testdata       # ONNX's single-operator test models: the import sweep in tests/onnx
  # OpenCL runner (aoe::opencl; docs/opencl.md): headers, ICD loader, PoCL (OpenCL on the CPU,
  # for the tests), clinfo; CLBlast and its tuners for bench/opencl_bench.
  opencl-clhpp-headers
  ocl-icd-opencl-dev
  pocl-opencl-icd
  clinfo
  libclblast-dev
  clblast-utils
  git
  ca-certificates
  # Headless Chromium: tests/tools/aoe_report_test opens the HTML reports (skipped without it).
  chromium
  # Distributed measurement (aoe::mpi; docs/distributed.md): Open MPI (mpirun) and Boost.MPI.
  openmpi-bin
  libopenmpi-dev
  libboost-mpi1.81-dev
  # Fuzzing (fuzz/build.sh, docs/reliability.md#fuzzing): clang 16 with libFuzzer, ASan, UBSan.
  clang-16
  libfuzzer-16-dev
  libclang-rt-16-dev     # clang 16's ASan, UBSan and libFuzzer runtimes (not a dependency of the two above)
)

missing_packages() {
  local pkg status
  for pkg in "${AOE_DEBIAN_PACKAGES[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
    if [[ "$status" != "installed" ]]; then
      printf '%s\n' "$pkg"
    fi
  done
}

main() {
  case "${1:-}" in
    --list)
      printf '%s\n' "${AOE_DEBIAN_PACKAGES[@]}"
      return 0
      ;;
    --check)
      local missing=()
      mapfile -t missing < <(missing_packages)
      if [[ ${#missing[@]} -gt 0 ]]; then
        echo "missing Debian packages: ${missing[*]}" >&2
        return 1
      fi
      return 0
      ;;
    "") ;;
    *)
      echo "usage: $0 [--list|--check]" >&2
      return 2
      ;;
  esac

  if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "install-deps.sh: not a Debian system; install the equivalents of:" >&2
    printf '  %s\n' "${AOE_DEBIAN_PACKAGES[@]}" >&2
    return 1
  fi
  local missing=()
  mapfile -t missing < <(missing_packages)
  if [[ ${#missing[@]} -eq 0 ]]; then
    echo "install-deps.sh: all ${#AOE_DEBIAN_PACKAGES[@]} Debian packages already installed"
    return 0
  fi

  local sudo=()
  if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo=(sudo)
    else
      echo "install-deps.sh: need root (or sudo) to install: ${missing[*]}" >&2
      return 1
    fi
  fi
  echo "install-deps.sh: installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update
  "${sudo[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
}

main "$@"
