#!/bin/bash
#===- run.sh - Build HCCL-shaped C programs against include/ and run them ---===#
#
#   run.sh SOURCE_DIR LIB_DIR WORK_DIR
#
# Each program is compiled with nothing but -I SOURCE_DIR/include and
# -L LIB_DIR -lhccl -lascendcl (mpicc adds MPI's own flags; threads.c
# -lpthread), then run as threads and under mpirun on 2-8 local ranks.
# Every run must exit 0 and print its "correct" line.
#===----------------------------------------------------------------------===#
set -eu
src=$1 lib=$2 work=$3
inc=$src/include
here=$src/test/compat
mkdir -p "$work"
flags=(-std=c11 -Wall -Wextra -Werror -I "$inc")
libs=(-L "$lib" -lhccl -lascendcl "-Wl,-rpath,$lib")
export HCCL_JOB_SECRET=compat-test-secret-0123456789abcdef
export HCCL_CONNECT_TIMEOUT_MS=60000
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun=(mpirun --allow-run-as-root --oversubscribe --mca btl self,vader)

step() { echo "+ $*"; "$@"; }
expect() { # expect REGEX CMD...: run, require exit 0 and REGEX in the output
  local regex=$1
  shift
  echo "+ $*"
  local out
  if ! out=$("$@" 2>&1); then
    echo "$out"
    echo "FAILED (exit status): $*"
    exit 1
  fi
  echo "$out" | grep -v "no secret" | tail -3
  echo "$out" | grep -Eq -- "$regex" || { echo "FAILED (no /$regex/): $*"; exit 1; }
}

step cc "${flags[@]}" "$here/threads.c" "${libs[@]}" -lpthread -o "$work/threads"
for p in rootinfo_mpi zerocopy_mpi ranktable_mpi; do
  step mpicc "${flags[@]}" "$here/$p.c" "${libs[@]}" -o "$work/$p"
done
# The headers compile as C++ too (HCCL's are C++ only).
echo '#include <hccl/hccl.h>' | step c++ -std=c++17 -Wall -Wextra -Werror \
  -I "$inc" -x c++ -fsyntax-only -

expect "threads: 4 ranks \(initall\): every collective correct" "$work/threads" 4 initall
expect "threads: 3 ranks \(rootinfo\): every collective correct" "$work/threads" 3 rootinfo
expect "threads: 8 ranks \(initall\): every collective correct" "$work/threads" 8 initall
expect "2 ranks, root 0: every collective correct" "${mpirun[@]}" -n 2 "$work/rootinfo_mpi" 0
expect "4 ranks, root 3: every collective correct" "${mpirun[@]}" -n 4 "$work/rootinfo_mpi" 3
expect "3 ranks, root 1: every collective correct" "${mpirun[@]}" -n 3 "$work/rootinfo_mpi" 1
expect "zerocopy_mpi: 2 ranks" "${mpirun[@]}" -n 2 "$work/zerocopy_mpi"
for v in 1.0 1.2 2.0; do
  expect "version $v, 3 ranks: every collective correct" \
    "${mpirun[@]}" -n 3 "$work/ranktable_mpi" "$work/ranktable-$v.json" $v
done
echo "compat: all programs built from include/ alone and correct"
