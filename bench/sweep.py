#!/usr/bin/env python3
"""Sweep throughput: `talkspurt sweep` vs 200 ns-2 runs, side by side.

    python bench/sweep.py [--workers 2] [--repeat 1]

Scenario: bench/sweep.toml (4 on/off G.711 calls, 300 kb/s bottleneck,
60 s; 10 delays × 20 replications = 200 runs) and the same in ns-2
(bench/ns2/voice_onoff.tcl, one `ns` process per run, `--workers` at a
time). Both sides run the same 200 runs on the same cores in the same
invocation, interleaved per repeat:

  talkspurt          python -m talkspurt sweep bench/sweep.toml -o TMP -j W  (per-packet tables written)
  talkspurt --no-trace   the same without the per-packet tables
  ns-2               200 × `ns voice_onoff.tcl DELAY SEED 60`, W at a time

Wall time is measured around each whole command (interpreter start-up,
validation, worker start, simulation, Parquet writing). The per-run
overhead (conversion, tables, writing: task time − core simulation time)
comes from the sweep manifest. Issue 12's targets: 200 runs < 10 s on 2
cores, overhead < 20 ms per run. Writes bench/results/sweep.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
from dumbbell import talkspurt_cli  # noqa: E402  -- the CLI as the README installs it

SCENARIO = BENCH / "sweep.toml"
NS2 = BENCH / "ns2" / "voice_onoff.tcl"
RESULTS = BENCH / "results" / "sweep.json"
DELAYS_MS = [10, 20, 30, 40, 50, 60, 80, 100, 150, 200]
REPLICATIONS = 20
TARGET_S, TARGET_OVERHEAD_MS = 10.0, 20.0


def talkspurt_sweep(workers: int, trace: bool) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="talkspurt-bench-"))
    try:
        cmd = [*talkspurt_cli(), "sweep", str(SCENARIO), "-o", str(tmp / "out"), "-j", str(workers), "-q"]
        if not trace:
            cmd.append("--no-trace")
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True)
        wall = time.perf_counter() - t0
        m = json.loads((tmp / "out" / "sweep.json").read_text())
        s = m["sessions"][-1]
        runs = len(list((tmp / "out" / "runs").iterdir()))
        size = sum(f.stat().st_size for f in (tmp / "out").rglob("*") if f.is_file())
        # Everything but the simulation itself, per run, on the wall clock:
        # interpreter and worker start-up, validation, conversion, writing.
        amortized = (wall * workers - s["core_s_sum"]) / runs * 1e3
        return {"wall_s": wall, "runs": runs, "overhead_ms_amortized": amortized, "core_s_sum": s["core_s_sum"], "task_s_sum": s["task_s_sum"],
                "overhead_ms_mean": s["overhead_ms_mean"], "overhead_ms_max": s["overhead_ms_max"],
                "sweep_s": s["wall_time_s"], "bytes": size}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def ns2_runs(workers: int) -> dict:
    jobs = [(d, seed) for d in DELAYS_MS for seed in range(1, REPLICATIONS + 1)]

    def one(job):
        d, seed = job
        r = subprocess.run(["ns", str(NS2), str(d), str(seed), "60"], capture_output=True, text=True, check=True)
        return json.loads(r.stdout.strip().splitlines()[-1])["received"]

    t0 = time.perf_counter()
    with ThreadPoolExecutor(max_workers=workers) as pool:
        received = list(pool.map(one, jobs))
    return {"wall_s": time.perf_counter() - t0, "runs": len(jobs), "received_mean": statistics.mean(received)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    if shutil.which("ns") is None:
        print("ns-2 missing: sh bench/setup.sh", file=sys.stderr)
        return 2
    rows: dict[str, list[dict]] = {"talkspurt": [], "talkspurt --no-trace": [], "ns-2": []}
    for _ in range(args.repeat):
        rows["talkspurt"].append(talkspurt_sweep(args.workers, True))
        rows["talkspurt --no-trace"].append(talkspurt_sweep(args.workers, False))
        rows["ns-2"].append(ns2_runs(args.workers))
    med = {k: statistics.median(r["wall_s"] for r in v) for k, v in rows.items()}
    print(f"200 runs of a 4-call, 60 s scenario on {args.workers} workers ({os.cpu_count()} cores), "
          f"median of {args.repeat}:")
    for k, v in rows.items():
        extra = ""
        if "overhead_ms_mean" in v[0]:
            extra = (f"  overhead/run {statistics.median(r['overhead_ms_mean'] for r in v):.1f} ms mean in the worker, "
                     f"{statistics.median(r['overhead_ms_amortized'] for r in v):.1f} ms on the wall clock; "
                     f"core {statistics.median(r['core_s_sum'] for r in v) / 200 * 1e3:.1f} ms/run")
        print(f"  {k:<22} {med[k]:7.2f} s  ratio to ns-2 {med['ns-2'] / med[k]:6.2f}x{extra}")
    out = {"machine": {"platform": platform.platform(), "cpus": os.cpu_count(), "python": sys.version.split()[0]},
           "workers": args.workers, "repeat": args.repeat, "rows": rows, "median_wall_s": med,
           "speedup_vs_ns2": {k: med["ns-2"] / med[k] for k in med if k != "ns-2"},
           "targets": {"wall_s": TARGET_S, "overhead_ms": TARGET_OVERHEAD_MS},
           "meets": {"wall": med["talkspurt"] < TARGET_S,
                     "overhead_in_worker": statistics.median(r["overhead_ms_mean"] for r in rows["talkspurt"]) < TARGET_OVERHEAD_MS,
                     "overhead_wall_clock": statistics.median(r["overhead_ms_amortized"] for r in rows["talkspurt"]) < TARGET_OVERHEAD_MS}}
    RESULTS.parent.mkdir(exist_ok=True)
    tmp = RESULTS.with_suffix(".tmp")
    tmp.write_text(json.dumps(out, indent=1) + "\n")
    tmp.replace(RESULTS)
    print(f"written {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
