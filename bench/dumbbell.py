#!/usr/bin/env python3
"""Headline benchmark: talkspurt vs ns-2 and ns-3 on the G.711 dumbbell.

    python bench/dumbbell.py [--calls N] [--duration S] [--repeat K]

Runs, in this order and once per repeat (interleaved, so machine noise hits
every simulator alike):

  ns-2              ns bench/ns2/dumbbell.tcl N S off
  ns-3              bench/ns3/build/dumbbell --calls=N --duration=S
  talkspurt         bench/dumbbell.toml (count/duration rewritten), trace off
  talkspurt+trace   the same with the per-packet trace on

(`--talkspurt-via both` adds the CLI rows after the API rows.)

Each simulator runs in its own child process; wall time is measured around
the child and peak RSS is the child's own ru_maxrss (os.wait4), so the
numbers are per simulator and include start-up and scenario build.

Prints a table and writes it, with the checks and the machine description,
to bench/results/dumbbell.json (atomically).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

try:
    import tomllib  # Python >= 3.11
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib  # type: ignore[no-redef]
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
NS2_SCRIPT = BENCH / "ns2" / "dumbbell.tcl"
NS3_BUILD = BENCH / "ns3" / "build.sh"
NS3_BIN = BENCH / "ns3" / "build" / "dumbbell"
SCENARIO = BENCH / "dumbbell.toml"
RESULTS = BENCH / "results" / "dumbbell.json"

# Targets from issue 14: process wall time vs each peer, peak RSS trace off.
TARGET_SPEEDUP = 10.0          # vs ns-2
TARGET_SPEEDUP_NS3 = 100.0     # vs ns-3
TARGET_RSS_MB = 100.0

# Scenario constants, used only for the closed-form check. They mirror
# bench/dumbbell.toml and bench/ns2/dumbbell.tcl.
PTIME = Fraction(20, 1000)            # s
STAGGER = Fraction(20, 10**6)         # s
PACKET_BITS = 200 * 8
ACCESS_BPS, ACCESS_DELAY = 10**9, Fraction(1, 1000)
BNECK_BPS, BNECK_DELAY = 10**8, Fraction(30, 1000)
# ns-3's PointToPointNetDevice adds a 2-byte PPP header to every frame.
NS3_PPP_BITS = 2 * 8


# --------------------------------------------------------------------------
# child processes
# --------------------------------------------------------------------------

@dataclass
class ChildRun:
    rc: int
    wall_s: float
    maxrss_mb: float
    stdout: str
    stderr: str
    # CPU time (user + system) of the child and what it waited for: less
    # moved by other jobs' load than the wall clock.
    cpu_s: float = 0.0


GNU_TIME = "/usr/bin/time"


def run_child(cmd: list[str], cwd: Path, env: dict | None = None) -> ChildRun:
    """Run cmd to completion; wall clock around it, its own peak RSS.

    A child forked from this interpreter inherits its peak RSS: Linux keeps
    the larger of the forked image's high-water mark and the new
    program's across exec, so `ru_maxrss` from wait4 never reads below this
    process's own (~18 MB) — a floor, not a measurement, for ns-2 on small
    runs. So the child is started under GNU time (a small process that
    forks it), whose %M is the program's own peak; wait4's figure is the
    fallback where /usr/bin/time is missing. Both simulators pay time's
    ~1 ms of start-up alike.
    """
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err, \
            tempfile.NamedTemporaryFile("r", suffix=".rss") as rss:
        wrapped = os.access(GNU_TIME, os.X_OK)
        argv = [GNU_TIME, "-q", "-f", "%M", "-o", rss.name, *cmd] if wrapped else cmd
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL)
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        # ru_maxrss and %M are in KiB on Linux.
        kib = ru.ru_maxrss
        if wrapped:
            m = re.findall(r"^(\d+)\s*$", rss.read(), flags=re.M)
            if m:
                kib = int(m[-1])
        return ChildRun(proc.returncode, wall, kib / 1024.0, out.read(), err.read(),
                        ru.ru_utime + ru.ru_stime)


def last_json_line(text: str) -> dict:
    for line in reversed(text.strip().splitlines()):
        line = line.strip()
        if line.startswith("{") and line.endswith("}"):
            return json.loads(line)
    raise ValueError("no JSON line in output")


# --------------------------------------------------------------------------
# ns-2
# --------------------------------------------------------------------------

def ns2_binary() -> str | None:
    return shutil.which("ns")


def run_ns2(calls: int, duration: float, workdir: Path) -> dict:
    ns = ns2_binary()
    if ns is None:
        return {"available": False, "reason": "`ns` not found; run bench/setup.sh"}
    r = run_child([ns, str(NS2_SCRIPT), str(calls), repr(float(duration)), "off"], workdir)
    if r.rc != 0:
        return {"available": False,
                "reason": f"ns exited {r.rc}: {r.stderr.strip()[-500:]}"}
    out = last_json_line(r.stdout)
    return {
        "available": True,
        "wall_s": r.wall_s,
        "run_s": out["run_wall_s"],
        "maxrss_mb": r.maxrss_mb,
        "packets": out["sent"],
        "events": out["events_scheduled"],
        "raw": out,
    }


# --------------------------------------------------------------------------
# ns-3
# --------------------------------------------------------------------------

def ns3_binary() -> tuple[Path | None, str | None]:
    """Build the peer if needed (bench/ns3/build.sh is idempotent)."""
    r = subprocess.run(["sh", str(NS3_BUILD)], capture_output=True, text=True)
    if r.returncode != 0 or not NS3_BIN.exists():
        return None, (r.stderr.strip().splitlines() or ["bench/ns3/build.sh failed"])[-1]
    return NS3_BIN, None


def run_ns3(calls: int, duration: float, workdir: Path) -> dict:
    r = run_child([str(NS3_BIN), f"--calls={calls}", f"--duration={float(duration)!r}"], workdir)
    if r.rc != 0:
        return {"available": False, "reason": f"ns-3 exited {r.rc}: {r.stderr.strip()[-500:]}"}
    out = last_json_line(r.stdout)
    return {
        "available": True,
        "wall_s": r.wall_s,
        "run_s": out["run_wall_s"],
        "maxrss_mb": r.maxrss_mb,
        "packets": out["sent"],
        "events": out["events_executed"],
        "raw": out,
    }


# --------------------------------------------------------------------------
# talkspurt -- kept small on purpose: adjust here when the API settles.
# Assumed API: talkspurt.run(path, trace=False) -> Results with .manifest
# {"events": int, "voice_packets": int, "wall_time_s": float, ...}.
# Assumed CLI: talkspurt run SCENARIO [-o DIR] [--no-trace], writing
# DIR/manifest.json.
# --------------------------------------------------------------------------

_TS_API_CHILD = r"""
import json, sys
import talkspurt
path, trace = sys.argv[1], sys.argv[2] == "1"
res = talkspurt.run(path, trace=trace)
m = dict(res.manifest)
keep = {k: m.get(k) for k in ("events", "voice_packets", "wall_time_s")}
for k, v in m.items():
    if k not in keep and isinstance(v, (int, float, str, bool)) and len(str(v)) < 200:
        keep[k] = v
print(json.dumps(keep))
"""

_TS_PROBE = "import talkspurt; assert callable(getattr(talkspurt, 'run', None)), 'talkspurt.run missing'"


def talkspurt_env() -> dict:
    env = dict(os.environ)
    env.setdefault("PYTHONHASHSEED", "0")
    return env


def talkspurt_cli() -> list[str]:
    """The `talkspurt` command as a user runs it: the console script pip
    installed beside this interpreter (run the benchmarks from the README's
    venv, and that is the README's `talkspurt`), else `python -m talkspurt`.
    The script also skips runpy's module lookup. A base interpreter's
    site-packages may hold other .pth files that every process of it runs
    at start-up (this sandbox's certifi hook: 29 ms, bench/README.md); a
    venv's does not."""
    script = Path(sys.executable).parent / "talkspurt"
    return [str(script)] if script.is_file() and os.access(script, os.X_OK) else [sys.executable, "-m", "talkspurt"]


def talkspurt_unavailable_reason() -> str | None:
    r = run_child([sys.executable, "-c", _TS_PROBE], REPO, talkspurt_env())
    if r.rc == 0:
        return None
    lines = r.stderr.strip().splitlines()
    return lines[-1] if lines else f"probe exited {r.rc}"


def talkspurt_command(scenario: Path, trace: bool, outdir: Path, via: str) -> list[str]:
    if via == "api":
        return [sys.executable, "-c", _TS_API_CHILD, str(scenario), "1" if trace else "0"]
    # "table": the CLI printing its per-call table and writing no files,
    # as the peers' scripts print a summary line.
    out = [] if via == "table" else ["-o", str(outdir)]
    cmd = [*talkspurt_cli(), "run", str(scenario), *out]
    if not trace:
        cmd.append("--no-trace")
    return cmd


def read_talkspurt_manifest(r: ChildRun, outdir: Path, via: str) -> dict:
    if via == "api":
        return last_json_line(r.stdout)
    for name in ("manifest.json", "results/manifest.json"):
        p = outdir / name
        if p.exists():
            return json.loads(p.read_text())
    if via == "table":
        return cli_summary_line(r.stdout)
    return last_json_line(r.stdout)


_CLI_SUMMARY = re.compile(r"seed (\d+), (\d+) voice packets, (\d+) events, ([0-9.e+-]+) s")


def cli_summary_line(stdout: str) -> dict:
    """The manifest figures `talkspurt run` prints under its table."""
    for line in reversed(stdout.splitlines()):
        m = _CLI_SUMMARY.fullmatch(line.strip())
        if m:
            return {"seed": int(m[1]), "voice_packets": int(m[2]), "events": int(m[3]), "wall_time_s": float(m[4])}
    return {}


def run_talkspurt(scenario: Path, trace: bool, workdir: Path, via: str) -> dict:
    outdir = Path(tempfile.mkdtemp(prefix="ts-out-", dir=workdir))
    r = run_child(talkspurt_command(scenario, trace, outdir, via), REPO, talkspurt_env())
    if r.rc != 0:
        return {"available": False,
                "reason": f"talkspurt exited {r.rc}: {r.stderr.strip()[-500:]}"}
    m = read_talkspurt_manifest(r, outdir, via)
    shutil.rmtree(outdir, ignore_errors=True)
    return {
        "available": True,
        "wall_s": r.wall_s,
        "run_s": m.get("wall_time_s"),
        "maxrss_mb": r.maxrss_mb,
        "packets": m.get("voice_packets"),
        "events": m.get("events"),
        "raw": m,
    }


def import_baseline_rss() -> float | None:
    """Peak RSS of a child that only imports talkspurt (interpreter + deps)."""
    r = run_child([sys.executable, "-c", "import talkspurt"], REPO, talkspurt_env())
    return r.maxrss_mb if r.rc == 0 else None


def write_scenario(calls: int, duration: float, workdir: Path) -> Path:
    """bench/dumbbell.toml with [[calls]].count and [run].duration replaced."""
    text = SCENARIO.read_text()
    dur = f"{duration:g}s"
    text, n1 = re.subn(r'(?m)^(duration\s*=\s*)"[^"]*"', rf'\g<1>"{dur}"', text, count=1)
    text, n2 = re.subn(r"(?m)^(count\s*=\s*)\d+", rf"\g<1>{calls}", text, count=1)
    doc = tomllib.loads(text)
    if n1 != 1 or n2 != 1 or doc["run"]["duration"] != dur or doc["calls"][0]["count"] != calls:
        raise RuntimeError("could not parameterise bench/dumbbell.toml")
    path = workdir / "dumbbell.toml"
    path.write_text(text)
    return path


# --------------------------------------------------------------------------
# closed form
# --------------------------------------------------------------------------

def closed_form(calls: int, duration: float, extra_bits: int = 0) -> dict:
    """Offered packets and packets delivered before the horizon.

    Call i sends at s_i + k*ptime for s_i + k*ptime < T. With the stagger the
    bottleneck sees one 16 us packet every 20 us, so there is no queueing
    anywhere and every packet takes exactly
        d = tx(1G) + 1 ms + tx(100M) + 30 ms + tx(1G) + 1 ms = 32.0192 ms,
    so it is delivered iff s_i + k*ptime + d < T. Valid while the calls do
    not wrap around the 20 ms cycle (calls * stagger <= ptime).
    """
    T = Fraction(duration).limit_denominator(10**9)
    bits = PACKET_BITS + extra_bits
    d = (2 * Fraction(bits, ACCESS_BPS) + Fraction(bits, BNECK_BPS)
         + 2 * ACCESS_DELAY + BNECK_DELAY)
    offered = delivered = completed = 0
    for i in range(calls):
        s = i * STAGGER
        if s < T:
            offered += math.ceil((T - s) / PTIME)
            # talkspurt's convention: a packet is stamped when its last frame
            # is complete, and only whole packets completed by T are sent.
            completed += int((T - s) // PTIME)
        if T - d - s > 0:
            delivered += math.ceil((T - d - s) / PTIME)
    no_queueing = calls * STAGGER <= PTIME and Fraction(bits, BNECK_BPS) <= STAGGER
    return {"offered": offered, "completed_by_horizon": completed, "delivered_by_horizon": delivered,
            "in_flight_at_horizon": offered - delivered,
            "one_way_delay_ms": float(d * 1000), "valid": no_queueing,
            "offered_load_mbps": calls * PACKET_BITS / float(PTIME) / 1e6}


def checks_for(ns2: dict, ns3: dict, ts: dict, cf: dict, cf3: dict) -> list[dict]:
    out = []

    def add(name, ok, detail):
        out.append({"check": name, "ok": bool(ok), "detail": detail})

    if ns2.get("available"):
        raw = ns2["detail"]
        add("ns-2 sent == offered (closed form)", raw["sent"] == cf["offered"],
            f"{raw['sent']:,} vs {cf['offered']:,}")
        if cf["valid"]:
            add("ns-2 received == closed form (no queueing, minus in flight at T)",
                raw["received"] == cf["delivered_by_horizon"],
                f"{raw['received']:,} vs {cf['delivered_by_horizon']:,} "
                f"({cf['in_flight_at_horizon']:,} in flight at T, d = {cf['one_way_delay_ms']:.4f} ms)")
            add("ns-2 drops == 0", raw["dropped"] == 0, f"{raw['dropped']}")
        add("ns-2 wire size 200 B", raw["sent_bytes"] == 200 * raw["sent"],
            f"{raw['sent_bytes']:,} B / {raw['sent']:,} pkts")
    if ns3.get("available"):
        raw = ns3["detail"]
        add("ns-3 sent == offered (closed form)", raw["sent"] == cf["offered"],
            f"{raw['sent']:,} vs {cf['offered']:,}")
        if cf3["valid"]:
            add("ns-3 received == closed form with its 2-byte PPP header",
                raw["received"] == cf3["delivered_by_horizon"],
                f"{raw['received']:,} vs {cf3['delivered_by_horizon']:,} "
                f"(d = {cf3['one_way_delay_ms']:.6f} ms)")
            add("ns-3 drops == 0", raw["dropped"] == 0, f"{raw['dropped']}")
    if ts.get("available"):
        # talkspurt stamps a packet when its last frame is complete and sends
        # only whole packets before T: call i (start i*stagger) sends
        # floor((T - i*stagger) / ptime) packets. ns-2's CBR sends at the
        # start of each interval, so it sends one more for every call but
        # call 0; the two conventions differ by exactly calls - 1.
        want = cf["completed_by_horizon"]
        add("talkspurt packets == closed form (whole packets completed by T)", ts["packets"] == want,
            f"{ts['packets']:,} vs {want:,}")
    return out


# --------------------------------------------------------------------------
# aggregation and output
# --------------------------------------------------------------------------

@dataclass
class Row:
    name: str
    runs: list[dict] = field(default_factory=list)
    reason: str | None = None

    @property
    def ok(self) -> bool:
        return bool(self.runs)

    def summary(self) -> dict:
        if not self.runs:
            return {"simulator": self.name, "available": False, "reason": self.reason}
        walls = [r["wall_s"] for r in self.runs]
        wall = statistics.median(walls)
        runs_s = [r["run_s"] for r in self.runs if r.get("run_s") is not None]
        pk = self.runs[-1]["packets"]
        ev = self.runs[-1]["events"]
        return {
            "simulator": self.name, "available": True, "repeats": len(walls),
            "wall_s": wall, "wall_s_min": min(walls), "wall_s_all": walls,
            "run_s": statistics.median(runs_s) if runs_s else None,
            "packets": pk,
            "packets_per_s": pk / wall if pk else None,
            "events": ev,
            "events_per_s": ev / wall if ev else None,
            "maxrss_mb": max(r["maxrss_mb"] for r in self.runs),
            "detail": self.runs[-1]["raw"],
        }


def fmt(v, spec, na="n/a"):
    return na if v is None else format(v, spec)


def print_table(rows: list[dict], ref_wall: float | None, ref3_wall: float | None = None) -> None:
    hdr = f"{'simulator':<21}{'wall s':>9}{'run s':>9}{'packets':>12}{'packets/s':>12}" \
          f"{'events':>13}{'events/s':>12}{'peak RSS MB':>13}{'ns-2 / x':>10}{'ns-3 / x':>10}"
    print(hdr)
    print("-" * len(hdr))
    for r in rows:
        if not r["available"]:
            print(f"{r['simulator']:<21}  unavailable: {r['reason']}")
            continue
        ratio = ref_wall / r["wall_s"] if ref_wall else None
        ratio3 = ref3_wall / r["wall_s"] if ref3_wall else None
        print(f"{r['simulator']:<21}{r['wall_s']:>9.3f}{fmt(r['run_s'], '.3f'):>9}"
              f"{fmt(r['packets'], ',d'):>12}{fmt(r['packets_per_s'], ',.0f'):>12}"
              f"{fmt(r['events'], ',d'):>13}{fmt(r['events_per_s'], ',.0f'):>12}"
              f"{r['maxrss_mb']:>13.1f}{fmt(ratio, '.1f'):>10}{fmt(ratio3, '.1f'):>10}")


def machine() -> dict:
    cpu = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    ns2ver = None
    try:
        ns2ver = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "ns2"],
                                capture_output=True, text=True).stdout or None
    except OSError:
        pass
    return {"cpu": cpu, "nproc": os.cpu_count(), "platform": platform.platform(),
            "python": platform.python_version(), "ns2_version": ns2ver}


def write_json_atomic(path: Path, obj: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=path.name, dir=path.parent)
    with os.fdopen(fd, "w") as f:
        json.dump(obj, f, indent=2)
        f.write("\n")
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--duration", type=float, default=60.0, help="simulated seconds")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--no-trace-row", action="store_true",
                    help="skip the talkspurt trace-on row")
    ap.add_argument("--skip-ns2", action="store_true")
    ap.add_argument("--skip-ns3", action="store_true")
    ap.add_argument("--skip-talkspurt", action="store_true")
    ap.add_argument("--talkspurt-via", choices=("api", "cli", "table", "both"), default="api",
                    help="run talkspurt through talkspurt.run(), the CLI writing its files, "
                         "the CLI printing only its table (`table`), or api and cli")
    ap.add_argument("--json", type=Path, default=RESULTS)
    a = ap.parse_args(argv)
    if a.calls < 1 or a.duration <= 0 or a.repeat < 1:
        ap.error("--calls, --duration and --repeat must be positive")

    cf = closed_form(a.calls, a.duration)
    cf3 = closed_form(a.calls, a.duration, NS3_PPP_BITS)
    print(f"dumbbell: {a.calls} calls x {a.duration:g} s, offered {cf['offered']:,} packets "
          f"({cf['offered_load_mbps']:.1f} Mb/s on a 100 Mb/s bottleneck), repeat {a.repeat}")

    ns2_row = Row("ns-2")
    ns3_row = Row("ns-3")
    vias = ("api", "cli") if a.talkspurt_via == "both" else (a.talkspurt_via,)
    ts_rows = []  # (row, trace, via)
    for via in vias:
        name = {"api": "talkspurt", "cli": "talkspurt CLI", "table": "talkspurt CLI table"}[via]
        ts_rows.append((Row(name), False, via))
        if not a.no_trace_row:
            ts_rows.append((Row(name + "+trace"), True, via))
    rows = [ns2_row, ns3_row] + [r for r, _, _ in ts_rows]

    if a.skip_ns2:
        ns2_row.reason = "skipped (--skip-ns2)"
    elif ns2_binary() is None:
        ns2_row.reason = "`ns` not found; run bench/setup.sh"
    if a.skip_ns3:
        ns3_row.reason = "skipped (--skip-ns3)"
    else:
        _, ns3_row.reason = ns3_binary()

    ts_reason = "skipped (--skip-talkspurt)" if a.skip_talkspurt else talkspurt_unavailable_reason()
    if ts_reason:
        for row, _, _ in ts_rows:
            row.reason = f"talkspurt not runnable here ({ts_reason})"
        print(f"note: talkspurt unavailable: {ts_reason} -- running the peers only")

    baseline_rss = None
    with tempfile.TemporaryDirectory(prefix="talkspurt-bench-") as tmp:
        work = Path(tmp)
        scenario = write_scenario(a.calls, a.duration, work)
        if not ts_reason:
            baseline_rss = import_baseline_rss()
        for k in range(a.repeat):
            for row, go in ((ns2_row, run_ns2), (ns3_row, run_ns3)):
                if row.reason is None:
                    r = go(a.calls, a.duration, work)
                    if r["available"]:
                        row.runs.append(r)
                    else:
                        row.reason = r["reason"]
            for row, trace, via in ts_rows:
                if row.reason is not None:
                    continue
                r = run_talkspurt(scenario, trace, work, via)
                if r["available"]:
                    row.runs.append(r)
                else:
                    row.reason = r["reason"]
            done = ", ".join(f"{row.name} {row.runs[-1]['wall_s']:.2f}s"
                             for row in rows if row.runs and len(row.runs) == k + 1)
            print(f"  repeat {k + 1}/{a.repeat}: {done or 'nothing ran'}")

    summaries = [row.summary() for row in rows]
    ns2_s, ns3_s, ts_s = summaries[0], summaries[1], summaries[2]
    ref_wall = ns2_s["wall_s"] if ns2_s["available"] else None
    ref3_wall = ns3_s["wall_s"] if ns3_s["available"] else None
    print()
    print_table(summaries, ref_wall, ref3_wall)

    verdict = {}
    if ts_s["available"]:
        verdict = {
            "talkspurt_rss_mb": ts_s["maxrss_mb"],
            "talkspurt_import_baseline_rss_mb": baseline_rss,
            "rss_target_mb": TARGET_RSS_MB,
            "rss_ok": ts_s["maxrss_mb"] <= TARGET_RSS_MB,
            "ratios": [],
        }
        print()
        for peer, target in ((ns2_s, TARGET_SPEEDUP), (ns3_s, TARGET_SPEEDUP_NS3)):
            if not peer["available"]:
                continue
            for row in summaries[2:]:
                if not row["available"] or row["simulator"].endswith("+trace"):
                    continue
                wall = peer["wall_s"] / row["wall_s"]
                run = peer["run_s"] / row["run_s"] if peer.get("run_s") and row.get("run_s") else None
                verdict["ratios"].append({"peer": peer["simulator"], "talkspurt": row["simulator"],
                                          "wall": wall, "run_phase": run, "target": target,
                                          "ok": wall >= target})
                print(f"{peer['simulator']} / {row['simulator']}: wall {wall:.1f}x "
                      f"[target >= {target:.0f}x: {'PASS' if wall >= target else 'FAIL'}]"
                      + (f", run phase {run:.1f}x" if run else ""))
        if verdict["ratios"]:
            # The headline figure: ns-2 vs talkspurt.run() (the first row).
            first = verdict["ratios"][0]
            verdict.update(speedup_wall=first["wall"], speedup_run_phase=first["run_phase"],
                           speedup_target=first["target"], speedup_ok=first["ok"])
        print(f"talkspurt peak RSS, trace off: {ts_s['maxrss_mb']:.1f} MB "
              f"[target <= {TARGET_RSS_MB:.0f} MB: {'PASS' if verdict['rss_ok'] else 'FAIL'}]"
              + (f" (interpreter + import alone: {baseline_rss:.1f} MB)" if baseline_rss else ""))

    checks = checks_for(ns2_s, ns3_s, ts_s, cf, cf3)
    if checks:
        print()
        print("checks:")
        for c in checks:
            print(f"  [{'ok' if c['ok'] else 'FAIL'}] {c['check']}: {c['detail']}")

    result = {
        "benchmark": "dumbbell",
        "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "params": {"calls": a.calls, "duration_s": a.duration, "repeat": a.repeat,
                   "talkspurt_via": a.talkspurt_via},
        "machine": machine(),
        "closed_form": cf,
        "closed_form_ns3": cf3,
        "rows": summaries,
        "verdict": verdict,
        "checks": checks,
        "notes": [
            "wall_s: median process wall time around each simulator's child, "
            "including interpreter start-up and scenario build; run_s: the "
            "simulator's own timing of its event loop (ns-2: Tcl clock around "
            "`$ns run`; talkspurt: manifest wall_time_s).",
            "packets: voice packets generated; packets/s and events/s use wall_s.",
            "ns-2 events: scheduler events *scheduled* (global event-uid counter), "
            "7 per packet here: CBR timer + (delivery + queue-resume) per link.",
            "ns-2 queue-limit is set to talkspurt's limit + 1 (DropTail counts the "
            "packet in service); ns-2 packetSize_ 200 is the whole IP datagram.",
            "ns-3 events: events executed (Simulator::GetEventCount); its frames "
            "carry a 2-byte PPP header (202 B on the wire).",
        ],
    }
    write_json_atomic(a.json, result)
    print(f"\nwrote {a.json.relative_to(REPO) if a.json.is_relative_to(REPO) else a.json}")
    return 0 if all(c["ok"] for c in checks) else 1


if __name__ == "__main__":
    sys.exit(main())
