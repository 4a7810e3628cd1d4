"""Alternate whole-process commands repeat by repeat, in one invocation.

    python bench/alternate.py SPEC.json REPEATS > out.json

SPEC.json maps a name to [cwd, argv]; each repeat runs every command once,
in the spec's order, under GNU time. Per run: wall (GNU time's %e, 10 ms
resolution), pwall (perf_counter around the child), CPU (user + system),
peak RSS (%M), the 1-minute load when it started, and the child's last
stdout line. Prints the runs and the medians as JSON; progress on stderr.
Used for base-vs-branch comparisons beside ns-2 (bench/README.md, the
2026-11-28 rows): e.g. {"ns2": ["/tmp", ["ns", "bench/ns2/tcp_recovery.tcl",
"cubic", "1e-05", "60"]], "base": ["/tmp", ["/tmp/base/run_scenario",
"SCENARIO.toml", "--no-trace"]], "branch": [...]}.
"""
import json
import statistics as st
import subprocess
import sys
import time


def main() -> int:
    spec = json.load(open(sys.argv[1]))
    reps = int(sys.argv[2])
    rows = {k: [] for k in spec}
    for _ in range(reps):
        for name, (cwd, cmd) in spec.items():
            load = float(open("/proc/loadavg").read().split()[0])
            t0 = time.perf_counter()
            p = subprocess.run(["/usr/bin/time", "-f", "TIME %e %U %S %M", *cmd], cwd=cwd, capture_output=True, text=True)
            pwall = time.perf_counter() - t0
            if p.returncode != 0:
                print(name, "FAILED", p.stderr[-500:], file=sys.stderr)
            t = [x for x in p.stderr.splitlines() if x.startswith("TIME ")][-1].split()
            out = p.stdout.strip().splitlines()
            rows[name].append({"wall": float(t[1]), "pwall": pwall, "cpu": float(t[2]) + float(t[3]),
                               "rss_mb": int(t[4]) / 1024, "load": load, "out": out[-1][:300] if out else ""})
            print(name, rows[name][-1], file=sys.stderr, flush=True)
    med = {k: {m: st.median(x[m] for x in v) for m in ("wall", "pwall", "cpu", "rss_mb")}
           | {"load": [min(x["load"] for x in v), max(x["load"] for x in v)], "n": len(v)} for k, v in rows.items()}
    print(json.dumps({"medians": med, "runs": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
