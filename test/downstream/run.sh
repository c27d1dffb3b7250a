#!/usr/bin/env bash
# Installs hccl-mlir into a scratch prefix, builds the downstream project
# against it and checks that the downstream tool fused the bucket.
set -euo pipefail
BUILD="$1"; SRC="$2"; FILECHECK="$3"
WORK="$BUILD/test/downstream-work"
rm -rf "$WORK"
cmake --install "$BUILD" --prefix "$WORK/prefix" >/dev/null
cmake -G Ninja -S "$SRC/test/downstream" -B "$WORK/build" \
  -DCMAKE_PREFIX_PATH="$WORK/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
ninja -C "$WORK/build" >/dev/null
"$WORK/build/downstream-tool" "$SRC/test/downstream/input.mlir" > "$WORK/out.mlir"
"$FILECHECK" "$SRC/test/downstream/input.check" --input-file "$WORK/out.mlir"
echo "downstream: built against $WORK/prefix and fused the bucket"
