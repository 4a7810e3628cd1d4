#!/usr/bin/env python3
"""Per-flow TCP fairness on the mixed benchmark, over perturbed runs.

    python bench/tcp_fairness.py [--offsets-us 0,1,...] [--ns2] [--scenario TOML]

The mixed scenario (bench/tcp_mix_big.toml: 500 G.711 calls, 100 greedy
NewReno flows, 100 Mb/s, 30 ms, 50-packet drop-tail bottleneck) is fully
deterministic, and so is its ns-2 twin (bench/ns2/tcp_mix.tcl): every event
time lies on a coarse grid (83.2 us per segment at 100 Mb/s, 20 us voice
stagger, 100 ms flow stagger), and drop-tail phase effects decide which
flows lose the segments that overflow the queue. Whether a few flows are
locked out (repeated timeouts, < 0.05 Mb/s over [10 s, 60 s]) is then a
matter of where the run falls, in both simulators: one run compares two
draws, not two models. This runs each simulator once per bottleneck delay
30 ms + k us (k from --offsets-us) and prints per run the total TCP
goodput, Jain's index over the flows and the starved flows, then the mean
over the runs.

talkspurt runs through the native per-flow runner
target/release/examples/flows (`cargo build --release --example flows -p
talkspurt-core`); ns-2 (`--ns2`, ~8 s a run) as
`ns bench/ns2/tcp_mix.tcl 60 500 100 10 100Mb DELAY 50 1000 1000`.
Runs one process at a time.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
SCENARIO = BENCH / "tcp_mix_big.toml"
NS2_SCRIPT = BENCH / "ns2" / "tcp_mix.tcl"
FLOWS = REPO / "target" / "release" / "examples" / "flows"
STARVED_MBPS = 0.05


def stats(goodput_mbps: list[float]) -> dict:
    n, s = len(goodput_mbps), sum(goodput_mbps)
    sq = sum(x * x for x in goodput_mbps)
    return {
        "total_mbps": s,
        "jain": s * s / (n * sq) if sq > 0 else float("nan"),
        "starved": [i for i, x in enumerate(goodput_mbps) if x < STARVED_MBPS],
    }


def run_talkspurt(text: str, delay_us: int, work: Path) -> dict:
    t, n = re.subn(r'delay = "30ms"', f'delay = "{delay_us}us"', text)
    if n != 1:
        sys.exit("tcp_fairness: the scenario needs exactly one 'delay = \"30ms\"' (the bottleneck)")
    p = work / f"mix_{delay_us}.toml"
    p.write_text(t)
    out = subprocess.run([str(FLOWS), str(p)], capture_output=True, text=True, check=True).stdout
    flows = [json.loads(l) for l in out.splitlines() if '"flow"' in l]
    return stats([f["goodput_bps"] / 1e6 for f in flows])


def run_ns2(delay_us: int) -> dict:
    cmd = ["ns", str(NS2_SCRIPT), "60.0", "500", "100", "10.0", "100Mb", f"{delay_us}us", "50", "1000", "1000"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=REPO).stdout
    doc = [json.loads(l) for l in out.splitlines() if l.startswith("{")][-1]
    return stats([f["goodput_bps"] / 1e6 for f in doc["tcp"]])


def sweep(a, offsets, text, rows) -> None:
    with tempfile.TemporaryDirectory() as d:
        for k in offsets:
            delay = 30000 + k
            sims = [("talkspurt", lambda: run_talkspurt(text, delay, Path(d)))]
            if a.ns2:
                sims.append(("ns-2", lambda: run_ns2(delay)))
            for name, fn in sims:
                r = fn()
                rows[name].append(r)
                print(f"{name:9s} delay {delay} us: TCP {r['total_mbps']:6.2f} Mb/s, Jain {r['jain']:.3f}, "
                      f"{len(r['starved'])} flows < {STARVED_MBPS} Mb/s {r['starved']}", flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--offsets-us", default="0,1,2,3,4,5,6,7", help="bottleneck delay offsets, us (comma list)")
    ap.add_argument("--ns2", action="store_true", help="run ns-2's twin too")
    ap.add_argument("--scenario", type=Path, default=SCENARIO)
    a = ap.parse_args(argv)
    try:
        offsets = [int(x) for x in a.offsets_us.split(",")]
    except ValueError:
        ap.error(f"--offsets-us: {a.offsets_us!r} is not a comma list of integers")
    if not FLOWS.exists():
        ap.error(f"{FLOWS} missing: cargo build --release --example flows -p talkspurt-core")
    if a.ns2 and shutil.which("ns") is None:
        ap.error("--ns2: `ns` not found (bench/setup.sh)")
    text = a.scenario.read_text()
    rows: dict[str, list[dict]] = {"talkspurt": [], "ns-2": []}
    try:
        sweep(a, offsets, text, rows)
    except subprocess.CalledProcessError as e:
        lines = (e.stderr or "").strip().splitlines()
        # A Rust panic's message is the line after "panicked at".
        at = [i + 1 for i, l in enumerate(lines) if "panicked at" in l and i + 1 < len(lines)]
        msg = lines[at[0]] if at else (lines[-1] if lines else "")
        sys.exit(f"tcp_fairness: {' '.join(map(str, e.cmd))} exited {e.returncode}: {msg}")
    for name, rs in rows.items():
        if rs:
            print(f"{name:9s} mean over {len(rs)} runs: TCP {statistics.mean(r['total_mbps'] for r in rs):.2f} Mb/s, "
                  f"Jain {statistics.mean(r['jain'] for r in rs):.3f}, starved flows "
                  f"{statistics.mean(len(r['starved']) for r in rs):.1f}, runs with any starved "
                  f"{sum(1 for r in rs if r['starved'])}/{len(rs)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
