#!/usr/bin/env bash
# The main job: build hccl-mlir, then run the bundled example through the
# compiler and print the result.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${HCCL_BUILD_DIR:-$ROOT/build}"
JOBS="${HCCL_JOBS:-$(nproc)}"

"$ROOT/scripts/setup.sh"
ninja -C "$BUILD" -j "$JOBS" hccl-opt

EXAMPLE="$ROOT/examples/mlir/gradients.mlir"
echo "== input: $EXAMPLE"
cat "$EXAMPLE"
echo
echo "== hccl-opt --comm-gradient-fusion --canonicalize"
"$BUILD/bin/hccl-opt" "$EXAMPLE" --comm-gradient-fusion --canonicalize
