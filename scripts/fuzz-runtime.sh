#!/usr/bin/env bash
# The runtime's libFuzzer targets (test/fuzz/runtime): builds them in the
# sanitizer leg's clang ASan + UBSan build (build-asan, configured by
# scripts/test-sanitize.sh; these targets need only the runtime's objects)
# and runs each for a bounded time from its committed seeds; exits 1 if any
# target crashed, hung (-timeout), ran out of memory or failed a check.
#
#   scripts/fuzz-runtime.sh [--build-only | --run-only] [SECONDS [TARGET...]]
#
# SECONDS per target (default 120); TARGETs among plan, rank-table,
# root-info, env, whitelist, rendezvous, listener, verbs-conninfo (the last
# where rdma-core's headers are, as for the transport; default all). Inputs
# found grow build-asan/fuzz-work/<target> (never the committed corpus);
# crashes land in build-asan/fuzz-artifacts/<target>/ with the command to
# replay them printed. HCCLMLIR_ASAN_BUILD_DIR, HCCL_FUZZ_JOBS (build jobs,
# default 2) and HCCL_FUZZ_ARGS (extra libFuzzer flags) adjust it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/fuzz-run.sh
source "$ROOT/scripts/fuzz-run.sh"
FUZZ_NAME=runtime
FUZZ_SRC="$ROOT/test/fuzz/runtime"
FUZZ_TARGETS=(plan rank-table root-info env whitelist rendezvous listener)
if [[ -f /usr/include/infiniband/verbs.h ]]; then
  FUZZ_TARGETS+=(verbs-conninfo)
fi
FUZZ_ENV=()
FUZZ_REPLAY=""
# The runtime logs each refused input on stderr (-close_fd_mask=2 keeps
# that out of the log; sanitizer reports still reach it). Leaks count:
# the runtime keeps no caches that outlive a call.
fuzz_flags() {
  FLAGS=(-timeout=10 -max_len=65536 -close_fd_mask=2)
}
fuzz_run "$@"
