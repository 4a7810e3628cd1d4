#!/usr/bin/env python3
"""Voice + TCP benchmark: talkspurt vs ns-2 vs ns-3 on bench/tcp_mix.toml.

    python bench/tcp_mix.py [--preset small|mixed] [--repeat K] [--duration S] [--calls N] [--flows F]

small (default): 100 always-on G.711 calls and 4 greedy NewReno TCP flows
share a 20 Mb/s, 20 ms, 100-packet drop-tail bottleneck for 60 s.
mixed (issue 26 target 1): 500 calls and 100 flows through 100 Mb/s, 30 ms,
50 packets, 1000-byte segments, window 1000 (bench/tcp_mix_big.toml; ns-2
gets the same five values as arguments; no ns-3 twin of it yet, so ns-3 is
skipped). Runs, once per repeat and interleaved (so machine noise hits
every simulator alike):

  ns-2        ns bench/ns2/tcp_mix.tcl S N F
  ns-3        bench/ns3/build/tcp_mix --duration=S --calls=N --flows=F
              (built first by bench/ns3/build.sh, outside the timing)
  talkspurt   bench/tcp_mix.toml (count/duration rewritten), trace off

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
    ChildRun, last_json_line, machine, run_child, talkspurt_env, write_json_atomic)

NS2_SCRIPT = BENCH / "ns2" / "tcp_mix.tcl"
NS3_BUILD = BENCH / "ns3" / "build.sh"
NS3_BIN = BENCH / "ns3" / "build" / "tcp_mix"
SCENARIO = BENCH / "tcp_mix.toml"
# preset -> (scenario, calls, flows in it, ns-2 bottleneck args, label)
PRESETS = {
    "small": (BENCH / "tcp_mix.toml", 100, 4, [], "20 Mb/s bottleneck"),
    "mixed": (BENCH / "tcp_mix_big.toml", 500, 100, ["100Mb", "30ms", "50", "1000", "1000"],
              "100 Mb/s, 30 ms, 50 p bottleneck, 1000 B segments"),
}
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
                   f"--flows={a.flows}", f"--start={WINDOW_START:g}"], workdir)
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
# talkspurt -- the result API for TCP traffic is not settled; the child
# reports what exists (manifest, calls' generated/arrived, the traffic table's
# goodput) and the time it spent reading tables, which is not counted.
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
    r = run_child([sys.executable, "-m", "talkspurt", "validate", str(scenario)], REPO, talkspurt_env())
    if r.rc == 0:
        return None
    lines = (r.stderr or r.stdout).strip().splitlines()
    if not lines:
        return f"`talkspurt validate` exited {r.rc}"
    return re.sub(r"^talkspurt: (error: )?", "", lines[-1])


def run_talkspurt(scenario: Path) -> dict:
    r = run_child([sys.executable, "-c", _TS_CHILD, str(scenario)], REPO, talkspurt_env())
    if r.rc != 0:
        return {"available": False, "reason": f"talkspurt exited {r.rc}: {r.stderr.strip()[-500:]}"}
    out = last_json_line(r.stdout)
    return summarize(r, out, events=out.get("events"), extract_s=out.get("extract_s", 0.0),
                     extract_cpu_s=out.get("extract_cpu_s", 0.0))


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
    hdr = (f"{'simulator':<11}{'wall s':>8}{'run s':>8}{'peak RSS MB':>13}{'events':>12}"
           f"{'voice sent':>12}{'voice rcvd':>12}{'loss %':>8}{'TCP Mb/s':>10}"
           f"{'ns-2/x wall':>13}{'ns-2/x run':>12}")
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        if not r["available"]:
            print(f"{r['simulator']:<11}  unavailable: {r['reason']}")
            continue
        rw = ref["wall_s"] / r["wall_s"] if ref else None
        rr = ref["run_s"] / r["run_s"] if ref and ref.get("run_s") and r.get("run_s") else None
        tot = r["tcp_goodput_bps_total"]
        print(f"{r['simulator']:<11}{r['wall_s']:>8.3f}{fmt(r['run_s'], '.3f'):>8}"
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
    ap.add_argument("--skip-talkspurt", action="store_true")
    ap.add_argument("--json", type=Path, default=None,
                    help="default bench/results/tcp_mix.json (small), tcp_mix_<preset>.json otherwise")
    a = ap.parse_args(argv)
    a.calls = PRESETS[a.preset][1] if a.calls is None else a.calls
    a.flows = PRESETS[a.preset][2] if a.flows is None else a.flows
    if a.json is None:
        a.json = RESULTS if a.preset == "small" else RESULTS.with_name(f"tcp_mix_{a.preset}.json")
    if a.calls < 0 or a.flows < 0 or a.repeat < 1 or a.duration <= WINDOW_START:
        ap.error(f"need --calls, --flows >= 0, --repeat >= 1, --duration > {WINDOW_START:g}")

    off = offered(a.calls, a.duration)
    print(f"tcp_mix: {a.calls} calls + {a.flows} TCP NewReno flows x {a.duration:g} s, "
          f"{PRESETS[a.preset][4]}, repeat {a.repeat}")

    names = ["ns-2", "ns-3", "talkspurt"]
    runs: dict[str, list[dict]] = {n: [] for n in names}
    reason: dict[str, str | None] = {n: None for n in names}
    if a.skip_ns2:
        reason["ns-2"] = "skipped (--skip-ns2)"
    elif shutil.which("ns") is None:
        reason["ns-2"] = "`ns` not found; run bench/setup.sh"
    if a.skip_ns3:
        reason["ns-3"] = "skipped (--skip-ns3)"
    elif a.preset != "small":
        reason["ns-3"] = f"no ns-3 twin of preset {a.preset}"
    else:
        reason["ns-3"] = build_ns3()

    with tempfile.TemporaryDirectory(prefix="talkspurt-tcpmix-") as tmp:
        work = Path(tmp)
        scenario = write_scenario(a, work)
        if a.skip_talkspurt:
            reason["talkspurt"] = "skipped (--skip-talkspurt)"
        else:
            why = talkspurt_unavailable_reason(scenario)
            if why:
                reason["talkspurt"] = why
                print(f"talkspurt unavailable: {why}")
        for k in range(a.repeat):
            for name, fn in (("ns-2", lambda: run_ns2(a, work)), ("ns-3", lambda: run_ns3(a, work)),
                             ("talkspurt", lambda: run_talkspurt(scenario))):
                if reason[name] is not None:
                    continue
                load = os.getloadavg()[0]
                r = fn()
                r["load"] = load
                if r["available"]:
                    runs[name].append(r)
                else:
                    reason[name] = r["reason"]
            done = ", ".join(f"{n} {runs[n][-1]['wall_s']:.2f}s" for n in names if len(runs[n]) == k + 1)
            print(f"  repeat {k + 1}/{a.repeat}: {done or 'nothing ran'}")

    rows = [summary(n, runs[n], reason[n]) for n in names]
    ref = rows[0] if rows[0]["available"] else None
    print()
    print_table(rows, ref)

    checks = []
    for r in rows:
        if not r["available"]:
            continue
        want = off["completed_by_horizon"] if r["simulator"] == "talkspurt" else off["start_of_interval"]
        checks.append({"check": f"{r['simulator']} voice packets sent == closed form",
                       "ok": r["voice_sent"] == want, "detail": f"{r['voice_sent']} vs {want}"})
    if checks:
        print("\nchecks:")
        for c in checks:
            print(f"  [{'ok' if c['ok'] else 'FAIL'}] {c['check']}: {c['detail']}")

    ratios = {}
    if ref:
        for r in rows[1:]:
            if r["available"]:
                ratios[r["simulator"]] = {
                    "ns2_over_x_wall": ref["wall_s"] / r["wall_s"],
                    "ns2_over_x_run": (ref["run_s"] / r["run_s"]) if r.get("run_s") else None,
                }
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
            "the scenario and the run; for talkspurt, minus the time its child spent reading "
            "result tables after the run); run_s: each simulator's own timing of its event loop.",
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
