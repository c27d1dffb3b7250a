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
# shellcheck source=scripts/fuzz-run.sh
source "$ROOT/scripts/fuzz-run.sh"
FUZZ_NAME=compiler
FUZZ_SRC="$ROOT/test/fuzz/compiler"
FUZZ_TARGETS=(mlir-pipeline graph-import stablehlo-import)
# allow_user_poisoning=0: LLVM's BumpPtrAllocator poisons a new slab
# when our (instrumented) inline copy of it starts one, and Debian's
# uninstrumented libMLIR.so then hands out pieces of it without
# unpoisoning them: a false use-after-poison on the first attribute
# parsed (docs/security.md, "Checks").
FUZZ_ENV=("ASAN_OPTIONS=allow_user_poisoning=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}")
FUZZ_REPLAY="ASAN_OPTIONS=allow_user_poisoning=0 "
fuzz_flags() {
  FLAGS=(-timeout=20 -max_len=8192)
  [[ "$1" == graph-import ]] || FLAGS+=(-dict="$FUZZ_SRC/mlir.dict")
}
fuzz_run "$@"
