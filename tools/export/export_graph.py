#!/usr/bin/python3
#===- export_graph.py - PyTorch model -> hccl-mlir exported graph --------===#
"""Exports the backward pass of a PyTorch model as an hccl-mlir graph
(docs/graph-format.md): runs forward + backward once on the CPU, records the
parameter gradients in the order DDP's reducer sees them become ready, prices
each layer's backward from its FLOPs and bytes on a device given by
--peak-tflops / --memory-gbps / --efficiency, and writes one compute op per
layer backward plus one data-parallel all_reduce per gradient. Also prints
the buckets PyTorch DDP computes for the same gradients (--ddp-buckets FILE
writes them as JSON; --check-ddp checks them against a real DDP run).

Exit status: 0 success, 1 failure while running, 2 bad command line.
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

PROG = "export_graph.py"


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2 (argparse prints usage too)
        print(f"{PROG}: error: {message}", file=sys.stderr)
        sys.exit(2)


def positive_int(text):
    try:
        v = int(text, 10)
    except ValueError:
        v = 0
    if v <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, found '{text}'")
    return v


def positive_float(text):
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not (v > 0 and v != float("inf")):
        raise argparse.ArgumentTypeError(f"expected a positive number, found '{text}'")
    return v


def fraction(text):
    v = positive_float(text)
    if v > 1:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1], found '{text}'")
    return v


def topology_ranks(name: str) -> int:
    """Rank count of a topology preset; the forms are those of
    hccl::sched::Topology::preset (lib/schedule/Topology.cpp)."""
    def count(s):
        return int(s) if s.isdigit() and len(s) <= 6 and 0 < int(s) <= 4096 else None
    base, pod = name, None
    if name.startswith("910d-8") and "-pod" in name:  # super pods
        base, _, pod = name.partition("-pod")
    for family in ("910b-8", "910d-8"):
        if pod is not None and not count(pod):
            break
        if base == family:
            return 8
        n = count(base[len(family) + 1:])
        if base.startswith(family + "x") and n:
            return 8 * n
    if name == "host":
        return 8
    if name.startswith("host-") and count(name[5:]):
        return count(name[5:])
    raise UsageError(f"--topology: unknown preset '{name}'; accepted forms: "
                     "'910b-8', '910b-8xN', '910d-8', '910d-8xN' (N servers), "
                     "'910d-8xN-podS' (super pods of S servers), 'host' or 'host-N'")


def parse_args(argv):
    from device_cost import DEFAULT_EFFICIENCY, DEFAULT_MEMORY_GBPS, DEFAULT_PEAK_TFLOPS
    from models import MODELS
    p = Parser(prog=PROG, description=__doc__.split("\n\n")[0],
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("model", help="model to export: a built-in one (" + ", ".join(MODELS) +
                   "), or MODULE:FACTORY / FILE.py:FACTORY (a callable returning the "
                   "nn.Module; give its inputs with --input)")
    p.add_argument("--input", action="append", default=[], metavar="SPEC",
                   help="a forward input of a MODULE:FACTORY model, in order: "
                        "DTYPE[d0,d1,...] (random normal) or DTYPE[d0,...]:HIGH "
                        "(integers in [0, HIGH)); repeat for several")
    p.add_argument("--find-unused-parameters", action="store_true",
                   help="parameters that get no gradient are all-reduced as DDP "
                        "does with find_unused_parameters=True (zeros, marked ready "
                        "with the first gradient) instead of being an error")
    p.add_argument("-o", "--output", required=True, metavar="FILE",
                   help="graph JSON to write")
    p.add_argument("--name", help="graph name (the MLIR function name); "
                   "default: the model name with '-' as '_'")
    p.add_argument("--ranks", type=positive_int, default=8,
                   help="data-parallel ranks in group dp (default 8)")
    p.add_argument("--topology", default="910b-8", metavar="PRESET",
                   help="topology preset recorded in the graph (default 910b-8)")
    p.add_argument("--link-params", metavar="FILE",
                   help="measured link parameters (JSON, tools/calibrate; docs/plan-format.md) "
                        "recorded with the topology, so the compiler prices this machine")
    p.add_argument("--peak-tflops", type=positive_float, default=DEFAULT_PEAK_TFLOPS,
                   help=f"device peak, dense FP16 TFLOPS (default {DEFAULT_PEAK_TFLOPS:g}: "
                        "Ascend 910B class, see device_cost.py)")
    p.add_argument("--memory-gbps", type=positive_float, default=DEFAULT_MEMORY_GBPS,
                   help=f"device memory bandwidth in GB/s (default {DEFAULT_MEMORY_GBPS:g})")
    p.add_argument("--efficiency", type=fraction, default=DEFAULT_EFFICIENCY,
                   help="sustained fraction of peak FLOPs and bandwidth "
                        f"(default {DEFAULT_EFFICIENCY:g})")
    g = p.add_argument_group("model shape (see models.py for each model's defaults)")
    for opt, what in (("layers", "layers / blocks"), ("hidden", "hidden width"),
                      ("heads", "attention heads"), ("seq", "sequence length"),
                      ("batch", "example batch size"), ("vocab", "vocabulary size")):
        g.add_argument("--" + opt, type=positive_int, help=what)
    p.add_argument("--ddp-buckets", metavar="FILE",
                   help="write DDP's bucket assignment as JSON")
    p.add_argument("--check-ddp", action="store_true",
                   help="also run a real DistributedDataParallel (gloo, one "
                        "rank) and check its buckets equal the printed ones")
    p.add_argument("--skip-matmul", action="store_true",
                   help="leave out the arithmetic of matrix products (results "
                        "are zeros): order, sizes and FLOPs do not depend on "
                        "values, and Debian's reference BLAS is slow")
    p.add_argument("--measure-compute", type=positive_int, metavar="N",
                   help="time each layer's backward on this host (median of N "
                        "runs, with --threads threads) instead of pricing it "
                        "with --peak-tflops / --memory-gbps")
    p.add_argument("--threads", type=positive_int, default=os.cpu_count() or 1,
                   help="CPU threads for torch (default: all cores)")
    p.add_argument("--brief", action="store_true",
                   help="print bucket sizes without their members")
    return p.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    try:
        import custom_model
        import models
        overrides = {k: getattr(args, k) for k in
                     ("layers", "hidden", "heads", "seq", "batch", "vocab")}
        custom = custom_model.is_target(args.model)
        if custom:
            given = [k for k, v in overrides.items() if v is not None]
            if given:
                raise UsageError(f"--{given[0]} applies to the built-in models only "
                                 f"(model '{args.model}' takes its shape from --input)")
            for spec in args.input:
                custom_model.parse_input(spec)
            if not args.input:
                raise UsageError(f"model '{args.model}': give its forward inputs with --input")
        elif args.model not in models.MODELS:
            raise UsageError(f"model '{args.model}': not a built-in model "
                             f"({', '.join(models.MODELS)}) nor MODULE:FACTORY or "
                             "FILE.py:FACTORY")
        elif args.input:
            raise UsageError(f"--input applies to MODULE:FACTORY models; '{args.model}' "
                             "builds its own inputs")
        else:
            shape = models.settings(args.model, overrides)
        size = topology_ranks(args.topology)
        if args.ranks > size:
            raise UsageError(f"--ranks {args.ranks} exceeds the {size} ranks of "
                             f"topology '{args.topology}'")
        link_params = None
        if args.link_params:
            try:
                with open(args.link_params) as f:
                    link_params = json.load(f)
            except OSError as e:
                raise UsageError(f"--link-params: cannot read {args.link_params}: "
                                 f"{e.strerror}") from None
            except json.JSONDecodeError as e:
                raise UsageError(f"--link-params: {args.link_params}: not JSON: {e}") from None
            if not isinstance(link_params, dict):
                raise UsageError(f"--link-params: {args.link_params}: expected a JSON object "
                                 "(docs/plan-format.md, 'Link parameters')")
        for path, opt in ((args.output, "--output"), (args.ddp_buckets, "--ddp-buckets")):
            if path and not os.path.isdir(os.path.dirname(os.path.abspath(path))):
                raise UsageError(f"{opt}: no such directory: "
                                 f"{os.path.dirname(os.path.abspath(path))}")
    except (UsageError, ValueError) as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2

    import torch
    from backward_recorder import _Mode, measure_backward, record_backward
    from device_cost import Device
    import ddp_buckets as ddp
    import graph_writer

    torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    start = time.time()
    if custom:
        try:
            case = custom_model.build(args.model, args.input, torch.Generator().manual_seed(0))
        except ValueError as e:
            print(f"{PROG}: error: {e}", file=sys.stderr)
            return 2
    else:
        case = models.build(args.model, shape)
    device = Device(args.peak_tflops, args.memory_gbps, args.efficiency)
    try:
        rec = record_backward(case.module, case.loss, device, args.skip_matmul,
                              find_unused=args.find_unused_parameters)
        priced_us = rec.total.time_us
        if args.measure_compute:
            measured = measure_backward(case.module, case.loss, rec, args.measure_compute)
            for layer, t in zip(rec.layers, measured):
                layer.cost.time_us = t
            rec.total.time_us = sum(measured)
    except RuntimeError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 1
    elapsed = time.time() - start

    default_name = args.model.rpartition(":")[2] if custom else args.model
    name = args.name or default_name.replace("-", "_")
    graph = graph_writer.build_graph(name, rec, args.ranks, args.topology)
    if link_params is not None:
        # The graph format's topology object; hccl-translate checks the
        # figures when it imports the graph (lib/graph).
        graph["topology"] = {"preset": args.topology, "link_params": link_params}
    graph_writer.write_atomically(args.output, graph_writer.dumps(graph))

    nparams = sum(p.tensor.numel() for p in rec.params)
    nbytes = sum(p.tensor.numel() * p.tensor.element_size() for p in rec.params)
    dtypes = sorted({graph_writer.dtype_name(p.tensor.dtype) for p in rec.params})
    print(f"model: {args.model}: {case.description}")
    print(f"parameters: {nparams} in {len(rec.params)} gradients, "
          f"{nbytes} bytes ({', '.join(dtypes)})")
    print(f"backward: {len(rec.layers)} layer ops, {rec.total.flops:.4g} FLOPs, "
          f"{rec.total.nbytes:.4g} bytes, predicted {priced_us:.1f} us "
          f"({args.peak_tflops:g} TFLOPS, {args.memory_gbps:g} GB/s, "
          f"efficiency {args.efficiency:g})")
    if args.measure_compute:
        print(f"backward: measured {rec.total.time_us:.1f} us on this host (median of "
              f"{args.measure_compute} runs per layer, {args.threads} threads): the "
              "graph's compute times")
    print(f"host: {elapsed:.1f} s, peak memory {rec.peak_rss_bytes / 2**30:.2f} GiB"
          + (", matmul arithmetic skipped" if args.skip_matmul else ""))
    nsparse = sum(1 for p in rec.ready if p.sparse)
    print(f"graph: {args.output}: {len(rec.layers)} compute ops, "
          f"{len(rec.ready) - nsparse} all_reduce"
          + (f", {2 * nsparse} all_gather (sparse gradients)" if nsparse else "")
          + f" on group dp ({args.ranks} ranks, topology {args.topology})")
    if rec.unused:
        print(f"unused parameters: {len(rec.unused)} (zeros all-reduced with the first "
              f"gradient, as DDP's find_unused_parameters): "
              + " ".join(p.name for p in rec.unused[:8]) + (" ..." if len(rec.unused) > 8 else ""))

    rebuilt = ddp.rebuilt_buckets(case.module, rec)
    construction = ddp.construction_buckets(case.module, rec)
    for line in ddp.describe(rebuilt, "DDP buckets (rebuilt after iteration 1, "
                             "gradient-ready order; 1 MiB first, 25 MiB cap)",
                             members=not args.brief):
        print(line)
    for line in ddp.describe(construction, "DDP buckets (at construction, "
                             "find_unused_parameters=True; reversed definition order)",
                             members=not args.brief):
        print(line)
    if args.ddp_buckets:
        graph_writer.write_atomically(
            args.ddp_buckets,
            json.dumps(ddp.to_json(args.model, rec, rebuilt, construction), indent=1) + "\n")

    if args.check_ddp:
        got = ddp.ddp_rebuilt_indices(case.module, case.loss,
                                      lambda: _Mode(device, args.skip_matmul))
        want = [[p.index for p in b.params] for b in rebuilt]
        if got != want:
            print(f"DDP check: MISMATCH: DistributedDataParallel rebuilt "
                  f"{len(got)} buckets {got}, we printed {len(want)} {want}")
            return 1
        print(f"DDP check: DistributedDataParallel's rebuilt buckets are the "
              f"printed ones ({len(got)} buckets, same members in the same order)")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.exit(130)
    except (OSError, RuntimeError) as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        sys.exit(1)
