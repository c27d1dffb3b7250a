#!/usr/bin/env bash
# The cost model's price beside the simulated time (issue 17 item 3), as a
# markdown table: per collective and algorithm, hccl-sim's sim_us and
# model_us on one topology. Extra arguments go to every hccl-sim run.
#
#   bench/sim/model-vs-sim.sh RANKS COUNT TOPOLOGY [hccl-sim options]
#   bench/sim/model-vs-sim.sh 64 4M 910b-8x8 --oversubscription 4
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
SIM="${HCCL_SIM:-$ROOT/build/bin/hccl-sim}"
ranks=$1 count=$2 topo=$3
shift 3
algos=("ring" "mesh" "rhd" "hierarchical --level0 ring --level1 ring"
  "hierarchical --level0 mesh --level1 rhd"
  "hierarchical --level0 mesh --level1 mesh")
echo "| collective | algorithm | ranks | size B | model us | sim us | sim/model |"
echo "|---|---|---|---|---|---|---|"
for c in allreduce allgather reducescatter; do
  for a in "${algos[@]}"; do
    # shellcheck disable=SC2086
    line=$("$SIM" --collective "$c" --algo $a --ranks "$ranks" \
      --count "$count" --topology "$topo" "$@" | awk '$1 == "0"')
    read -r _ _ coll algo p bytes sim model ratio _ <<<"$line"
    echo "| $coll | $algo | $p | $bytes | $model | $sim | $ratio |"
  done
done
