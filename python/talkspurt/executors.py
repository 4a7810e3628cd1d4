"""Executors: where the runs of a sweep execute.

- `local` (default): a pool of worker processes on this machine, one per
  core (`workers=` to choose);
- `dask://host:port`: the Dask scheduler at that address;
- `dask` (or `dask://local`): a Dask `LocalCluster` started for the sweep;
- a `distributed.Client` passed from Python.

Every run is a task that simulates, scores and writes its own folder of the
store (`store.write_run`), so only a few bytes travel back. A run's results
depend on nothing but its resolved scenario, so they are identical whichever
executor, worker or attempt ran it. A run whose worker dies is retried (up
to `RETRIES` more times): the local pool is rebuilt and the lost runs
resubmitted; Dask reschedules them itself (`retries=`).
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any, Callable, Optional

RETRIES = 2

# Fault injection for the executor tests (docs/sweeps.md): when this names
# an existing file, the first worker to remove it dies at once, as a worker
# killed by the OOM killer or a lost machine would.
KILL_ONCE_ENV = "TALKSPURT_FAULT_KILL_ONCE"

Progress = Callable[[int, int], None]


class Stats:
    """What the executor saw: runs resubmitted after a worker died, and the
    per-run core and task seconds of the runs it executed."""

    def __init__(self) -> None:
        self.resubmitted = 0
        self.core_s: list[float] = []
        self.task_s: list[float] = []

    def add(self, result: tuple[str, float, float, bool]) -> None:
        if result[3]:
            self.core_s.append(result[1])
            self.task_s.append(result[2])

    def summary(self) -> dict[str, Any]:
        n = len(self.task_s)
        over = [t - c for c, t in zip(self.core_s, self.task_s)]
        return {"resubmitted": self.resubmitted, "core_s_sum": sum(self.core_s), "task_s_sum": sum(self.task_s),
                "overhead_ms_mean": 1e3 * sum(over) / n if n else None,
                "overhead_ms_max": 1e3 * max(over) if n else None}


def execute(task: dict[str, Any]) -> tuple[str, float, float, bool]:
    """Run one sweep task in a worker: simulate, write, report (run, core
    seconds, task seconds, written). Core seconds are the simulation and
    scoring in Rust; the rest of the task is overhead (conversion, tables,
    Parquet writing)."""
    marker = os.environ.get(KILL_ONCE_ENV)
    if marker:
        try:
            os.remove(marker)
        except FileNotFoundError:
            pass
        else:
            os._exit(70)
    from . import store
    from .api import run

    out = Path(task["out"])
    if (out / "runs" / task["run"]).exists():
        return task["run"], 0.0, 0.0, False
    t0 = time.perf_counter()
    res = run(_doc(task.get("source_json") or task["scenario_json"]), trace=task["trace"])
    written = store.write_run(out, task, res)
    return task["run"], float(res.manifest["wall_time_s"]), time.perf_counter() - t0, written


def _doc(text: str) -> dict[str, Any]:
    import json

    return json.loads(text)


def warm_up() -> None:
    """Worker initializer: import what a run needs once, before the first
    task, so start-up is not charged to a run's overhead."""
    import pyarrow.parquet  # noqa: F401

    from . import api, store  # noqa: F401


class RunFailed(RuntimeError):
    """A run failed (not a worker death): its key and the error."""


def run_local(tasks: list[dict[str, Any]], workers: Optional[int], progress: Optional[Progress], stats: Stats) -> None:
    """Run `tasks` in a local process pool; returns how many runs were
    resubmitted after a worker died (a dead worker breaks the pool, so every
    run not finished in it is resubmitted, not only the one it was running)."""
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool
    import multiprocessing as mp

    n = workers or os.cpu_count() or 1
    total, done = len(tasks), 0
    attempts = {t["run"]: 0 for t in tasks}
    pending = list(tasks)
    ctx = mp.get_context("spawn")  # workers start clean: no inherited threads or locks
    while pending:
        lost: list[dict[str, Any]] = []
        pool = ProcessPoolExecutor(max_workers=min(n, len(pending)), mp_context=ctx, initializer=warm_up)
        try:
            futs = {pool.submit(execute, t): t for t in pending}
            pending = []
            while futs:
                ready, _ = wait(futs, return_when=FIRST_COMPLETED)
                for f in ready:
                    t = futs.pop(f)
                    try:
                        stats.add(f.result())
                    except BrokenProcessPool:
                        lost.append(t)
                        continue
                    except Exception as e:  # the run itself failed: stop the sweep
                        for g in futs:
                            g.cancel()
                        raise RunFailed(f"run {t['run']} (point {t['point']}, replication {t['replication']}): {e}") from e
                    done += 1
                    if progress:
                        progress(done, total)
        except BaseException:
            # Interrupted (Ctrl-C, SIGTERM) or failed: runs not started are
            # dropped, runs in progress finish writing (each is atomic).
            pool.shutdown(wait=True, cancel_futures=True)
            raise
        pool.shutdown(wait=True)
        for t in lost:
            attempts[t["run"]] += 1
            if attempts[t["run"]] > RETRIES:
                raise RunFailed(f"run {t['run']}: its worker died {attempts[t['run']]} times")
            stats.resubmitted += 1
            pending.append(t)


def run_dask(tasks: list[dict[str, Any]], address: Any, workers: Optional[int], progress: Optional[Progress],
             stats: Stats) -> None:
    """Run `tasks` on Dask: `address` is a `distributed.Client`, a scheduler
    address (`tcp://host:port`), or "local" for a LocalCluster."""
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError:
        from ._core import ScenarioError

        raise ScenarioError("--executor: dask needs the `distributed` package (pip install 'talkspurt[dask]')") from None
    own = []
    if isinstance(address, Client):
        client = address
    elif address == "local":
        cluster = LocalCluster(n_workers=workers or os.cpu_count() or 1, threads_per_worker=1, processes=True,
                               dashboard_address=None)
        client = Client(cluster)
        own = [client, cluster]
    else:
        client = Client(address)
        own = [client]
    try:
        total, done = len(tasks), 0
        futs = [client.submit(execute, t, key=f"talkspurt-run-{t['run']}", retries=RETRIES, pure=False) for t in tasks]
        by_key = {f.key: t for f, t in zip(futs, tasks)}
        for f in as_completed(futs):
            t = by_key[f.key]
            try:
                stats.add(f.result())
            except Exception as e:
                for g in futs:
                    g.cancel()
                raise RunFailed(f"run {t['run']} (point {t['point']}, replication {t['replication']}): {e}") from e
            done += 1
            if progress:
                progress(done, total)
    finally:
        for x in own:
            x.close()


# Seconds to reach a Dask scheduler before saying it is unreachable.
CONNECT_TIMEOUT_ENV = "TALKSPURT_DASK_TIMEOUT"


def connect(address: str):
    """A `distributed.Client` of the scheduler at `address`, or a one-line
    ScenarioError (`--executor`) saying it is unreachable: checked before
    the store is written, so a sweep that cannot run leaves nothing."""
    from ._core import ScenarioError

    try:
        from distributed import Client
    except ImportError:
        raise ScenarioError("--executor: dask needs the `distributed` package (pip install 'talkspurt[dask]')") from None
    timeout = float(os.environ.get(CONNECT_TIMEOUT_ENV, "10"))
    try:
        return Client(address, timeout=timeout)
    except (OSError, TimeoutError) as e:
        shown = "dask://" + address.removeprefix("tcp://")
        err = ScenarioError(f"--executor: got {shown!r}; the Dask scheduler at {address} is unreachable "
                            f"({type(e).__name__} after {timeout:g} s): start it (dask scheduler) or check the address")
        err.path, err.value, err.allowed = "--executor", repr(shown), "a reachable scheduler"
        raise err from None


def parse_executor(spec: Any) -> tuple[str, Any]:
    """`local`, `dask`, `dask://local`, `dask://host:port` or a Client → (kind, address)."""
    from ._core import ScenarioError

    if spec is None or spec == "local":
        return "local", None
    if isinstance(spec, str):
        if spec in ("dask", "dask://local", "dask://"):
            return "dask", "local"
        if spec.startswith("dask://"):
            return "dask", "tcp://" + spec[len("dask://"):]
        e = ScenarioError(f"--executor: got {spec!r}; expected local, dask (a LocalCluster) or dask://host:port")
        e.path, e.value, e.allowed = "--executor", repr(spec), "local, dask or dask://host:port"
        raise e
    return "dask", spec  # a distributed.Client


def run_tasks(tasks: list[dict[str, Any]], executor: Any, workers: Optional[int],
              progress: Optional[Progress]) -> Stats:
    kind, address = parse_executor(executor)
    stats = Stats()
    if tasks:
        if kind == "local":
            run_local(tasks, workers, progress, stats)
        else:
            run_dask(tasks, address, workers, progress, stats)
    return stats
