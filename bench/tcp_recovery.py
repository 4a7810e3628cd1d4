#!/usr/bin/env python3
"""Loss-recovery benchmark (issue 26 target 5): talkspurt vs ns-2.

    python bench/tcp_recovery.py [--repeat K] [--p P] [--duration S] [--variant cubic|sack1]
                                 [--talkspurt-via api|table|native] [--native-bin PATH]
                                 [--gnu-time] [--phases]

One greedy TCP flow (CUBIC with SACK recovery in talkspurt; ns-2's
Agent/TCP/Linux running `select_ca cubic`, or Agent/TCP/Sack1 with
--variant sack1) through a 1 Gb/s, 100 ms-RTT dumbbell with Bernoulli loss P
(default 0.01) on the data direction (bench/tcp_recovery.toml,
bench/ns2/tcp_recovery.tcl). Alternates the two simulators per repeat, each
in its own child process: wall time around the child, peak RSS = its
ru_maxrss. `--talkspurt-via api` runs `talkspurt.run()` in a Python child
(trace off); `table` runs `python -m talkspurt run SCENARIO --no-trace`,
which prints its table and imports neither pandas nor pyarrow (as ns-2's
script prints a summary line); `native` runs the run_scenario example
(`cargo build --release --example run_scenario`) with --no-trace, no Python.
Prints medians, the ratio ns-2 / talkspurt, the load average before each
run, and writes bench/results/tcp_recovery.json.

Timed runs start the program directly (wall clock around spawn and wait4,
CPU = the child's user + system): GNU time, which the peak-RSS reading
needs (bench/dumbbell.py `run_child`), adds its own fork, exec and wait —
~5 ms of wall and ~1.5 ms of CPU a run on this machine, 15-20 % of a
10 ms talkspurt run and 1-2 % of ns-2's — so peak RSS comes from one
extra run of each simulator under GNU time, after the timed repeats.
`--gnu-time` times under GNU time as before (the other harnesses' way).

At P = 0.01 the window stays near 20 segments; P = 1e-5 gives windows of
about a thousand segments, where a scoreboard walked on every send in
recovery costs what the issue measured.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))
from dumbbell import (  # noqa: E402
    ChildRun, cli_summary_line, last_json_line, machine, run_child, talkspurt_cli, talkspurt_env, write_json_atomic)

NS2 = BENCH / "ns2" / "tcp_recovery.tcl"
SCENARIO = BENCH / "tcp_recovery.toml"
RESULTS = BENCH / "results" / "tcp_recovery.json"
NATIVE = REPO / "target" / "release" / "examples" / "run_scenario"

_TS_CHILD = r"""
import json, sys
import talkspurt
res = talkspurt.run(sys.argv[1], trace=False)
tr = res.traffic
print(json.dumps({"run_wall_s": res.manifest.get("wall_time_s"),
                  "goodput_bps": float(tr["goodput_bps"].iloc[0])}))
"""


def write_scenario(a, work: Path) -> Path:
    text = SCENARIO.read_text()
    text, n1 = re.subn(r'(?m)^(duration\s*=\s*)"[^"]*"', rf'\g<1>"{a.duration:g}s"', text, count=1)
    text, n2 = re.subn(r"p = 0\.01 \}", f"p = {a.p!r} }}", text, count=1)
    text, n3 = re.subn(r'(?m)^(interval\s*=\s*)\[[^]]*\]', rf'\g<1>["10s", "{a.duration:g}s"]', text, count=1)
    if a.variant == "sack1":
        text, n4 = re.subn(r'cc = "cubic"', 'cc = "sack"', text, count=1)
    else:
        n4 = 1
    if (n1, n2, n3, n4) != (1, 1, 1, 1):
        raise RuntimeError("could not parameterise bench/tcp_recovery.toml")
    path = work / "tcp_recovery.toml"
    path.write_text(text)
    return path


def load() -> float:
    return os.getloadavg()[0]


# Set by main(): time each child under GNU time (run_child) or directly.
GNU_TIMED = False


def run_timed(cmd: list[str], cwd: Path, env: dict | None = None) -> ChildRun:
    """Run cmd to completion, timed without a wrapper: wall clock around
    spawn and wait4, CPU = user + system of the program alone; peak RSS is
    not read (0.0; see the module docstring)."""
    if GNU_TIMED:
        return run_child(cmd, cwd, env)
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        return ChildRun(os.waitstatus_to_exitcode(status), wall, 0.0, out.read(), err.read(),
                        ru.ru_utime + ru.ru_stime)


def run_ns2(a, work: Path, run=None) -> dict:
    r = (run or run_timed)(["ns", str(NS2), a.variant, repr(a.p), f"{a.duration:g}"], work)
    if r.rc != 0:
        raise RuntimeError(f"ns exited {r.rc}: {r.stderr.strip()[-300:]}")
    out = last_json_line(r.stdout)
    return {"wall_s": r.wall_s, "cpu_s": r.cpu_s, "run_s": out["run_wall_s"], "maxrss_mb": r.maxrss_mb,
            "goodput_bps": out["goodput_bps"]}


def run_ts(a, scenario: Path, run=None) -> dict:
    run = run or run_timed
    if a.talkspurt_via == "native":
        r = run([str(a.native_bin), str(scenario), "--no-trace"], REPO)
        if r.rc != 0:
            raise RuntimeError(f"run_scenario exited {r.rc}: {r.stderr.strip()[-300:]}")
        out = last_json_line(r.stdout)
        return {"wall_s": r.wall_s, "cpu_s": r.cpu_s, "run_s": out["loop_s"], "maxrss_mb": r.maxrss_mb,
                "goodput_bps": None}
    if a.talkspurt_via == "table":
        r = run([*talkspurt_cli(), "run", str(scenario), "--no-trace"], REPO,
                      talkspurt_env())
        if r.rc != 0:
            raise RuntimeError(f"talkspurt exited {r.rc}: {r.stderr.strip()[-300:]}")
        out = cli_summary_line(r.stdout)
        return {"wall_s": r.wall_s, "cpu_s": r.cpu_s, "run_s": out.get("wall_time_s"),
                "maxrss_mb": r.maxrss_mb, "goodput_bps": None}
    r = run([sys.executable, "-c", _TS_CHILD, str(scenario)], REPO, talkspurt_env())
    if r.rc != 0:
        raise RuntimeError(f"talkspurt exited {r.rc}: {r.stderr.strip()[-300:]}")
    out = last_json_line(r.stdout)
    return {"wall_s": r.wall_s, "cpu_s": r.cpu_s, "run_s": out["run_wall_s"], "maxrss_mb": r.maxrss_mb,
            "goodput_bps": out["goodput_bps"]}


def phases(a, work: Path, scenario: Path) -> int:
    """--phases: where a native run's time goes, alternated repeat by
    repeat, each program timed directly and under GNU time: an empty
    process (/bin/true: spawn, exec, exit), talkspurt's start-up to exit
    (the scenario cut to 1 ms: dynamic loading, parse, build, report), the
    whole run; ns-2 on an empty script (its Tcl/OTcl start-up) and the
    whole run. Medians of wall and CPU (user + system)."""
    short = work / "tcp_recovery_1ms.toml"
    text = scenario.read_text()
    text, n1 = re.subn(r'(?m)^(duration\s*=\s*)"[^"]*"', r'\g<1>"1ms"', text, count=1)
    text, n2 = re.subn(r'(?m)^(interval\s*=\s*)\[[^]]*\]', r'\g<1>["0s", "1ms"]', text, count=1)
    if (n1, n2) != (1, 1):
        raise RuntimeError("could not cut bench/tcp_recovery.toml to 1 ms")
    short.write_text(text)
    empty = work / "empty.tcl"
    empty.write_text("exit 0\n")
    progs = {"empty process (/bin/true)": ["/bin/true"],
             "talkspurt start-up (1 ms run)": [str(a.native_bin), str(short), "--no-trace"],
             "talkspurt whole run": [str(a.native_bin), str(scenario), "--no-trace"],
             "ns-2 start-up (empty script)": ["ns", str(empty)],
             "ns-2 whole run": ["ns", str(NS2), a.variant, repr(a.p), f"{a.duration:g}"]}
    global GNU_TIMED
    got: dict[tuple[str, bool], list[tuple[float, float]]] = {(k, g): [] for k in progs for g in (False, True)}
    loads = []
    for _ in range(a.repeat):
        loads.append(load())
        for k, cmd in progs.items():
            for g in (False, True):
                GNU_TIMED = g
                r = run_timed(cmd, REPO)
                if r.rc != 0:
                    raise RuntimeError(f"{cmd[0]} exited {r.rc}: {r.stderr.strip()[-300:]}")
                got[(k, g)].append((r.wall_s, r.cpu_s))
    print(f"{'':<32}{'direct wall ms':>16}{'CPU ms':>9}{'GNU time wall ms':>18}{'CPU ms':>9}")
    med = {key: (statistics.median(x[0] for x in v), statistics.median(x[1] for x in v)) for key, v in got.items()}
    for k in progs:
        (w0, c0), (w1, c1) = med[(k, False)], med[(k, True)]
        print(f"{k:<32}{w0 * 1e3:>16.2f}{c0 * 1e3:>9.2f}{w1 * 1e3:>18.2f}{c1 * 1e3:>9.2f}")
    for g in (False, True):
        (nw, nc), (tw, tc) = med[("ns-2 whole run", g)], med[("talkspurt whole run", g)]
        print(f"ns-2 / talkspurt {'under GNU time' if g else 'direct'}: wall {nw / tw:.2f}x, CPU {nc / tc:.2f}x")
    print(f"load 1-min avg {min(loads):.1f}-{max(loads):.1f}, {a.repeat} alternated repeats")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--p", type=float, default=0.01)
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--variant", choices=["cubic", "sack1"], default="cubic")
    ap.add_argument("--talkspurt-via", choices=["api", "table", "native"], default="api")
    ap.add_argument("--native-bin", type=Path, default=NATIVE)
    ap.add_argument("--json", type=Path, default=RESULTS)
    ap.add_argument("--gnu-time", action="store_true",
                    help="time the runs under GNU time (adds its fork/exec/wait to both)")
    ap.add_argument("--phases", action="store_true",
                    help="break a native run's time into phases (process, start-up, run) against ns-2's")
    a = ap.parse_args(argv)
    global GNU_TIMED
    GNU_TIMED = a.gnu_time
    if not (0 <= a.p < 1) or a.duration <= 10 or a.repeat < 1:
        ap.error("need 0 <= --p < 1, --duration > 10, --repeat >= 1")
    if shutil.which("ns") is None:
        ap.error("`ns` not found; run bench/setup.sh")
    runs: dict[str, list[dict]] = {"ns-2": [], "talkspurt": []}
    with tempfile.TemporaryDirectory(prefix="talkspurt-recovery-") as tmp:
        work = Path(tmp)
        scenario = write_scenario(a, work)
        if a.phases:
            return phases(a, work, scenario)
        for k in range(a.repeat):
            for name, fn in (("ns-2", lambda: run_ns2(a, work)), ("talkspurt", lambda: run_ts(a, scenario))):
                la = load()
                r = fn()
                r["load"] = la
                runs[name].append(r)
            print(f"  repeat {k + 1}/{a.repeat}: " + ", ".join(
                f"{n} {runs[n][-1]['wall_s']:.3f} s (load {runs[n][-1]['load']:.1f})" for n in runs))
        if not GNU_TIMED:
            # Peak RSS: one run of each under GNU time (not timed).
            rss = {"ns-2": run_ns2(a, work, run_child)["maxrss_mb"],
                   "talkspurt": run_ts(a, scenario, run_child)["maxrss_mb"]}
            for n, v in rss.items():
                for r in runs[n]:
                    r["maxrss_mb"] = v
    rows = {}
    for n, rs in runs.items():
        rows[n] = {"wall_s": statistics.median(r["wall_s"] for r in rs),
                   "cpu_s": statistics.median(r["cpu_s"] for r in rs),
                   "run_s": statistics.median(r["run_s"] for r in rs if r["run_s"] is not None),
                   "maxrss_mb": max(r["maxrss_mb"] for r in rs),
                   "goodput_bps": rs[-1]["goodput_bps"], "loads": [r["load"] for r in rs],
                   "wall_s_all": [r["wall_s"] for r in rs]}
    ns2, ts = rows["ns-2"], rows["talkspurt"]
    print(f"\n{'':<11}{'wall s':>9}{'CPU s':>9}{'run s':>9}{'RSS MB':>9}{'goodput Mb/s':>14}")
    for n, r in rows.items():
        gp = "n/a" if r["goodput_bps"] is None else f"{r['goodput_bps'] / 1e6:.2f}"
        print(f"{n:<11}{r['wall_s']:>9.3f}{r['cpu_s']:>9.3f}{r['run_s']:>9.3f}{r['maxrss_mb']:>9.1f}{gp:>14}")
    ratio_wall = ns2["wall_s"] / ts["wall_s"]
    ratio_cpu = ns2["cpu_s"] / ts["cpu_s"] if ts["cpu_s"] else None
    ratio_run = ns2["run_s"] / ts["run_s"] if ts["run_s"] else None
    print(f"ns-2 / talkspurt: wall {ratio_wall:.2f}x, CPU {ratio_cpu:.2f}x, run phase "
          f"{'n/a' if ratio_run is None else f'{ratio_run:.2f}x'}; load 1-min avg "
          f"{min(ns2['loads'] + ts['loads']):.1f}-{max(ns2['loads'] + ts['loads']):.1f}")
    write_json_atomic(a.json, {
        "benchmark": "tcp_recovery", "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "params": {"p": a.p, "duration_s": a.duration, "variant": a.variant, "repeat": a.repeat,
                   "talkspurt_via": a.talkspurt_via},
        "machine": machine(), "rows": rows,
        "ratios": {"ns2_over_talkspurt_wall": ratio_wall, "ns2_over_talkspurt_cpu": ratio_cpu,
                   "ns2_over_talkspurt_run": ratio_run},
        "timed_under_gnu_time": GNU_TIMED,
        "notes": ["wall_s: median over repeats of the child process's wall time; run_s: each "
                  "simulator's own timing of its run (ns-2: Tcl clock around `$ns run`; "
                  "talkspurt api: manifest wall_time_s; native: the loop phase); cpu_s: user + "
                  "system time of the child (less moved by other jobs' load); unless timed_under_gnu_time, "
                  "the child is the program itself and maxrss_mb comes from one extra run under GNU time."],
    })
    return 0


if __name__ == "__main__":
    sys.exit(main())
