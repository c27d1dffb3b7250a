//===- Passes.td - comm dialect passes ---------------------*- tablegen -*-===//
#ifndef HCCL_COMM_PASSES
#define HCCL_COMM_PASSES

include "mlir/Pass/PassBase.td"

def GradientFusion : Pass<"comm-gradient-fusion"> {
  let summary = "Fuse the collectives of each bucket into one variadic op";
  let description = [{
    Materialises the buckets chosen by `comm-bucket-sizing`: the
    `comm.all_reduce` ops of one function that carry the same `comm.bucket`
    index and the same key (group, reduction, element type, algorithm) become
    one variadic `comm.all_reduce`, placed where the bucket's last gradient is
    ready. Uses of the earlier members' results that sat before that point are
    moved after it.

    Fusion never creates a cycle: a member whose inputs depend on the results
    of an earlier member of the bucket (checked by forward reachability) starts
    a new bucket instead, as does a side-effecting user that would have to
    move. The order of collectives is a pure function of the input IR, so
    every rank issues the same sequence.
  }];
  let statistics = [
    Statistic<"numFused", "fused-collectives",
              "Collectives merged into a bucket">,
    Statistic<"numBuckets", "buckets", "Fused collectives created">,
    Statistic<"numSplits", "bucket-splits",
              "Buckets split to avoid a cycle or a side-effecting move">,
  ];
}

//===----------------------------------------------------------------------===//
// Analysis and scheduling passes
//===----------------------------------------------------------------------===//

def BucketSizing : Pass<"comm-bucket-sizing"> {
  let summary = "Decide which all-reduces share a bucket (comm.bucket = k)";
  let description = [{
    Partitions the `comm.all_reduce` ops of each block into buckets and
    records the choice as `comm.bucket = k` on every one of them, for
    `comm-gradient-fusion` to materialise. A bucket is a run of consecutive
    all-reduces of one group (gradient-ready order = block order) that share
    the fusion key (reduction, element type, pinned algorithm); a member
    whose inputs depend on an earlier member's result starts a new bucket.

    `policy=threshold` (HCCL / Horovod / MindSpore style) fills a bucket
    while its bytes stay within `threshold-bytes` (default 64M: MindSpore's
    and Horovod's fusion threshold); `first-bucket-bytes` gives the first
    bucket its own limit.

    `policy=ddp` makes PyTorch DDP's buckets (torch 1.13's Reducer after its
    first iteration: gradients in ready order, one open bucket per key, a
    bucket closed once its bytes reach the limit, the crossing gradient
    included): `first-bucket-bytes` (default 1M,
    dist._DEFAULT_FIRST_BUCKET_BYTES) for each key's first bucket, then
    `threshold-bytes` (default 25M, bucket_cap_mb). Buckets of different
    element types may interleave.

    `policy=optimal` minimises the predicted iteration time, compute plus
    exposed communication, on the gradient-ready timeline priced with
    lib/schedule's closed forms, choosing the boundaries and each bucket's
    algorithm together (a bucket costs the cheapest algorithm for its
    size). Exact dynamic programming over the boundaries, O(n * A) for n
    all-reduces and A candidate algorithms (see docs/passes.md); among
    partitions that finish at the same time it prefers fewer, larger
    buckets; with `slack-margin=M` (default 1; 0 turns it off) it first prefers the
    plan that is also optimal when every cost grows by M (then M/2, M/4),
    so that a bucket the model fits exactly into idle time is not exposed
    when it runs slower than priced. Every bucket's price includes the topology's per-collective
    overhead (`#comm.topology<..., overhead = US>`), and a bucket issued
    on an idle stream starts no earlier than the wake-up after its issue
    (`wakeup = US`; all of it, whatever `wakeup_idle` says: a bound). Needs the
    module topology.

    Every policy honours `max-count` and `max-bucket-bytes`. Sizes accept
    K, M, G suffixes (binary).

    `max-in-flight`, `max-bytes-in-flight` and `memory-cap` are the limits
    `comm-overlap-schedule` will enforce (the pipeline gives both passes
    the same ones): `optimal` sizes the buckets under them. Its planner
    models the in-flight limits (a start a limit holds back goes at the
    first compute-op boundary after the buckets before it have ended:
    exact with one in flight, the best of its plans and of every threshold
    partition otherwise); on a module it then checks its choice against
    DDP's buckets and thresholds of 1M to 1G by scheduling each on a clone
    under the limits and keeps the shortest predicted iteration
    (docs/passes.md). The other policies refuse these options: their
    buckets depend on sizes alone.

    `table=FILE` (optimal only): an algorithm table whose entries carry
    simulated times (tools/tune/sim_table.py) prices the all-reduce
    buckets of the group sizes it covers by those times, linear between
    its sizes, instead of the closed forms; comm-select-algorithm's
    `table=` then takes the same table's algorithms (the pipeline's
    `algo-table=` gives both passes the file).
  }];
  let options = [
    Option<"policy", "policy", "std::string", /*default=*/"\"threshold\"",
           "Bucketing policy: threshold, ddp or optimal; default threshold">,
    Option<"thresholdBytes", "threshold-bytes", "std::string",
           /*default=*/"\"\"",
           "threshold: largest bucket in bytes; ddp: the bytes that close a "
           "bucket (K/M/G suffixes); default '' = 64M (threshold), 25M "
           "(ddp)">,
    Option<"firstBucketBytes", "first-bucket-bytes", "std::string",
           /*default=*/"\"\"",
           "threshold, ddp: limit of the first bucket (0 = threshold-bytes); "
           "default '' = 0 (threshold), 1M (ddp)">,
    Option<"maxCount", "max-count", "int64_t", /*default=*/"0",
           "Most collectives in one bucket (default 0 = no limit)">,
    Option<"maxBucketBytes", "max-bucket-bytes", "std::string",
           /*default=*/"\"0\"",
           "Memory cap: largest fused buffer in bytes (default 0 = no cap; a "
           "single larger gradient still gets a bucket of its own)">,
    Option<"algo", "algo", "std::string", /*default=*/"\"\"",
           "optimal: HCCL_ALGO override for the cost model (as "
           "comm-select-algorithm's algo=); default: none">,
    Option<"table", "table", "std::string", /*default=*/"\"\"",
           "optimal: algorithm table whose simulated times price the "
           "buckets of the group sizes it covers; default: none">,
    Option<"maxInFlight", "max-in-flight", "int64_t", /*default=*/"0",
           "optimal: comm-overlap-schedule's limit of collectives in flight "
           "to size under (default 0 = no limit)">,
    Option<"maxBytesInFlight", "max-bytes-in-flight", "std::string",
           /*default=*/"\"0\"",
           "optimal: comm-overlap-schedule's limit of bytes in flight to "
           "size under (default 0 = no limit)">,
    Option<"memoryCap", "memory-cap", "std::string", /*default=*/"\"0\"",
           "optimal: comm-overlap-schedule's memory cap to size under "
           "(default 0 = no cap)">,
    Option<"slackMargin", "slack-margin", "double", /*default=*/"1.0",
           "optimal: among plans with the optimal predicted finish, prefer "
           "one still optimal with every cost times 1 + this (then half, a "
           "quarter of it); default 1, 0 = off">,
    Option<"peakTflops", "peak-tflops", "double", /*default=*/"320.0",
           "Compute estimate: device peak in TFLOPS for linalg ops; default "
           "320">,
    Option<"memoryGbps", "memory-gbps", "double", /*default=*/"1600.0",
           "Compute estimate: device memory bandwidth in GB/s; default 1600">,
  ];
  let statistics = [
    Statistic<"numBuckets", "buckets", "Buckets assigned">,
    Statistic<"numSlackStreams", "streams-with-slack",
              "optimal: streams whose plan keeps a slack-margin">,
    Statistic<"numBucketed", "bucketed-collectives",
              "All-reduces given a bucket">,
    Statistic<"numCandidates", "candidates-scheduled",
              "optimal under the overlap limits: candidate plans scheduled "
              "on a clone">,
  ];
}

def OverlapSchedule : Pass<"comm-overlap-schedule"> {
  let summary = "Split collectives into start/wait pairs and overlap them "
                "with compute";
  let description = [{
    Every collective at the top of a block becomes `comm.start` + `comm.wait`.
    The block is then list-scheduled: each start as early as its operands
    allow, each wait just before the first use of its results, and the
    compute that does not need a result runs in between so that the
    communication hides behind it. Starts keep their relative order (every
    rank issues the same sequence), and so do ops with side effects.

    Limits: `max-in-flight` collectives started and not yet waited (like
    HCCL_STREAM_COUNT), `max-bytes-in-flight`, and `memory-cap`, the most
    bytes of tensors live at once in the block (in-flight buffers
    included). With a topology the pass predicts when each collective ends
    and, when a limit forces a wait, waits for one that has already
    finished whenever it can. Deterministic: ties break on the original
    order.
  }];
  let options = [
    Option<"maxInFlight", "max-in-flight", "int64_t", /*default=*/"0",
           "Most collectives in flight at once (default 0 = no limit)">,
    Option<"maxBytesInFlight", "max-bytes-in-flight", "std::string",
           /*default=*/"\"0\"",
           "Most payload bytes in flight at once (default 0 = no limit)">,
    Option<"memoryCap", "memory-cap", "std::string", /*default=*/"\"0\"",
           "Most bytes of live tensors at once (default 0 = no limit)">,
    Option<"peakTflops", "peak-tflops", "double", /*default=*/"320.0",
           "Compute estimate: device peak in TFLOPS for linalg ops; default "
           "320">,
    Option<"memoryGbps", "memory-gbps", "double", /*default=*/"1600.0",
           "Compute estimate: device memory bandwidth in GB/s; default 1600">,
  ];
  let statistics = [
    Statistic<"numAsync", "async-collectives",
              "Collectives split into start/wait">,
    Statistic<"numMoved", "moved-ops", "Ops whose position changed">,
  ];
}

def SelectAlgorithm : Pass<"comm-select-algorithm"> {
  let summary = "Record the cheapest algorithm on every collective";
  let description = [{
    Sets the `algo` attribute of every all_reduce, all_gather,
    reduce_scatter, broadcast, reduce and all_to_all to the algorithm
    lib/schedule's selectAlgorithm prices cheapest for its size, group and
    the module topology; on multi-server topologies that includes the
    hierarchical algorithms with their per-level choices. Prices equal
    to rounding (within a relative 1e-9) are a tie, which goes to the
    first candidate in the order ring, mesh, mesh_oneshot, rhd, rd (tree,
    star for broadcast and reduce), so that the choice does not flip with
    the last bits from one size to the next. An `algo`
    attribute already present is kept (and checked) unless `algo=` is
    given. `algo=` takes HCCL_ALGO syntax (`level0:NA;level1:H-D_R`, or per
    collective `allreduce=level0:NA;level1:ring/allgather=...`) and
    overrides; `slices=` sets the chunking recorded with the choice.

    `table=FILE` takes the choices from an algorithm table
    (docs/plan-format.md, "Algorithm tables"; made by
    tools/tune/sim_table.py, which prices every candidate with hccl-sim):
    a collective whose collective and group size the table covers gets the
    algorithm of the largest table size not above its bytes (the smallest
    entry below the first); the others are priced by the model. `algo=`
    and an `algo` attribute already present come first. The table must
    name the module's topology.

    Errors at the op: no topology, a group whose ranks do not fit the
    topology, an override or a table entry that cannot serve the group, a
    dynamic shape; at the module: a table that cannot be read, is malformed
    (the JSON path named) or was made for another topology.
  }];
  let options = [
    Option<"algo", "algo", "std::string", /*default=*/"\"\"",
           "HCCL_ALGO override, e.g. level0:NA;level1:H-D_R; default: none">,
    Option<"table", "table", "std::string", /*default=*/"\"\"",
           "Algorithm table (JSON) whose choices replace the model's where "
           "it covers a collective; default: none">,
    Option<"slices", "slices", "int64_t", /*default=*/"1",
           "Slices recorded with every choice (1..4096); default 1">,
  ];
  let statistics = [
    Statistic<"numSelected", "selected", "Collectives given an algorithm">,
    Statistic<"numFromTable", "from-table",
              "Collectives whose algorithm the table chose">,
  ];
}

def Estimate : Pass<"comm-estimate"> {
  let summary = "Report predicted collective costs and the iteration timeline";
  let description = [{
    Prints, for each function, one line per collective (bytes as HCCL counts
    them, algorithm, predicted time, bus bandwidth) and the predicted
    timeline: total compute, total communication, exposed communication and
    the iteration time. The timeline runs the block in order on one compute
    stream; a synchronous collective blocks it, `comm.start` issues onto the
    communication stream of its group (in order) and `comm.wait` blocks until
    that collective ends. Exposed communication = iteration - compute.

    `output=` names the report file (`-`, the default, is stdout);
    `trace=FILE` also writes the timeline as Chrome trace JSON
    (chrome://tracing, Perfetto): the compute stream and one lane per
    in-flight collective. `link-params=FILE` prices the schedule as
    compiled with other link figures (the link-parameter JSON of
    docs/plan-format.md, e.g. calibrate_host.py's): its fields replace the
    module topology's and the ones it lacks stay (a file without
    `cache_bytes` keeps the module's knees: write `"cache_bytes": 0` for
    none); servers, devices and pods stay the module's. A function then
    needs the topology even without collectives. A plan compiled on one
    calibration can so be priced on the host as measured later
    (bench/model/validate_model.py --phase-probe). The IR is not changed.
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "Report file (default '-' = stdout)">,
    Option<"trace", "trace", "std::string", /*default=*/"\"\"",
           "Chrome trace JSON file of the predicted timeline; default: none">,
    Option<"linkParams", "link-params", "std::string", /*default=*/"\"\"",
           "Link-parameter JSON whose figures replace the module "
           "topology's for this report; default: the module's">,
    Option<"peakTflops", "peak-tflops", "double", /*default=*/"320.0",
           "Compute estimate: device peak in TFLOPS for linalg ops; default "
           "320">,
    Option<"memoryGbps", "memory-gbps", "double", /*default=*/"1600.0",
           "Compute estimate: device memory bandwidth in GB/s; default 1600">,
  ];
}

def GradientCompression : Pass<"comm-gradient-compression"> {
  let summary = "Cast f32 gradients to bf16 or fp16 around their all-reduce";
  let description = [{
    Every `comm.all_reduce <sum>` whose inputs are all f32 tensors reduces
    them in `dtype` instead: `arith.truncf` before, `arith.extf` after. Half
    the bytes cross the links and the cost model prices the smaller size.
    Other reductions and element types are left alone. Must run before
    comm-overlap-schedule.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let options = [
    Option<"dtype", "dtype", "std::string", /*default=*/"\"bf16\"",
           "Wire type: bf16 or fp16; default bf16">,
  ];
  let statistics = [
    Statistic<"numCompressed", "compressed", "All-reduces compressed">,
  ];
}

//===----------------------------------------------------------------------===//
// Lowering to step schedules (lead)
//===----------------------------------------------------------------------===//

def LowerSchedule : Pass<"comm-lower-schedule"> {
  let summary = "Expand collectives into the step schedule of their algorithm";
  let description = [{
    Replaces every all_reduce, all_gather, reduce_scatter, broadcast, reduce
    and all_to_all by a `comm.schedule` holding the step program that
    lib/schedule generates for its algorithm (the op's `algo` attribute; when
    absent, the cheapest one for the module topology), group size and element
    count: one source of truth with the runtime and the verifier. The IR is
    rank-parametric and its size does not depend on the group size beyond
    O(log p) phases.

    Preconditions, diagnosed at the op: static shapes; gathers, scatters and
    all-to-alls along a leading dimension (the flat layout the runtime
    moves); an algorithm that can serve the collective and group; for
    hierarchical algorithms a topology in which the group's ranks split
    evenly across servers.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let options = [
    Option<"defaultSlices", "slices", "int64_t", /*default=*/"0",
           "Slices per op when the algorithm attribute gives none (default 0 = "
           "keep the attribute's value)">,
  ];
  let statistics = [
    Statistic<"numLowered", "lowered", "Collectives lowered to schedules">,
  ];
}

def SpecializeRank : Pass<"comm-specialize-rank"> {
  let summary = "Fold every step schedule for one rank";
  let description = [{
    Substitutes rank R (and the group size and count) into each
    `comm.schedule`, unrolls phases into single steps and repeats into
    instances, and folds: what is left is exactly what rank R sends,
    receives, reduces and copies at each step, with constant peers, offsets
    and counts. Steps where the rank is idle stay as empty phases, so step
    numbers agree across ranks. Meant for inspection and tests.
  }];
  // The substituted constants and the folders' results are arith ops.
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let options = [
    Option<"rank", "rank", "int64_t", /*default=*/"-1",
           "Group-local rank to specialise for (required)">,
  ];
}

def VerifySchedule : Pass<"comm-verify-schedule"> {
  let summary = "Prove every lowered schedule correct with lib/schedule's verifier";
  let description = [{
    Reads each rank-parametric `comm.schedule` back into a step program and
    runs the symbolic verifier: every output element ends up holding exactly
    the contributions the collective requires on every rank, sends match
    receives step by step, no hazards, all accesses in bounds, out of place
    and in place. A failure is a diagnostic at the schedule naming the rank,
    step, op and element range. A schedule whose contents could not be
    simulated (beyond the verifier's budget, or above `exhaustive-limit`)
    is not proven: the pass warns at it, saying what was checked.
  }];
  let options = [
    Option<"exhaustiveLimit", "exhaustive-limit", "int64_t", "1048576",
           "Largest group size whose contents are simulated (a proof; above "
           "it, or beyond the simulation budget, the pass warns that the "
           "schedule is not proven); default 1048576">,
    Option<"inPlace", "in-place", "bool", "true",
           "Also verify with the output aliased onto the input; default true">,
    Option<"remarks", "remarks", "bool", "false",
           "Emit a remark with what was proven for each schedule; default "
           "false">,
  ];
  let statistics = [
    Statistic<"numVerified", "verified", "Schedules proven correct">,
  ];
}

#endif // HCCL_COMM_PASSES
