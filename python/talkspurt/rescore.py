"""Score a finished run again under other playout buffers, advantage factors
or analysis settings, without simulating.

The network's behaviour does not depend on the receiver's playout buffer,
so rescoring a run's packet trace gives exactly what a new run under the
other buffer would (tested in the core, `tests/rescore.rs`). Everything is
computed in Rust from the packets table.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Mapping

from . import _core
from .scenario import _error, to_json

TYPE_CHECKING = False  # typing's, without importing typing (scenario.py)
if TYPE_CHECKING:
    from typing import Any, Optional, Union

    from .results import Results

    PlayoutSpec = Union[str, Mapping[str, Any]]

# Columns rescoring does not recompute; carried over from the original run.
_KEPT_PACKET_COLUMNS = ("wire_bytes", "where")
# The calls table's transport and sender columns are not scored: rescoring
# keeps them (the core's list, talkspurt_core::run::report).
_KEPT_CALL_COLUMNS = tuple(_core.TRANSPORT_CALL_COLUMNS)


def _is_string(dtype) -> bool:
    from pandas.api.types import is_string_dtype  # the CLI runs without pandas

    return is_string_dtype(dtype)


def _playout_table(spec: PlayoutSpec, path: str) -> dict[str, Any]:
    if isinstance(spec, str):
        return {"kind": spec}
    if isinstance(spec, Mapping):
        return dict(spec)
    raise _error(path, repr(spec), 'a playout name such as "ramjee-1" or a table like {"kind": "fixed", "delay": "100ms"}')


def _labels(scenario: Mapping[str, Any]) -> list[str]:
    return [g.get("label", f"calls[{i}]") for i, g in enumerate(scenario.get("calls", []))]


def _is_per_group(playout, labels: list[str]) -> bool:
    """A mapping from group labels to buffers (not one playout table)."""
    return isinstance(playout, Mapping) and "kind" not in playout and set(playout) <= set(labels)


def _new_scenario(scenario: dict[str, Any], playout, per_group: bool, advantage, analysis) -> dict[str, Any]:
    import copy  # here: `import talkspurt` need not load it

    s = copy.deepcopy(scenario)
    groups = s.get("calls", [])
    labels = _labels(s)
    if playout is not None:
        for i, g in enumerate(groups):
            if per_group:
                if labels[i] in playout:
                    g["playout"] = _playout_table(playout[labels[i]], f"playout.{labels[i]}")
            else:
                g["playout"] = _playout_table(playout, "playout")
    if advantage is not None:
        for g in groups:
            g["advantage"] = advantage
    if analysis is not None:
        if not isinstance(analysis, Mapping):
            raise _error("analysis", repr(analysis), "a table of [analysis] keys, e.g. {\"rtpi_threshold\": \"200ms\"}")
        s["analysis"] = {**s.get("analysis", {}), **analysis}
    return s


def _user_path(path: str, labels: list[str], per_group: bool) -> str:
    """Map the core's key path in the scenario to the argument the user gave."""
    m = re.match(r"calls\[(\d+)\]\.(playout|advantage)(.*)", path)
    if not m:
        return path
    i, key, rest = int(m.group(1)), m.group(2), m.group(3)
    if key == "playout" and per_group and i < len(labels):
        return f"playout.{labels[i]}{rest}"
    return f"{key}{rest}"


def _le(series, dtype: str) -> bytes:
    import numpy as np

    return np.ascontiguousarray(series.to_numpy(dtype=dtype, na_value=np.nan if dtype == "<f8" else 0)).tobytes()


def rescore(
    results: "Results",
    playout: Optional[PlayoutSpec | Mapping[str, PlayoutSpec]] = None,
    *,
    advantage: Optional[float] = None,
    analysis: Optional[Mapping[str, Any]] = None,
) -> "Results":
    """Score `results` again and return new `Results` (the original is untouched).

    - `playout`: a buffer name (``"ramjee-2"``), a playout table
      (``{"kind": "quantile", "quantile": 0.99}``) for every call group, or a
      mapping from group label to either, for some groups;
    - `advantage`: the E-model advantage factor A for every group;
    - `analysis`: `[analysis]` keys to change (``{"rtpi_threshold": "200ms"}``).

    Needs the per-packet table (run with ``trace=True``, the default).
    Links, traffic and series are the original run's. Bad values raise
    `ScenarioError` naming the argument's key path.

    `results` may be a sweep's store (`talkspurt.load(DIR)`): each run is
    rescored on its own and a `RescoredSweep` comes back, whose `calls`,
    `groups`, `bursts` and `talkspurts` tables lead with each run's identity
    and axes like the store's.
    """
    from .results import Results
    from .store import SweepResults

    if isinstance(results, SweepResults):
        return _rescore_store(results, playout, advantage, analysis)

    packets = results.packets
    if packets is None:
        raise _error("packets", "None", "results with the per-packet table (run with trace=True)")
    scenario = results.manifest["scenario"]
    labels = _labels(scenario)
    per_group = _is_per_group(playout, labels)
    new = _new_scenario(scenario, playout, per_group, advantage, analysis)
    calls = results.calls
    call_cols = {
        "group": [str(x) for x in calls["group"]],
        "codec": [str(x) for x in calls["codec"]],
        "ptime_ms": _le(calls["ptime_ms"], "<f8"),
        "start_s": _le(calls["start_s"], "<f8"),
        "stop_s": _le(calls["stop_s"], "<f8"),
    }
    packet_cols = {k: _le(packets[k], "<u4") for k in ("call", "talkspurt", "frames", "payload_bytes")}
    import pandas as pd

    # By name, so a table read back from Parquet maps the same way.
    fate = pd.Categorical(packets["fate"].astype(str), categories=_core.FATES)
    packet_cols["fate"] = _le(pd.Series(fate.codes).astype("int64") % (2**32), "<u4")
    for k in ("t_generated", "t_sent", "t_arrived"):
        packet_cols[k] = _le(packets[k], "<f8")
    t0 = time.perf_counter()
    try:
        raw = _core.rescore(to_json(new), call_cols, packet_cols, True)
    except _core.ScenarioError as e:
        raise _error(_user_path(e.path, labels, per_group), e.value, e.allowed) from None
    wall = time.perf_counter() - t0
    tables = {k: raw[k] for k in ("calls", "packets", "groups", "bursts", "talkspurts")}
    import copy

    manifest = copy.deepcopy(results.manifest)
    manifest["scenario"] = json.loads(raw["scenario"])
    manifest["rescored"] = {"wall_time_s": wall, "playout": playout, "advantage": advantage, "analysis": analysis}
    out = Results(tables, manifest, base=results)
    # The kept columns go back in one step, at their places in the original
    # table's order: inserting them one by one fragments the frame (pandas'
    # PerformanceWarning), and a loaded sweep run's tables lead with its
    # identity columns, so an index into the original can exceed the new
    # table's width (issue 25: "loc must be an integer between -14 and 14").
    out._frames["calls"] = _with_kept(calls, out.calls, _KEPT_CALL_COLUMNS, string_like=out.calls["codec"].dtype)
    out._frames["packets"] = _with_kept(packets, out.packets, _KEPT_PACKET_COLUMNS)
    return out


def _with_kept(old, new, kept, string_like=None):
    """`new` with the columns `kept` of `old` it lacks, placed after the
    column that precedes each in `old` (or last)."""
    import pandas as pd

    add = {}
    for k in kept:
        if k in old.columns and k not in new.columns:
            col = old[k]
            if string_like is not None and _is_string(col.dtype):
                # A loaded table's strings may carry another missing-value
                # convention: take the fresh table's string dtype.
                col = col.astype(string_like)
            add[k] = col.values
    if not add:
        return new
    order = list(new.columns)
    for k in add:
        before = list(old.columns)[: list(old.columns).index(k)]
        anchor = next((c for c in reversed(before) if c in order), None)
        order.insert(order.index(anchor) + 1 if anchor is not None else 0, k)
    both = pd.concat([new, pd.DataFrame(add, index=new.index)], axis=1)
    return both[order]


class RescoredSweep:
    """A sweep's runs rescored (`rescore(store, …)`): the per-run tables
    concatenated, each row with its run's identity and axes."""

    TABLES = ("calls", "groups", "bursts", "talkspurts")

    def __init__(self, tables: dict[str, Any], axes: list[str]):
        self._tables = tables
        self.axes = axes

    def __getattr__(self, name: str):
        if name in RescoredSweep.TABLES:
            return self._tables.get(name)
        raise AttributeError(name)

    def __repr__(self) -> str:
        n = 0 if self.calls is None else self.calls["run"].nunique()
        return f"<RescoredSweep: {n} runs, axes {self.axes}>"


def _rescore_store(store, playout, advantage, analysis) -> RescoredSweep:
    import pandas as pd

    parts: dict[str, list] = {k: [] for k in RescoredSweep.TABLES}
    for ident, res in store.each_run():
        new = rescore(res, playout, advantage=advantage, analysis=analysis)
        for name in RescoredSweep.TABLES:
            t = getattr(new, name)
            if t is None:
                continue
            # The run's identity as the store gives it (not the file's copy).
            t = t.drop(columns=[c for c in ident if c in t.columns])
            lead = pd.DataFrame({k: [v] * len(t) for k, v in ident.items()}, index=t.index)
            parts[name].append(pd.concat([lead, t], axis=1))
        del res, new  # one run's packets at a time
    tables = {k: (pd.concat(v, ignore_index=True) if v else None) for k, v in parts.items()}
    return RescoredSweep(tables, store.axes)
