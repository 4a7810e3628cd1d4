#!/usr/bin/env python3
"""TFRC benchmark: talkspurt vs ns-2 on two scenarios.

    python bench/tfrc.py [--repeat K] [--skip-ns2] [--ns2-repeat N] [--only voice|voice1000|bulk]
                         [--talkspurt-via api|cli|table|native[,...]]

  voice      100 on/off G.711 calls over DCCP CCID 3 through a 10 Mb/s
             bottleneck for 60 s (bench/tfrc_voice.toml; ns-2:
             bench/ns2/tfrc_bench.tcl voice 100 60, Agent/DCCP/TFRC)
  voice1000  1000 such calls through a 100 Mb/s bottleneck (the same load;
             issue 26 target 2; bench/tfrc_voice1000.toml; ns-2:
             tfrc_bench.tcl voice 1000 60 1 100Mb). Not run unless named
             with --only (ns-2 takes tens of seconds on it).
  bulk       1000 greedy TFRC flows for 10 s (bench/tfrc_bulk.toml; ns-2:
             tfrc_bench.tcl bulk 1000 10, Agent/TFRC)

Each simulator runs in its own child process, interleaved per repeat: wall
time around the child (talkspurt's includes starting Python and importing
the package), peak RSS = the child's ru_maxrss. `--talkspurt-via cli` runs
`python -m talkspurt run SCENARIO -o DIR` (writes Parquet; imports pyarrow,
not pandas) instead of `talkspurt.run()` with its DataFrames;
`--talkspurt-via table` runs `python -m talkspurt run SCENARIO`, which prints
the per-call table and writes no files (imports neither numpy, pandas nor
pyarrow), as ns-2's script prints its summary line; `native` runs
target/release/examples/run_scenario SCENARIO (no Python; `cargo build
--release --example run_scenario -p talkspurt-core`). A comma list runs
several, alternated with ns-2 in each repeat, one row each. CPU = user +
system of the child. Prints a table with the ratios and writes
bench/results/tfrc.json (tfrc_voice1000.json for --only voice1000)
atomically. Issue 9's target:
talkspurt >= 20x faster than ns-2 and <= 1/10 of its memory.
"""

from __future__ import annotations

import argparse
import os
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
    last_json_line, machine, read_talkspurt_manifest, run_child, talkspurt_command, talkspurt_env,
    write_json_atomic,
)

NS2 = BENCH / "ns2" / "tfrc_bench.tcl"
RESULTS = BENCH / "results" / "tfrc.json"
CASES = {
    "voice": (BENCH / "tfrc_voice.toml", ["voice", "100", "60"]),
    "voice1000": (BENCH / "tfrc_voice1000.toml", ["voice", "1000", "60", "1", "100Mb"]),
    "bulk": (BENCH / "tfrc_bulk.toml", ["bulk", "1000", "10"]),
}
DEFAULT_CASES = ("voice", "bulk")
NATIVE = REPO / "target" / "release" / "examples" / "run_scenario"

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
    return {"ok": True, "wall_s": r.wall_s, "cpu_s": r.cpu_s, "maxrss_mb": r.maxrss_mb, **out}


def one_native(toml: Path, native: Path = NATIVE) -> dict:
    """The run_scenario example: the simulator with no Python at all."""
    if not native.exists():
        return {"ok": False, "reason": f"{native} not built"}
    r = one([str(native), str(toml)])
    if r["ok"]:
        r["run_wall_s"] = r.get("loop_s")
    return r


def one_cli(toml: Path, via: str) -> dict:
    """The CLI writing its result files (`cli`) or printing only its table
    (`table`), through dumbbell.py's runner."""
    with tempfile.TemporaryDirectory(prefix="ts-tfrc-") as d:
        r = run_child(talkspurt_command(toml, True, Path(d), via), REPO, talkspurt_env())
        if r.rc != 0:
            return {"ok": False, "reason": f"talkspurt exited {r.rc}: {r.stderr.strip()[-300:]}"}
        m = read_talkspurt_manifest(r, Path(d), via)
    return {"ok": True, "wall_s": r.wall_s, "cpu_s": r.cpu_s, "maxrss_mb": r.maxrss_mb,
            "run_wall_s": m.get("wall_time_s")}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--skip-ns2", action="store_true")
    ap.add_argument("--ns2-repeat", type=int, default=None,
                    help="run ns-2 in the first N repeats only (voice1000 takes ns-2 ~90 s of CPU a run)")
    ap.add_argument("--only", choices=list(CASES))
    ap.add_argument("--talkspurt-via", default="api",
                    help="comma list of api, cli, table, native (default api)")
    ap.add_argument("--native-bin", type=Path, default=NATIVE)
    a = ap.parse_args(argv)
    vias = [v for v in a.talkspurt_via.split(",") if v]
    if not vias or any(v not in ("api", "cli", "table", "native") for v in vias):
        ap.error(f"--talkspurt-via: a comma list of api, cli, table, native; got {a.talkspurt_via!r}")
    ns = shutil.which("ns")
    result = {"benchmark": "tfrc", "talkspurt_via": a.talkspurt_via, "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "machine": machine(), "cases": {}}
    rows = ["talkspurt" if v == "api" else f"talkspurt-{v}" for v in vias]
    for name, (toml, args) in CASES.items():
        if (a.only and name != a.only) or (not a.only and name not in DEFAULT_CASES):
            continue
        runs = {"ns-2": [], **{r: [] for r in rows}}
        for k in range(a.repeat):
            if ns and not a.skip_ns2 and (a.ns2_repeat is None or k < a.ns2_repeat):
                runs["ns-2"].append(one([ns, str(NS2), *args]) | {"load": os.getloadavg()[0]})
            for via, row in zip(vias, rows):
                load = os.getloadavg()[0]
                if via in ("cli", "table"):
                    r = one_cli(toml, via)
                elif via == "native":
                    r = one_native(toml, a.native_bin)
                else:
                    r = one([sys.executable, "-c", _TS_CHILD, str(toml)], talkspurt_env())
                runs[row].append(r | {"load": load})
            print(f"  {name} repeat {k + 1}/{a.repeat}: " + ", ".join(
                f"{sim} {rs[-1]['wall_s']:.2f} s" for sim, rs in runs.items() if rs and rs[-1]["ok"]),
                file=sys.stderr, flush=True)
        case = {}
        for sim, rs in runs.items():
            ok = [r for r in rs if r["ok"]]
            if not ok:
                case[sim] = {"available": False, "reason": rs[0]["reason"] if rs else "skipped"}
                continue
            case[sim] = {
                "available": True,
                "wall_s": statistics.median(r["wall_s"] for r in ok),
                "cpu_s": statistics.median(r["cpu_s"] for r in ok) if all(r.get("cpu_s") is not None for r in ok) else None,
                "loads": [round(r["load"], 1) for r in ok],
                "run_s": statistics.median(runs_s) if (runs_s := [r["run_wall_s"] for r in ok
                                                                  if r.get("run_wall_s") is not None]) else None,
                "maxrss_mb": max(r["maxrss_mb"] for r in ok),
                "delivered_packets": ok[-1].get("delivered_packets"),
            }
        n2 = case.get("ns-2", {})
        case["ratios"] = {}
        for row in rows:
            ts = case[row]
            if n2.get("available") and ts.get("available"):
                case["ratios"][row] = {
                    "ns2_over_talkspurt_wall": n2["wall_s"] / ts["wall_s"],
                    "ns2_over_talkspurt_cpu": (n2["cpu_s"] / ts["cpu_s"]) if n2.get("cpu_s") and ts.get("cpu_s") else None,
                    "ns2_over_talkspurt_run": (n2["run_s"] / ts["run_s"]) if ts.get("run_s") else None,
                    "talkspurt_over_ns2_rss": ts["maxrss_mb"] / n2["maxrss_mb"],
                }
        result["cases"][name] = case
        print(f"{name}:")
        for sim in ("ns-2", *rows):
            c = case.get(sim, {})
            if c.get("available"):
                cpu = "n/a" if c["cpu_s"] is None else f"{c['cpu_s']:.3f}"
                run = "n/a" if c["run_s"] is None else f"{c['run_s']:.3f}"
                print(f"  {sim:<17} wall {c['wall_s']:8.3f} s  CPU {cpu:>8} s  run {run:>8} s  "
                      f"peak RSS {c['maxrss_mb']:8.1f} MB  delivered {c['delivered_packets']}  load {c['loads']}")
            else:
                print(f"  {sim:<17} unavailable: {c.get('reason')}")
        for row, r in case["ratios"].items():
            cpu = "n/a" if r["ns2_over_talkspurt_cpu"] is None else f"{r['ns2_over_talkspurt_cpu']:.1f}x"
            print(f"  ns-2/{row} wall {r['ns2_over_talkspurt_wall']:.1f}x, CPU {cpu}; "
                  f"{row}/ns-2 memory {r['talkspurt_over_ns2_rss']:.3f}")
    write_json_atomic(RESULTS.with_name("tfrc_voice1000.json") if a.only == "voice1000" else RESULTS, result)
    return 0


if __name__ == "__main__":
    sys.exit(main())
