#!/bin/bash
#===- compare_gloo.sh - hccl-test's TCP transport vs torch gloo ------------===#
#
# Runs `hccl-test all_reduce` with HCCL_TRANSPORT=tcp (2 local ranks over
# loopback sockets, fp32 sum), torch.distributed's gloo all-reduce
# (gloo_allreduce_bench.py, Debian python3-torch) and tcp-exchange-bench
# (two processes sending each other the all-reduce's bytes over one loopback
# connection, nothing else: what the sockets alone can move) in turn for
# several rounds, then prints per size the medians and the ratios:
# hccl-tcp against gloo, the socket ceiling against gloo (the most any TCP
# all-reduce could gain on gloo here), and hccl-tcp against the ceiling.
#
#   bench/runtime/compare_gloo.sh [-B build-dir] [-r rounds] [-n iters]
#                                 [-w warmup] [-b 4K] [-e 64M] [-- hccl-test args]
#
# Target of the runtime (issue 5): TCP busbw >= 1.5x gloo's.
#===----------------------------------------------------------------------===#
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
build="$here/../../build"
rounds=3 iters=20 warmup=5 minb=4K maxb=64M
while [ $# -gt 0 ]; do
  case "$1" in
  -B) build=$2; shift 2 ;;
  -r) rounds=$2; shift 2 ;;
  -n) iters=$2; shift 2 ;;
  -w) warmup=$2; shift 2 ;;
  -b) minb=$2; shift 2 ;;
  -e) maxb=$2; shift 2 ;;
  --) shift; break ;;
  *) echo "compare_gloo.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
extra=("$@")
case "$rounds" in ''|*[!0-9]*|0) echo "compare_gloo.sh: -r $rounds: expected a round count >= 1" >&2; exit 2 ;; esac

hccl_test="$build/bin/hccl-test" ceiling="$build/bin/tcp-exchange-bench"
for exe in "$hccl_test" "$ceiling"; do
  [ -x "$exe" ] || { echo "compare_gloo.sh: $exe not built (ninja ${exe##*/}, or -B build-dir)" >&2; exit 2; }
done
/usr/bin/python3 -c 'import torch.distributed' 2>/dev/null || { echo "compare_gloo.sh: /usr/bin/python3 cannot import torch (apt-get install python3-torch)" >&2; exit 2; }

out=$(mktemp -d /tmp/compare_gloo.XXXXXX)
trap 'rm -rf "$out"' EXIT
sizes=(-b "$minb" -e "$maxb" -f 2 -n "$iters" -w "$warmup")
hccl_cmd=("$hccl_test" all_reduce "${sizes[@]}" -d fp32 -o sum -p 2 -c 0 "${extra[@]}")
gloo_cmd=(/usr/bin/python3 "$here/gloo_allreduce_bench.py" "${sizes[@]}" -p 2)
ceiling_cmd=("$ceiling" "${sizes[@]}")

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "# torch $(/usr/bin/python3 -c 'import torch; print(torch.__version__)')"
echo "# A: HCCL_TRANSPORT=tcp ${hccl_cmd[*]}"
echo "# B: ${gloo_cmd[*]}"
echo "# C: ${ceiling_cmd[*]}"
# One retry per run, announced on stderr: a failed start should not throw
# away the rounds already measured.
run_into() {
  local file=$1 what=$2
  shift 2
  for attempt in 1 2; do
    if "$@" > "$file" 2>&1; then return 0; fi
    echo "${0##*/}: $what failed (attempt $attempt):" >&2
    grep -v '^[0-9]' "$file" | tail -3 >&2
  done
  return 1
}
a_files=() b_files=() c_files=()
for r in $(seq 1 "$rounds"); do
  run_into "$out/a$r.txt" "hccl-test (round $r)" env HCCL_TRANSPORT=tcp "${hccl_cmd[@]}" || exit 1
  run_into "$out/b$r.txt" "gloo benchmark (round $r)" "${gloo_cmd[@]}" || exit 1
  run_into "$out/c$r.txt" "tcp-exchange-bench (round $r)" "${ceiling_cmd[@]}" || exit 1
  a_files+=("$out/a$r.txt") b_files+=("$out/b$r.txt") c_files+=("$out/c$r.txt")
done
/usr/bin/python3 "$here/compare_rows.py" hccl-tcp gloo "${a_files[@]}" -- "${b_files[@]}"
echo
echo "# The socket ceiling (C) against gloo: the most a TCP all-reduce could gain"
/usr/bin/python3 "$here/compare_rows.py" sockets gloo "${c_files[@]}" -- "${b_files[@]}"
echo
echo "# hccl-tcp against the socket ceiling: the share of it hccl-tcp reaches"
/usr/bin/python3 "$here/compare_rows.py" hccl-tcp sockets "${a_files[@]}" -- "${c_files[@]}"
