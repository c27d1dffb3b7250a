"""Every StableHLO program of a corpus through the documented path: import
with a host topology, --hccl-pipeline, plan export, hccl-run on local ranks
with every result checked. Prints one line per program (its processes and
collectives, and "executed, checked" or the one-line reason it stopped) and
the share that reached an executed, checked plan.

  run_corpus.py BIN_DIR PROGRAM.mlir...     (exit 0 when every program ran
                                             its course: reaching a plan or
                                             stopping with a reason)
"""
import json
import os
import re
import subprocess
import sys
import tempfile

MAX_RANKS = 8  # local ranks this machine runs a plan on


def first_error(text):
    for line in text.splitlines():
        if "error:" in line:
            line = re.sub(r"^.*?error: ", "", line)
            return line[:160] + ("..." if len(line) > 160 else "")
    lines = [l for l in text.splitlines() if l.strip() and "WARNING" not in l]
    return (lines[-1] if lines else "no output")[:160]


def run(cmd, stdin=None, timeout=300):
    return subprocess.run(cmd, input=stdin, capture_output=True, text=True,
                          timeout=timeout)


def one(bindir, path, tmp):
    tr = os.path.join(bindir, "hccl-translate")
    imp = run([tr, "--import-stablehlo", path])
    if imp.returncode != 0:
        return 0, 0, "import: " + first_error(imp.stderr)
    ranks = [int(x) for g in re.findall(r"comm\.group @\S+ ranks = (\[.*\])",
                                        imp.stdout)
             for x in re.findall(r"\d+", g)]
    collectives = len(re.findall(r"= comm\.(?:all_reduce|all_gather|"
                                 r"reduce_scatter|all_to_all|broadcast|"
                                 r"permute)\b|comm\.(?:send|recv)\b",
                                 imp.stdout))
    procs = max(ranks) + 1 if ranks else 0
    if procs == 0:
        return 0, 0, "no collective to run"
    if procs > MAX_RANKS:
        return procs, collectives, (f"needs {procs} processes; this machine "
                                    f"runs {MAX_RANKS} local ranks")
    # A program that names its topology (comm.topology) keeps it.
    if "comm.topology" not in imp.stdout:
        imp = run([tr, "--import-stablehlo", path, f"--topology=host-{procs}"])
    if imp.returncode != 0:
        return procs, collectives, "import: " + first_error(imp.stderr)
    opt = run([os.path.join(bindir, "hccl-opt"), "--hccl-pipeline"], imp.stdout)
    if opt.returncode != 0:
        return procs, collectives, "pipeline: " + first_error(opt.stderr)
    plan = os.path.join(tmp, os.path.basename(path) + ".plan.json")
    exp = run([tr, "--comm-to-plan", "-o", plan], opt.stdout)
    if exp.returncode != 0:
        return procs, collectives, "plan export: " + first_error(exp.stderr)
    hr = run([os.path.join(bindir, "hccl-run"), plan, "-n", "1", "-w", "0"])
    rows = [l for l in hr.stdout.splitlines() if l.startswith("scheduled")]
    if hr.returncode != 0 or not rows or not rows[-1].rstrip().endswith(
            "success"):
        return procs, collectives, "hccl-run: " + first_error(
            hr.stderr + hr.stdout)
    return procs, collectives, "executed, checked"


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    bindir, programs = sys.argv[1], sorted(sys.argv[2:])
    env = dict(os.environ)
    os.environ.setdefault("HCCL_JOB_SECRET", "corpus-" + os.urandom(16).hex())
    ok = 0
    with tempfile.TemporaryDirectory() as tmp:
        for p in programs:
            procs, colls, result = one(bindir, p, tmp)
            ok += result == "executed, checked"
            print(f"{os.path.basename(p)} | {procs} | {colls} | {result}")
    print(f"{ok} of {len(programs)} programs reach an executed, checked plan")
    return 0


if __name__ == "__main__":
    sys.exit(main())
