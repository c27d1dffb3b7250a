# shellcheck shell=bash
# The build-and-run loop of scripts/fuzz-compiler.sh and
# scripts/fuzz-runtime.sh, sourced by them (not run on its own). They set
#
#   FUZZ_NAME     compiler | runtime (names the findings line)
#   FUZZ_SRC      test/fuzz/<name>: corpus/<target>/ holds the seeds
#   FUZZ_TARGETS  the default targets (array)
#   FUZZ_ENV      VAR=VALUE assignments for each fuzzer run (array)
#   FUZZ_REPLAY   what the replay command starts with ("" or VAR=VALUE ...)
#   fuzz_flags    a function: fuzz_flags TARGET sets FLAGS, the libFuzzer
#                 flags of that target beyond the common ones
#
# then call `fuzz_run "$@"`, which parses
# [--build-only | --run-only] [SECONDS [TARGET...]], builds fuzz-<target> in
# the ASan build (scripts/test-sanitize.sh --configure-only), runs each
# target for SECONDS from its seeds, and exits 1 if any had a finding.

fuzz_run() {
  local ROOT BUILD build=1 run=1 SECS t bin work art log rc runs a
  local -a TARGETS failed FLAGS
  ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  BUILD="${HCCLMLIR_ASAN_BUILD_DIR:-$ROOT/build-asan}"
  case "${1:-}" in
    --build-only) run=0; shift ;;
    --run-only) build=0; shift ;;
  esac
  SECS="${1:-120}"
  shift || true
  TARGETS=("$@")
  ((${#TARGETS[@]})) || TARGETS=("${FUZZ_TARGETS[@]}")

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
    FLAGS=()
    fuzz_flags "$t"
    set +e
    # shellcheck disable=SC2086 # HCCL_FUZZ_ARGS is a list of flags
    env "${FUZZ_ENV[@]}" \
      UBSAN_OPTIONS="print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}" \
      "$bin" -max_total_time="$SECS" -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$art" "${FLAGS[@]}" ${HCCL_FUZZ_ARGS:-} \
      "$work" "$FUZZ_SRC/corpus/$t" >"$log" 2>&1
    rc=$?
    set -e
    runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
    echo "fuzz-$t: ${runs:-?} inputs in ${SECS}s, exit $rc (log: $log)"
    if ((rc != 0)); then
      failed+=("$t")
      for a in "$art"*; do
        [[ -e "$a" ]] && echo "  replay: $FUZZ_REPLAY$bin $a"
      done
    fi
  done
  if ((${#failed[@]})); then
    echo "fuzz-$FUZZ_NAME: findings in ${failed[*]}" >&2
    exit 1
  fi
}
