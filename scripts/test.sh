#!/usr/bin/env bash
# Builds hccl-mlir and runs every test: GoogleTest suites, multi-process
# integration tests and the lit/FileCheck suites (all through ctest), then
# checks the formatting (scripts/check-format.sh).
# Installs missing Debian packages first. Exit status: 0 iff all passed.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${HCCLMLIR_BUILD_DIR:-$ROOT/build}"
JOBS="${HCCLMLIR_JOBS:-$(nproc)}"

"$ROOT/scripts/setup.sh"
ninja -C "$BUILD" -j "$JOBS"

# Multi-process tests oversubscribe the cores; run suites one after another.
status=0
ctest --test-dir "$BUILD" --output-on-failure -j 1 "$@" | tee "$BUILD/ctest.log" || status=$?
echo
grep -E "^[0-9]+% tests passed" "$BUILD/ctest.log" || true
# lit runs as one ctest entry; print its own count of FileCheck tests.
if [[ -f "$BUILD/Testing/Temporary/LastTest.log" ]]; then
  grep -E "^ *(Passed|Failed|Unsupported|Expectedly Failed) *:" \
    "$BUILD/Testing/Temporary/LastTest.log" | sed 's/^ */lit: /' || true
fi
# House rule: every C/C++ file as clang-format-19 formats it (.clang-format).
"$ROOT/scripts/check-format.sh" || status=1
exit $status
