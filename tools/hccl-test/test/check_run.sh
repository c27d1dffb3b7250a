#!/bin/bash
#===- check_run.sh - Run one hccl-test invocation and check its outcome ----===#
#
#   check_run.sh EXIT REGEX [--no-failed] [--file PATH FILE_REGEX] -- CMD...
#
# Passes when CMD exits with status EXIT, its stdout+stderr match the
# extended regex REGEX (grep -E), with --no-failed no row says "failed", and
# with --file PATH exists and matches FILE_REGEX. Prints the output otherwise.
#===----------------------------------------------------------------------===#
set -u
want_exit=$1 regex=$2
shift 2
no_failed=0 file="" file_regex=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  case "$1" in
  --no-failed) no_failed=1; shift ;;
  --file) file=$2 file_regex=$3; shift 3 ;;
  *) echo "check_run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
shift
cmd="$*"
[ -n "$file" ] && rm -f "$file"
out=$("$@" 2>&1)
rc=$?
fail() {
  echo "FAILED: $*"
  echo "--- command: $cmd"
  echo "--- exit status $rc; output:"
  echo "$out"
  exit 1
}
[ "$rc" = "$want_exit" ] || fail "exit status $rc, expected $want_exit"
echo "$out" | grep -Eq -- "$regex" || fail "output does not match /$regex/"
if [ "$no_failed" = 1 ] && echo "$out" | grep -Eq '\| failed '; then
  fail "a row says failed"
fi
if [ -n "$file" ]; then
  [ -f "$file" ] || fail "$file was not written"
  grep -Eq -- "$file_regex" "$file" || { out=$(cat "$file"); fail "$file does not match /$file_regex/"; }
fi
echo "$out"
exit 0
