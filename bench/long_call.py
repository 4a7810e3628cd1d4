"""Peak memory of one long call against simulated time (issue 26 target 4).

One G.711 call over a 1 Mb/s, 40 ms link with Gilbert-Elliott loss (the
call of tests/test_memory.py), `ramjee-1` playout, trace off, for each
duration and scoring mode; each run is the native runner
(`target/release/examples/run_scenario --no-trace`) in its own process
under GNU time, whose %M is the peak RSS. Modes:

- `exact`: exact scoring recorded (`--no-fold`: records kept, scored at
  the end, as before issue 26);
- `exact-fold`: exact scoring folded as the call runs (`--fold`; exact
  percentiles from counts of distinct delays, the offline bounds from each
  talkspurt's distinct delays: run::folds_as_it_runs; the default from
  run::FOLD_FROM_S = 10 min on);
- `streaming`: the log-histogram sketch.

`--jitter` adds a normal jitter (10 ms, sd 3 ms) on the link: every delay
distinct, the exact fold's worst case (16 B per distinct delay).

    cargo build --release --example run_scenario -p talkspurt-core
    python bench/long_call.py [--durations 60,360,1440] [--speech onoff|continuous] [--jitter] [--no-bounds]

Prints a table (MB, and MB per simulated day of growth from the first
duration) and writes bench/results/long_call.json.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
RUNNER = ROOT / "target" / "release" / "examples" / "run_scenario"

SCENARIO = """
[run]
duration = "{minutes}min"
seed = 11
trace = false

[analysis]
scoring = "{scoring}"
bounds = {bounds}

[[links]]
between = ["a", "b"]
rate = "1Mbps"
delay = "40ms"
loss = {{ kind = "gilbert-elliott", p = 0.01, r = 0.3 }}
{jitter}

[[calls]]
count = 1
from = "a"
to = "b"
codec = "G.711"
{speech}
playout = {{ kind = "ramjee-1" }}
"""

MODES = {"exact": ("exact", "--no-fold"), "exact-fold": ("exact", "--fold"), "streaming": ("streaming", "--fold")}


def one(minutes: int, mode: str, speech: str, jitter: bool, tmp: Path, bounds: bool = True, runner: Path = RUNNER) -> dict:
    scoring, fold = MODES[mode]
    sp = 'speech = { model = "exponential", talk = "1s", silence = "1.5s" }' if speech == "onoff" else 'speech = { model = "continuous" }'
    jt = 'jitter = { kind = "normal", mean = "10ms", sd = "3ms" }' if jitter else ""
    path = tmp / f"call_{minutes}_{mode}.toml"
    path.write_text(SCENARIO.format(minutes=minutes, scoring=scoring, jitter=jt, speech=sp, bounds=str(bounds).lower()))
    t0 = time.perf_counter()
    r = subprocess.run(["nice", "/usr/bin/time", "-f", "%M", str(runner), str(path), "--no-trace", fold],
                       capture_output=True, text=True, timeout=3600)
    wall = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit(f"{path}: {r.stderr[-2000:]}")
    return {"minutes": minutes, "mode": mode, "peak_mb": int(r.stderr.strip().splitlines()[-1]) / 1024.0,
            "wall_s": round(wall, 3), "load": os.getloadavg()[0]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--durations", default="60,360,1440", help="minutes, comma-separated")
    ap.add_argument("--modes", default="exact,exact-fold,streaming")
    ap.add_argument("--speech", choices=["onoff", "continuous"], default="onoff")
    ap.add_argument("--jitter", action="store_true")
    ap.add_argument("--no-bounds", action="store_true", help="[analysis] bounds = false")
    ap.add_argument("--runner", type=Path, default=RUNNER, help="run_scenario binary (e.g. a copy built from another commit)")
    ap.add_argument("--out", type=Path, default=HERE / "results" / "long_call.json")
    args = ap.parse_args()
    if not args.runner.exists():
        sys.exit(f"{args.runner} missing: cargo build --release --example run_scenario -p talkspurt-core")
    durations = [int(x) for x in args.durations.split(",")]
    modes = args.modes.split(",")
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for m in durations:
            for mode in modes:
                rows.append(one(m, mode, args.speech, args.jitter, Path(d), not args.no_bounds, args.runner))
                r = rows[-1]
                print(f"{r['minutes']:>6} min  {r['mode']:<11} {r['peak_mb']:8.1f} MB  {r['wall_s']:7.2f} s  load {r['load']:.1f}", flush=True)
    print("\nMB per simulated day of growth beyond the first duration:")
    for mode in modes:
        rs = [r for r in rows if r["mode"] == mode]
        if len(rs) >= 2 and rs[-1]["minutes"] > rs[0]["minutes"]:
            per_day = (rs[-1]["peak_mb"] - rs[0]["peak_mb"]) * 1440 / (rs[-1]["minutes"] - rs[0]["minutes"])
            print(f"  {mode:<11} {per_day:8.1f} MB/day")
    out = args.out
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"speech": args.speech, "jitter": args.jitter, "bounds": not args.no_bounds, "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
