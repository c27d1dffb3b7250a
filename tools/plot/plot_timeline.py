#!/usr/bin/python3
"""Plots hccl-run traces as timelines: compute and communication of one rank
per plan, the baseline above the scheduled plan, on the same time axis.

  tools/plot/plot_timeline.py build/demo/trace.baseline.json \
      build/demo/trace.json --labels baseline scheduled --rank 0 \
      --out docs/img/demo-timeline.png

Each trace is what `hccl-run --trace` writes (Chrome trace events, one
process per rank; category compute / collective / wait). Needs Debian's
python3-matplotlib.
"""
import argparse
import json
import sys


def load(path, rank):
    try:
        events = json.load(open(path))["traceEvents"]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"plot_timeline: {path}: not an hccl-run trace ({e})")
    events = [e for e in events if e.get("ph") == "X" and e.get("pid") == rank]
    if not events:
        sys.exit(f"plot_timeline: {path}: no events for rank {rank}")
    return events


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("traces", nargs="+", help="hccl-run --trace files")
    ap.add_argument("--labels", nargs="*", help="one label per trace")
    ap.add_argument("--rank", type=int, default=0)
    ap.add_argument("--out", required=True, help="PNG to write")
    ap.add_argument("--title", default="Training step timeline (hccl-run)")
    args = ap.parse_args()
    labels = args.labels or [p.rsplit("/", 1)[-1] for p in args.traces]
    if len(labels) != len(args.traces):
        sys.exit("plot_timeline: give one label per trace")
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_timeline: needs matplotlib (apt-get install "
                 "python3-matplotlib)")

    runs = [load(p, args.rank) for p in args.traces]
    end = max(e["ts"] + e["dur"] for ev in runs for e in ev) / 1e3
    fig, axes = plt.subplots(len(runs), 1, figsize=(11, 1.9 * len(runs) + 0.6),
                             sharex=True, squeeze=False)
    colors = {"compute": "#4c78a8", "collective": "#f58518", "wait": "#e45756"}
    for ax, events, label in zip(axes[:, 0], runs, labels):
        rows = {"compute": 2, "collective": 1, "wait": 0}
        for e in events:
            cat = e.get("cat", "compute")
            ax.broken_barh([(e["ts"] / 1e3, max(e["dur"] / 1e3, end * 1e-4))],
                           (rows.get(cat, 0) - 0.4, 0.8),
                           facecolors=colors.get(cat, "gray"),
                           edgecolors="none")
        iteration = max(e["ts"] + e["dur"] for e in events) / 1e3
        ax.set_yticks([0, 1, 2])
        # a wait holds the device (hccl-run --issue ahead) or the host thread
        # (--issue host) until its collective ended
        ax.set_yticklabels(["waits", "communication", "compute"])
        ax.set_ylim(-0.6, 2.6)
        ax.set_title(f"{label}: {iteration:.1f} ms (rank {args.rank})",
                     loc="left", fontsize=10)
        ax.grid(axis="x", alpha=0.3)
    axes[-1, 0].set_xlabel("time since the start of the iteration (ms)")
    axes[-1, 0].set_xlim(0, end * 1.02)
    fig.suptitle(args.title)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print(f"plot_timeline: wrote {args.out}")


if __name__ == "__main__":
    main()
