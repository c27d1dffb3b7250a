#!/usr/bin/env bash
# Installs what hccl-mlir needs on Debian 12 (idempotent: only missing
# packages are installed), then configures the build directory.
# Used by demo.sh and test.sh; safe to run by hand.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${HCCLMLIR_BUILD_DIR:-$ROOT/build}"

PACKAGES=(
  # compiler side
  llvm-19-dev libmlir-19-dev mlir-19-tools llvm-19-tools
  # build
  cmake ninja-build g++ ccache python3
  # house rules: scripts/check-format.sh and scripts/check-tidy.sh (pinned
  # to 19; clang-tidy-19 also ships run-clang-tidy-19)
  clang-format-19 clang-tidy-19
  # runtime and tests
  nlohmann-json3-dev libgtest-dev libgmock-dev libbenchmark-dev
  libibverbs-dev ibverbs-utils iproute2 procps libssl-dev
  # tools/hccl-sim: the cluster simulator (SimGrid 3.32)
  libsimgrid-dev pkg-config
  # comparisons (Open MPI) and tools
  openmpi-bin libopenmpi-dev
  python3-torch python3-torchvision python3-matplotlib  # tools/export, tools/plot (+ tests)
  # the torch.distributed backend (python/) and its pytest suites
  libtorch-dev pybind11-dev python3-dev python3-pytest
  # Debian's torch calls the system libblas.so.3; without OpenBLAS that is
  # the reference BLAS, ~10x slower matmuls (examples/train's compute would
  # dwarf any communication). Serial: each rank runs one thread.
  libopenblas0-serial
)
PACKAGES+=(${HCCLMLIR_EXTRA_PACKAGES:-})

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null; then SUDO="sudo"; else
      echo "setup: need root (or sudo) to install: ${missing[*]}" >&2; exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Configure once; ninja re-runs cmake itself when CMakeLists change.
if [[ ! -f "$BUILD/build.ninja" ]]; then
  cmake -G Ninja -S "$ROOT" -B "$BUILD" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-19/lib/cmake/mlir \
    -DCMAKE_INSTALL_PREFIX="$BUILD/install" >/dev/null
fi
