"""Small runs, talkspurt vs ns-2, as whole processes (issue 14, target 5).

One 4-call, 60 s scenario (bench/sweep.toml's base; ns-2's twin is
bench/ns2/voice_onoff.tcl at 50 ms), run N times alternately as:

  talkspurt          `talkspurt run bench/sweep.toml` (prints the table)
  talkspurt -o       the same, writing its results (Parquet + manifest)
  ns-2               `ns bench/ns2/voice_onoff.tcl 50 SEED 60`

and, in this process, the API's overhead per run (`talkspurt.run` time
minus the core's own wall time) and `Results.save` of that run. Targets:
the quickstart as a process ≤ 0.3 s, API overhead ≤ 5 ms, writing ≤ 20 ms.

  python bench/small_runs.py [--repeat 10]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
from dumbbell import talkspurt_cli  # noqa: E402  -- the CLI as the README installs it

ROOT = BENCH.parent
SCENARIO = BENCH / "sweep.toml"
QUICKSTART = ROOT / "scenarios" / "quickstart.toml"
NS2 = BENCH / "ns2" / "voice_onoff.tcl"


def timed(cmd: list[str]) -> float:
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - t0


def in_process(repeat: int) -> dict[str, float]:
    import talkspurt

    doc = talkspurt.load_scenario(QUICKSTART)
    talkspurt.run(doc)  # warm-up: imports, first allocation
    over, save = [], []
    for _ in range(repeat):
        t0 = time.perf_counter()
        res = talkspurt.run(doc)
        over.append((time.perf_counter() - t0 - res.manifest["wall_time_s"]) * 1e3)
        d = Path(tempfile.mkdtemp())
        t0 = time.perf_counter()
        res.save(d / "out")
        save.append((time.perf_counter() - t0) * 1e3)
        shutil.rmtree(d)
    return {"api_overhead_ms": statistics.median(over), "save_ms": statistics.median(save)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=10)
    a = ap.parse_args()
    if shutil.which("ns") is None:
        print("ns-2 missing: sh bench/setup.sh", file=sys.stderr)
        return 2
    ts = [*talkspurt_cli(), "run"]
    rows: dict[str, list[float]] = {"quickstart": [], "talkspurt": [], "talkspurt -o": [], "ns-2": []}
    for i in range(a.repeat):  # alternated, so load changes hit every row alike
        rows["quickstart"].append(timed(ts + [str(QUICKSTART)]))
        rows["talkspurt"].append(timed(ts + [str(SCENARIO)]))
        d = Path(tempfile.mkdtemp())
        rows["talkspurt -o"].append(timed(ts + [str(SCENARIO), "-q", "-o", str(d / "out")]))
        shutil.rmtree(d)
        rows["ns-2"].append(timed(["ns", str(NS2), "50", str(i + 1), "60"]))
    med = {k: statistics.median(v) for k, v in rows.items()}
    print(f"{'process':<14} {'median s':>9} {'ns-2 / x':>9}")
    for k, v in med.items():
        print(f"{k:<14} {v:>9.3f} {med['ns-2'] / v:>9.2f}")
    api = in_process(a.repeat * 5)
    print(f"API overhead per 4-call run {api['api_overhead_ms']:.2f} ms, Results.save {api['save_ms']:.2f} ms")
    out = BENCH / "results" / "small_runs.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"median_s": med, **api, "repeat": a.repeat}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
