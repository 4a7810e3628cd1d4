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
import signal
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Optional

from .interrupts import deferred_interrupts

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
    from .api import _run as run  # no LatePlayoutWarning in a worker: the sweep reports lateness itself

    out = Path(task["out"])
    if (out / "runs" / task["run"]).exists():
        return task["run"], 0.0, 0.0, False
    t0 = time.perf_counter()
    # The pool keeps every core busy with runs: a second thread recording
    # beside each run's loop would only add its own CPU (~5 % more wall for
    # two workers on two cores, bench/README.md).
    res = run(_doc(task.get("source_json") or task["scenario_json"]), trace=task["trace"], defer_records=False)
    written = store.write_run(out, task, res)
    return task["run"], float(res.manifest["wall_time_s"]), time.perf_counter() - t0, written


def _doc(text: str) -> dict[str, Any]:
    import json

    return json.loads(text)


# Ctrl-C reaches every process of the terminal's foreground group, the
# workers included. A KeyboardInterrupt raised wherever a worker happens to
# be can leave the lock of the pool's result queue held (acquired, its
# `with` not yet entered): the worker's own report of the interruption then
# waits on it, every other worker too, and the parent's shutdown for ever
# (CPython 3.11.7: 2 hangs in 65 Ctrl-Cs of a sweep; tests/test_interrupt.py).
# So in a worker Ctrl-C is raised only inside a task, where unwinding is
# safe (a run's folder is written atomically, or not at all), and a worker
# once interrupted refuses further tasks; the parent cancels the rest.
_worker = {"in_task": False, "interrupted": False}


def _on_sigint(_signum: int, _frame: Any) -> None:
    _worker["interrupted"] = True
    if _worker["in_task"]:
        raise KeyboardInterrupt


def worker_signals() -> None:
    """Worker initializer (any process pool of the package): Ctrl-C
    interrupts the task running, never the pool's own machinery. A worker
    starts with SIGINT blocked (`spawning`); a press since is delivered
    here, to this handler."""
    signal.signal(signal.SIGINT, _on_sigint)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


@contextmanager
def spawning() -> Iterator[None]:
    """Block SIGINT in this thread while a pool may start workers (in
    `submit`): a child inherits the mask, so a Ctrl-C in its start-up
    (1-3 s of imports) waits for `worker_signals` instead of killing it,
    which breaks the pool (and a pool breaking while `submit` starts
    another worker can leave that one orphaned, and the exit waiting on
    it). Here the press stays pending until the block ends: nothing is
    lost."""
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def guarded(fn: Callable[[Any], Any], arg: Any) -> Any:
    """`fn(arg)` as a worker's task: where Ctrl-C may be raised."""
    if _worker["interrupted"]:
        raise KeyboardInterrupt
    _worker["in_task"] = True
    try:
        return fn(arg)
    finally:
        _worker["in_task"] = False


def timed(fn: Callable[[Any], Any], arg: Any) -> tuple[Any, float, float, int, float]:
    """`guarded(fn, arg)` with when it ran, where and what it cost:
    (result, start, end, worker pid, CPU seconds of the worker and of the
    children it waited for, an ns-2 twin); `time.monotonic` is one clock
    for every process of the machine, so the parent can lay the workers'
    jobs on its own timeline (`LocalPool.log`)."""
    import resource

    def cpu() -> float:
        a, b = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
        return a.ru_utime + a.ru_stime + b.ru_utime + b.ru_stime

    c0, t0 = cpu(), time.monotonic()
    r = guarded(fn, arg)
    return r, t0, time.monotonic(), os.getpid(), cpu() - c0


def warm_up() -> None:
    """Worker initializer: Ctrl-C handled as `worker_signals` says; import
    what a run needs once, before the first task, so start-up is not
    charged to a run's overhead."""
    worker_signals()
    import pyarrow.parquet  # noqa: F401

    from . import api, store  # noqa: F401


class RunFailed(RuntimeError):
    """A run failed (not a worker death): its key and the error."""


def run_local(tasks: list[dict[str, Any]], workers: Optional[int], progress: Optional[Progress], stats: Stats,
              pool: Optional["LocalPool"] = None) -> None:
    """Run `tasks` in a local process pool (`pool`, or one of `workers`
    started for them and closed after)."""
    total, done = len(tasks), [0]

    def on_result(_t: dict[str, Any], r: tuple[str, float, float, bool]) -> None:
        stats.add(r)
        done[0] += 1
        if progress:
            progress(done[0], total)

    jobs = [Job(execute, t, on_result, _run_name(t)) for t in tasks]
    if pool is not None:
        stats.resubmitted += len(pool.run(jobs))
        return
    with LocalPool(min(workers or os.cpu_count() or 1, max(1, len(tasks)))) as own:
        stats.resubmitted += len(own.run(jobs))


def _run_name(t: dict[str, Any]) -> str:
    return f"run {t['run']} (point {t['point']}, replication {t['replication']})"


class Job:
    """One call `fn(arg)` for a worker of a `LocalPool`: `on_result(arg,
    result)` is called in the parent when it completes, and may return
    further jobs, which join the batch (behind the jobs already queued:
    a reproduction's report figures once its runs are judged); `name`
    says what it was in errors and in the pool's log ("run 3f2a… (point
    2, replication 0)"). An error the job raises reaches the caller as
    `RunFailed` naming it, or as raised when `wrap` is False (an
    `Ns2Failed` the CLI reports as such)."""

    __slots__ = ("fn", "arg", "on_result", "name", "wrap")

    def __init__(self, fn: Callable[[Any], Any], arg: Any, on_result: Callable[[Any, Any], None], name: str,
                 wrap: bool = True):
        self.fn, self.arg, self.on_result, self.name, self.wrap = fn, arg, on_result, name, wrap


class LocalPool:
    """Worker processes on this machine that several batches of jobs share
    (a reproduction's runs of every experiment, its ns-2 twins and its
    report's figures), so each worker starts and imports once (numpy,
    pandas, pyarrow: 1-3 s a worker) rather than once per batch. Workers
    are spawned (they start clean: no inherited threads or locks). A
    worker that dies breaks the pool: it is rebuilt and every job not
    finished in it resubmitted, each at most `RETRIES` times; a job that
    raises stops the batch (jobs not started are dropped, jobs running
    finish: each run is written atomically) and its error is raised (see
    `Job`)."""

    def __init__(self, workers: Optional[int] = None):
        self.workers = max(1, workers or os.cpu_count() or 1)
        self._pool: Any = None
        # Every job completed: (name, start, end, worker pid, CPU s),
        # monotonic seconds (`timed`); and when the first batch was
        # submitted. How busy the workers were (`busy`) is read from these.
        self.log: list[tuple[str, float, float, int, float]] = []
        self.t_start: Optional[float] = None

    def __enter__(self) -> "LocalPool":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close(cancel=exc[0] is not None)

    def _get(self) -> Any:
        if self._pool is None:
            import multiprocessing as mp
            from concurrent.futures import ProcessPoolExecutor

            self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=mp.get_context("spawn"),
                                             initializer=warm_up)
        return self._pool

    def start(self) -> None:
        """Start the workers now (each imports what a run needs in
        `warm_up`), so that they are ready when the first batch comes:
        the caller plans it meanwhile."""
        pool = self._get()
        with spawning():
            for _ in range(self.workers):
                pool.submit(int)  # a worker is spawned per job submitted while none is idle

    def close(self, cancel: bool = False) -> None:
        if self._pool is not None:
            pool, self._pool = self._pool, None
            pool.shutdown(wait=True, cancel_futures=cancel)

    def run(self, jobs: list[Job], on_retry: Optional[Callable[[Job], None]] = None) -> list[Job]:
        """Run `jobs` (and the jobs their `on_result` adds) to the end, in
        the order given (a worker takes the next job when it finishes
        one); returns the jobs resubmitted after a worker died (once per
        resubmission), each also passed to `on_retry` when it is
        resubmitted. Ctrl-C is raised here between results (see
        `deferred_interrupts`)."""
        with deferred_interrupts() as check:
            return self._run(list(jobs), on_retry, check)

    def busy(self, since: Optional[float] = None, until: Optional[float] = None) -> dict[str, float]:
        """How busy the workers were from `since` (default: the first
        submission) to `until` (default: now): the span, the seconds of
        jobs run in it, and the fraction of `workers` × span they filled."""
        t0 = self.t_start if since is None else since
        t1 = time.monotonic() if until is None else until
        if t0 is None or t1 <= t0:
            return {"span_s": 0.0, "jobs_s": 0.0, "busy": 0.0}
        s = sum(max(0.0, min(b, t1) - max(a, t0)) for _, a, b, _, _ in self.log)
        return {"span_s": t1 - t0, "jobs_s": s, "busy": s / (self.workers * (t1 - t0))}

    @staticmethod
    def _submit(pool: Any, jobs: list[Job], idx: list[int], futs: dict[Any, int], done: "Done") -> list[int]:
        """Submit jobs `idx` to `pool` with SIGINT blocked (`spawning`: a
        worker may start); returns those not submitted because the pool
        broke."""
        from concurrent.futures.process import BrokenProcessPool

        with spawning():
            for k, i in enumerate(idx):
                try:
                    f = pool.submit(timed, jobs[i].fn, jobs[i].arg)
                except BrokenProcessPool:
                    return idx[k:]
                futs[f] = i
                done.add(f)
        return []

    def _run(self, jobs: list[Job], on_retry: Optional[Callable[[Job], None]],
             check: Callable[[], None]) -> list[Job]:
        from concurrent.futures.process import BrokenProcessPool

        attempts = [0] * len(jobs)
        pending = list(range(len(jobs)))
        resubmitted: list[Job] = []
        if self.t_start is None:
            self.t_start = time.monotonic()
        while pending:
            lost: list[int] = []
            try:
                pool = self._get()
                futs: dict[Any, int] = {}
                done = Done(check)
                # Not submitted (the pool broke: a worker died, also one
                # started early by `start`) counts as lost: a new pool.
                lost += self._submit(pool, jobs, sorted(pending), futs, done)
                pending = []
                for f in done:
                    i = futs.pop(f)
                    try:
                        result, t0, t1, pid, cpu = f.result()
                    except BrokenProcessPool:
                        lost.append(i)
                        continue
                    except Exception as e:  # the job itself failed: stop the batch
                        for g in futs:
                            g.cancel()
                        if not jobs[i].wrap:
                            raise
                        raise RunFailed(f"{jobs[i].name}: {e}") from e
                    self.log.append((jobs[i].name, t0, t1, pid, cpu))
                    more = list(jobs[i].on_result(jobs[i].arg, result) or ())
                    for j in more:
                        jobs.append(j)
                        attempts.append(0)
                    lost += self._submit(pool, jobs, list(range(len(jobs) - len(more), len(jobs))), futs, done)
                check()  # a Ctrl-C pressed as the pool broke wins over a retry
            except BaseException:
                # Interrupted (Ctrl-C, SIGTERM) or failed: jobs not started
                # are dropped, jobs in progress finish (each run is atomic).
                self.close(cancel=True)
                raise
            if lost:
                self.close()  # broken: the next round starts a new one
            for i in sorted(lost):
                attempts[i] += 1
                if attempts[i] > RETRIES:
                    raise RunFailed(f"{jobs[i].name}: its worker died {attempts[i]} times")
                resubmitted.append(jobs[i])
                if on_retry:
                    on_retry(jobs[i])
                pending.append(i)
        return resubmitted


def as_done(futs: Iterable[Any], check: Callable[[], None], poll_s: float = 0.05) -> Iterator[Any]:
    """`futs` as they complete, `check()` called between them (and every
    `poll_s` while none does). One done-callback each: O(1) a result, where
    `concurrent.futures.wait` locks every pending future each time."""
    done = Done(check, poll_s)
    for f in futs:
        done.add(f)
    return iter(done)


class Done:
    """Futures as they complete (`as_done`), to which more may be `add`ed
    while iterating (a job's result adding jobs to its batch)."""

    def __init__(self, check: Callable[[], None], poll_s: float = 0.05):
        import queue

        self._q: "queue.SimpleQueue[Any]" = queue.SimpleQueue()
        self._n = 0
        self._check, self._poll_s = check, poll_s

    def add(self, f: Any) -> None:
        self._n += 1
        f.add_done_callback(self._q.put)

    def __iter__(self) -> Iterator[Any]:
        import queue

        while self._n:
            self._check()
            try:
                f = self._q.get(timeout=self._poll_s)
            except queue.Empty:
                continue
            self._n -= 1
            yield f


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
