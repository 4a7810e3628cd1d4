#!/usr/bin/env python3
"""Reference figures of the ns-2 TCP peers, for talkspurt's TCP comparison tests.

    python bench/tcp_peers.py [--seeds 1 2 3] [--duration 100]

Runs, one at a time (ns-2 is single-threaded; the machine is shared):

  tcp_loss.tcl     Reno, Newreno, Sack1, Vegas x p in {0.001, 0.003, 0.01, 0.03}
                   x seeds                  (one flow, 10 Mb/s, 50 ms, Bernoulli loss)
  tcp_compete.tcl  the same variants x seeds, flow 2 starting at U[0, 1) s,
                   and once with flow 2 at a fixed 0.5 s (seed-independent)

and writes every run plus the per-cell mean and spread, with the Padhye et al.
model's prediction for each p, to bench/results/tcp_peers.json. Prints the
markdown tables used in bench/README.md "TCP peers".
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(REPO / "tests"))
sys.path.insert(0, str(BENCH))
from dumbbell import machine, write_json_atomic  # noqa: E402
from peers import jain_index, padhye_throughput, run_ns2  # noqa: E402

VARIANTS = ["Reno", "Newreno", "Sack1", "Vegas"]
PS = [0.001, 0.003, 0.01, 0.03]
RESULTS = BENCH / "results" / "tcp_peers.json"

# Configured path of tcp_loss.tcl: queue-free RTT of a 1500-byte packet out
# and a 40-byte ACK back (the script reports the same as base_rtt_s), and the
# RTO floor, which is what ns-2's RTO sits at here (srtt + 4 rttvar < 0.2 s).
MSS = 1460
BASE_RTT_S = (2 * 1500 * 8 / 100e6 + 1500 * 8 / 10e6 + 2 * 40 * 8 / 100e6 + 40 * 8 / 10e6
              + 2 * (0.001 + 0.050 + 0.001))
T0_S = 0.2


def stats(xs: list[float]) -> dict:
    return {"mean": statistics.fmean(xs), "min": min(xs), "max": max(xs),
            "stdev": statistics.stdev(xs) if len(xs) > 1 else 0.0, "n": len(xs)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--duration", type=float, default=100.0)
    ap.add_argument("--start", type=float, default=10.0, help="goodput window start, s")
    ap.add_argument("--json", type=Path, default=RESULTS)
    a = ap.parse_args(argv)

    t0 = time.perf_counter()
    loss_runs, compete_runs, compete_fixed = [], [], []
    for v in VARIANTS:
        for p in PS:
            for s in a.seeds:
                loss_runs.append(run_ns2("tcp_loss.tcl", v, p, a.duration, s, a.start))
        for s in a.seeds:
            compete_runs.append(run_ns2("tcp_compete.tcl", v, a.duration, s, a.start, "random"))
        compete_fixed.append(run_ns2("tcp_compete.tcl", v, a.duration, a.seeds[0], a.start, 0.5))
    elapsed = time.perf_counter() - t0

    loss_cells = []
    for p in PS:
        at_p = [r for r in loss_runs if r["p"] == p]
        srtt = statistics.fmean(r["mean_srtt_s"] for r in at_p)
        rto = statistics.fmean(r["mean_rto_s"] for r in at_p)
        cell = {"p": p,
                "padhye_configured_bps": 8 * padhye_throughput(MSS, BASE_RTT_S, p, T0_S),
                "padhye_measured_bps": 8 * padhye_throughput(MSS, srtt, p, rto),
                "mean_srtt_s": srtt, "mean_rto_s": rto,
                "measured_loss_rate": statistics.fmean(r["measured_loss_rate"] for r in at_p),
                "variants": {}}
        for v in VARIANTS:
            rs = [r for r in at_p if r["variant"] == v]
            cell["variants"][v] = {
                "goodput_bps": stats([r["goodput_bps"] for r in rs]),
                "timeouts": stats([r["timeouts"] for r in rs]),
                "retransmitted_packets": stats([r["retransmitted_packets"] for r in rs]),
                "mean_srtt_s": statistics.fmean(r["mean_srtt_s"] for r in rs),
            }
        loss_cells.append(cell)

    compete_cells = {}
    for v in VARIANTS:
        rs = [r for r in compete_runs if r["variant"] == v]
        fx = next(r for r in compete_fixed if r["variant"] == v)
        g1 = [r["flows"][0]["goodput_bps"] for r in rs]
        g2 = [r["flows"][1]["goodput_bps"] for r in rs]
        for r in rs:  # the script's Jain index, re-derived
            assert abs(r["jain_index"] - jain_index([f["goodput_bps"] for f in r["flows"]])) < 1e-5
        compete_cells[v] = {
            "flow1_goodput_bps": stats(g1), "flow2_goodput_bps": stats(g2),
            "total_goodput_bps": stats([x + y for x, y in zip(g1, g2)]),
            "jain_index": stats([r["jain_index"] for r in rs]),
            "bottleneck_drops": stats([r["bottleneck_drops"] for r in rs]),
            "flow2_starts_s": [r["flows"][1]["start_s"] for r in rs],
            "fixed_start_0_5s": {"flow_goodput_bps": [f["goodput_bps"] for f in fx["flows"]],
                                 "jain_index": fx["jain_index"],
                                 "bottleneck_drops": fx["bottleneck_drops"]},
        }

    # ---- markdown ----
    print(f"tcp_loss: mean goodput (Mb/s) over [{a.start:g}, {a.duration:g}] s, seeds "
          f"{', '.join(map(str, a.seeds))}; min-max in brackets")
    print()
    print("| p | " + " | ".join(VARIANTS) + " | Padhye, configured RTT/T0 | Padhye, measured srtt/RTO | measured loss rate |")
    print("|---|" + "---|" * (len(VARIANTS) + 3))
    for c in loss_cells:
        row = [f"{c['p']:g}"]
        for v in VARIANTS:
            g = c["variants"][v]["goodput_bps"]
            row.append(f"{g['mean'] / 1e6:.3f} ({g['min'] / 1e6:.3f}-{g['max'] / 1e6:.3f})")
        row.append(f"{c['padhye_configured_bps'] / 1e6:.3f}")
        row.append(f"{c['padhye_measured_bps'] / 1e6:.3f} ({c['mean_srtt_s'] * 1e3:.1f} ms, {c['mean_rto_s']:.3f} s)")
        row.append(f"{c['measured_loss_rate']:.5f}")
        print("| " + " | ".join(row) + " |")
    print()
    print("timeouts in the window (mean over seeds):")
    print()
    print("| p | " + " | ".join(VARIANTS) + " |")
    print("|---|" + "---|" * len(VARIANTS))
    for c in loss_cells:
        print(f"| {c['p']:g} | " + " | ".join(f"{c['variants'][v]['timeouts']['mean']:.1f}" for v in VARIANTS) + " |")
    print()
    print("tcp_compete: flow 2 at U[0,1) s; mean (min-max) over seeds; fixed 0.5 s start in the last columns")
    print()
    print("| variant | flow 1 Mb/s | flow 2 Mb/s | total Mb/s | Jain | drops | fixed 0.5 s: flow 1 / flow 2 Mb/s | Jain | drops |")
    print("|---|---|---|---|---|---|---|---|---|")
    for v, c in compete_cells.items():
        def mm(s):
            return f"{s['mean'] / 1e6:.3f} ({s['min'] / 1e6:.3f}-{s['max'] / 1e6:.3f})"
        fx = c["fixed_start_0_5s"]
        print(f"| {v} | {mm(c['flow1_goodput_bps'])} | {mm(c['flow2_goodput_bps'])} | "
              f"{mm(c['total_goodput_bps'])} | {c['jain_index']['mean']:.4f} "
              f"({c['jain_index']['min']:.4f}-{c['jain_index']['max']:.4f}) | "
              f"{c['bottleneck_drops']['mean']:.0f} ({c['bottleneck_drops']['min']:.0f}-{c['bottleneck_drops']['max']:.0f}) | "
              f"{fx['flow_goodput_bps'][0] / 1e6:.3f} / {fx['flow_goodput_bps'][1] / 1e6:.3f} | "
              f"{fx['jain_index']:.4f} | {fx['bottleneck_drops']} |")
    print(f"\n{len(loss_runs) + len(compete_runs) + len(compete_fixed)} ns-2 runs in {elapsed:.1f} s")

    write_json_atomic(a.json, {
        "what": "ns-2 reference figures for talkspurt's TCP comparison tests "
                "(bench/ns2/tcp_loss.tcl, tcp_compete.tcl; bench/README.md 'TCP peers')",
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "machine": machine(),
        "params": {"seeds": a.seeds, "duration_s": a.duration, "window_start_s": a.start,
                   "variants": VARIANTS, "p": PS},
        "padhye": {"mss_bytes": MSS, "b": 1, "configured_rtt_s": BASE_RTT_S, "configured_t0_s": T0_S,
                   "note": "padhye_configured uses the queue-free RTT and T0 = minrto_; "
                           "padhye_measured uses the mean of ns-2's own srtt (biased ~+4 ms by its "
                           "fixed point) and RTO samples at that p, over all variants"},
        "tcp_loss": loss_cells,
        "tcp_compete": compete_cells,
        "runs": {"tcp_loss": loss_runs, "tcp_compete": compete_runs,
                 "tcp_compete_fixed_start": compete_fixed},
    })
    print(f"wrote {a.json.relative_to(REPO) if a.json.is_relative_to(REPO) else a.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
