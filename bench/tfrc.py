#!/usr/bin/env python3
"""TFRC benchmark: talkspurt vs ns-2 on two scenarios.

    python bench/tfrc.py [--repeat K] [--skip-ns2] [--only voice|bulk] [--talkspurt-via api|cli|table]

  voice  100 on/off G.711 calls over DCCP CCID 3 through a 10 Mb/s
         bottleneck for 60 s (bench/tfrc_voice.toml; ns-2:
         bench/ns2/tfrc_bench.tcl voice 100 60, Agent/DCCP/TFRC)
  bulk   1000 greedy TFRC flows for 10 s (bench/tfrc_bulk.toml; ns-2:
         tfrc_bench.tcl bulk 1000 10, Agent/TFRC)

Each simulator runs in its own child process, interleaved per repeat: wall
time around the child (talkspurt's includes starting Python and importing
the package), peak RSS = the child's ru_maxrss. `--talkspurt-via cli` runs
`python -m talkspurt run SCENARIO -o DIR` (writes Parquet; imports pyarrow,
not pandas) instead of `talkspurt.run()` with its DataFrames;
`--talkspurt-via table` runs `python -m talkspurt run SCENARIO`, which prints
the per-call table and writes no files (imports neither numpy, pandas nor
pyarrow), as ns-2's script prints its summary line. Prints a table with the
ratios and writes bench/results/tfrc.json atomically. Issue 9's target:
talkspurt >= 20x faster than ns-2 and <= 1/10 of its memory.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))
from dumbbell import (  # noqa: E402
    last_json_line, machine, run_child, run_talkspurt, talkspurt_env, write_json_atomic,
)

NS2 = BENCH / "ns2" / "tfrc_bench.tcl"
RESULTS = BENCH / "results" / "tfrc.json"
CASES = {
    "voice": (BENCH / "tfrc_voice.toml", ["voice", "100", "60"]),
    "bulk": (BENCH / "tfrc_bulk.toml", ["bulk", "1000", "10"]),
}

_TS_CHILD = r"""
import json, sys
import talkspurt
res = talkspurt.run(sys.argv[1])
out = {"run_wall_s": res.manifest.get("wall_time_s")}
if len(res.calls):
    out["delivered_packets"] = int(res.calls["arrived"].sum())
if len(res.traffic):
    out["delivered_packets"] = int(res.traffic["received_packets"].sum())
print(json.dumps(out))
"""


def one(cmd: list[str], env=None) -> dict:
    r = run_child(cmd, REPO, env)
    if r.rc != 0:
        return {"ok": False, "reason": f"exit {r.rc}: {r.stderr.strip()[-300:]}"}
    out = last_json_line(r.stdout)
    return {"ok": True, "wall_s": r.wall_s, "maxrss_mb": r.maxrss_mb, **out}


def one_cli(toml: Path, via: str) -> dict:
    """The CLI writing its result files (`cli`) or printing only its table
    (`table`), through dumbbell.py's runner."""
    with tempfile.TemporaryDirectory(prefix="ts-tfrc-") as d:
        r = run_talkspurt(toml, True, Path(d), via)
    if not r["available"]:
        return {"ok": False, "reason": r["reason"]}
    return {"ok": True, "wall_s": r["wall_s"], "maxrss_mb": r["maxrss_mb"], "run_wall_s": r["run_s"]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--skip-ns2", action="store_true")
    ap.add_argument("--only", choices=list(CASES))
    ap.add_argument("--talkspurt-via", choices=("api", "cli", "table"), default="api")
    a = ap.parse_args(argv)
    ns = shutil.which("ns")
    result = {"benchmark": "tfrc", "talkspurt_via": a.talkspurt_via, "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "machine": machine(), "cases": {}}
    for name, (toml, args) in CASES.items():
        if a.only and name != a.only:
            continue
        runs = {"ns-2": [], "talkspurt": []}
        for _ in range(a.repeat):
            if ns and not a.skip_ns2:
                runs["ns-2"].append(one([ns, str(NS2), *args]))
            if a.talkspurt_via in ("cli", "table"):
                runs["talkspurt"].append(one_cli(toml, a.talkspurt_via))
            else:
                runs["talkspurt"].append(one([sys.executable, "-c", _TS_CHILD, str(toml)], talkspurt_env()))
        case = {}
        for sim, rs in runs.items():
            ok = [r for r in rs if r["ok"]]
            if not ok:
                case[sim] = {"available": False, "reason": rs[0]["reason"] if rs else "skipped"}
                continue
            case[sim] = {
                "available": True,
                "wall_s": statistics.median(r["wall_s"] for r in ok),
                "run_s": statistics.median(r["run_wall_s"] for r in ok if r.get("run_wall_s") is not None),
                "maxrss_mb": max(r["maxrss_mb"] for r in ok),
                "delivered_packets": ok[-1].get("delivered_packets"),
            }
        n2, ts = case.get("ns-2", {}), case["talkspurt"]
        if n2.get("available") and ts.get("available"):
            case["ratios"] = {
                "ns2_over_talkspurt_wall": n2["wall_s"] / ts["wall_s"],
                "ns2_over_talkspurt_run": n2["run_s"] / ts["run_s"],
                "talkspurt_over_ns2_rss": ts["maxrss_mb"] / n2["maxrss_mb"],
            }
        result["cases"][name] = case
        print(f"{name}:")
        for sim in ("ns-2", "talkspurt"):
            c = case.get(sim, {})
            if c.get("available"):
                print(f"  {sim:<10} wall {c['wall_s']:8.3f} s  run {c['run_s']:8.3f} s  "
                      f"peak RSS {c['maxrss_mb']:8.1f} MB  delivered {c['delivered_packets']}")
            else:
                print(f"  {sim:<10} unavailable: {c.get('reason')}")
        if "ratios" in case:
            r = case["ratios"]
            print(f"  ns-2/talkspurt wall {r['ns2_over_talkspurt_wall']:.1f}x, run "
                  f"{r['ns2_over_talkspurt_run']:.1f}x; talkspurt/ns-2 memory {r['talkspurt_over_ns2_rss']:.3f}")
    write_json_atomic(RESULTS, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
