#!/usr/bin/env python3
"""Audio path benchmark (issue 13): PESQ of a 60 s call, and the audio of
many calls on all cores.

    python bench/audio.py [--repeat K] [--calls N] [--call-length S] [--codec NAME]

Part 1, one 60 s call (G.711, 2 % Bernoulli loss, on/off speech, fixed
100 ms buffer), timed per repeat, interleaved:

  peer        the `pesq` package alone on the call's reference/degraded pair,
              cut into the same segments (what scoring costs at the least)
  talkspurt   talkspurt.score_audio on the call: speech, encode, apply fates,
              decode with concealment, segment, PESQ (workers = 1)

Part 2, N calls of S s each in one run (default 1000 × 10 s): the audio of
all calls with workers = 1 and with workers = all cores; the ratio is the
parallel speed-up. Prints a table and writes bench/results/audio.json
(atomically).

`--seed001 K` runs instead every K-th run of seed 001's full-scale sweep
(scenarios/seeds/001/table4.toml: 4 continuous L16 calls, PESQ of each
call's first 15-19.5 s) in this process, as one sweep worker does: the
audio CPU of this process and of its P.862 child per run, the pairs P.862
computed and those the guard answered from memory (writes
bench/results/audio_001.json).

Part 1 times PESQ cold: the guard's memory of scored pairs is cleared
before each repeat (a repeat would otherwise be answered from it).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
RESULTS = BENCH / "results" / "audio.json"

SCENARIO = """
[run]
duration = "{duration}s"
seed = 11

[[links]]
between = ["a", "b"]
rate = "1Gbps"
delay = "20ms"
loss = {{ kind = "bernoulli", p = 0.02 }}

[[calls]]
count = {count}
from = "a"
to = "b"
codec = "{codec}"
speech = {{ model = "exponential", talk = "1s", silence = "1.5s" }}
playout = {{ kind = "fixed", delay = "100ms" }}
start = {{ kind = "uniform", from = "0s", to = "1s" }}
"""


def _pesq_task(args):
    from pesq import pesq

    fs, ref, deg = args
    return pesq(fs, ref, deg, "nb")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--calls", type=int, default=1000)
    ap.add_argument("--call-length", type=float, default=10.0)
    ap.add_argument("--codec", default="G.711")
    ap.add_argument("--json", default=str(RESULTS))
    ap.add_argument("--seed001", type=int, metavar="K", help="seed 001's audio path on every K-th full-scale run")
    args = ap.parse_args()
    if args.seed001:
        return seed001(args.seed001)

    os.environ.setdefault("TALKSPURT_SPEECH", str(REPO.parent / "shared" / "speech"))
    import numpy as np
    from pesq import pesq

    import talkspurt
    from talkspurt.audio.config import parse
    from talkspurt.audio.pipeline import _jobs, codec_spec
    from talkspurt.audio.render import render
    from talkspurt.audio.score import segments
    from talkspurt.audio.speech import SpeechSource

    # -- part 1: one 60 s call ------------------------------------------------
    res = talkspurt.run(SCENARIO.format(duration=60, count=1, codec=args.codec))
    cfg = parse({"workers": 1})
    talkspurt.score_audio(res, cfg)  # warm-up: imports, libraries
    (_, c, spec_args, trace, (files, timeline), _), = _jobs(res, cfg, [0], True)
    spec = codec_spec(cfg, *spec_args)
    r = render(trace, spec, SpeechSource(files, spec.fs, start=c, timeline=timeline))
    segs = segments(r, cfg.segment)
    peer_t, ours_t = [], []
    from talkspurt.audio.pesq_guard import guard

    for _ in range(args.repeat):
        guard().cache.clear()  # cold: P.862 runs for every segment
        t0 = time.perf_counter()
        for s in segs:
            pesq(spec.fs, r.reference[s.ref[0]:s.ref[1]], r.degraded[s.deg[0]:s.deg[1]], "nb")
        peer_t.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        row = talkspurt.score_audio(res, cfg).iloc[0]
        ours_t.append(time.perf_counter() - t0)
    one = {
        "call_s": 60, "segments": len(segs), "pesq_mos": float(row["pesq_mos"]),
        "peer_pesq_only_s": statistics.median(peer_t), "talkspurt_s": statistics.median(ours_t),
    }
    one["ratio_talkspurt_over_peer"] = one["talkspurt_s"] / one["peer_pesq_only_s"]

    # -- part 2: many calls, serial vs all cores ------------------------------
    many_res = talkspurt.run(SCENARIO.format(duration=args.call_length, count=args.calls, codec=args.codec))
    cores = os.cpu_count() or 1
    t0 = time.perf_counter()
    serial = talkspurt.score_audio(many_res, {"workers": 1})
    t_serial = time.perf_counter() - t0
    t0 = time.perf_counter()
    par = talkspurt.score_audio(many_res, {"workers": cores})
    t_par = time.perf_counter() - t0
    # The machine's own parallel speed-up right now (it is shared): the
    # same number of bare PESQ calls, serial and on all cores.
    from concurrent.futures import ProcessPoolExecutor

    s0 = segs[0]
    task = (spec.fs, r.reference[s0.ref[0]:s0.ref[1]], r.degraded[s0.deg[0]:s0.deg[1]])
    k = 8 * cores
    t0 = time.perf_counter()
    for _ in range(k):
        _pesq_task(task)
    t_ref_serial = time.perf_counter() - t0
    t0 = time.perf_counter()
    with ProcessPoolExecutor(max_workers=cores) as ex:
        list(ex.map(_pesq_task, [task] * k))
    t_ref_par = time.perf_counter() - t0
    same = serial.equals(par)
    diff = (serial["pesq_mos"] - par["pesq_mos"]).abs()
    many = {
        "calls": args.calls, "call_length_s": args.call_length, "cores": cores,
        "serial_s": t_serial, "parallel_s": t_par, "speedup": t_serial / t_par,
        "per_call_serial_ms": 1000 * t_serial / args.calls, "identical_results": same,
        "calls_differing": int((diff > 0).sum()), "max_abs_pesq_difference": float(diff.max()),
        "mean_pesq_mos": float(np.nanmean(par["pesq_mos"])),
        "peer_bare_pesq_speedup": t_ref_serial / t_ref_par,
        "load_average": os.getloadavg()[0],
    }

    print(f"one {one['call_s']} s call ({args.codec}, 2 % loss, {one['segments']} PESQ segments), "
          f"median of {args.repeat}:")
    print(f"  pesq package alone  {one['peer_pesq_only_s']:.3f} s")
    print(f"  talkspurt audio     {one['talkspurt_s']:.3f} s   (ratio {one['ratio_talkspurt_over_peer']:.2f})")
    print(f"{args.calls} calls × {args.call_length:g} s:")
    print(f"  workers = 1         {t_serial:.2f} s   ({many['per_call_serial_ms']:.1f} ms a call)")
    print(f"  workers = {cores:<9} {t_par:.2f} s   (speed-up {many['speedup']:.2f}, "
          f"identical: {same}; {many['calls_differing']} calls differ, by at most "
          f"{many['max_abs_pesq_difference']:.3f} MOS: see docs/models/audio.md, PESQ determinism)")
    print(f"  peer: {k} bare PESQ calls, 1 vs {cores} processes: speed-up {many['peer_bare_pesq_speedup']:.2f} "
          f"(what this shared machine allows now; load average {many['load_average']:.1f})")
    out = {"one_call": one, "many_calls": many, "codec": args.codec,
           "python": sys.version.split()[0], "talkspurt": talkspurt.__version__}
    target = Path(args.json)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".audio.")
    with os.fdopen(fd, "w") as f:
        json.dump(out, f, indent=2)
    os.replace(tmp, target)
    return 0


def _child_cpu_s(pid: int) -> float:
    """User + system CPU seconds of a live process (/proc/PID/stat)."""
    f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def seed001(k: int) -> int:
    os.environ.setdefault("TALKSPURT_SPEECH", str(REPO.parent / "shared" / "speech"))
    os.chdir(REPO)
    import talkspurt
    from talkspurt import sweeps
    from talkspurt.audio import pipeline
    from talkspurt.audio.pesq_guard import guard

    runs = sweeps.load_sweep(REPO / "scenarios" / "seeds" / "001" / "table4.toml").runs()[::k]
    audio_cpu = [0.0]
    inner = pipeline.with_audio

    def timed(res, cfg):
        t = time.process_time()
        inner(res, cfg)
        audio_cpu[0] += time.process_time() - t

    pipeline.with_audio = timed
    talkspurt.run(json.loads(runs[0].source_json), trace=True)  # warm-up: imports, the P.862 child
    g = guard()
    g.cache.clear()
    g.hits = g.misses = 0
    audio_cpu[0] = 0.0
    child0 = _child_cpu_s(g.proc.pid)
    t0, c0 = time.perf_counter(), time.process_time()
    for r in runs:
        talkspurt.run(json.loads(r.source_json), trace=True)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    child = _child_cpu_s(g.proc.pid) - child0
    n = len(runs)
    out = {"runs": n, "step": k, "pairs": g.hits + g.misses, "p862_computed": g.misses, "answered_from_memory": g.hits,
           "p862_cpu_s": child, "p862_cpu_per_pair_s": child / max(1, g.misses),
           "audio_cpu_per_run_s_without_p862": audio_cpu[0] / n, "process_cpu_per_run_s": cpu / n,
           "wall_s": wall, "load_average": os.getloadavg()[0], "talkspurt": talkspurt.__version__}
    print(f"seed 001, {n} full-scale runs (every {k}th), one process (load {out['load_average']:.1f}):")
    print(f"  PESQ pairs {out['pairs']}: {g.misses} computed by P.862, {g.hits} answered from memory")
    print(f"  P.862 child CPU {child:.1f} s ({out['p862_cpu_per_pair_s']:.3f} s a computed pair)")
    print(f"  per run: audio CPU without P.862 {out['audio_cpu_per_run_s_without_p862']:.3f} s, "
          f"whole run CPU (simulation, tables, audio) {out['process_cpu_per_run_s']:.3f} s + P.862 {child / n:.3f} s")
    target = RESULTS.with_name("audio_001.json")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".audio_001.")
    with os.fdopen(fd, "w") as f:
        json.dump(out, f, indent=2)
    os.replace(tmp, target)
    return 0


if __name__ == "__main__":
    sys.exit(main())
