#!/bin/bash
#===- ab_builds.sh - hccl-test from two builds, alternating ---------------===#
#
# A/B of a runtime change on a noisy host: runs the same hccl-test command
# from build A and build B in alternation (which one first alternates too),
# R rounds, and prints per size the median and minimum of each and B's
# median over A's.
#
#   bench/runtime/ab_builds.sh BUILD_A BUILD_B ROUNDS HCCL_TEST_ARGS...
#   bench/runtime/ab_builds.sh /tmp/build-old build 5 all_reduce -b 4K \
#       -e 64M -f 4 -n 20 -w 5 -p 2 -c 0 --malloc
#
# HCCL_JOB_SECRET defaults to a fixed test secret (local ranks only).
#===----------------------------------------------------------------------===#
set -euo pipefail
[ $# -ge 4 ] || { echo "usage: ab_builds.sh BUILD_A BUILD_B ROUNDS HCCL_TEST_ARGS..." >&2; exit 2; }
a=$1 b=$2 rounds=$3
shift 3
case "$rounds" in ''|*[!0-9]*) echo "ab_builds.sh: ROUNDS '$rounds' is not a count" >&2; exit 2 ;; esac
for d in "$a" "$b"; do
  [ -x "$d/bin/hccl-test" ] || { echo "ab_builds.sh: $d/bin/hccl-test not built" >&2; exit 2; }
done
export HCCL_JOB_SECRET=${HCCL_JOB_SECRET:-0123456789abcdef0123}
for r in $(seq 1 "$rounds"); do
  # Which build runs first alternates, so that an order effect (the host
  # warming between the two) favours neither.
  order="A B"
  [ $((r % 2)) -eq 0 ] && order="B A"
  for v in $order; do
    d=$a
    [ "$v" = B ] && d=$b
    # The build's own libhccl, also for a build copied aside (RUNPATH names
    # the directory it was built in).
    LD_LIBRARY_PATH="$d/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
      "$d/bin/hccl-test" "$@" | awk -v v="$v" '/^[0-9]/{print v, $1, $3}'
  done
done | /usr/bin/python3 -c '
import collections, statistics as st, sys
d = collections.defaultdict(list)
for line in sys.stdin:
    v, size, us = line.split()
    d[(int(size), v)].append(float(us))
for size in sorted({k[0] for k in d}):
    a, b = d[(size, "A")], d[(size, "B")]
    print(f"{size:>9} A med {st.median(a):9.2f} min {min(a):9.2f} | "
          f"B med {st.median(b):9.2f} min {min(b):9.2f} | "
          f"B/A {st.median(b) / st.median(a):.3f}")
'
