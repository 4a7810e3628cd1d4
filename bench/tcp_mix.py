#!/usr/bin/env python3
"""Voice + TCP benchmark: talkspurt vs ns-2 vs ns-3 on bench/tcp_mix.toml.

    python bench/tcp_mix.py [--preset small|mixed] [--repeat K] [--duration S] [--calls N] [--flows F]
                            [--talkspurt-via api[,table][,native]] [--ns3-repeat N]

small (default): 100 always-on G.711 calls and 4 greedy NewReno TCP flows
share a 20 Mb/s, 20 ms, 100-packet drop-tail bottleneck for 60 s.
mixed (issue 26 target 1): 500 calls and 100 flows through 100 Mb/s, 30 ms,
50 packets, 1000-byte segments, window 1000 (bench/tcp_mix_big.toml; ns-2
gets the same five values as arguments, ns-3 as --rate --delay --qlim --mss
--window). Runs, once per repeat and interleaved (so machine noise hits
every simulator alike):

  ns-2        ns bench/ns2/tcp_mix.tcl S N F 10 [RATE DELAY QLIM MSS WINDOW]
  ns-3        bench/ns3/build/tcp_mix --duration=S --calls=N --flows=F [--rate=...]
              (built first by bench/ns3/build.sh, outside the timing)
  talkspurt   the preset's scenario (count/duration rewritten), trace off,
              through `talkspurt.run()` (api, the default), and with
              --talkspurt-via also `talkspurt run SCENARIO --no-trace`
              printing its table (table: the CLI, no pandas) and/or the
              native runner target/release/examples/run_scenario
              --no-trace (native: no Python; build it with `cargo build
              --release --example run_scenario -p talkspurt-core`). Only
              the api row reads the results back (voice delivered, TCP
              goodput); the others run the same scenario to the same bits.

Each simulator runs in its own child process: wall time around the child,
peak RSS = the child's own ru_maxrss (os.wait4). If talkspurt cannot run the
scenario (no TCP yet), the harness prints `talkspurt unavailable: <reason>`
and still reports the peers. Prints a table with ratios and writes
bench/results/tcp_mix.json (atomically).
"""

from __future__ import annotations

import argparse
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path

try:
    import tomllib  # Python >= 3.11
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore[no-redef]

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))
from dumbbell import (  # noqa: E402  -- shared child-process and output helpers
    ChildRun, cli_summary_line, last_json_line, machine, run_child, talkspurt_cli, talkspurt_env, write_json_atomic)

NS2_SCRIPT = BENCH / "ns2" / "tcp_mix.tcl"
NS3_BUILD = BENCH / "ns3" / "build.sh"
NS3_BIN = BENCH / "ns3" / "build" / "tcp_mix"
SCENARIO = BENCH / "tcp_mix.toml"
# preset -> (scenario, calls, flows in it, ns-2 bottleneck args, label, ns-3 args)
PRESETS = {
    "small": (BENCH / "tcp_mix.toml", 100, 4, [], "20 Mb/s bottleneck", []),
    "mixed": (BENCH / "tcp_mix_big.toml", 500, 100, ["100Mb", "30ms", "50", "1000", "1000"],
              "100 Mb/s, 30 ms, 50 p bottleneck, 1000 B segments",
              ["--rate=100Mbps", "--delay=30ms", "--qlim=50", "--mss=1000", "--window=1000"]),
}
NATIVE = REPO / "target" / "release" / "examples" / "run_scenario"
VIA_ROWS = {"api": "talkspurt", "table": "talkspurt-cli", "native": "talkspurt-native"}
RESULTS = BENCH / "results" / "tcp_mix.json"

PTIME = Fraction(20, 1000)
STAGGER = Fraction(20, 10**6)
WINDOW_START = 10.0   # TCP goodput window [10 s, duration], as all three use


# --------------------------------------------------------------------------
# peers
# --------------------------------------------------------------------------

def run_ns2(a, workdir: Path) -> dict:
    ns = shutil.which("ns")
    if ns is None:
        return {"available": False, "reason": "`ns` not found; run bench/setup.sh"}
    r = run_child([ns, str(NS2_SCRIPT), repr(float(a.duration)), str(a.calls), str(a.flows),
                   repr(WINDOW_START)] + PRESETS[a.preset][3], workdir)
    if r.rc != 0:
        return {"available": False, "reason": f"ns exited {r.rc}: {r.stderr.strip()[-500:]}"}
    out = last_json_line(r.stdout)
    return summarize(r, out, events=out["events_scheduled"])


def build_ns3() -> str | None:
    """Build the ns-3 program (idempotent); None if fine, else the reason."""
    if shutil.which("g++") is None:
        return "g++ not found"
    p = subprocess.run(["sh", str(NS3_BUILD)], capture_output=True, text=True)
    if p.returncode != 0:
        lines = (p.stderr or p.stdout).strip().splitlines()
        return f"bench/ns3/build.sh failed: {lines[-1] if lines else p.returncode}"
    return None


def run_ns3(a, workdir: Path) -> dict:
    r = run_child([str(NS3_BIN), f"--duration={a.duration:g}", f"--calls={a.calls}",
                   f"--flows={a.flows}", f"--start={WINDOW_START:g}"] + PRESETS[a.preset][5], workdir)
    if r.rc != 0:
        return {"available": False, "reason": f"ns-3 exited {r.rc}: {r.stderr.strip()[-500:]}"}
    out = last_json_line(r.stdout)
    return summarize(r, out, events=out["events_executed"])


def summarize(r: ChildRun, out: dict, events: int | None, extract_s: float = 0.0,
              extract_cpu_s: float = 0.0) -> dict:
    return {
        "available": True,
        "wall_s": r.wall_s - extract_s,
        "cpu_s": r.cpu_s - extract_cpu_s,
        "run_s": out.get("run_wall_s"),
        "maxrss_mb": r.maxrss_mb,
        "voice_sent": out.get("voice_sent"),
        "voice_received": out.get("voice_received"),
        "tcp_goodput_bps": [f.get("goodput_bps") for f in out.get("tcp", [])],
        "events": events,
        "raw": out,
    }


# --------------------------------------------------------------------------
# talkspurt -- the child reports the manifest, calls' generated/arrived and
# the traffic table's goodput (DataFrames: the process pays pandas) and the
# time it spent reading the tables after run() (extract_s, for information).
# --------------------------------------------------------------------------

_TS_CHILD = r"""
import json, sys, time
import talkspurt
path = sys.argv[1]
res = talkspurt.run(path, trace=False)
t0, c0 = time.perf_counter(), time.process_time()
m = dict(res.manifest)
out = {k: v for k, v in m.items() if isinstance(v, (int, float, str, bool)) and len(str(v)) < 200}
out["run_wall_s"] = m.get("wall_time_s")
try:
    calls = res.calls
    out["voice_sent"] = int(calls["generated"].sum())
    out["voice_received"] = int(calls["arrived"].sum())
except Exception as e:
    out["calls_error"] = repr(e)
try:
    tr = res.traffic
    out["tcp"] = [{"flow": i + 1, "goodput_bps": float(g)} for i, g in enumerate(tr["goodput_bps"])]
except Exception as e:
    out["traffic_error"] = repr(e)
out["extract_s"] = time.perf_counter() - t0
out["extract_cpu_s"] = time.process_time() - c0
print(json.dumps(out))
"""


def write_scenario(a, workdir: Path) -> Path:
    """The preset's scenario with duration, call count, flow count and interval rewritten."""
    scen, calls0, flows0 = PRESETS[a.preset][:3]
    text = scen.read_text()
    dur = f"{a.duration:g}s"
    text, n1 = re.subn(r'(?m)^(duration\s*=\s*)"[^"]*"', rf'\g<1>"{dur}"', text, count=1)
    text, n2 = re.subn(rf"(?m)^(count\s*=\s*){calls0}\b", rf"\g<1>{a.calls}", text, count=1)
    text, n3 = re.subn(rf"(?m)^(count\s*=\s*){flows0}\b(?=\s*\nfrom)", rf"\g<1>{a.flows}", text, count=1)
    text, n4 = re.subn(r'(?m)^(interval\s*=\s*)\[[^]]*\]', rf'\g<1>["{WINDOW_START:g}s", "{dur}"]',
                       text, count=1)
    doc = tomllib.loads(text)
    if (n1, n2, n3, n4) != (1, 1, 1, 1) or doc["run"]["duration"] != dur \
            or doc["calls"][0]["count"] != a.calls or doc["traffic"][0]["count"] != a.flows:
        raise RuntimeError(f"could not parameterise {scen.name}")
    path = workdir / "tcp_mix.toml"
    path.write_text(text)
    return path


def talkspurt_unavailable_reason(scenario: Path) -> str | None:
    """None if talkspurt accepts the scenario, else a one-line reason."""
    r = run_child([*talkspurt_cli(), "validate", str(scenario)], REPO, talkspurt_env())
    if r.rc == 0:
        return None
    lines = (r.stderr or r.stdout).strip().splitlines()
    if not lines:
        return f"`talkspurt validate` exited {r.rc}"
    return re.sub(r"^talkspurt: (error: )?", "", lines[-1])


def run_talkspurt_other(scenario: Path, via: str, native: Path = NATIVE) -> dict:
    """`talkspurt run --no-trace` printing its table, or the native runner:
    wall, CPU and peak RSS of the process; results are not read back."""
    if via == "native":
        if not native.exists():
            return {"available": False, "reason": f"{native} not built"}
        cmd = [str(native), str(scenario), "--no-trace"]
    else:
        cmd = [*talkspurt_cli(), "run", str(scenario), "--no-trace"]
    r = run_child(cmd, REPO, talkspurt_env())
    if r.rc != 0:
        return {"available": False, "reason": f"{via} exited {r.rc}: {r.stderr.strip()[-500:]}"}
    out = last_json_line(r.stdout) if via == "native" else cli_summary_line(r.stdout)
    res = summarize(r, {}, events=out.get("events"))
    res["run_s"] = out.get("loop_s") if via == "native" else out.get("wall_time_s")
    res["voice_sent"] = res["voice_received"] = None
    return res


def run_talkspurt(scenario: Path) -> dict:
    r = run_child([sys.executable, "-c", _TS_CHILD, str(scenario)], REPO, talkspurt_env())
    if r.rc != 0:
        return {"available": False, "reason": f"talkspurt exited {r.rc}: {r.stderr.strip()[-500:]}"}
    out = last_json_line(r.stdout)
    # The whole process, tables included (until 2026-11-28 the time spent
    # reading the tables, with pandas' import, was subtracted).
    return summarize(r, out, events=out.get("events"))


# --------------------------------------------------------------------------
# checks, aggregation, output
# --------------------------------------------------------------------------

def offered(calls: int, duration: float) -> dict:
    """Voice packets each convention sends before the horizon T.

    ns-2 (CBR) and ns-3 (UdpClient) send at the start of each 20 ms interval
    while s_i + k ptime < T: ceil((T - s_i) / ptime) per call. talkspurt
    stamps a packet when its last frame is complete: floor((T - s_i) / ptime)
    (see bench/dumbbell.py).
    """
    T = Fraction(duration).limit_denominator(10**9)
    start_of_interval = completed = 0
    for i in range(calls):
        s = i * STAGGER
        if s < T:
            start_of_interval += math.ceil((T - s) / PTIME)
            completed += int((T - s) // PTIME)
    return {"start_of_interval": start_of_interval, "completed_by_horizon": completed}


def summary(name: str, runs: list[dict], reason: str | None) -> dict:
    if not runs:
        return {"simulator": name, "available": False, "reason": reason}
    walls = [r["wall_s"] for r in runs]
    runs_s = [r["run_s"] for r in runs if r.get("run_s") is not None]
    last = runs[-1]
    gp = [g for g in last["tcp_goodput_bps"] if g is not None]
    vs, vr = last["voice_sent"], last["voice_received"]
    return {
        "simulator": name, "available": True, "repeats": len(runs),
        "wall_s": statistics.median(walls), "wall_s_min": min(walls), "wall_s_all": walls,
        "cpu_s": statistics.median(r["cpu_s"] for r in runs),
        "loads": [r.get("load") for r in runs],
        "run_s": statistics.median(runs_s) if runs_s else None,
        "maxrss_mb": max(r["maxrss_mb"] for r in runs),
        "voice_sent": vs, "voice_received": vr,
        "voice_loss": (1 - vr / vs) if vs and vr is not None else None,
        "tcp_goodput_bps": gp, "tcp_goodput_bps_total": sum(gp) if gp else None,
        "events": last["events"],
        "detail": last["raw"],
    }


def fmt(v, spec, na="n/a"):
    return na if v is None else format(v, spec)


def print_table(rows: list[dict], ref: dict | None) -> None:
    hdr = (f"{'simulator':<17}{'wall s':>8}{'run s':>8}{'peak RSS MB':>13}{'events':>12}"
           f"{'voice sent':>12}{'voice rcvd':>12}{'loss %':>8}{'TCP Mb/s':>10}"
           f"{'ns-2/x wall':>13}{'ns-2/x run':>12}")
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        if not r["available"]:
            print(f"{r['simulator']:<17}  unavailable: {r['reason']}")
            continue
        rw = ref["wall_s"] / r["wall_s"] if ref else None
        rr = ref["run_s"] / r["run_s"] if ref and ref.get("run_s") and r.get("run_s") else None
        tot = r["tcp_goodput_bps_total"]
        print(f"{r['simulator']:<17}{r['wall_s']:>8.3f}{fmt(r['run_s'], '.3f'):>8}"
              f"{r['maxrss_mb']:>13.1f}{fmt(r['events'], ',d'):>12}"
              f"{fmt(r['voice_sent'], ',d'):>12}{fmt(r['voice_received'], ',d'):>12}"
              f"{fmt(None if r['voice_loss'] is None else 100 * r['voice_loss'], '.2f'):>8}"
              f"{fmt(None if tot is None else tot / 1e6, '.2f'):>10}"
              f"{fmt(rw, '.2f'):>13}{fmt(rr, '.2f'):>12}")
    for r in rows:
        if r["available"]:
            cpu = f", CPU {ref['cpu_s'] / r['cpu_s']:.2f}x ns-2's" if ref and r["cpu_s"] else ""
            print(f"  {r['simulator']}: CPU {r['cpu_s']:.3f} s{cpu}; load before each run "
                  + ", ".join(f"{x:.1f}" for x in r["loads"]))
    for r in rows:
        if r["available"] and r["tcp_goodput_bps"]:
            per = ", ".join(f"{g / 1e6:.2f}" for g in r["tcp_goodput_bps"])
            print(f"  {r['simulator']}: TCP goodput per flow over [{WINDOW_START:g} s, end], Mb/s: {per}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", choices=sorted(PRESETS), default="small")
    ap.add_argument("--duration", type=float, default=60.0, help="simulated seconds")
    ap.add_argument("--calls", type=int, default=None, help="default: the preset's")
    ap.add_argument("--flows", type=int, default=None, help="default: the preset's")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--skip-ns2", action="store_true")
    ap.add_argument("--skip-ns3", action="store_true")
    ap.add_argument("--ns3-repeat", type=int, default=None,
                    help="run ns-3 in the first N repeats only (the mixed preset takes ns-3 ~100 s of CPU a run)")
    ap.add_argument("--skip-talkspurt", action="store_true")
    ap.add_argument("--talkspurt-via", default="api",
                    help="comma list of api (talkspurt.run()), table (`talkspurt run` CLI), "
                         "native (run_scenario); default api")
    ap.add_argument("--native-bin", type=Path, default=NATIVE, help=f"default {NATIVE.relative_to(REPO)}")
    ap.add_argument("--json", type=Path, default=None,
                    help="default bench/results/tcp_mix.json (small), tcp_mix_<preset>.json otherwise")
    a = ap.parse_args(argv)
    a.calls = PRESETS[a.preset][1] if a.calls is None else a.calls
    a.flows = PRESETS[a.preset][2] if a.flows is None else a.flows
    if a.json is None:
        a.json = RESULTS if a.preset == "small" else RESULTS.with_name(f"tcp_mix_{a.preset}.json")
    vias = [v for v in a.talkspurt_via.split(",") if v]
    if not vias or any(v not in VIA_ROWS for v in vias):
        ap.error(f"--talkspurt-via: a comma list of {', '.join(VIA_ROWS)}, got {a.talkspurt_via!r}")
    if a.calls < 0 or a.flows < 0 or a.repeat < 1 or a.duration <= WINDOW_START:
        ap.error(f"need --calls, --flows >= 0, --repeat >= 1, --duration > {WINDOW_START:g}")

    off = offered(a.calls, a.duration)
    print(f"tcp_mix: {a.calls} calls + {a.flows} TCP NewReno flows x {a.duration:g} s, "
          f"{PRESETS[a.preset][4]}, repeat {a.repeat}")

    ts_names = [VIA_ROWS[v] for v in vias]
    names = ["ns-2", "ns-3", *ts_names]
    runs: dict[str, list[dict]] = {n: [] for n in names}
    reason: dict[str, str | None] = {n: None for n in names}
    if a.skip_ns2:
        reason["ns-2"] = "skipped (--skip-ns2)"
    elif shutil.which("ns") is None:
        reason["ns-2"] = "`ns` not found; run bench/setup.sh"
    if a.skip_ns3:
        reason["ns-3"] = "skipped (--skip-ns3)"
    else:
        reason["ns-3"] = build_ns3()

    with tempfile.TemporaryDirectory(prefix="talkspurt-tcpmix-") as tmp:
        work = Path(tmp)
        scenario = write_scenario(a, work)
        why = "skipped (--skip-talkspurt)" if a.skip_talkspurt else talkspurt_unavailable_reason(scenario)
        if why:
            for n in ts_names:
                reason[n] = why
            print(f"talkspurt unavailable: {why}")
        fns = {"ns-2": lambda: run_ns2(a, work), "ns-3": lambda: run_ns3(a, work),
               "talkspurt": lambda: run_talkspurt(scenario),
               "talkspurt-cli": lambda: run_talkspurt_other(scenario, "table"),
               "talkspurt-native": lambda: run_talkspurt_other(scenario, "native", a.native_bin)}
        for k in range(a.repeat):
            for name in names:
                if name == "ns-3" and a.ns3_repeat is not None and k >= a.ns3_repeat:
                    continue
                fn = fns[name]
                if reason[name] is not None:
                    continue
                load = os.getloadavg()[0]
                r = fn()
                r["load"] = load
                if r["available"]:
                    runs[name].append(r)
                else:
                    reason[name] = r["reason"]
            done = ", ".join(f"{n} {runs[n][-1]['wall_s']:.2f}s" for n in names
                             if runs[n] and (len(runs[n]) == k + 1 or n == "ns-3"))
            print(f"  repeat {k + 1}/{a.repeat}: {done or 'nothing ran'}")

    rows = [summary(n, runs[n], reason[n]) for n in names]
    ref = rows[0] if rows[0]["available"] else None
    print()
    print_table(rows, ref)

    checks = []
    for r in rows:
        if not r["available"] or r["voice_sent"] is None:
            continue
        want = off["completed_by_horizon"] if r["simulator"] == "talkspurt" else off["start_of_interval"]
        checks.append({"check": f"{r['simulator']} voice packets sent == closed form",
                       "ok": r["voice_sent"] == want, "detail": f"{r['voice_sent']} vs {want}"})
    if checks:
        print("\nchecks:")
        for c in checks:
            print(f"  [{'ok' if c['ok'] else 'FAIL'}] {c['check']}: {c['detail']}")

    ratios = {}
    ns3 = rows[1] if rows[1]["available"] else None
    for r in rows[1:]:
        if not r["available"]:
            continue
        x = {}
        for peer, key in ((ref, "ns2"), (ns3 if r is not ns3 else None, "ns3")):
            if peer:
                x[f"{key}_over_x_wall"] = peer["wall_s"] / r["wall_s"]
                x[f"{key}_over_x_cpu"] = peer["cpu_s"] / r["cpu_s"] if r["cpu_s"] else None
                x[f"{key}_over_x_run"] = (peer["run_s"] / r["run_s"]) if peer.get("run_s") and r.get("run_s") else None
        ratios[r["simulator"]] = x
    if ratios:
        print("\nratios (wall, CPU):")
        for n, x in ratios.items():
            print(f"  {n}: " + "; ".join(
                f"{k} {x[f'{k}_over_x_wall']:.2f}x, {fmt(x[f'{k}_over_x_cpu'], '.2f')}x"
                for k in ("ns2", "ns3") if f"{k}_over_x_wall" in x))
    result = {
        "benchmark": "tcp_mix",
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "params": {"preset": a.preset, "calls": a.calls, "flows": a.flows, "duration_s": a.duration,
                   "repeat": a.repeat, "tcp_window_s": [WINDOW_START, a.duration]},
        "machine": machine(),
        "offered": off,
        "rows": rows,
        "ratios": ratios,
        "checks": checks,
        "notes": [
            "wall_s: median process wall time around each simulator's child (start-up, build of "
            "the scenario and the run; for talkspurt's api row also reading the calls and traffic "
            "tables as DataFrames); run_s: each simulator's own timing of its event loop.",
            "peak RSS: the child's ru_maxrss from os.wait4.",
            "ns-3 is built by bench/ns3/build.sh before and outside the timing; it runs NewReno "
            "with SACK (see bench/ns3/tcp_mix.cc for why).",
            "events: ns-2 counts events scheduled, ns-3 events executed.",
        ],
    }
    write_json_atomic(a.json, result)
    print(f"\nwrote {a.json.relative_to(REPO) if a.json.is_relative_to(REPO) else a.json}")
    return 0 if all(c["ok"] for c in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
