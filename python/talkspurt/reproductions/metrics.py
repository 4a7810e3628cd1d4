"""What a bundle entry measures: one number per run, from the run's tables.

`metric = "TABLE.COLUMN"` reads a column of a store table (calls, groups,
links, traffic, bursts, talkspurts, series) over the rows `where` selects,
aggregated with `agg`. A name without a dot is a *derived* metric: a
function registered here with `@derived("name")`, given one run's tables
and the selection; seeds add theirs in `metrics_<seed>.py` next to this
file (imported below), so a bundle needs no code of its own.
"""

from __future__ import annotations

import importlib
import math
import pkgutil
from typing import Any, Callable, Mapping, Optional

import numpy as np
import pandas as pd

from ..scenario import _error

DerivedFn = Callable[["RunTables", Mapping[str, Any], Mapping[str, Any]], float]
_DERIVED: dict[str, DerivedFn] = {}


def derived(name: str) -> Callable[[DerivedFn], DerivedFn]:
    """Register a derived metric: `fn(tables, where, params) -> float` for
    one run (NaN when the run has nothing to measure)."""

    def reg(fn: DerivedFn) -> DerivedFn:
        if name in _DERIVED and _DERIVED[name] is not fn:
            raise ValueError(f"derived metric {name!r} registered twice")
        _DERIVED[name] = fn
        return fn

    return reg


def known_derived() -> list[str]:
    _load_plugins()
    return sorted(_DERIVED)


_plugins_loaded = False


def _load_plugins() -> None:
    global _plugins_loaded
    if _plugins_loaded:
        return
    from . import __path__ as here

    for m in pkgutil.iter_modules(here):
        if m.name.startswith("metrics_"):
            importlib.import_module(f"{__package__}.{m.name}")
    _plugins_loaded = True  # only once all loaded: a failing one fails every time, by name


class RunTables:
    """One run's rows of every table of an experiment's store."""

    def __init__(self, store: Any, run: str):
        self._store, self.run = store, run

    def get(self, name: str) -> Optional[pd.DataFrame]:
        df = _table(self._store, name)
        if df is None:
            return None
        by_run = _cached(df, ("by_run",), lambda: {r: g for r, g in df.groupby("run", sort=False, observed=True)})
        return by_run.get(self.run, df.iloc[0:0])


# Work derived from a store's tables, done once per table rather than once
# per entry (a bundle has hundreds of entries over one calls table): the
# table's rows per run, and its columns as text. Keyed by the frame's id,
# with the frame kept alive beside its entries so the id stays its own.
_CACHE: dict[int, tuple[pd.DataFrame, dict[Any, Any]]] = {}


def _cached(df: pd.DataFrame, key: Any, make: Callable[[], Any]) -> Any:
    slot = _CACHE.setdefault(id(df), (df, {}))
    if slot[0] is not df:  # an id reused after its frame was freed
        slot = _CACHE[id(df)] = (df, {})
    if key not in slot[1]:
        slot[1][key] = make()
    return slot[1][key]


def _table(store: Any, name: str) -> Optional[pd.DataFrame]:
    try:
        return store.table(name)
    except KeyError:
        return None


def _columns(df: pd.DataFrame) -> list[str]:
    """Every column of the table `df` was read from (a `Narrow` table
    holds some of them): what an error lists as allowed."""
    return list(df.attrs.get("columns", df.columns))


class Narrow:
    """A sweep store as judging reads it: each table read once, with only
    the columns the bundle's entries select on and measure (identity and
    axes always), or whole when a derived metric reads the experiment (its
    columns are its own). A calls table has ~100 columns; judging reads a
    few. Everything else is the store's."""

    def __init__(self, store: Any, columns: Optional[dict[str, set[str]]]):
        self._store, self._columns, self._frames = store, columns, {}

    def table(self, name: str) -> Optional[pd.DataFrame]:
        if self._columns is None or name not in self._columns:
            return self._store.table(name)
        if name not in self._frames:
            self._frames[name] = self._store.table(name, sorted(self._columns[name]))
        return self._frames[name]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)


def needed_columns(entries: list[Any]) -> dict[str, Optional[dict[str, set[str]]]]:
    """Experiment -> table -> the columns its entries read (None: every
    column of every table, for an experiment a derived metric reads)."""
    out: dict[str, Optional[dict[str, set[str]]]] = {}
    for e in entries:
        sides = [(e.experiment, [e.where])]
        if e.kind in ("less", "greater", "approx"):
            sides = [(e.a_experiment or e.experiment, [e.a]), (e.b_experiment or e.experiment, [e.b])]
        elif e.kind == "order":
            sides = [(e.experiment, e.seq)]
        for exp, wheres in sides:
            if "." not in e.metric:
                out[exp] = None
                continue
            tname, col = e.metric.split(".", 1)
            if exp in out and out[exp] is None:
                continue
            cols = out.setdefault(exp, {}).setdefault(tname, set())  # type: ignore[union-attr]
            cols |= {"run", col, *(k for w in wheres for k in w)}
            if e.agg.startswith("weighted:"):
                cols.add(e.agg.split(":", 1)[1])
            if e.along:
                cols.add(e.along)
    return out


def _same(df: pd.DataFrame, k: str, v: Any) -> np.ndarray:
    """Rows of column `k` equal to `v`: numbers as numbers, the rest as text."""
    col = df[k]
    if isinstance(v, (int, float)) and not isinstance(v, bool) and pd.api.types.is_numeric_dtype(col):
        return np.isclose(col.to_numpy(dtype=float), float(v), rtol=1e-12, atol=0.0)
    if isinstance(v, bool):
        low = _cached(df, ("lower", k), lambda: col.astype(str).str.lower().to_numpy())
        return low == str(v).lower()
    return _cached(df, ("text", k), lambda: col.astype(str).to_numpy()) == str(v)


def select(df: pd.DataFrame, where: Mapping[str, Any], path: str,
           columns: Optional[list[str]] = None) -> pd.DataFrame:
    """The rows of `df` where every column of `where` equals its value (of
    `columns` only, when given: a calls table has ~100 columns, and taking
    rows of all of them was most of the judging's time); an unknown column
    is an error naming the entry's key path."""
    mask = np.ones(len(df), dtype=bool)
    for k, v in where.items():
        if k not in df.columns:
            cols = ", ".join(c for c in _columns(df) if not c.startswith("_"))
            raise _error(f"{path}.{k}", "a column this table does not have", f"one of its columns: {cols}")
        mask &= _same(df, k, v)
    if columns is None:
        return df[mask]
    return pd.DataFrame({c: df[c].array[mask] for c in dict.fromkeys(columns)})


def aggregate(values: pd.Series, agg: str, rows: pd.DataFrame, path: str) -> float:
    v = pd.to_numeric(values, errors="coerce")
    if agg == "count":
        return float(len(v))
    if agg.startswith("weighted:"):
        wcol = agg.split(":", 1)[1]
        if wcol not in rows.columns:
            raise _error(f"{path}.agg", repr(agg), f"weighted:COLUMN with a column of the table ({', '.join(rows.columns)})")
        w = pd.to_numeric(rows[wcol], errors="coerce")
        ok = v.notna() & w.notna()
        tot = float(w[ok].sum())
        return float((v[ok] * w[ok]).sum() / tot) if tot > 0 else math.nan
    v = v.dropna()
    if v.empty:
        return math.nan
    return float(getattr(v, agg)())


def per_run(store: Any, metric: str, where: Mapping[str, Any], agg: str, params: Mapping[str, Any],
            path: str, where_path: str) -> dict[str, float]:
    """The metric's value for every run of the store with selected rows
    (run key -> value), before the entry's `scale`."""
    if "." in metric:
        tname, col = metric.split(".", 1)
        df = _table(store, tname)
        if df is None:
            raise _error(f"{path}.metric", repr(metric), f"TABLE.COLUMN with a table this experiment wrote "
                         "(calls, groups, links, traffic, bursts, talkspurts; packets needs trace = true, "
                         "series needs [run] series = true)")
        if col not in df.columns:
            raise _error(f"{path}.metric", repr(metric), f"a column of {tname}: {', '.join(_columns(df))}")
        wcol = agg.split(":", 1)[1] if agg.startswith("weighted:") else None
        if wcol is not None and wcol not in df.columns:
            raise _error(f"{path}.agg", repr(agg), f"weighted:COLUMN with a column of the table ({', '.join(_columns(df))})")
        rows = select(df, where, where_path, ["run", col] + ([wcol] if wcol else []))
        return {run: aggregate(g[col], agg, g, path) for run, g in rows.groupby("run", sort=False, observed=True)}
    _load_plugins()
    fn = _DERIVED.get(metric)
    if fn is None:
        raise _error(f"{path}.metric", repr(metric), f"TABLE.COLUMN or a derived metric: {', '.join(sorted(_DERIVED))}")
    runs = _selected_runs(store, where, where_path)
    out = {}
    for run in runs:
        x = fn(RunTables(store, run), where, params)
        out[run] = float(x)
    return out


def _selected_runs(store: Any, where: Mapping[str, Any], path: str) -> list[str]:
    """Runs whose calls (or, without calls, whose run list) match `where`
    on the columns the calls table has; the derived metric applies the
    rest of the selection itself."""
    calls = _table(store, "calls")
    if calls is None or calls.empty:
        # An experiment without calls (e.g. cross traffic only): select on
        # the run list's columns (label, swept key paths).
        runs = store.runs
        return list(select(runs, {k: v for k, v in where.items() if k in runs.columns}, path)["run"])
    cols = {k: v for k, v in where.items() if k in calls.columns}
    rows = select(calls, cols, path, ["run"])
    return list(dict.fromkeys(rows["run"]))


def selected_calls(t: RunTables, where: Mapping[str, Any]) -> pd.DataFrame:
    """The run's calls rows that `where` selects (columns it lacks are
    ignored: they belong to another table)."""
    calls = t.get("calls")
    return select(calls, {k: v for k, v in where.items() if k in calls.columns}, "where")


@derived("run_length_mean")
def run_length_mean(t: RunTables, where: Mapping[str, Any], params: Mapping[str, Any]) -> float:
    """Mean length of the back-to-back runs of `params.kind` (`lost` or
    `received`, docs/results.md) pooled over the selected calls: the calls'
    own moments combined exactly (Σ nᵢ·meanᵢ / Σ nᵢ)."""
    n, m, _ = _moments(t, where, params)
    return float((n * m).sum() / n.sum()) if n.sum() else math.nan


@derived("run_length_var")
def run_length_var(t: RunTables, where: Mapping[str, Any], params: Mapping[str, Any]) -> float:
    """Population variance of the run lengths of `params.kind` pooled over
    the selected calls, from each call's count, mean and variance:
    Σ nᵢ(varᵢ + meanᵢ²)/N − mean²."""
    n, m, v = _moments(t, where, params)
    tot = n.sum()
    if not tot:
        return math.nan
    mean = (n * m).sum() / tot
    return float((n * (v + m * m)).sum() / tot - mean * mean)


@derived("run_length_share")
def run_length_share(t: RunTables, where: Mapping[str, Any], params: Mapping[str, Any]) -> float:
    """Share of the runs of `params.kind` at least `params.min` packets
    long, from the bursts histogram (exact below its `run_cap`)."""
    b = t.get("bursts")
    if b is None:
        raise _error("metric", "run_length_share on an experiment without a bursts table", "an experiment whose runs write bursts")
    calls = selected_calls(t, where)
    rows = b[b["call"].isin(calls["call"]) & (b["kind"].astype(str) == str(params.get("kind", "lost")))]
    n = float(rows["runs"].sum())
    return float(rows.loc[rows["length"] >= float(params.get("min", 1)), "runs"].sum() / n) if n else math.nan


def _moments(t: RunTables, where: Mapping[str, Any], params: Mapping[str, Any]) -> tuple[np.ndarray, ...]:
    kind = str(params.get("kind", "lost"))
    if kind not in ("lost", "received"):
        raise _error("params.kind", repr(kind), '"lost" or "received"')
    calls = selected_calls(t, where)
    n = calls[f"{kind}_runs"].to_numpy(dtype=float)
    m = np.nan_to_num(calls[f"{kind}_run_mean"].to_numpy(dtype=float))
    v = np.nan_to_num(calls[f"{kind}_run_var"].to_numpy(dtype=float))
    return n, m, v
