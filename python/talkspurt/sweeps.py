"""Parameter sweeps: a `[sweep]` table expands one scenario into many runs.

```toml
[sweep]
replications = 5                        # runs per point, seeds derived below
grid = { "links[1].delay" = ["25ms", "50ms", "100ms"], "calls[0].codec" = ["G.711", "G.729"] }
zip = { "links[1].rate" = ["300kbps", "600kbps"], "calls[0].count" = [4, 8] }
list = [ { "links[1].loss.p" = 0.0 }, { "links[1].loss.p" = 0.01 } ]
```

- `grid`: every combination of the axes' values (Cartesian product);
- `zip`: axes of equal length varied together (the i-th values at once);
- `list`: explicit points, each a table of key path → value;
- the three combine as a product: points = grid × zip × list (an absent
  kind counts as one point with no overrides); a key path may appear in one
  kind only.

Replication r of every point runs with seed `derive_seed(run.seed, r)`:
replication 0 keeps the scenario's seed, so a one-replication sweep point
equals `talkspurt run` with the same overrides; the same replication uses
the same seed at every point (common random numbers, which make
differences between points less noisy; docs/sweeps.md).

A sweep may also live in its own file: `[sweep] scenario = "base.toml"`
names the base scenario (relative to the sweep file) and the file holds
nothing else.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from ._core import ScenarioError
from . import overrides as _ov
from .scenario import _error, load_scenario, read_scenario_file

if TYPE_CHECKING:
    from .scenario import ScenarioLike

SWEEP_KEYS = ("scenario", "replications", "grid", "zip", "list")
MAX_RUNS = 1_000_000


def derive_seed(base: int, replication: int) -> int:
    """Seed of replication `replication` (0 keeps `base`): SplitMix64's
    output function on `base + r·golden gamma`, the standard way to derive
    independent 64-bit seeds from one (Steele, Lea & Flood, OOPSLA 2014)."""
    if replication == 0:
        return base
    z = (base + replication * 0x9E3779B97F4A7C15) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
    return z ^ (z >> 31)


@dataclass
class RunSpec:
    """One run of a sweep: the point's overrides, replication and seed, the
    resolved scenario (JSON text the core accepts) and its key."""

    index: int
    point: int
    replication: int
    seed: int
    params: dict[str, Any]
    scenario_json: str = field(repr=False)
    run_id: str = ""
    # The document as written (overrides and seed applied), which the worker
    # runs: Python-side tables such as `speech = { model = "vad" }` are
    # resolved there and stay readable in the run's manifest.
    source_json: str = field(default="", repr=False)


@dataclass
class Sweep:
    base: dict[str, Any]
    grid: dict[str, list[Any]]
    zip: dict[str, list[Any]]
    list: list[dict[str, Any]]
    replications: int
    origin: str = ""

    @property
    def axes(self) -> list[str]:
        """Swept key paths, in the order they appear (grid, zip, list)."""
        seen: dict[str, None] = {}
        for k in itertools.chain(self.grid, self.zip, *[p.keys() for p in self.list]):
            seen.setdefault(k, None)
        return list(seen)

    def points(self) -> list[dict[str, Any]]:
        grid = [dict(zip(self.grid, combo)) for combo in itertools.product(*self.grid.values())] or [{}]
        n = len(next(iter(self.zip.values()))) if self.zip else 0
        zipped = [{k: v[i] for k, v in self.zip.items()} for i in range(n)] or [{}]
        listed = [dict(p) for p in self.list] or [{}]
        return [{**g, **z, **p} for g in grid for z in zipped for p in listed]

    def spec(self) -> dict[str, Any]:
        return {"replications": self.replications, "grid": self.grid, "zip": self.zip, "list": self.list}

    def runs(self) -> list[RunSpec]:
        """Every run, validated (a bad value fails here, naming its key path,
        before anything runs), with its key: the SHA-256 of the normalized
        scenario as run (seed included)."""
        from . import _core
        from .scenario import to_json

        base_seed = _validated_seed(self.base)
        checked: set[bool] = set()
        out: list[RunSpec] = []
        for p, params in enumerate(self.points()):
            doc = json.loads(json.dumps(self.base))
            try:
                _ov.apply(doc, {k: v for k, v in params.items() if k != LABEL})
                _ov.drop_empty_groups(doc)
                _require_audio(doc, checked)
                for r in range(self.replications):
                    seed = derive_seed(base_seed, r)
                    doc.setdefault("run", {})["seed"] = seed
                    normalized = _core.validate(to_json(doc))
                    run_id = run_key(normalized)
                    out.append(RunSpec(len(out), p, r, seed, params, normalized, run_id, json.dumps(doc, default=str)))
            except ScenarioError as e:
                raise _at_point(e, p, params) from None
        return out


def _at_point(e: ScenarioError, p: int, params: Mapping[str, Any]) -> ScenarioError:
    """`e`, raised by sweep point `p`, saying which point: its label and
    the setting that failed (or all its settings if none names the key)."""
    path = getattr(e, "path", "")
    label = f" {json.dumps(params[LABEL])}" if LABEL in params else ""
    mine = {k: v for k, v in params.items() if k != LABEL and path and (path == k or path.startswith(k + ".") or path.startswith(k + "["))}
    shown = mine or {k: v for k, v in params.items() if k != LABEL}
    text = ", ".join(f"{k} = {json.dumps(v, default=str)}" for k, v in shown.items())
    if len(text) > 200:
        text = text[:197] + "..."
    out = ScenarioError(f"{e} (sweep point {p}{label}{': ' + text if text else ''})")
    out.path, out.value, out.allowed = path, getattr(e, "value", ""), getattr(e, "allowed", "")
    return out


def _require_audio(doc: Mapping[str, Any], checked: set[bool]) -> None:
    """The audio extra, when the point asks for `[analysis] audio`: missing,
    the sweep stops here, before its store is written, rather than failing
    every run after it (`checked` holds the stoi flags already checked)."""
    analysis = doc.get("analysis")
    if not isinstance(analysis, Mapping) or "audio" not in analysis:
        return
    from .audio.config import parse, require_extra

    stoi = parse(analysis["audio"]).stoi
    if stoi not in checked:
        require_extra(stoi)
        checked.add(stoi)


# A list point may name itself: `label` is not a key path (no scenario has
# a top-level `label`) but the point's name, stored as the `label` column,
# so a figure's legend reads "TFRC SP" rather than a transport table.
LABEL = "label"


def _check_labels(listed: list) -> None:
    labels = [p.get(LABEL) for p in listed if isinstance(p, Mapping)]
    if not any(v is not None for v in labels):
        return
    for i, v in enumerate(labels):
        if not isinstance(v, str) or not v.strip():
            raise _error(f"sweep.list[{i}].{LABEL}", json.dumps(v),
                         "a non-empty string in every list point once one point has a label")
    for i, v in enumerate(labels):
        first = labels.index(v)
        if first < i:  # the second point to use it is the one named
            raise _error(f"sweep.list[{i}].{LABEL}", json.dumps(v),
                         f"a label used by one list point only (sweep.list[{first}] has it already)")


def run_key(normalized_json: str) -> str:
    """The run's key: SHA-256 of its normalized scenario in canonical JSON."""
    canon = json.dumps(json.loads(normalized_json), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canon.encode()).hexdigest()[:20]


def _validated_seed(doc: Mapping[str, Any]) -> int:
    from . import _core
    from .scenario import to_json

    norm = json.loads(_core.validate(to_json(doc)))
    return int(norm["run"]["seed"])


def _axis_values(path: str, v: Any) -> list[Any]:
    if not isinstance(v, list) or not v:
        raise _error(path, json.dumps(v) if not isinstance(v, list) else "[]", "a non-empty list of values")
    return v


def parse(doc: Mapping[str, Any], origin: Union[str, os.PathLike, None] = None) -> Sweep:
    """The `[sweep]` table of `doc` and the base scenario (`doc` without it,
    or the file `[sweep] scenario` names)."""
    raw = doc.get("sweep")
    if not isinstance(raw, Mapping):
        raise _error("sweep", "no [sweep] table" if raw is None else json.dumps(raw, default=str),
                     "a [sweep] table with grid, zip or list axes (docs/sweeps.md)")
    for k in raw:
        if k not in SWEEP_KEYS:
            raise _error(f"sweep.{k}", "unknown key", f"one of the keys {', '.join(SWEEP_KEYS)}")
    base = {k: v for k, v in doc.items() if k != "sweep"}
    if "scenario" in raw:
        ref = raw["scenario"]
        if not isinstance(ref, str) or not ref:
            raise _error("sweep.scenario", json.dumps(ref), "a path to the base scenario file")
        if base:
            raise _error(sorted(base)[0], "a scenario key beside [sweep] scenario = …",
                         "either a [sweep] table in a scenario file or a sweep file naming its scenario")
        p = Path(ref)
        if origin is not None and not p.is_absolute():
            p = Path(origin).parent / p
        if not p.is_file():
            raise _error("sweep.scenario", json.dumps(ref), "a path to an existing scenario file (relative to the sweep file)")
        base = read_scenario_file(p)
        base.pop("sweep", None)
    reps = raw.get("replications", 1)
    if not isinstance(reps, int) or isinstance(reps, bool) or not 1 <= reps <= 100_000:
        raise _error("sweep.replications", json.dumps(reps), "an integer from 1 to 100000")
    grid, zipped, listed = raw.get("grid", {}), raw.get("zip", {}), raw.get("list", [])
    for name, t in (("grid", grid), ("zip", zipped)):
        if not isinstance(t, Mapping):
            raise _error(f"sweep.{name}", json.dumps(t, default=str), "a table of key path = [values]")
    if not isinstance(listed, list) or not all(isinstance(p, Mapping) for p in listed):
        raise _error("sweep.list", json.dumps(listed, default=str), "a list of tables of key path = value")
    _check_labels(listed)
    owner: dict[str, str] = {}
    for name, keys in (("grid", list(grid)), ("zip", list(zipped)),
                       ("list", sorted({k for p in listed for k in p} - {LABEL}))):
        for k in keys:
            where = f"sweep.{name}.{k}" if name != "list" else f"sweep.list[].{k}"
            try:
                _ov.parse_path(k)
            except ScenarioError as e:
                raise _error(where, json.dumps(k), e.allowed) from None
            if k in owner and owner[k] != name:
                raise _error(where, f"also in sweep.{owner[k]}", "each key path in one of grid, zip or list")
            owner[k] = name
    g = {k: _axis_values(f"sweep.grid.{k}", v) for k, v in grid.items()}
    z = {k: _axis_values(f"sweep.zip.{k}", v) for k, v in zipped.items()}
    lens = {len(v) for v in z.values()}
    if len(lens) > 1:
        sizes = ", ".join(f"{k}: {len(v)}" for k, v in z.items())
        raise _error("sweep.zip", f"axes of different lengths ({sizes})", "zip axes of equal length")
    points = max(1, _prod(len(v) for v in g.values())) * max(1, lens.pop() if lens else 1) * max(1, len(listed))
    if points * reps > MAX_RUNS:
        raise _error("sweep", f"{points * reps} runs", f"at most {MAX_RUNS} runs")
    return Sweep(base=base, grid=g, zip=z, list=[dict(p) for p in listed], replications=reps,
                 origin=str(origin) if origin is not None else "")


def _prod(xs) -> int:
    out = 1
    for x in xs:
        out *= x
    return out


def load_sweep(source: Union[ScenarioLike, Path], extra: Optional[Mapping[str, Any]] = None) -> Sweep:
    """Read a sweep from a file (its `[sweep]` table) or a mapping;
    `extra` overrides (`--set`) apply to the base scenario."""
    origin = None
    if isinstance(source, (str, os.PathLike)) and Path(os.fspath(source)).is_file():
        origin = Path(os.fspath(source))
        doc = read_scenario_file(origin)
    else:
        doc = load_scenario(source)
    base_extra = {}
    for k, v in (extra or {}).items():
        if k == "sweep" or k.startswith("sweep."):
            doc = dict(doc)
            doc["sweep"] = _set_sweep_key(doc.get("sweep"), k, v)
        else:
            base_extra[k] = v
    sw = parse(doc, origin)
    if base_extra:
        _ov.apply(sw.base, base_extra)
    return sw


def _set_sweep_key(table: Any, key: str, value: Any) -> Any:
    """`--set sweep.KEY=VALUE` on the `[sweep]` table: `sweep.replications=10`,
    `sweep.grid.<key path>=[…]` (the rest of the key is the axis' key path:
    `sweep.grid.links[1].delay=["25ms","50ms"]`), likewise `sweep.zip.…`,
    `sweep.list=[…]`; `null` removes the key or axis."""
    import copy

    t = copy.deepcopy(dict(table)) if isinstance(table, Mapping) else {}
    rest = key[len("sweep."):] if key.startswith("sweep.") else ""
    if not rest:
        raise _error(key, json.dumps(value, default=str), "a key of [sweep]: sweep.replications, sweep.grid.<key path>, "
                                                          "sweep.zip.<key path>, sweep.list, sweep.scenario")
    head, _, axis = rest.partition(".")
    if head.startswith("list["):
        return _set_list_point(t, key, head, axis, value)
    if head in ("grid", "zip") and axis:
        axes = dict(t.get(head) or {})
        if value is None:
            axes.pop(axis, None)
        else:
            axes[axis] = value
        t[head] = axes
        return t
    if head not in SWEEP_KEYS or axis:
        raise _error(key, json.dumps(value, default=str), f"a key of [sweep]: one of {', '.join(SWEEP_KEYS)} "
                                                          "(axes as sweep.grid.<key path> or sweep.zip.<key path>, "
                                                          "a list point's key as sweep.list[N].<key path or label>)")
    if value is None:
        t.pop(head, None)
    else:
        t[head] = value
    return t


def _set_list_point(t: dict, key: str, head: str, axis: str, value: Any) -> dict:
    """`--set sweep.list[N].<key path>=VALUE` (or `.label`): one key of list
    point N (from 0); `null` removes it. `sweep.list[N]=VALUE` replaces the
    point (a table)."""
    listed = t.get("list")
    n = len(listed) if isinstance(listed, list) else 0
    idx = head[len("list["):-1] if head.endswith("]") else ""
    if not idx.isdigit():
        raise _error(key, json.dumps(value, default=str), "sweep.list[N].<key path or label> with N an index "
                                                          "from 0 (e.g. sweep.list[1].label)")
    i = int(idx)
    if i >= n:
        raise _error(f"sweep.list[{i}]", "no such point", f"an index from 0 to {n - 1} (the file's [sweep] list "
                     f"has {n} point{'s' if n != 1 else ''}; --set sweep.list=[…] replaces the list)" if n else
                     "a point of the file's [sweep] list, which has none (--set sweep.list=[…] gives one)")
    points = list(listed)
    if not axis:
        points[i] = value
    else:
        point = dict(points[i]) if isinstance(points[i], Mapping) else {}
        if value is None:
            point.pop(axis, None)
        else:
            point[axis] = value
        points[i] = point
    t["list"] = points
    return t


def sweep(
    source: Union[ScenarioLike, Sweep],
    output: Union[str, os.PathLike],
    *,
    overrides: Optional[Mapping[str, Any]] = None,
    executor: Any = "local",
    workers: Optional[int] = None,
    trace: Optional[bool] = None,
    progress: Optional[Callable[[int, int], None]] = None,
    force: bool = False,
):
    """Run every run of a sweep into the results store `output`; return it
    read back (`store.SweepResults`).

    `source` is a file with a `[sweep]` table (or a sweep file naming its
    scenario), a mapping, or a `Sweep`. `overrides` apply to the base
    scenario; `executor` is "local" (a process pool of `workers`, default
    one per core), "dask" (a LocalCluster), "dask://host:port" or a
    `distributed.Client`; `trace=False` skips the per-packet tables;
    `progress(done, total)` is called as runs complete. Runs already in
    `output` (same keys) are skipped: an interrupted sweep resumes.
    """
    from . import executors, store

    sw = source if isinstance(source, Sweep) else load_sweep(source, overrides)
    if isinstance(source, Sweep) and overrides:
        _ov.apply(sw.base, overrides)
    kind, address = executors.parse_executor(executor)  # a bad executor fails before any work
    session = Session(sw, output, executor=executor, workers=workers, trace=trace, progress=progress)
    # An unreachable scheduler fails here, before the store is touched.
    client = executors.connect(address) if kind == "dask" and isinstance(address, str) and address != "local" else None
    try:
        session.open(force)
        try:
            stats = executors.run_tasks(session.todo, client if client is not None else executor, workers,
                                        session.on_done)
        except BaseException as e:
            session.end(error=e)
            raise
        session.end(stats)
    finally:
        if client is not None:
            client.close()
    return store.load(session.out)


class Session:
    """One session of a sweep on its store, in steps, so that a caller can
    run the tasks of several sweeps on one pool (`talkspurt reproduce`):
    the runs planned and validated (here), the store opened and the tasks
    still to run listed (`open`), their completions counted (`on_done`),
    and the session recorded in the manifest (`end`)."""

    def __init__(self, sw: Sweep, output: Union[str, os.PathLike], *, executor: Any = "local",
                 workers: Optional[int] = None, trace: Optional[bool] = None,
                 progress: Optional[Callable[[int, int], None]] = None):
        from . import store
        from .versions import versions as host_versions

        self.sweep, self.out = sw, Path(output)
        self.trace, self.progress = trace, progress
        self.runs = sw.runs()
        self.manifest = store.manifest_for(sw, self.runs, host_versions())
        self.todo: list[dict[str, Any]] = []
        self.unique = len({r.run_id for r in self.runs})
        self.finished = 0
        self.record: dict[str, Any] = {"executor": executor if isinstance(executor, str) else type(executor).__name__,
                                       "workers": workers}

    def open(self, force: bool = False) -> None:
        import time
        from datetime import datetime, timezone

        from . import store

        done = store.prepare(self.out, self.manifest, force)
        seen = set(done)
        for r in self.runs:
            if r.run_id not in seen:
                seen.add(r.run_id)
                self.todo.append(store.task_for(r, self.out, self.manifest["axes"], self.trace,
                                                self.manifest["axis_numbers"]))
        self.record = {"started_utc": datetime.now(timezone.utc).isoformat(timespec="seconds"), **self.record,
                       "runs_resumed": self.unique - len(self.todo)}
        self._t0 = time.perf_counter()
        if self.progress:
            self.progress(self.unique - len(self.todo), self.unique)

    def on_done(self, done: int, _total: int) -> None:
        self.finished = done
        if self.progress:
            self.progress(self.unique - len(self.todo) + done, self.unique)

    def end(self, stats: Any = None, error: Optional[BaseException] = None) -> None:
        """Record the session: its wall time and what ran, or, after Ctrl-C,
        SIGTERM or a failed run, that it was interrupted (runs complete so
        far are kept) — and remove .tmp/."""
        import time

        from . import store

        rec = dict(self.record, wall_time_s=time.perf_counter() - self._t0)
        if error is not None:
            rec.update(runs_executed=self.finished, interrupted=type(error).__name__)
        else:
            rec.update(runs_executed=len(self.todo), **stats.summary())
        store.finish(self.out, rec)


def plan(sw: Sweep, output: Union[str, os.PathLike, None] = None) -> dict[str, Any]:
    """What `sweep` would do, without doing it (`talkspurt sweep --dry-run`):
    the points with their values, the run count, and how many runs the
    store `output` already holds."""
    runs = sw.runs()
    unique = {r.run_id for r in runs}
    done: set[str] = set()
    if output is not None and (Path(output) / "runs").is_dir():
        done = {p.name for p in (Path(output) / "runs").iterdir() if p.is_dir()} & unique
    return {"points": sw.points(), "replications": sw.replications, "runs": len(runs), "unique_runs": len(unique),
            "already_done": len(done), "to_run": len(unique) - len(done)}


__all__ = ["Sweep", "RunSpec", "derive_seed", "load_sweep", "parse", "plan", "run_key", "sweep", "ScenarioError"]
