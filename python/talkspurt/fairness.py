"""Jain's fairness index over any set of flows of a run.

Seed 002 (Papadimitriou & Tsaoussidis) computes it over the flows'
throughputs, one value per flow: ``(Σx)² / (n·Σx²)`` (Chiu & Jain 1989).
Seed 003 (Sarwar et al., §8, Table 8) compares *two* flows: a TCP flow and
the aggregate of 12 multiplexed voice calls, so each group's flows are
summed first. ``fairness(res, per="flow")`` gives the first reading,
``per="group"`` the second.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

TYPE_CHECKING = False  # typing's, without importing typing (scenario.py)
if TYPE_CHECKING:
    from typing import Optional

__all__ = ["jain_index", "fairness", "flow_rates"]


def jain_index(values: Iterable[float]) -> float:
    """Jain's index of non-negative rates: 1 when all are equal, 1/n when one
    flow takes everything; NaN for an empty set or all-zero rates."""
    xs = [float(x) for x in values]
    if not xs or any(x < 0 or math.isnan(x) for x in xs):
        return math.nan
    s, s2 = sum(xs), sum(x * x for x in xs)
    return math.nan if s2 == 0 else s * s / (len(xs) * s2)


def flow_rates(results, measure: str = "goodput_bps"):
    """One row per flow of the run — calls and traffic sources — with its
    group label and `measure` (a column both tables have: goodput_bps)."""
    import pandas as pd

    calls = results.calls[["group", measure]].assign(kind="call", flow=results.calls["call"])
    traffic = results.traffic
    frames = [calls]
    if len(traffic):
        frames.append(traffic[["group", measure]].assign(kind="traffic", flow=traffic["source"]))
    return pd.concat(frames, ignore_index=True)[["kind", "flow", "group", measure]]


def fairness(
    results,
    groups: Optional[Sequence[str]] = None,
    per: str = "flow",
    measure: str = "goodput_bps",
) -> float:
    """Jain's index over the flows of `groups` (default: every group).

    ``per="flow"``: each call and each traffic source is one flow (seed 002);
    ``per="group"``: each group's flows are summed into one (seed 003 §8).
    Goodput is measured over ``[analysis] interval`` for traffic flows and
    over each call's generation period for calls.

    `results` may be a sweep's store (`talkspurt.load(DIR)`): the index is
    then computed per run (pooling flows of different runs into one index
    would compare flows that never shared a network) and returned as a
    DataFrame, one row per run with its identity and axes and `fairness`."""
    from .store import SweepResults

    if isinstance(results, SweepResults):
        return _per_run(results, groups, per, measure)
    if per not in ("flow", "group"):
        raise ValueError(f"per: {per!r} is not allowed; use 'flow' or 'group'")
    rates = flow_rates(results, measure)
    if groups is not None:
        known = set(rates["group"])
        missing = [g for g in groups if g not in known]
        if missing:
            raise ValueError(f"groups: {missing!r} not in this run; groups are {sorted(known)!r}")
        rates = rates[rates["group"].isin(list(groups))]
    if per == "group":
        return jain_index(rates.groupby("group", sort=True)[measure].sum())
    return jain_index(rates[measure])


class _RunTables:
    def __init__(self, calls, traffic):
        self.calls, self.traffic = calls, traffic


def _per_run(store, groups, per, measure):
    import pandas as pd

    calls, traffic = store.calls, store.traffic
    ident = store.identity()
    values = []
    empty = traffic.iloc[0:0] if traffic is not None else pd.DataFrame(columns=["group", measure, "source"])
    by_run_t = dict(tuple(traffic.groupby("run", sort=False))) if traffic is not None and len(traffic) else {}
    by_run_c = dict(tuple(calls.groupby("run", sort=False))) if calls is not None else {}
    for run in ident["run"]:
        c = by_run_c.get(run, calls.iloc[0:0] if calls is not None else None)
        values.append(fairness(_RunTables(c, by_run_t.get(run, empty)), groups, per, measure))
    return ident.assign(fairness=values)
