"""The compiler and runtime tools validate_model.py drives (hccl-opt,
hccl-translate, hccl-run) and the parsers of what they print: shared by the
bench (validate_model.py) and the host-phase probe (phase_probe.py), which
both run tools and raise ToolError, so they live apart from either and
neither module imports the other."""
import os
import re
import subprocess
import sys


class ToolError(Exception):
    pass


def log(msg):
    print(f"validate_model: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- tools

class Tools:
    def __init__(self, bindir, nice):
        self.bindir = bindir
        self.nice = nice
        self.last_stderr = ""  # the last successful run's (warnings)
        self.env = dict(os.environ)
        libdir = os.path.join(os.path.dirname(bindir), "lib")
        if os.path.isdir(libdir):
            self.env["LD_LIBRARY_PATH"] = libdir + (
                ":" + self.env["LD_LIBRARY_PATH"] if self.env.get("LD_LIBRARY_PATH") else "")
        for t in ("hccl-opt", "hccl-translate", "hccl-run"):
            p = os.path.join(bindir, t)
            if not os.access(p, os.X_OK):
                raise ToolError(f"{t} not found (or not executable) at {p}; "
                                "build it or give --bin")

    def path(self, tool):
        return os.path.join(self.bindir, tool)

    def run(self, tool, args, stdin=None, measure=False, timeout=None):
        cmd = [self.path(tool)] + args
        if measure and self.nice:
            cmd = ["nice", "-n", str(self.nice)] + cmd
        try:
            res = subprocess.run(cmd, input=stdin, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True,
                                 env=self.env, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise ToolError(f"{tool} timed out after {timeout} s: {' '.join(cmd)}")
        if res.returncode != 0:
            raise ToolError(f"{tool} failed (exit {res.returncode}): "
                            f"{' '.join(cmd)}\n{res.stderr.strip()}")
        self.last_stderr = res.stderr
        return res.stdout


TIMELINE = re.compile(r"timeline @\S+ compute_us=([\d.]+) comm_us=([\d.]+) "
                      r"exposed_comm_us=([\d.]+) iteration_us=([\d.]+)")
LATE = re.compile(r"^late starts \(scheduled\): (\d+) of (\d+) starts issued over "
                  r"[\d.]+ ms after the device clock reached them \(worst "
                  r"([\d.]+) ms\)", re.M)
ITERATIONS = re.compile(r"^iterations \(scheduled\), ms:((?: [\d.]+)+)$", re.M)
PROBES = re.compile(r"^phase probe \(scheduled\): (\d+) B .* mean of (\d+) calls; "
                    r"us before iteration 1 and after each:((?: [\d.]+)+)$", re.M)
RUN_ROW = re.compile(r"^scheduled\s*\|\s*([\d.]+)\s*\|\s*([\d.]+)\s*\|\s*([\d.]+)"
                     r"\s*\|\s*([\d.]+)\s*\|\s*(\d+)\s*\|\s*(\S+)", re.M)


def parse_estimate(text, what):
    m = TIMELINE.findall(text)
    if len(m) != 1:
        raise ToolError(f"hccl-opt --comm-estimate: expected one timeline line for "
                        f"{what}, found {len(m)}:\n{text.strip()[-2000:]}")
    compute, comm, exposed, it = (float(x) / 1e3 for x in m[0])
    return {"compute_ms": compute, "comm_ms": comm, "exposed_ms": exposed,
            "iter_ms": it}


def parse_run(text, what):
    m = RUN_ROW.findall(text)
    if len(m) != 1:
        raise ToolError(f"hccl-run: no result row for {what}:\n{text.strip()[-2000:]}")
    it, compute, comm, exposed, colls, check = m[0]
    if check == "failed":
        raise ToolError(f"hccl-run: results wrong for {what}:\n{text.strip()}")
    late = LATE.findall(text)
    out = {"iter_ms": float(it), "compute_ms": float(compute),
           "comm_ms": float(comm), "exposed_ms": float(exposed),
           "collectives": int(colls),
           # hccl-run before 2026-12-04 did not count them
           "late_starts": int(late[0][0]) if late else None,
           "worst_late_ms": float(late[0][2]) if late else None}
    its, probes = ITERATIONS.findall(text), PROBES.findall(text)
    if its or probes:
        # hccl-run --phase-probe: each timed iteration and the probes around it
        if len(its) != 1 or len(probes) != 1:
            raise ToolError(f"hccl-run: expected one line of iterations and one of "
                            f"probes for {what}, found {len(its)} and {len(probes)}")
        out["iters_ms"] = [float(x) for x in its[0].split()]
        out["probes_us"] = [float(x) for x in probes[0][2].split()]
        if len(out["probes_us"]) != len(out["iters_ms"]) + 1:
            raise ToolError(f"hccl-run: {len(out['iters_ms'])} iterations need "
                            f"{len(out['iters_ms']) + 1} probes around them, found "
                            f"{len(out['probes_us'])} for {what}")
    return out
