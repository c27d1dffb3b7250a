#!/usr/bin/env bash
# Runs clang-tidy-19 with the repo's .clang-tidy over our sources (not the
# tests: gtest's macros are not ours to name) in the build's compilation
# database. Fails on any warning. Run by scripts/test.sh after the build.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${HCCLMLIR_BUILD_DIR:-$ROOT/build}"
JOBS="${HCCLMLIR_JOBS:-$(nproc)}"
LOG="$BUILD/clang-tidy.log"
run-clang-tidy-19 -p "$BUILD" -clang-tidy-binary clang-tidy-19 -j "$JOBS" \
  -quiet "$ROOT/(runtime|lib|passes|dialects|tools)/" >"$LOG" 2>&1 || true
if grep -q "warning:\|error:" "$LOG"; then
  grep -A3 "warning:\|error:" "$LOG" | head -200 >&2
  echo "check-tidy: $(grep -c 'warning:\|error:' "$LOG") finding(s); full log: $LOG" >&2
  exit 1
fi
echo "check-tidy: $(grep -c '^\[ *[0-9]*/' "$LOG") files clean"
