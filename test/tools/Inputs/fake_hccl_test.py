#!/usr/bin/env python3
"""A stand-in for hccl-test in calibrate_host.py's test: writes the --csv
rows of a ring all-gather / all-reduce on the alpha-beta-gamma model with
known figures (overhead 30 us, alpha 10 us, 2 GB/s, reduction 5 GB/s;
a cold call, --gap-us, 50 us more, 20 us more with --issue ahead,
which without --gap-us is refused as hccl-test refuses it; after a gap
under 1000 us that share of it; with FAKE_FLAT_WAKEUP set all of it after
any gap, as on an 8-rank host of 2 cores, where a short idle costs as much;
with FAKE_NO_WAKEUP set none at all).
FAKE_NOISE_DIR set: each round (its calls) scales every time by the next
factor of 1, 4, 1.2, 2 (a noisy host), counted in that folder.
FAKE_GAMMA_DIR set: each all-reduce round reduces at the next rate of 100,
10, 50 GB/s (a reduction that hides behind the copies), counted there.
FAKE_CACHE set: every byte term past 4 MiB (of the reported size) costs
1.75x (the working set has left the caches); FAKE_CACHE2 set as well:
each byte past 32 MiB 1.5x more again (it has left the last level too);
FAKE_CACHE3 set as well: past 64 MiB 1.0x less again (the rate's fall
past the last level spread over 32-64 MiB, then steady).
FAKE_AG_FIXED_US set: the all-gather's cost apart from its bytes is that
many us (not overhead + (p-1) alpha), so that the intercepts disagree
with any overhead and alpha >= 0 when it is under half the all-reduce's
or over all of it. FAKE_SPLIT_DIR set: rounds alternate overhead 30 us,
alpha 10 us and overhead 84 us, alpha 1 us (the all-reduce's fixed cost
90 us in both at 4 ranks), counted there.
FAKE_JITTER_DIR set: each all-reduce of 1 MiB and more pays 0.8-1.2x for
its bytes, drawn per round (counted there) and size from FAKE_JITTER_SEED
(default 0): a memory whose speed moves within a sweep, without a knee.
FAKE_ARGS_LOG set: each call's arguments are appended to that file.
FAKE_PHASE set to F: a call of one size (-b = -e, as validate_model.py's
--phase-probe times; calibrate_host.py times stretches of sizes) pays F
times for its bytes (a host in a slower memory phase than its calibration).
--flush-mib (calls from memory): the all-gather moves at 1 GB/s, the
all-reduce as before (its all-gather phase reads what its reduce-scatter
wrote), and every call costs 40 us more (the runtime's own state flushed
too); --evict-buffers the same without the 40 us (the call's buffers
evicted alone); both refused with --gap-us, as hccl-test refuses them.
Either with --issue ahead (queued behind stream tasks, no host parking): every
call costs 12 us less (ranks that share cores no longer park).
FAKE_FAIL set: a rank fails as hccl-test's would (its error, then the
launcher's last word) and the run exits 1. FAKE_FAIL_ONCE set to a folder:
the same, for the first run only (it leaves a mark there)."""
import os
import random
import sys

args = sys.argv[1:]
if os.environ.get("FAKE_ARGS_LOG"):  # what calibrate_host asked for
    with open(os.environ["FAKE_ARGS_LOG"], "a") as log:
        log.write(" ".join(args) + "\n")
op = args[0]
first_failure = False
if os.environ.get("FAKE_FAIL_ONCE"):
    mark = os.path.join(os.environ["FAKE_FAIL_ONCE"], "failed")
    first_failure = not os.path.exists(mark)
    if first_failure:
        open(mark, "w").close()
if os.environ.get("FAKE_FAIL") or first_failure:
    sys.stderr.write("all_reduce: 4 ranks, fp32, sum, root 0\n"
                     "hccl-test: rank 2: HcclAllReduce failed: "
                     "HCCL_E_TIMEOUT: peer 1 sent nothing for 30 s\n"
                     "hccl-test: 3 rank(s) still running 15 s after a rank "
                     "failed; killing them\n")
    sys.exit(1)
FLAGS = ("--evict-buffers",)  # hccl-test's options without a value
flags = {a for a in args[1:] if a in FLAGS}
valued = [a for a in args[1:] if a not in FLAGS]
opt = {valued[i]: valued[i + 1] for i in range(0, len(valued) - 1, 2)}
p = int(opt["-p"])
lo, hi, f = int(opt["-b"]), int(opt["-e"]), int(opt["-f"])
C, ALPHA, BETA, GAMMA = 30e-6, 10e-6, 1 / 2e9, 1 / 5e9
cold_data = "--flush-mib" in opt or "--evict-buffers" in flags
if cold_data and "--gap-us" in opt:
    sys.exit("hccl-test: calls from memory and --gap-us after an idle gap; "
             "give one of them")
if cold_data and op == "all_gather":
    BETA *= 2  # from memory a lone all-gather moves half as fast
if "--flush-mib" in opt:
    C += 40e-6  # the runtime's code and control state come from memory too
if opt.get("--issue") == "ahead" and "--gap-us" not in opt:
    if not cold_data:
        sys.exit("hccl-test: --issue ahead holds each call on the stream "
                 "behind the gap of --gap-us or the eviction of --flush-mib "
                 "or --evict-buffers; give one of them")
    C -= 12e-6  # queued: no host meeting parks a rank
if "--gap-us" in opt:
    cold = 20e-6 if opt.get("--issue") == "ahead" else 50e-6
    if os.environ.get("FAKE_NO_WAKEUP"):
        cold = 0.0
    C += cold * (1.0 if os.environ.get("FAKE_FLAT_WAKEUP")
                 else min(1.0, int(opt["--gap-us"]) / 1000))


def round_index(folder):
    """The round this call belongs to, counted in `folder`: calibrate_host
    runs a round's sizes in two calls (4x steps up to 1 MiB, then 2x), and
    a call from the smallest size starts a round."""
    n = len(os.listdir(folder))
    if lo > (1 << 20) and n:
        return n - 1
    open(os.path.join(folder, str(n)), "w").close()
    return n


scale = 1.0
noise = os.environ.get("FAKE_NOISE_DIR")
if noise:
    scale = (1.0, 4.0, 1.2, 2.0)[round_index(noise) % 4]
split_dir = os.environ.get("FAKE_SPLIT_DIR")
if split_dir and round_index(split_dir) % 2:
    C, ALPHA = C + 54e-6, ALPHA - 9e-6
gamma_dir = os.environ.get("FAKE_GAMMA_DIR")
if gamma_dir and op == "all_reduce":
    GAMMA = 1 / (100e9, 10e9, 50e9)[round_index(gamma_dir) % 3]
phase = float(os.environ.get("FAKE_PHASE", "1")) if lo == hi else 1.0
jitter_dir = os.environ.get("FAKE_JITTER_DIR")
jitter_round = round_index(jitter_dir) if jitter_dir and op == "all_reduce" else None
rows = []
s = lo
while s <= hi:
    e = s
    if os.environ.get("FAKE_CACHE") and s > (4 << 20):
        e = (4 << 20) + 1.75 * (s - (4 << 20))
    if os.environ.get("FAKE_CACHE2") and s > (32 << 20):
        e += 1.5 * (s - (32 << 20))
    if os.environ.get("FAKE_CACHE3") and s > (64 << 20):
        e -= 1.0 * (s - (64 << 20))
    if op == "all_gather":
        fixed = C + (p - 1) * ALPHA
        if os.environ.get("FAKE_AG_FIXED_US"):
            fixed = float(os.environ["FAKE_AG_FIXED_US"]) * 1e-6
        t = fixed + phase * (p - 1) / p * e * BETA
    else:
        jitter = 1.0
        if jitter_round is not None and s >= (1 << 20):
            seed = os.environ.get("FAKE_JITTER_SEED", "0")
            jitter = random.Random(f"{seed}-{jitter_round}-{s}").uniform(0.8, 1.2)
        t = C + 2 * (p - 1) * ALPHA + phase * jitter * (2 * (p - 1) / p * e * BETA
                                                        + (p - 1) / p * e * GAMMA)
    rows.append(f"{op},fp32,sum,{p},{s},{s // 4},{t * scale * 1e6:.4f},0,0,NULL")
    s *= f
with open(opt["--csv"], "w") as out:
    out.write("op,datatype,reduce_op,ranks,data_size_bytes,count,avg_time_us,"
              "alg_bandwidth_gbps,bus_bandwidth_gbps,check_result\n")
    out.write("\n".join(rows) + "\n")
