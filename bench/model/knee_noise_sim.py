#!/usr/bin/env python3
"""How often calibrate_host.py's knee fit takes a knee from noise, and how
often its leave-one-round-out check (knee_held_out) refuses it, against
knees that are there. Simulated all-reduce timings on the model of the
fake hccl-test (overhead 30 us, alpha 10 us, 2 GB/s, reduction 5 GB/s, 2
ranks, calibrate_host's sizes), each size from 1 MiB with its bytes
jittered by 1 +- JITTER per round and size (this VM's memory changes speed
within a sweep), over --draws seeds:

  bench/model/knee_noise_sim.py [--draws 40] [--rounds 5] [--jitter 0.2]

prints, for no knee and for real knees of 1.3x and 1.75x past 4 MiB, the
draws whose medians took a knee and how many of those the held-out check
kept."""
import argparse
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "tools", "calibrate"))
import calibrate_host as ch  # noqa: E402

P = 2
C, ALPHA, BETA, GAMMA = 30e-6, 10e-6, 1 / 2e9, 1 / 5e9


def sizes():
    out = [4 << 10]
    while out[-1] < (1 << 20):
        out.append(out[-1] * 4)
    while out[-1] * 2 <= (256 << 20):
        out.append(out[-1] * 2)
    return out


def all_reduce(s, scale):
    return C + 2 * (P - 1) * ALPHA + scale * (2 * (P - 1) / P * s * BETA
                                              + (P - 1) / P * s * GAMMA)


def all_gather(s):
    return C + (P - 1) * ALPHA + (P - 1) / P * s * BETA


def in_cache_bytes(s, knee):
    at, factor = knee
    return s if s <= at else at + factor * (s - at)


def draw(seed, rounds, jitter, knee):
    rnd = random.Random(seed)
    sz = sizes()
    ag = [[(s, all_gather(s)) for s in sz] for _ in range(rounds)]
    ar = [[(s, all_reduce(in_cache_bytes(s, knee),
                          1 + jitter * (2 * rnd.random() - 1) if s >= (1 << 20) else 1.0))
           for s in sz] for _ in range(rounds)]
    chosen = ch.knee_figures(ch.medians(ag), ch.medians(ar), P, 3, False)[2]
    if not chosen:
        return False, False
    with_k, without = ch.knee_held_out(ag, ar, P, 3, False)
    return True, with_k < without


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draws", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--jitter", type=float, default=0.2)
    a = ap.parse_args()
    if a.draws < 1:
        ap.error("--draws must be >= 1")
    if a.rounds < 3:
        ap.error("--rounds must be >= 3 (calibrate_host.py checks knees from 3 rounds)")
    if not 0 <= a.jitter < 1:
        ap.error("--jitter must be in [0, 1) (a factor 1 +- jitter on the bytes)")
    for name, knee in (("no knee", (0, 1.0)), ("1.3x past 4 MiB", (4 << 20, 1.3)),
                       ("1.75x past 4 MiB", (4 << 20, 1.75))):
        res = [draw(seed, a.rounds, a.jitter, knee) for seed in range(a.draws)]
        took = sum(1 for t, _ in res if t)
        kept = sum(1 for t, k in res if t and k)
        print(f"{name}: the medians took a knee in {took} of {a.draws} draws; "
              f"the held-out check kept {kept} of them")


if __name__ == "__main__":
    main()
