#!/usr/bin/env python3
"""Unit tests of validate_model.py's statistics and Horovod emulation, on
hand-worked values. Run: python3 bench/model/test_validate_model.py (the
lit test test/tools/validate-model.test does)."""
import argparse
import math
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_model as vm  # noqa: E402


class Statistics(unittest.TestCase):
    def test_ranks_average_ties(self):
        self.assertEqual(vm.ranks_of([5, 6, 7, 8, 7]), [1, 2, 3.5, 5, 3.5])
        self.assertEqual(vm.ranks_of([2, 2, 2]), [2, 2, 2])

    def test_spearman_hand_worked(self):
        # ranks x: 1 2 3 4 5, y: 1 2 3.5 5 3.5; deviations from 3:
        # x -2 -1 0 1 2, y -2 -1 0.5 2 0.5; sum xy = 4+1+0+2+1 = 8,
        # sum xx = 10, sum yy = 4+1+0.25+4+0.25 = 9.5: rho = 8 / sqrt(95).
        rho = vm.spearman([1, 2, 3, 4, 5], [5, 6, 7, 8, 7])
        self.assertAlmostEqual(rho, 8 / math.sqrt(95), places=12)
        self.assertAlmostEqual(rho, 0.82078, places=5)

    def test_spearman_monotone_and_reversed(self):
        self.assertAlmostEqual(vm.spearman([1, 2, 3], [10, 200, 3000]), 1.0)
        self.assertAlmostEqual(vm.spearman([1, 2, 3, 4], [9, 7, 5, 1]), -1.0)
        # one swap among 4: d = (0, 0, 1, -1), 1 - 6*2/(4*15) = 0.8
        self.assertAlmostEqual(vm.spearman([1, 2, 3, 4], [1, 2, 4, 3]), 0.8)

    def test_rho_ceiling(self):
        # preds 1 1 2: ranks 1.5 1.5 3, best measurement 1 2 3; deviations
        # -0.5 -0.5 1 and -1 0 1: 1.5 / sqrt(1.5 * 2) = sqrt(3) / 2.
        self.assertAlmostEqual(vm.rho_ceiling([1, 1, 2]), math.sqrt(3) / 2, places=12)
        # reached by any measurement in the predicted order, either way
        # within the tie; no measurement of distinct values goes above it
        for meas in ([5, 4, 9], [4, 5, 9]):
            self.assertAlmostEqual(vm.spearman([1, 1, 2], meas), vm.rho_ceiling([1, 1, 2]))
        self.assertAlmostEqual(vm.rho_ceiling([3, 1, 2, 5]), 1.0)
        self.assertIsNone(vm.rho_ceiling([7, 7, 7]))
        # 5 of 7 tied (bert-large unlimited in run 14): below 0.9
        self.assertLess(vm.rho_ceiling([371, 371.6, 371, 371, 381.4, 371, 371]), 0.9)

    def test_spearman_undefined(self):
        self.assertIsNone(vm.spearman([1], [2]))
        self.assertIsNone(vm.spearman([1, 2, 3], [4, 4, 4]))
        with self.assertRaises(ValueError):
            vm.spearman([1, 2], [1])

    def test_errors(self):
        self.assertAlmostEqual(vm.rel_error(110, 100), 0.10)
        self.assertAlmostEqual(vm.rel_error(80, 100), -0.20)
        self.assertIsNone(vm.rel_error(1, 0))
        # |errors| 0.05 0.2 0.1 0.3 -> median 0.15, worst 0.3; None skipped
        med, worst = vm.error_summary([0.05, -0.2, None, 0.1, -0.3])
        self.assertAlmostEqual(med, 0.15)
        self.assertAlmostEqual(worst, 0.3)
        self.assertEqual(vm.error_summary([None]), (None, None))

    def test_spread(self):
        # (12 - 9) / median 10 = 0.3
        self.assertAlmostEqual(vm.spread([10, 12, 9]), 0.3)
        self.assertEqual(vm.spread([5]), 0.0)

    def test_optimal_verdict(self):
        def row(p, ms, rng):
            return {"policy": p, "meas_iter_ms": ms, "meas_range_ms": rng}
        # optimal 105 vs best other (ddp) 100: slower by 5 ms; noise 6 ms
        # (ddp's range) covers it
        v = vm.optimal_verdict([row("none", 150, 1), row("ddp", 100, 6),
                                row("optimal", 105, 2)])
        self.assertEqual(v, ("ok", 105, "ddp", 100, 6))
        v = vm.optimal_verdict([row("none", 150, 1), row("ddp", 100, 3),
                                row("optimal", 105, 2)])
        self.assertEqual(v[0], "SLOWER")
        self.assertIsNone(vm.optimal_verdict([row("ddp", 1, 0)]))

    def test_separated_pairs(self):
        def row(pred, meas, rng):
            return {"pred_iter_ms": pred, "meas_iter_ms": meas, "meas_range_ms": rng}
        # a-b: predicted 10 apart > noise 4, measured in order (agree);
        # a-c: 20 apart > 4, measured reversed; b-c: 10 apart, noise 12
        # (c's range): not separated
        rows = [row(100, 150, 4), row(110, 160, 2), row(120, 140, 12)]
        self.assertEqual(vm.separated_pairs(rows), (1, 2))
        self.assertEqual(vm.separated_pairs(rows[:1]), (0, 0))

    def test_same_plans_measured_once(self):
        # t25M, t64M and t256M compile to one plan (one bucket each): one
        # run, one point; ddp's plan differs by one byte
        with tempfile.TemporaryDirectory() as d:
            def cfg(policy, text):
                path = os.path.join(d, policy + ".plan.json")
                with open(path, "w") as f:
                    f.write(text)
                return {"graph": "g", "policy": policy, "in_flight": 1, "plan": path,
                        "runs": []}
            cs = [cfg("ddp", "{}\n"), cfg("t25M", "{} "), cfg("t64M", "{} "),
                  cfg("t256M", "{} ")]
            vm.mark_same_plans(cs)
        self.assertEqual([c["same_plan_as"] for c in cs], [None, None, "t25M k=1", "t25M k=1"])
        self.assertIs(cs[3]["twin"], cs[1])
        self.assertNotEqual(cs[0]["plan_digest"], cs[1]["plan_digest"])

        class Runner:
            last_stderr = ""
            ran = []

            def run(self, tool, args, **kw):
                self.ran.append(args[0])
                return "x"
        args = argparse.Namespace(rounds=2, ranks=2, iters=1, warmup=0, check=False,
                                  spin_us=None, host_slice_us=None, max_buffer_mib=None,
                                  buffer_span_mib=None, issue=None, retries=0, timeout=1)
        orig = vm.parse_run
        vm.parse_run = lambda out, what: {"iter_ms": 1.0}
        try:
            progress = [0, 4, 0]
            for c in cs:
                c["pred"] = {"iter_ms": 1.0}
            vm.measure(args, Runner(), cs, progress)
        finally:
            vm.parse_run = orig
        # two distinct plans, two rounds: four runs; the twins share t25M's
        self.assertEqual(sorted(Runner.ran), sorted([cs[0]["plan"], cs[1]["plan"]] * 2))
        self.assertIs(cs[2]["runs"], cs[1]["runs"])
        self.assertEqual(len(cs[3]["runs"]), 2)

    def test_distinct_plans_in_rho(self):
        def row(policy, pred, meas, digest):
            return {"graph": "g", "policy": policy, "in_flight": 0, "pred_iter_ms": pred,
                    "meas_iter_ms": meas, "meas_range_ms": 0.1, "iter_err": 0.0,
                    "exposed_err_of_iter": 0.0, "iter_err_meas_compute": 0.0,
                    "meas_spread": 0.0, "plan_digest": digest}
        # four policies, the last two one plan: counted as three points, in
        # order (rho 1). Were the twins' measurements different (as two runs
        # of one program are), rho over four points would rank noise.
        rows = [row("none", 10, 20, "a"), row("ddp", 11, 21, "b"),
                row("t25M", 12, 22, "c"), row("t64M", 12, 22, "c"),
                row("optimal", 9, 19, None)]
        self.assertEqual([r["policy"] for r in vm.distinct_plans(rows)],
                         ["none", "ddp", "t25M", "optimal"])
        s = vm.summarize(rows, ["none", "ddp", "t25M", "t64M", "optimal"], [0])
        g = s["groups"][0]
        self.assertEqual((g["plans"], g["configs"]), (4, 5))
        self.assertAlmostEqual(g["rho"], 1.0)
        self.assertAlmostEqual(g["rho_ceiling"], 1.0)
        # with the twin counted, the predicted tie caps rho below 1
        self.assertLess(vm.rho_ceiling([r["pred_iter_ms"] for r in rows]), 1.0)
        self.assertEqual((s["overall"]["plans"], s["overall"]["configs"]), (4, 5))
        # the same digest on another graph is another plan
        other = dict(rows[3], graph="h")
        self.assertEqual(len(vm.distinct_plans(rows + [other])), 5)

    def test_calibration_figures_wakeup_idle(self):
        c = {"intra": {"latency_us": 1.5, "bandwidth_gbps": 20}, "reduce_gbps": 9,
             "collective_overhead_us": 2, "collective_wakeup_us": 18.4}
        self.assertTrue(vm.calibration_figures(c).endswith("wake-up 18.4 us"))
        c["collective_wakeup_idle_us"] = 1000
        self.assertTrue(vm.calibration_figures(c).endswith(
            "wake-up 18.4 us (all of it after 1000 us idle)"))

    def test_graph_name(self):
        self.assertEqual(vm.graph_name("/x/resnet18-host.graph.json"), "resnet18-host")
        self.assertEqual(vm.graph_name("g.json"), "g")
        self.assertEqual(vm.graph_name("graph"), "graph")

    def test_parse_size(self):
        self.assertEqual(vm.parse_size("64M"), 64 << 20)
        self.assertEqual(vm.parse_size("1"), 1)
        with self.assertRaises(Exception):
            vm.parse_size("64MB")

    def test_parse_run_late_starts(self):
        rows = ("plan       | iteration_ms | compute_ms | comm_ms    | "
                "exposed_comm_ms | collectives | check_result\n"
                "scheduled  | 309.384      | 302.436    | 31.501     | "
                "6.947           | 2           | NULL\n")
        late = ("late starts (scheduled): 5 of 16 starts issued over 1 ms after the "
                "device clock reached them (worst 14.408 ms)\n")
        m = vm.parse_run(rows + late, "t")
        self.assertEqual((m["iter_ms"], m["collectives"]), (309.384, 2))
        self.assertEqual((m["late_starts"], m["worst_late_ms"]), (5, 14.408))
        # the baseline's line is not the plan's
        m = vm.parse_run(rows + late.replace("scheduled", "baseline"), "t")
        self.assertIsNone(m["late_starts"])
        # an older hccl-run prints none
        self.assertIsNone(vm.parse_run(rows, "t")["late_starts"])

    def test_hccl_run_args(self):
        import argparse
        a = argparse.Namespace(ranks=4, iters=5, warmup=1, check=False,
                               spin_us=None, host_slice_us=None,
                               max_buffer_mib=None, buffer_span_mib=None,
                               issue=None)
        self.assertEqual(vm.hccl_run_args(a, "p.json"),
                         ["p.json", "-p", "4", "-n", "5", "-w", "1", "-c", "0"])
        a.issue = "ahead"
        cmd = vm.hccl_run_args(a, "p.json")
        self.assertEqual(cmd[cmd.index("--issue") + 1], "ahead")
        a.issue = None
        # 0 is a value (share always), not "unset"
        a.max_buffer_mib, a.spin_us, a.check = 0, 20000, True
        cmd = vm.hccl_run_args(a, "p.json")
        self.assertEqual(cmd[cmd.index("--max-buffer-mib") + 1], "0")
        self.assertEqual(cmd[cmd.index("--spin-us") + 1], "20000")
        self.assertEqual(cmd[cmd.index("-c") + 1], "1")
        self.assertNotIn("--host-slice-us", cmd)
        self.assertNotIn("--buffer-span-mib", cmd)
        a.buffer_span_mib = 1024
        cmd = vm.hccl_run_args(a, "p.json")
        self.assertEqual(cmd[cmd.index("--buffer-span-mib") + 1], "1024")

    def test_max_buffer_mib_checked(self):
        import contextlib
        import io
        for bad in ("-1", str((1 << 20) + 1)):
            err = io.StringIO()
            with self.assertRaises(SystemExit) as e, contextlib.redirect_stderr(err):
                vm.main(["--predict-only", "--max-buffer-mib", bad])
            self.assertEqual(e.exception.code, 2)
            self.assertIn("--max-buffer-mib must be in 0..1048576", err.getvalue())


class Phase(unittest.TestCase):
    """--phase-probe: the host's memory phase and the plans priced at it."""

    def test_phase_factor_leaves_the_fixed_cost_out(self):
        # priced 100 us fixed + 900 us of bytes; measured 100 + 1350
        self.assertAlmostEqual(vm.phase_factor(1450e-6, 100e-6, 1000e-6), 1.5)
        self.assertAlmostEqual(vm.phase_factor(1000e-6, 100e-6, 1000e-6), 1.0)
        # faster than the calibration's phase
        self.assertAlmostEqual(vm.phase_factor(550e-6, 100e-6, 1000e-6), 0.5)

    def test_run_phase_geometric_mean(self):
        self.assertAlmostEqual(vm.run_phase(1.0, 1.0), 1.0)
        self.assertAlmostEqual(vm.run_phase(1.0, 4.0), 2.0)
        self.assertAlmostEqual(vm.run_phase(0.8, 1.25), 1.0)

    def test_phase_links_scale_bandwidths_only(self):
        calib = {"version": "1.0",
                 "intra": {"class": "shm", "bandwidth_gbps": 18.0, "latency_us": 0.8,
                           "ports": 1},
                 "reduce_gbps": 100.0, "collective_overhead_us": 0.7,
                 "collective_wakeup_us": 22.0, "cache_bytes": 33554432,
                 "past_cache_factor": 1.07, "calibrated": {"ranks": 2}}
        out = vm.phase_links(calib, 1.5)
        self.assertAlmostEqual(out["intra"]["bandwidth_gbps"], 12.0)
        self.assertAlmostEqual(out["reduce_gbps"], 100.0 / 1.5, places=5)
        for same in ("collective_overhead_us", "collective_wakeup_us", "cache_bytes",
                     "past_cache_factor", "calibrated", "version"):
            self.assertEqual(out[same], calib[same])
        self.assertEqual(out["intra"]["latency_us"], 0.8)
        self.assertEqual(calib["intra"]["bandwidth_gbps"], 18.0)  # a copy
        self.assertNotIn("inter", out)

    def test_median_runs(self):
        runs = [{"iter_ms": t} for t in (30, 10, 20)]
        self.assertEqual([m["iter_ms"] for m in vm.median_runs(runs)], [20])
        runs.append({"iter_ms": 40})
        self.assertEqual([m["iter_ms"] for m in vm.median_runs(runs)], [20, 30])

    def test_phase_fields_price_the_median_run_at_its_own_phase(self):
        # gpt2-xl t256M, 16:08: a fast run (x0.95), one whose phase changed
        # between its probes (x1.28 between them, its time the slow phase's)
        # and a slow one (x1.48). The median phase (1.28) belongs to the
        # straddling run; the median time (610) to the slow one.
        runs = [{"iter_ms": 420.0, "phase": 0.95, "phase_drift": 0.9,
                 "phase_pred": {"iter_ms": 425.0}},
                {"iter_ms": 613.7, "phase": 1.28, "phase_drift": 1.84,
                 "phase_pred": {"iter_ms": 531.0}},
                {"iter_ms": 610.6, "phase": 1.48, "phase_drift": 1.05,
                 "phase_pred": {"iter_ms": 590.0}}]
        f = vm.phase_fields(runs, 610.6)
        self.assertEqual(f["phase"], 1.48)
        self.assertEqual(f["phase_pred_iter_ms"], 590.0)
        self.assertAlmostEqual(f["phase_iter_err"], (590.0 - 610.6) / 610.6)
        self.assertEqual(f["phase_drift"], 1.84)
        self.assertEqual(f["round_phase"], [0.95, 1.28, 1.48])
        # a drift down counts as its inverse
        runs[1]["phase_drift"] = 1 / 2.5
        self.assertAlmostEqual(vm.phase_fields(runs, 610.6)["phase_drift"], 2.5)

    def test_phase_summary_errors_only(self):
        def row(policy, k, err, digest, phases=(1.0,), drift=1.0, runs=((100.0, 100.0),)):
            return {"graph": "g", "policy": policy, "in_flight": k, "plan_digest": digest,
                    "phase_iter_err": err, "round_phase": list(phases),
                    "phase_drift": drift, "round_iter_ms": [m for m, _ in runs],
                    "round_phase_pred_iter_ms": [p for _, p in runs]}
        rows = [row("none", 1, -0.02, "a", (1.0, 1.5), 1.3,
                    ((100.0, 95.0), (200.0, 260.0))), row("ddp", 1, 0.30, "b"),
                row("t25M", 1, 0.30, "b"),  # b's twin: counted once
                row("none", 0, 0.04, "c", (0.9,))]
        ps = vm.phase_summary(rows, [1, 0])
        self.assertEqual([(g["in_flight"], g["median_err"], g["worst_err"])
                          for g in ps["groups"]], [(1, 0.16, 0.30), (0, 0.04, 0.04)])
        o = ps["overall"]
        self.assertEqual((o["median_err"], o["worst_err"]), (0.04, 0.30))
        self.assertEqual((o["phase_min"], o["phase_max"], o["worst_drift"]), (0.9, 1.5, 1.3))
        self.assertEqual(o["targets"], {"median_err<=10%": True, "worst_err<=25%": False})
        # each distinct plan's runs against their own prices: |err| 0.05,
        # 0.30, 0, 0 (b's twin's runs counted once)
        self.assertEqual(ps["graphs"], [{"graph": "g", "runs": 4, "run_median_err": 0.025,
                                         "runs_within_10": 3}])
        for g in ps["groups"]:  # no ranking at the phase
            self.assertNotIn("rho", g)
            self.assertNotIn("pairs", g)

    def calib(self, **how):
        c = {"intra": {"class": "shm", "bandwidth_gbps": 2.0, "latency_us": 10.0,
                       "ports": 1},
             "reduce_gbps": 5.0, "collective_overhead_us": 30.0,
             "calibrated": {"iters": 7, "flush_mib": 0, "evict_buffers": True,
                            "memory_calls": "queued",
                            "all_reduce_median_us": {"4194304": 3200.0,
                                                     "1048576": 800.0}}}
        c["calibrated"].update(how)
        return c

    def probe_args(self, size, inside=False):
        return argparse.Namespace(phase_probe=size, ranks=2, retries=0, nice=0,
                                  hccl_test=None, bin="/nonexistent", timeout=5,
                                  phase_inside=inside)

    def test_probe_sets_the_call_against_the_calibrations_price(self):
        p = vm.PhaseProbe(self.probe_args(4 << 20), None, self.calib(), "g")
        # the fit's price of a 4 MiB all-reduce on 2 ranks: 30 + 2 x 10 us,
        # 4 MiB at 2 GB/s, half of it reduced at 5 GB/s; not the median
        self.assertAlmostEqual(p.baseline, 50e-6 + 4194304 / 2e9 + 2097152 / 5e9)
        self.assertAlmostEqual(p.median, 3200e-6)
        self.assertEqual(p.record()["calibration_median_us"], 3200.0)
        # the fixed cost: overhead 30 + 2(p-1) alpha 10 = 50 us
        self.assertAlmostEqual(p.latency, 50e-6)
        self.assertEqual(p.iters, 7)  # the calibration's call count
        self.assertEqual(list(p.memory), ["--evict-buffers", "--issue", "ahead"])
        warm = vm.PhaseProbe(self.probe_args(4 << 20), None,
                             self.calib(evict_buffers=False, memory_calls=None), "g")
        self.assertEqual(list(warm.memory), [])

    def test_probe_refusals(self):
        c = self.calib()
        del c["calibrated"]["all_reduce_median_us"]
        with self.assertRaisesRegex(vm.ToolError, "all_reduce_median_us"):
            vm.PhaseProbe(self.probe_args(4 << 20), None, c, "g")
        with self.assertRaisesRegex(vm.ToolError, "timed no all-reduce of that size; it "
                                    r"timed \(past 1 MiB\): 4194304"):
            vm.PhaseProbe(self.probe_args(64 << 20), None, self.calib(), "g")
        # --phase-inside: hccl-run times as --evict-buffers with queued calls
        vm.PhaseProbe(self.probe_args(4 << 20, True), None, self.calib(), "g")
        for how, said in (({"evict_buffers": False, "flush_mib": 64}, "with --flush-mib"),
                          ({"memory_calls": "alone"}, "calls issued alone"),
                          ({"evict_buffers": False, "memory_calls": None}, "warm calls")):
            with self.assertRaisesRegex(vm.ToolError, "--phase-inside: .* this calibration "
                                        f"timed {said}: calibrate with"):
                vm.PhaseProbe(self.probe_args(4 << 20, True), None, self.calib(**how), "g")
        # a missing hccl-test is a named error, not a traceback
        p = vm.PhaseProbe(self.probe_args(4 << 20), argparse.Namespace(env={}),
                          self.calib(), "g")
        with self.assertRaisesRegex(vm.ToolError, "phase probe: cannot run"):
            p.factor()


class Inside(unittest.TestCase):
    """--phase-inside: each iteration priced at the phase of hccl-run's
    probes around it."""

    TABLE = ("plan       | iteration_ms | compute_ms | comm_ms    | "
             "exposed_comm_ms | collectives | check_result\n"
             "scheduled  | 420.000      | 300.000    | 200.000    | "
             "120.000         | 9           | NULL\n")

    def lines(self, its, probes):
        return (f"iterations (scheduled), ms: {' '.join(its)}\n"
                "phase probe (scheduled): 67108864 B all-reduce from memory, ring, "
                f"mean of 5 calls; us before iteration 1 and after each: {' '.join(probes)}\n")

    def test_parse_run_iterations_and_probes(self):
        m = vm.parse_run(self.TABLE + self.lines(["410.5", "420.0", "600.25"],
                                                 ["3600.0", "3700.5", "3650.0", "6000.0"]), "t")
        self.assertEqual(m["iters_ms"], [410.5, 420.0, 600.25])
        self.assertEqual(m["probes_us"], [3600.0, 3700.5, 3650.0, 6000.0])
        self.assertNotIn("iters_ms", vm.parse_run(self.TABLE, "t"))
        # the baseline's lines are not the plan's
        base = self.lines(["1"], ["1", "2"]).replace("scheduled", "baseline")
        self.assertNotIn("iters_ms", vm.parse_run(self.TABLE + base, "t"))
        with self.assertRaisesRegex(vm.ToolError, "3 iterations need 4 probes around "
                                    "them, found 3"):
            vm.parse_run(self.TABLE + self.lines(["1", "2", "3"], ["1", "2", "3"]), "t")
        with self.assertRaisesRegex(vm.ToolError, "one line of iterations and one of "
                                    "probes for t, found 1 and 0"):
            vm.parse_run(self.TABLE + self.lines(["1"], ["1", "2"]).splitlines()[0], "t")

    def test_inside_phases_from_the_probes_around_each_iteration(self):
        p = vm.PhaseProbe(Phase.probe_args(None, 4 << 20), None, Phase.calib(None), "g")
        # fixed 50 us, the fit's price 50 + 2516.6 (Phase.calib): a probe
        # of 50 + 2516.6 f us reads phase f
        bytes_us = (p.baseline - p.latency) * 1e6
        probes = [50 + bytes_us * f for f in (1.0, 1.0, 1.5, 0.64)]
        self.assertEqual(p.inside_phases(probes), [1.0, 1.22, 0.98])
        with self.assertRaisesRegex(vm.ToolError, "no more than the calibration's fixed"):
            p.inside_phases([3200.0, 40.0])

    def test_hccl_run_args_probe_inside(self):
        a = argparse.Namespace(ranks=2, iters=4, warmup=1, check=False, spin_us=None,
                               host_slice_us=None, max_buffer_mib=None,
                               buffer_span_mib=None, issue=None, phase_inside=True)
        probe = argparse.Namespace(size=64 << 20, iters=7)
        cmd = vm.hccl_run_args(a, "p.json", probe)
        self.assertEqual(cmd[-4:], ["--phase-probe", str(64 << 20),
                                    "--phase-probe-calls", "7"])
        a.phase_inside = False
        self.assertNotIn("--phase-probe", vm.hccl_run_args(a, "p.json", probe))

    def test_inside_fields_median_iteration_error(self):
        runs = [{"iters_ms": [100.0, 200.0], "probes_us": [1, 2, 3],
                 "inside_phase": [1.0, 1.5], "inside_pred_ms": [95.0, 260.0]},
                {"iters_ms": [100.0], "probes_us": [3, 4],
                 "inside_phase": [0.9], "inside_pred_ms": [101.0]}]
        f = vm.inside_fields(runs)
        # errors -0.05, +0.30, +0.01: the median +0.01
        self.assertAlmostEqual(f["inside_iter_err"], 0.01)
        self.assertEqual((f["inside_iters"], f["inside_within_10"]), (3, 2))
        self.assertEqual((f["inside_phase_min"], f["inside_phase_max"]), (0.9, 1.5))
        self.assertEqual([r["pred_ms"] for r in f["inside"]], [[95.0, 260.0], [101.0]])

    def test_inside_summary_counts_each_plan_once(self):
        def row(policy, k, err, digest, n, within, iters=((100.0, 100.0),)):
            inside = [{"iters_ms": [t for t, _ in iters], "pred_ms": [p for _, p in iters]}]
            return {"graph": "g", "policy": policy, "in_flight": k, "plan_digest": digest,
                    "inside_iter_err": err, "inside_iters": n, "inside_within_10": within,
                    "inside_phase_min": 0.9, "inside_phase_max": 1.4, "inside": inside}
        rows = [row("none", 1, -0.02, "a", 10, 9, ((100.0, 98.0), (200.0, 300.0))),
                row("ddp", 1, 0.30, "b", 10, 2, ((100.0, 130.0),)),
                row("t25M", 1, 0.30, "b", 10, 2, ((100.0, 130.0),)),  # b's twin
                row("none", 0, 0.04, "c", 10, 10, ((100.0, 104.0),))]
        ps = vm.inside_summary(rows, [1, 0])
        self.assertEqual([(g["median_err"], g["worst_err"]) for g in ps["groups"]],
                         [(0.16, 0.30), (0.04, 0.04)])
        # every iteration alone, each plan once: |err| 0.02, 0.5, 0.3, 0.04
        g = ps["graphs"][0]
        self.assertEqual((g["iters"], g["iters_within_10"]), (30, 21))
        self.assertAlmostEqual(g["iter_median_err"], 0.17)
        self.assertAlmostEqual(g["iter_worst_err"], 0.5)
        self.assertEqual(ps["overall"]["targets"],
                         {"median_err<=10%": True, "worst_err<=25%": False})


def graph(times, grad_elems):
    """compute c_i (time_us) -> g_i (fp32), then all_reduce g_i."""
    g = {"format": "hccl-mlir.graph", "version": 1, "name": "t",
         "groups": [{"name": "dp", "ranks": [0, 1]}], "tensors": [], "ops": []}
    prev = "loss.grad"
    g["tensors"].append({"name": prev, "shape": [1], "dtype": "fp32"})
    for i, (t, n) in enumerate(zip(times, grad_elems)):
        act = f"a{i}"
        g["tensors"] += [{"name": f"g{i}", "shape": [n], "dtype": "fp32"},
                         {"name": f"g{i}.avg", "shape": [n], "dtype": "fp32"},
                         {"name": act, "shape": [1], "dtype": "fp32"}]
        g["ops"].append({"op": "compute", "name": f"c{i}", "time_us": t,
                         "inputs": [prev], "outputs": [f"g{i}", act]})
        g["ops"].append({"op": "all_reduce", "name": f"ar{i}", "group": "dp",
                         "reduction": "sum", "inputs": [f"g{i}"],
                         "outputs": [f"g{i}.avg"]})
        prev = act
    return g


class Horovod(unittest.TestCase):
    # ready times 3000, 4000, 6000, 6500, 11000 us; 5 ms cycles: ticks
    # 1, 1, 2, 2, 3. Gradients of 1M fp32 = 4 MiB each.
    TIMES = [3000, 1000, 2000, 500, 4500]
    M = 1 << 20

    def test_cycles(self):
        g = graph(self.TIMES, [self.M] * 5)
        b = vm.horovod_buckets(g, 5000, 64 << 20)
        # all_reduce ops sit at odd indices 1, 3, 5, 7, 9
        self.assertEqual(b, [[1, 3], [5, 7], [9]])

    def test_buffer_limit(self):
        # 8 MiB per pair > 6 MiB buffer: each alone; a 16 MiB tensor larger
        # than the buffer goes alone too
        g = graph(self.TIMES, [self.M, self.M, self.M, 4 * self.M, self.M])
        b = vm.horovod_buckets(g, 5000, 6 << 20)
        self.assertEqual(b, [[1], [3], [5], [7], [9]])
        b = vm.horovod_buckets(g, 5000, 8 << 20)
        self.assertEqual(b, [[1, 3], [5], [7], [9]])

    def test_zero_cycle_fuses_same_instant_only(self):
        g = graph([3000, 0, 10], [self.M] * 3)
        self.assertEqual(vm.horovod_buckets(g, 0, 64 << 20), [[1, 3], [5]])

    def test_fuse_graph(self):
        g = graph(self.TIMES, [self.M] * 5)
        f = vm.fuse_graph(g, [[1, 3], [5, 7], [9]])
        kinds = [(op["op"], op["inputs"]) for op in f["ops"]]
        self.assertEqual(kinds, [
            ("compute", ["loss.grad"]), ("compute", ["a0"]),
            ("all_reduce", ["g0", "g1"]),
            ("compute", ["a1"]), ("compute", ["a2"]),
            ("all_reduce", ["g2", "g3"]),
            ("compute", ["a3"]), ("all_reduce", ["g4"])])
        self.assertEqual(f["ops"][2]["outputs"], ["g0.avg", "g1.avg"])
        # the input graph is left as it was
        self.assertEqual(len(g["ops"]), 10)

    def test_host_graph(self):
        g = graph([100, 200], [4, 4])
        g["topology"] = "910b-8"
        self.assertEqual(vm.compute_scale(g, None), 16.0)
        self.assertEqual(vm.compute_scale({"topology": "host-8"}, None), 1.0)
        self.assertEqual(vm.compute_scale(g, 2.5), 2.5)
        h = vm.host_graph(g, {"x": 1}, 4, 16.0)
        self.assertEqual(h["topology"], {"preset": "host-4", "link_params": {"x": 1}})
        self.assertEqual(h["groups"], [{"name": "dp", "ranks": [0, 1, 2, 3]}])
        self.assertEqual([op.get("time_us") for op in h["ops"]],
                         [1600.0, None, 3200.0, None])
        self.assertEqual(g["ops"][0]["time_us"], 100)



class HostSettings(unittest.TestCase):
    def mode_of(self, top, own=None, pmd="2097152", advice=False):
        """host_memory.shmem_huge_mode on a fake sysfs folder: `top` the
        top-level shmem_enabled, `own` the PMD size's, None for absent;
        with `advice`, what advice() says, the folder written THP."""
        with tempfile.TemporaryDirectory() as d:
            if top is not None:
                with open(os.path.join(d, "shmem_enabled"), "w") as f:
                    f.write(top)
            if pmd is not None:
                with open(os.path.join(d, "hpage_pmd_size"), "w") as f:
                    f.write(pmd + "\n")
            if own is not None:
                os.makedirs(os.path.join(d, "hugepages-2048kB"))
                with open(os.path.join(d, "hugepages-2048kB", "shmem_enabled"),
                          "w") as f:
                    f.write(own)
            if advice:
                return vm.host_memory.advice(d).replace(d, "THP")
            return vm.host_memory.shmem_huge_mode(d)

    def test_shmem_huge_mode(self):
        top_never = "always within_size advise [never] deny force\n"
        self.assertEqual(self.mode_of(top_never), "never")
        self.assertEqual(self.mode_of("always within_size [advise] never deny force"),
                         "advise")
        # The PMD size's own setting decides unless it inherits.
        self.assertEqual(self.mode_of(top_never, "always [inherit] within_size advise never"),
                         "never")
        self.assertEqual(self.mode_of(top_never, "always inherit within_size [advise] never"),
                         "advise")
        self.assertEqual(self.mode_of("[advise] never", "always inherit [never]"), "never")
        # No per-size folder for another PMD size (64 KiB pages: 512 MiB).
        self.assertEqual(self.mode_of(top_never, "[advise]", pmd="536870912"), "never")
        self.assertIsNone(self.mode_of(None))  # no THP in the kernel
        self.assertIsNone(self.mode_of("garbled"))
        self.assertIn("advise", vm.host_memory.ALLOWING)
        self.assertNotIn("never", vm.host_memory.ALLOWING)
        self.assertNotIn("deny", vm.host_memory.ALLOWING)
        # The advice names the file that decided.
        self.assertIn("no transparent huge pages", self.mode_of(None, advice=True))
        self.assertEqual(self.mode_of(top_never, "always [inherit] never", advice=True),
                         "THP/shmem_enabled is [never]; as root: echo advise > "
                         "THP/shmem_enabled")
        self.assertEqual(self.mode_of("[advise] never", "always inherit [never]",
                                      advice=True),
                         "THP/hugepages-2048kB/shmem_enabled is [never]; as root: "
                         "echo advise > THP/hugepages-2048kB/shmem_enabled")


if __name__ == "__main__":
    unittest.main()
