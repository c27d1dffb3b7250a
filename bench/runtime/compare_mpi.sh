#!/bin/bash
#===- compare_mpi.sh - hccl-test vs Open MPI's MPI_Allreduce, side by side -===#
#
# Runs `hccl-test all_reduce` (2 local ranks, shared memory, fp32 sum) and
# our MPI_Allreduce program under mpirun (Open MPI, vader shared memory)
# alternately for several rounds on this machine, then prints per size the
# median time and bus bandwidth of each and their ratios.
#
#   bench/runtime/compare_mpi.sh [-B build-dir] [-r rounds] [-n iters]
#                                [-w warmup] [-b 4K] [-e 64M] [-- hccl-test args]
#
# Targets of the runtime (issue 5): busbw ratio >= 1.5 from 1M to 64M, and a
# 4K time ratio <= 1.
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
  *) echo "compare_mpi.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
extra=("$@")
case "$rounds" in ''|*[!0-9]*|0) echo "compare_mpi.sh: -r $rounds: expected a round count >= 1" >&2; exit 2 ;; esac

hccl_test="$build/bin/hccl-test"
mpi_bench="$build/bin/mpi-coll-bench"
for f in "$hccl_test" "$mpi_bench"; do
  [ -x "$f" ] || { echo "compare_mpi.sh: $f not built (ninja hccl-test mpi-coll-bench, or -B build-dir)" >&2; exit 2; }
done
command -v mpirun >/dev/null || { echo "compare_mpi.sh: mpirun not found (Debian openmpi-bin)" >&2; exit 2; }

out=$(mktemp -d /tmp/compare_mpi.XXXXXX)
trap 'rm -rf "$out"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
sizes=(-b "$minb" -e "$maxb" -f 2 -n "$iters" -w "$warmup")
hccl_cmd=("$hccl_test" all_reduce "${sizes[@]}" -d fp32 -o sum -p 2 -c 0 "${extra[@]}")
mpi_cmd=(mpirun --oversubscribe --mca btl self,vader -n 2 "$mpi_bench" "${sizes[@]}" -c 0)

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
echo "# $(mpirun --version 2>&1 | head -1)"
echo "# A: ${hccl_cmd[*]}"
echo "# B: ${mpi_cmd[*]}"
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
a_files=() b_files=()
for r in $(seq 1 "$rounds"); do
  run_into "$out/a$r.txt" "hccl-test (round $r)" "${hccl_cmd[@]}" || exit 1
  run_into "$out/b$r.txt" "mpi-coll-bench (round $r)" "${mpi_cmd[@]}" || exit 1
  a_files+=("$out/a$r.txt") b_files+=("$out/b$r.txt")
done
/usr/bin/python3 "$here/compare_rows.py" hccl mpi "${a_files[@]}" -- "${b_files[@]}"
