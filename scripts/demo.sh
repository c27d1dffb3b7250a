#!/usr/bin/env bash
# The main job: an exported training graph through the whole path, on this
# machine's processes:
#   import (hccl-translate --import-graph)
#   -> --hccl-pipeline (bucket sizing, fusion, overlap, algorithm selection,
#      lowering, verification)
#   -> plan export (hccl-translate --comm-to-plan)
#   -> hccl-run on 8 local ranks, next to the unscheduled baseline (one
#      synchronous all-reduce per gradient), results checked
# and prints predicted and measured iteration times side by side.
#
#   scripts/demo.sh [GRAPH.json]     (default: examples/gpt-small-host.graph.json)
#
# The graph runs on this machine, so it is priced for it: its topology
# becomes host-N with link figures calibrated once with hccl-test
# (tools/calibrate/calibrate_host.py, cached in build/demo/;
# HCCLMLIR_DEMO_RECALIBRATE=1 measures again). Other graphs:
#   HCCLMLIR_DEMO_COMPUTE_SCALE=K  multiply compute times by K (graphs priced
#                                  for an NPU: 16 turns 910B rates into the
#                                  20 TFLOPS device of gpt-small-host)
#   HCCLMLIR_DEMO_RANKS=N          data-parallel ranks (when N copies of the
#                                  gradients do not fit in memory)
#   HCCLMLIR_DEMO_PIPELINE=OPTS    extra --hccl-pipeline options, e.g.
#                                  max-bucket-bytes=256M to keep buckets
#                                  within memory on this machine
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${HCCLMLIR_BUILD_DIR:-$ROOT/build}"
JOBS="${HCCLMLIR_JOBS:-$(nproc)}"
GRAPH="${1:-$ROOT/examples/gpt-small-host.graph.json}"
OUT="$BUILD/demo"
BIN="$BUILD/bin"

"$ROOT/scripts/setup.sh"
# The local ranks of hccl-run and hccl-test admit only peers holding the
# job's secret (docs/security.md); a fresh one per demo unless given.
if [[ -z "${HCCL_JOB_SECRET:-}" && -z "${HCCL_JOB_SECRET_FILE:-}" ]]; then
  HCCL_JOB_SECRET=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
  export HCCL_JOB_SECRET
fi
ninja -C "$BUILD" -j "$JOBS" hccl-opt hccl-translate hccl-run hccl-test >/dev/null
mkdir -p "$OUT"

step() { printf '\n== %s\n' "$*"; }

RANKS=${HCCLMLIR_DEMO_RANKS:-$(python3 -c 'import json,sys; g=json.load(open(sys.argv[1])); print(len(g["groups"][0]["ranks"]))' "$GRAPH")}
SCALE=${HCCLMLIR_DEMO_COMPUTE_SCALE:-1}

step "calibrating the host topology ($RANKS ranks)"
# Named for hccl-run's issue mode (its default, --issue ahead, since
# 2026-12-06): a calibration cached from the host issue prices a wake-up
# the runs no longer pay.
CALIB="$OUT/host-calibration-p$RANKS-ahead.json"
if [[ ! -f "$CALIB" || -n "${HCCLMLIR_DEMO_RECALIBRATE:-}" ]]; then
  calibrate() {
    python3 "$ROOT/tools/calibrate/calibrate_host.py" --hccl-test "$BIN/hccl-test" \
      -p "$RANKS" -o "$CALIB" "$@"
  }
  # Exit 3: the rounds disagreed (another job on the host); once more with
  # more rounds and iterations before giving up.
  rc=0
  calibrate || rc=$?
  if [[ $rc == 3 ]]; then
    echo "calibrating again with 5 rounds of 10 iterations"
    rc=0
    calibrate -r 5 -n 10 || rc=$?
  fi
  if [[ $rc != 0 ]]; then
    echo "demo: calibration failed (exit $rc); see above" >&2
    exit "$rc"
  fi
else
  echo "using $CALIB (HCCLMLIR_DEMO_RECALIBRATE=1 measures again)"
fi
# The graph, priced on this machine: host-N with calibrated links, the data-
# parallel group on N ranks, compute scaled.
python3 - "$GRAPH" "$CALIB" "$OUT/graph.json" "$RANKS" "$SCALE" <<'PY'
import json, sys
g = json.load(open(sys.argv[1]))
calib = json.load(open(sys.argv[2]))
ranks, scale = int(sys.argv[4]), float(sys.argv[5])
g["topology"] = {"preset": f"host-{ranks}", "link_params": calib}
g["groups"] = [{"name": grp["name"], "ranks": list(range(ranks))}
               for grp in g["groups"]]
for op in g["ops"]:
    if op["op"] == "compute" and "time_us" in op:
        op["time_us"] *= scale
json.dump(g, open(sys.argv[3], "w"))
PY

step "import: $(basename "$GRAPH")"
"$BIN/hccl-translate" --import-graph "$OUT/graph.json" -o "$OUT/graph.mlir"
GRADS=$(grep -c "comm.all_reduce" "$OUT/graph.mlir" || true)
COMPUTE=$(grep -c "comm.compute" "$OUT/graph.mlir" || true)
echo "$COMPUTE compute ops, $GRADS gradient all-reduces ($OUT/graph.mlir)"

step "compile: baseline (one synchronous all-reduce per gradient) and --hccl-pipeline"
"$BIN/hccl-opt" "$OUT/graph.mlir" --comm-select-algorithm \
  -o "$OUT/baseline.mlir"
"$BIN/hccl-opt" "$OUT/baseline.mlir" --comm-estimate=output="$OUT/baseline.estimate" -o /dev/null
PIPE="${HCCLMLIR_DEMO_PIPELINE:-}"
"$BIN/hccl-opt" "$OUT/graph.mlir" --hccl-pipeline="lower=false ${PIPE}" \
  -o "$OUT/scheduled.mlir"
"$BIN/hccl-opt" "$OUT/scheduled.mlir" --comm-estimate=output="$OUT/scheduled.estimate" -o /dev/null
"$BIN/hccl-opt" "$OUT/baseline.mlir" --comm-lower-schedule --comm-verify-schedule \
  | "$BIN/hccl-translate" --comm-to-plan -o "$OUT/baseline.plan.json"
"$BIN/hccl-opt" "$OUT/graph.mlir" --hccl-pipeline="${PIPE}" \
  | "$BIN/hccl-translate" --comm-to-plan -o "$OUT/scheduled.plan.json"
BUCKETS=$(grep -c "comm.start" "$OUT/scheduled.mlir" || true)
PROGRAMS=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["programs"]))' "$OUT/scheduled.plan.json")
echo "scheduled: $GRADS all-reduces fused into $BUCKETS buckets, each started"
echo "as soon as its last gradient is ready; $PROGRAMS distinct verified programs"
echo "plans: $OUT/baseline.plan.json, $OUT/scheduled.plan.json"

step "run on $RANKS local ranks (hccl-run --compare)"
"$BIN/hccl-run" "$OUT/scheduled.plan.json" --compare "$OUT/baseline.plan.json" \
  -n "${HCCLMLIR_DEMO_ITERS:-3}" -w 1 --trace "$OUT/trace.json" | tee "$OUT/run.txt"

step "predicted (comm-estimate) vs measured (hccl-run), iteration ms"
python3 - "$OUT" <<'PY'
import re, sys
out = sys.argv[1]
def predicted(name):
    text = open(f"{out}/{name}.estimate").read()
    m = re.search(r"timeline @\S+ compute_us=([\d.]+) comm_us=([\d.]+) "
                  r"exposed_comm_us=([\d.]+) iteration_us=([\d.]+)", text)
    return [float(x) / 1e3 for x in m.groups()]
measured = {}
for line in open(f"{out}/run.txt"):
    cols = [c.strip() for c in line.split("|")]
    if cols[0] in ("baseline", "scheduled"):
        measured[cols[0]] = [float(c) for c in cols[1:5]]
pb, ps = predicted("baseline"), predicted("scheduled")
mb, ms = measured["baseline"], measured["scheduled"]
print(f"{'':10} | {'predicted':>22} | {'measured':>22}")
print(f"{'':10} | {'iteration':>10} {'exposed':>11} | {'iteration':>10} {'exposed':>11}")
print(f"{'baseline':10} | {pb[3]:10.2f} {pb[2]:11.2f} | {mb[0]:10.2f} {mb[3]:11.2f}")
print(f"{'scheduled':10} | {ps[3]:10.2f} {ps[2]:11.2f} | {ms[0]:10.2f} {ms[3]:11.2f}")
print(f"{'speedup':10} | {pb[3] / ps[3]:9.2f}x {'':11} | {mb[0] / ms[0]:9.2f}x")
PY
echo
echo "trace of the scheduled run: $OUT/trace.json (chrome://tracing, Perfetto)"
