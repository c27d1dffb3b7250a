#!/usr/bin/python3
"""torch.distributed gloo all-reduce over loopback, with hccl-test's rows.

The peer of bench/runtime/compare_gloo.sh: same flags (-b -e -f -n -w -p),
same timing (barrier, then -n back-to-back calls, the slowest rank's
average), same output columns as `hccl-test all_reduce -d fp32 -o sum`.
Needs Debian's python3-torch (/usr/bin/python3).

    /usr/bin/python3 bench/runtime/gloo_allreduce_bench.py -b 4K -e 64M -f 2 -p 2
"""
import argparse
import os
import socket
import sys
import time


def size_arg(text):
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    t = text.strip()
    m = 1
    if t and t[-1].upper() in mult:
        m, t = mult[t[-1].upper()], t[:-1]
    if not t.isdigit():
        raise argparse.ArgumentTypeError(
            f"{text}: expected a size like 8192, 8K, 64M or 1G")
    return int(t) * m


def positive(lo):
    def parse(text):
        if not text.isdigit() or int(text) < lo:
            raise argparse.ArgumentTypeError(
                f"{text}: expected an integer >= {lo}")
        return int(text)
    return parse


def sizes(args):
    s = args.b
    while s <= args.e:
        yield s
        nxt = s * args.f if args.f > 1 else s + args.i
        if nxt <= s:
            break
        s = nxt


def worker(rank, args, port):
    import torch
    import torch.distributed as dist
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}",
                            rank=rank, world_size=args.p)
    p = args.p
    if rank == 0:
        print(f"the minbytes is {args.b}, maxbytes is {args.e}, "
              f"iters is {args.n}, warmup_iters is {args.w}")
        print(f"gloo all_reduce (torch {torch.__version__}): {p} ranks, "
              f"fp32, sum")
        print("data_size(Bytes): | aveg_time(us): | alg_bandwidth(GB/s): | "
              "check_result: | bus_bandwidth(GB/s):", flush=True)
    for size in sizes(args):
        count = size // 4
        t = torch.zeros(count, dtype=torch.float32)
        for _ in range(args.w):
            dist.all_reduce(t)
        dist.barrier()
        t0 = time.perf_counter()
        for _ in range(args.n):
            dist.all_reduce(t)
        elapsed = torch.tensor([(time.perf_counter() - t0) / args.n],
                               dtype=torch.float64)
        dist.all_reduce(elapsed, op=dist.ReduceOp.MAX)
        if rank == 0:
            sec = elapsed.item()
            algbw = count * 4 / sec / 1e9 if sec > 0 else 0.0
            busbw = algbw * 2 * (p - 1) / p
            print(f"{count * 4:<17d} | {sec * 1e6:<14.2f} | {algbw:<20.5f} | "
                  f"{'NULL':<13s} | {busbw:.5f}", flush=True)
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-b", type=size_arg, default=64 << 20)
    ap.add_argument("-e", type=size_arg, default=64 << 20)
    ap.add_argument("-i", type=size_arg, default=1 << 20)
    ap.add_argument("-f", type=positive(1), default=1)
    ap.add_argument("-n", type=positive(1), default=20)
    ap.add_argument("-w", type=positive(0), default=5)
    ap.add_argument("-p", type=positive(1), default=2)
    args = ap.parse_args()
    if args.b > args.e:
        ap.error(f"-b {args.b} is larger than -e {args.e}")
    try:
        import torch.multiprocessing as mp
    except ImportError:
        sys.exit("gloo_allreduce_bench: torch is not importable; install "
                 "Debian's python3-torch and run with /usr/bin/python3")
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.start_processes(worker, args=(args, port), nprocs=args.p,
                       start_method="fork")


if __name__ == "__main__":
    main()
