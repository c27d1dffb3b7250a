#!/usr/bin/python3
"""Runs run_distributed_test.py in chunks (one pytest process each, niced,
so a shared 2-core machine stays usable) and prints a table of outcomes per
test group (the test name up to its second underscore-separated word, e.g.
test_all_reduce, test_ddp).

    PYTHONPATH=build/python /usr/bin/python3 \\
        test/python/pytorch_suite/run_chunks.py OUTDIR [--chunks 8] \\
        [-k PATTERN] [--names FILE] [--world-size 2]

--names FILE runs only the tests named in FILE (one method name a line,
exact, '#' comments), e.g. gated_gloo.txt with HCCL_SUITE_GATES_AS=gloo.

Each chunk leaves OUTDIR/chunk-N.xml (JUnit) and chunk-N.log; the table and
the failed/skipped tests with their first message line go to
OUTDIR/summary.md and stdout. Rerunning only summarizes with --summarize.
"""

import argparse
import collections
import glob
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
SUITE = os.path.join(HERE, "run_distributed_test.py")


def collect(pattern, names_file=None):
    cmd = [sys.executable, "-m", "pytest", "-q", "--collect-only", SUITE]
    if pattern:
        cmd += ["-k", pattern]
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    ids = [ln.strip() for ln in out.splitlines() if "::" in ln]
    if names_file:
        with open(names_file) as f:
            names = {ln.split("#")[0].strip() for ln in f} - {""}
        ids = [i for i in ids if i.rsplit("::", 1)[1] in names]
        missing = names - {i.rsplit("::", 1)[1] for i in ids}
        if missing:
            sys.exit(f"run_chunks: {names_file}: not in the suite: "
                     f"{', '.join(sorted(missing))}")
    return ids


def group_of(name):
    parts = name.split("_")
    return "_".join(parts[:3]) if len(parts) > 2 else name


def summarize(outdir):
    rows = collections.OrderedDict()
    details = []
    for xml in sorted(glob.glob(os.path.join(outdir, "chunk-*.xml"))):
        for case in ET.parse(xml).getroot().iter("testcase"):
            name = case.get("name")
            g = rows.setdefault(group_of(name), collections.Counter())
            outcome = "passed"
            msg = ""
            for tag in ("failure", "error", "skipped"):
                el = case.find(tag)
                if el is not None:
                    outcome = "skipped" if tag == "skipped" else "failed"
                    msg = (el.get("message") or el.text or "").strip()
                    msg = msg.splitlines()[0][:160] if msg else ""
                    break
            g[outcome] += 1
            if outcome != "passed":
                details.append((outcome, name, msg))
    lines = ["| group | passed | failed | skipped |", "|---|---|---|---|"]
    total = collections.Counter()
    for g, c in sorted(rows.items()):
        lines.append(f"| {g} | {c['passed']} | {c['failed']} | {c['skipped']} |")
        total.update(c)
    lines.append(f"| all | {total['passed']} | {total['failed']} | "
                 f"{total['skipped']} |")
    lines.append("")
    for outcome, name, msg in sorted(details):
        lines.append(f"- {outcome}: {name}: {msg}")
    text = "\n".join(lines) + "\n"
    with open(os.path.join(outdir, "summary.md"), "w") as f:
        f.write(text)
    print(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("outdir")
    ap.add_argument("--chunks", type=int, default=8)
    ap.add_argument("-k", default="")
    ap.add_argument("--names", help="file of exact test names to run")
    ap.add_argument("--world-size", default="2")
    ap.add_argument("--summarize", action="store_true")
    a = ap.parse_args()
    os.makedirs(a.outdir, exist_ok=True)
    if not a.summarize:
        ids = collect(a.k, a.names)
        if not ids:
            sys.exit("run_chunks: no tests collected")
        n = max(1, min(a.chunks, len(ids)))
        env = dict(os.environ, WORLD_SIZE=a.world_size)
        for i in range(n):
            part = ids[i::n]
            xml = os.path.join(a.outdir, f"chunk-{i}.xml")
            with open(os.path.join(a.outdir, f"chunk-{i}.log"), "w") as log:
                subprocess.run(["nice", "-n", "15", sys.executable, "-m",
                                "pytest", "-q", "-rfEs", f"--junitxml={xml}",
                                *part], stdout=log, stderr=subprocess.STDOUT,
                               env=env, cwd=os.getcwd())
            print(f"chunk {i + 1}/{n} done ({len(part)} tests)", flush=True)
    summarize(a.outdir)


if __name__ == "__main__":
    main()
