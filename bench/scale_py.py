"""Scale curve through Python (issue 14 target 4): `talkspurt.run()` of the
dumbbell that bench/scale.sh builds (N calls for D seconds, link rates and
stagger scaled with N, 80 % load, nothing queues), then every table as a
pandas DataFrame. One JSON line per point and interpreter: wall seconds of
`run()` (best of --repeat; `core_s` is the extension's share: build, loop,
report, tables handed to Python), of building the DataFrames (pandas and
pyarrow imported before the clock starts), ns per packet-hop (3 hops) of
the two together, and peak RSS (largest repeat).

    python bench/scale_py.py                         # 1k, 10k x 10 s; 100k x 1 s
    python bench/scale_py.py --points 1000:10 20000:5 --repeat 3
    python bench/scale_py.py --python /path/to/other/venv/bin/python
        # also that interpreter (another build), alternated run by run

Each run is its own process, so peak RSS is that run's.
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = r"""
import json, resource, sys, time
import numpy, pandas, pyarrow  # imported before the clock: a per-process cost, not a per-call one
import talkspurt
t0 = time.perf_counter()
res = talkspurt.run(sys.argv[1], trace=False)
t1 = time.perf_counter()
for name in ("calls", "groups", "bursts", "talkspurts", "links", "traffic", "series"):
    getattr(res, name)
t2 = time.perf_counter()
m = res.manifest
print(json.dumps({"run_s": t1 - t0, "core_s": m["wall_time_s"], "frames_s": t2 - t1,
                  "voice_packets": m["voice_packets"],
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024}))
"""


def scenario(n: int, d: int, folder: Path) -> Path:
    """bench/dumbbell.toml scaled to n calls for d seconds (as bench/scale.sh)."""
    text = (HERE / "dumbbell.toml").read_text()
    for pat, rep in [
        (r'duration = "60s"', f'duration = "{d}s"'),
        (r"count = 1000", f"count = {n}"),
        (r'rate = "1Gbps"', f'rate = "{n * 1_000_000}bps"'),
        (r'rate = "100Mbps"', f'rate = "{n * 100_000}bps"'),
        (r'stagger = "20us"', f'stagger = "{20_000_000 // n}ns"'),
    ]:
        text = re.sub(pat, rep, text)
    path = folder / f"scale_{n}_{d}.toml"
    path.write_text(text)
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--points", nargs="*", default=["1000:10", "10000:10", "100000:1"])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--python", action="append", default=[], help="another interpreter to alternate with")
    args = ap.parse_args()
    pythons = [sys.executable, *args.python]
    with tempfile.TemporaryDirectory() as tmp:
        for point in args.points:
            n, d = (int(x) for x in point.split(":"))
            path = scenario(n, d, Path(tmp))
            best: dict[str, dict] = {}
            rss: dict[str, int] = {}
            for _ in range(args.repeat):
                for py in pythons:
                    out = json.loads(subprocess.run([py, "-c", CHILD, str(path)], check=True,
                                                    capture_output=True, text=True).stdout)
                    total = out["run_s"] + out["frames_s"]
                    if py not in best or total < best[py]["run_s"] + best[py]["frames_s"]:
                        best[py] = out
                    rss[py] = max(rss.get(py, 0), out["peak_rss_mb"])
            for py in pythons:
                b = best[py]
                hops = b["voice_packets"] * 3
                total = b["run_s"] + b["frames_s"]
                print(json.dumps({
                    "python": py, "calls": n, "duration_s": d, "voice_packets": b["voice_packets"],
                    "run_s": round(b["run_s"], 4), "core_s": round(b["core_s"], 4),
                    "frames_s": round(b["frames_s"], 4),
                    "ns_per_packet_hop": round(total * 1e9 / hops, 1),
                    "peak_rss_mb": rss[py],
                }), flush=True)


if __name__ == "__main__":
    main()
