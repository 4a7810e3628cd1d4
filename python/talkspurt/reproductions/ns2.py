"""The ns-2 twins of a bundle: each `ns2 = { script, args, key }` of a
published value runs `ns SCRIPT ARGS…` once per seed (`{seed}` in ARGS is
replaced by 1, 2, …; `{quick}` by 1 under --quick, else 0), reads the
`key value` lines it prints, and averages `key` over the seeds.

Raw outputs are kept in `DIR/ns2/` under a name derived from the script and
arguments, so a rerun reuses them (as the sweep stores reuse runs).
"""

from __future__ import annotations

import hashlib
import math
import os
import shutil
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Optional

from .bundle import Bundle, Entry

TIMEOUT_S = 1800


class Ns2Failed(RuntimeError):
    pass


def available() -> bool:
    return shutil.which("ns") is not None


def _jobs(bundle: Bundle, entries: list[Entry], quick: bool) -> dict[str, tuple[str, list[str]]]:
    jobs: dict[str, tuple[str, list[str]]] = {}
    for e in entries:
        if e.ns2 is None:
            continue
        for seed in _seeds(bundle, e, quick):
            args = [a.replace("{seed}", str(seed)).replace("{quick}", "1" if quick else "0") for a in e.ns2["args"]]
            jobs[_name(e.ns2["script"], args)] = (e.ns2["script"], args)
    return jobs


def _seeds(bundle: Bundle, e: Entry, quick: bool) -> range:
    exp = bundle.experiments[e.experiment]
    if quick:
        return range(1, 2)
    if exp.ns2_replications is not None:
        return range(1, exp.ns2_replications + 1)
    import tomllib

    reps = tomllib.loads(exp.sweep.read_text()).get("sweep", {}).get("replications", 1)
    return range(1, int(reps) + 1)


def _name(script: str, args: list[str]) -> str:
    h = hashlib.sha256("\0".join([script, *args]).encode()).hexdigest()[:16]
    return f"{Path(script).stem}-{h}.out"


def pending(bundle: Bundle, entries: list[Entry], out: Path, quick: bool) -> tuple[list[tuple], int]:
    """The twins not yet in `out`, each as the argument of `run_job`, and
    how many the entries need in all (`out` is created)."""
    jobs = _jobs(bundle, entries, quick)
    if jobs:
        out.mkdir(parents=True, exist_ok=True)
    todo = [(bundle.directory, out, n, j) for n, j in jobs.items() if not (out / n).is_file()]
    return todo, len(jobs)


def describe(job: tuple) -> str:
    script, args = job[3]
    return f"ns-2 twin ns {script} {' '.join(args)}"


def run_twins(bundle: Bundle, entries: list[Entry], out: Path, quick: bool, workers: int,
              progress: Optional[Callable[[int, int], None]] = None) -> dict[str, float]:
    """Run every twin not yet in `out` (`workers` at a time) and return each
    entry's ns-2 value (`values`). Empty when `ns` is not installed. (A
    reproduction on the local executor runs them in its worker pool
    instead, beside the sweeps' runs: `pending`, `run_job`, `values`.)"""
    if not available():
        return {}
    todo, total = pending(bundle, entries, out, quick)
    if not total:
        return {}
    done = total - len(todo)
    if progress:
        progress(done, total)
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for n in pool.map(run_job, todo):
            done += 1
            if progress:
                progress(done, total)
    return values(bundle, entries, out, quick)


def values(bundle: Bundle, entries: list[Entry], out: Path, quick: bool) -> dict[str, float]:
    """Each entry's ns-2 value (entry path -> mean over seeds) from the
    twins' outputs in `out`."""
    results: dict[str, float] = {}
    for e in entries:
        if e.ns2 is None:
            continue
        xs = []
        for seed in _seeds(bundle, e, quick):
            args = [a.replace("{seed}", str(seed)).replace("{quick}", "1" if quick else "0") for a in e.ns2["args"]]
            vals = parse_output((out / _name(e.ns2["script"], args)).read_text())
            if e.ns2["key"] not in vals:
                raise Ns2Failed(f"{e.path}.ns2.key: {e.ns2['script']} {' '.join(args)} printed no line "
                                f"{e.ns2['key']!r} (it printed: {', '.join(vals) or 'nothing'})")
            xs.append(vals[e.ns2["key"]])
        ok = [x for x in xs if not math.isnan(x)]
        results[e.path] = sum(ok) / len(ok) if ok else math.nan
    return results


def run_job(job: tuple) -> str:
    """Run one twin (an item of `pending`): `ns SCRIPT ARGS…` in a scratch
    folder, its stdout kept as `out/NAME` (atomically)."""
    return _run_one(*job)


def _run_one(bundle_dir: Path, out: Path, name: str, job: tuple[str, list[str]]) -> str:
    script, args = job
    with tempfile.TemporaryDirectory(dir=out, prefix=".work-") as work:
        try:
            p = subprocess.run(["ns", str((bundle_dir / script).resolve()), *args], cwd=work, capture_output=True,
                               text=True, timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise Ns2Failed(f"ns {script} {' '.join(args)}: no result after {TIMEOUT_S} s") from None
        if p.returncode != 0:
            tail = (p.stderr or p.stdout).strip().splitlines()[-3:]
            raise Ns2Failed(f"ns {script} {' '.join(args)} exited {p.returncode}: {' | '.join(tail)}")
        fd, tmp = tempfile.mkstemp(dir=out, prefix=".out-")
        with os.fdopen(fd, "w") as f:
            f.write(p.stdout)
        os.replace(tmp, out / name)
    return name


def parse_output(text: str) -> dict[str, float]:
    """`key value` (or `key=value`) lines; other lines are ignored."""
    vals: dict[str, float] = {}
    for line in text.splitlines():
        parts = line.replace("=", " ").split()
        if len(parts) == 2:
            try:
                vals[parts[0]] = float(parts[1])
            except ValueError:
                pass
    return vals
