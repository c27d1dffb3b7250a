#!/bin/bash
# Two ranks of one job, each given a different HCCL_ALGO_TABLE: both must
# fail at init naming the variable (prints both ranks' output).
set -u
bin=$1 dir=$2
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
export MASTER_ADDR=127.0.0.1 MASTER_PORT=$port WORLD_SIZE=2 HCCL_CONNECT_TIMEOUT_MS=20000
for r in 0 1; do
  RANK=$r LOCAL_RANK=$r HCCL_ALGO_TABLE=$dir/t$r.json \
    timeout 60 "$bin/hccl-test" broadcast -b 64K -e 64K -p 2 -n 1 -w 0 >"$dir/r$r.out" 2>&1 &
done
wait
cat "$dir/r0.out" "$dir/r1.out"
