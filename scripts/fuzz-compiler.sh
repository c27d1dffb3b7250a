#!/usr/bin/env bash
# The compiler's libFuzzer targets (test/fuzz/compiler): builds them in the
# sanitizer leg's clang ASan + UBSan build (build-asan, configured by
# scripts/test-sanitize.sh) and runs each for a bounded time from its
# committed seeds; exits 1 if any target crashed, hung (-timeout), ran out
# of memory or failed an oracle.
#
#   scripts/fuzz-compiler.sh [--build-only | --run-only] [SECONDS [TARGET...]]
#
# SECONDS per target (default 120); TARGETs among mlir-pipeline,
# graph-import, stablehlo-import (default all). Inputs found grow
# build-asan/fuzz-work/<target> (never the committed corpus); crashes land
# in build-asan/fuzz-artifacts/<target>/ with the command to replay them
# printed. HCCLMLIR_ASAN_BUILD_DIR, HCCL_FUZZ_JOBS (build jobs, default 2)
# and HCCL_FUZZ_ARGS (extra libFuzzer flags) adjust it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${HCCLMLIR_ASAN_BUILD_DIR:-$ROOT/build-asan}"
SRC="$ROOT/test/fuzz/compiler"
build=1 run=1
case "${1:-}" in
  --build-only) run=0; shift ;;
  --run-only) build=0; shift ;;
esac
SECS="${1:-120}"
shift || true
TARGETS=("$@")
((${#TARGETS[@]})) || TARGETS=(mlir-pipeline graph-import stablehlo-import)

if ((build)); then
  HCCLMLIR_ASAN_BUILD_DIR="$BUILD" "$ROOT/scripts/test-sanitize.sh" --configure-only
  ninja -C "$BUILD" -j"${HCCL_FUZZ_JOBS:-2}" "${TARGETS[@]/#/fuzz-}"
fi
((run)) || exit 0

failed=()
for t in "${TARGETS[@]}"; do
  bin="$BUILD/bin/fuzz-$t"
  work="$BUILD/fuzz-work/$t"
  art="$BUILD/fuzz-artifacts/$t/"
  log="$BUILD/fuzz-logs/$t.log"
  mkdir -p "$work" "$art" "$(dirname "$log")"
  dict=()
  [[ "$t" == graph-import ]] || dict=(-dict="$SRC/mlir.dict")
  # allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons a new slab
  # when our (instrumented) inline copy of it starts one, and Debian's
  # uninstrumented libMLIR.so then hands out pieces of it without
  # unpoisoning them: a false use-after-poison on the first attribute
  # parsed (docs/security.md, "Checks").
  set +e
  ASAN_OPTIONS="allow_user_poisoning=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
  UBSAN_OPTIONS="print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}" \
    "$bin" -max_total_time="$SECS" -timeout=20 -rss_limit_mb=2048 \
    -max_len=8192 -print_final_stats=1 -artifact_prefix="$art" \
    "${dict[@]}" ${HCCL_FUZZ_ARGS:-} "$work" "$SRC/corpus/$t" >"$log" 2>&1
  rc=$?
  set -e
  runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
  echo "fuzz-$t: ${runs:-?} inputs in ${SECS}s, exit $rc (log: $log)"
  if ((rc != 0)); then
    failed+=("$t")
    for a in "$art"*; do
      [[ -e "$a" ]] && echo "  replay: ASAN_OPTIONS=allow_user_poisoning=0 $bin $a"
    done
  fi
done
if ((${#failed[@]})); then
  echo "fuzz-compiler: findings in ${failed[*]}" >&2
  exit 1
fi
