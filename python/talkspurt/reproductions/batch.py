"""Reproductions on one pool of local workers (`run_all` with the local
executor): every bundle's sweep runs and ns-2 twins as one batch, longest
first, and each bundle's report figures joining the batch as soon as its
last run is in and it is judged, so that the workers stay busy until the
last figure: while one bundle's long jobs finish, another's runs or
figures fill the other worker.

Per bundle, the outputs are those of a reproduction of that bundle alone:
the same stores (each experiment's session ends when its last run is
written), the same twins' outputs, the same comparison, doc and report.
"""

from __future__ import annotations

import json
from typing import Any, Callable, Optional

from ..executors import Job, LocalPool, Stats, _run_name, execute
from .ns2 import describe as ns2_describe, pending as ns2_pending, run_job as ns2_run_job, values as ns2_values


def run_on_pool(pool: LocalPool, repros: list[Any]) -> None:
    """Run the prepared reproductions `repros` (`reproductions.Repro`) to
    their outputs on `pool`."""
    from . import finish, judge_all, start
    from .report import figure_specs, render

    first: list[Job] = []  # the twins: about a minute each at full scale (seed 002)
    runs: list[tuple[float, int, Job]] = []
    later: list[Job] = []  # figures of bundles with nothing left to run
    open_: list[Any] = []  # sessions to end (interrupted) if the batch stops
    by_out: dict[str, tuple[Any, Stats]] = {}

    def figures(r: Any) -> list[Job]:
        """Judge `r` (its runs and twins are all in) and return the jobs
        that draw its report's figures; the last one to complete writes
        the report."""
        from ..store import load as load_store

        stores = {name: load_store(sess.out) for name, sess in r.sessions.items()}
        ns2_vals = ns2_values(r.b, r.twins, r.ns2_dir, r.quick) if r.twins else {}
        judge_all(r, stores, ns2_vals)
        if not r.report:
            finish(r)
            return []
        specs = figure_specs(r.rows)
        if not specs:
            finish(r, [])
            return []
        pngs: list[Any] = [None] * len(specs)
        left = [len(specs)]

        def got(arg: tuple[int, Any], png: Any) -> None:
            pngs[arg[0]] = png
            left[0] -= 1
            if not left[0]:
                finish(r, pngs)

        return [Job(render, (i, (kind, what)), got, f"figure {i} of {r.b.id}'s report")
                for i, (kind, what, _, _) in enumerate(specs)]

    try:
        for r in repros:
            start(r)
            left = [0]

            def one_done(r: Any = r, left: list[int] = left) -> list[Job]:
                left[0] -= 1
                return figures(r) if not left[0] else []

            todo, total = ns2_pending(r.b, r.twins, r.ns2_dir, r.quick) if r.twins else ([], 0)
            if total:
                done = [total - len(todo)]
                cb = r.progress

                def twin_done(_arg: Any, _name: str, done: list[int] = done, total: int = total,
                              cb: Optional[Callable[[str, int, int], None]] = cb,
                              one_done: Callable[[], list[Job]] = one_done) -> list[Job]:
                    done[0] += 1
                    if cb:
                        cb("ns-2", done[0], total)
                    return one_done()

                if cb:
                    cb("ns-2", done[0], total)
                first += [Job(ns2_run_job, t, twin_done, ns2_describe(t), wrap=False) for t in todo]
                left[0] += len(todo)
            for sess in r.sessions.values():
                sess.open(r.force)
                open_.append(sess)
                stats = Stats()
                by_out[str(sess.out)] = (sess, stats)
                if not sess.todo:
                    sess.end(stats)
                    open_.remove(sess)

                def run_done(task: dict[str, Any], result: Any, one_done: Callable[[], list[Job]] = one_done) -> list[Job]:
                    sess, stats = by_out[task["out"]]
                    stats.add(result)
                    sess.on_done(sess.finished + 1, len(sess.todo))
                    if sess.finished == len(sess.todo):
                        sess.end(stats)
                        open_.remove(sess)
                    return one_done()

                for t in sess.todo:
                    runs.append((cost(t), len(runs), Job(execute, t, run_done, _run_name(t))))
                left[0] += len(sess.todo)
            if not left[0]:  # everything resumed: judge now, draw with the others' jobs
                later += figures(r)
        runs.sort(key=lambda x: (-x[0], x[1]))

        def retried(j: Job) -> None:  # a killed run is charged to its experiment's session
            if j.fn is execute:
                by_out[j.arg["out"]][1].resubmitted += 1

        pool.run(first + [j for _, _, j in runs] + later, retried)
    except BaseException as e:
        for sess in open_:
            sess.end(error=e)
        raise


def cost(task: dict[str, Any]) -> float:
    """A run's expected cost, to start the longest first: the simulated
    seconds times the packets a second its calls and flows send (calls
    × 1 / ptime, greedy flows weighted as 10 calls), from its resolved
    scenario. Only the order of the batch depends on it."""
    doc = json.loads(task["scenario_json"])
    secs = _seconds(doc.get("run", {}).get("duration", "0s"))
    load = 0.0
    for c in doc.get("calls", []) or []:
        ptime = _seconds(c.get("ptime", "20ms")) or 0.02
        load += int(c.get("count", 1)) / ptime
    for f in doc.get("flows", []) or []:
        load += 10 * int(f.get("count", 1)) / 0.02
    audio = 2.0 if "audio" in (doc.get("analysis") or {}) else 1.0
    return secs * max(load, 1.0) * audio


def _seconds(v: Any) -> float:
    if isinstance(v, (int, float)):
        return float(v)
    s = str(v).strip()
    for unit, f in (("ms", 1e-3), ("us", 1e-6), ("min", 60.0), ("h", 3600.0), ("s", 1.0)):
        if s.endswith(unit):
            try:
                return float(s[: -len(unit)]) * f
            except ValueError:
                return 0.0
    try:
        return float(s)
    except ValueError:
        return 0.0
