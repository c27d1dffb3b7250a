#!/bin/sh
# hccl-plan command-line test: good invocations succeed, bad input gets a
# one-line error and exit code 2, an incorrect plan exit code 1.
# usage: hccl-plan-cli-test.sh path/to/hccl-plan path/to/inputs
set -u
TOOL="$1"
IN="$2"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
FAILS=0

fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }

# expect CODE PATTERN -- args...: exit code CODE, combined output matches
# the grep pattern; errors (code 2) must be exactly one line on stderr.
expect() {
  code=$1; pattern=$2; shift 3
  "$TOOL" "$@" >"$TMP/out" 2>"$TMP/err"
  rc=$?
  if [ "$rc" -ne "$code" ]; then
    fail "hccl-plan $* -> exit $rc, expected $code: $(cat "$TMP/err")"
    return
  fi
  if [ -n "$pattern" ] && ! cat "$TMP/out" "$TMP/err" | grep -q -- "$pattern"; then
    fail "hccl-plan $* -> output lacks '$pattern': $(head -c 400 "$TMP/out") $(cat "$TMP/err")"
  fi
  if [ "$code" -eq 2 ] && [ "$(wc -l <"$TMP/err")" -ne 1 ]; then
    fail "hccl-plan $* -> error is not one line: $(cat "$TMP/err")"
  fi
}

# Good invocations.
expect 0 '' -- generate --collective allreduce --algo rhd \
  --ranks 12 --count 1000003 --dtype fp16 --topology 910b-8x4 -o "$TMP/rhd.json"
grep -q '"format": "hccl-plan"' "$TMP/rhd.json" || fail "generate -o wrote no plan"
expect 0 '"format": "hccl-plan"' -- generate --collective allreduce --algo rhd \
  --ranks 12 --count 1000003 --dtype fp16
expect 0 'OK c0: allreduce rhd p=12 n=1000003' -- verify "$TMP/rhd.json"
expect 0 'rank 3 of 12: allreduce rhd' -- expand "$TMP/rhd.json" --rank 3
expect 0 'recv_reduce from 2 dst output\[0, 1000003)' -- expand "$TMP/rhd.json" --rank 3
expect 0 'selected: hierarchical' -- cost --collective allreduce --ranks 32 \
  --count 64M --dtype fp16 --topology 910b-8x4
expect 0 'busbw_GB/s' -- cost --collective allreduce --ranks 32 --count 1M \
  --topology 910b-8x4 --exact
expect 0 'HCCL_ALGO override' -- cost --collective allgather --ranks 32 \
  --count 1M --topology 910b-8x4 --hccl-algo 'level0:NA;level1:H-D_R'
expect 0 'hierarchical(ring,ring)  *' -- cost --collective allreduce --ranks 16 \
  --count 1M --topology 910b-8x2 --hccl-algo 'allreduce=level1:pipeline'
expect 0 '"algorithm": "hierarchical"' -- generate --collective reducescatter \
  --algo auto --ranks 32 --count 1M --topology 910b-8x4
expect 0 '' -- generate --collective alltoall --algo pairwise \
  --ranks 4 --count 3 --form both -o "$TMP/a2a.json"
grep -q '"expanded"' "$TMP/a2a.json" || fail "--form both wrote no expanded form"
expect 0 'OK c0: alltoall pairwise' -- verify "$TMP/a2a.json"
expect 0 'c0: alltoall pairwise p=4' -- cost "$TMP/a2a.json"
expect 0 '"servers": 2' -- generate --collective allreduce --algo hierarchical \
  --ranks 4 --count 100 --rank-table "$IN/rank-table.json"
expect 0 'OK c0: allgather ring p=3' -- verify "$IN/good-allgather.json"
expect 0 'usage:' -- --help

# Incorrect plan: exit 1.
expect 1 "program 'c0' is incorrect: rank 1, phase 1 'ag' step 0 (step 1), op 0 (send to 0): sends 4 elements to rank 0, which posts no matching receive" -- verify \
  "$IN/wrong-peer-allgather.json"

# Bad input: exit 2, one line naming the problem.
expect 2 "unknown collective 'allreduse'" -- generate --collective allreduse \
  --algo ring --ranks 4 --count 8
expect 2 "unknown algorithm 'rign'" -- generate --collective allreduce \
  --algo rign --ranks 4 --count 8
expect 2 "negative value '-8'" -- generate --collective allreduce --algo ring \
  --ranks 4 --count -8
expect 2 "--count: 99999999999999999 outside 0.." -- generate --collective \
  allreduce --algo ring --ranks 4 --count 99999999999999999
expect 2 "--ranks: 0 outside 1.." -- generate --collective allreduce --algo \
  ring --ranks 0 --count 8
expect 2 "not a number: 'lots'" -- generate --collective allreduce --algo \
  ring --ranks lots --count 8
expect 2 "unknown dtype 'fp12'" -- generate --collective allreduce --algo ring \
  --ranks 4 --count 8 --dtype fp12
expect 2 "12 ranks are not a multiple of 8 ranks per server" -- generate \
  --collective allreduce --algo hierarchical --ranks 12 --count 8 \
  --ranks-per-server 8 --topology 910b-8x2
expect 2 "algorithm 'pairwise' cannot serve allreduce" -- generate \
  --collective allreduce --algo pairwise --ranks 4 --count 8
expect 2 "exceeds the topology's 8 ranks" -- generate --collective allreduce \
  --algo ring --ranks 9 --count 8 --topology 910b-8
expect 2 "unknown topology preset 'dgx'" -- cost --collective allreduce \
  --ranks 8 --count 8 --topology dgx
expect 2 "HCCL_ALGO: level1: unknown algorithm 'H-D-R'" -- cost --collective \
  allreduce --ranks 8 --count 8 --hccl-algo 'level1:H-D-R'
expect 2 "unknown option --rank" -- generate --collective allreduce --algo \
  ring --rank 4 --count 8
expect 2 "missing --count" -- generate --collective allreduce --algo ring \
  --ranks 4
expect 2 "option --ranks needs a value" -- cost --collective allreduce --ranks
expect 2 "plan: malformed JSON" -- verify "$IN/malformed.json"
expect 2 "cannot open" -- verify "$TMP/does-not-exist.json"
expect 2 "missing PLAN.json" -- verify
expect 2 "--rank: 12 outside 0..11" -- expand "$TMP/rhd.json" --rank 12
expect 2 "missing --rank" -- expand "$TMP/rhd.json"
expect 2 "rank ids must be 0..0 without gaps" -- generate --collective \
  allreduce --algo ring --ranks 1 --count 8 --rank-table "$IN/bad-rank-table.json"
expect 0 '' -- generate --collective allreduce --algo ring --ranks 1000000 \
  --count 8 -o "$TMP/huge.json"
expect 2 "program 'c0': rank 0, phase 1 'rs' step 349524: expands to more than 1048576 steps plus op instances for one rank (kMaxExpandedSize" \
  -- verify "$TMP/huge.json"
expect 0 '' -- generate --collective allreduce --algo ring --ranks 100000 \
  --count 8 -o "$TMP/big.json"
expect 2 "program 'c0' is too large to verify: about 39999600000 op instances" \
  -- verify "$TMP/big.json"
expect 2 "exceeds the budget of 200000000 rank-steps" -- cost "$TMP/huge.json"
expect 2 "the expanded form would list about" -- generate --collective \
  allreduce --algo ring --ranks 100000 --count 8 --form expanded
expect 2 "unknown command 'plan'" -- plan
expect 2 "--form: expected compact, expanded or both" -- generate \
  --collective allreduce --algo ring --ranks 2 --count 2 --form tiny

if [ "$FAILS" -ne 0 ]; then
  echo "$FAILS hccl-plan CLI checks failed"
  exit 1
fi
echo "all hccl-plan CLI checks passed"
