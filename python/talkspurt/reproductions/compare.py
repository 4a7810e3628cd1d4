"""From an experiment's runs to a comparison row: the entry's metric per
run, its mean and 95 % confidence interval over replications, and the
verdict against the paper — computed here, never typed in a bundle."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

import numpy as np

from ..scenario import _error
from .bundle import Entry
from .metrics import _table, per_run

REPRODUCED = "reproduced"
TREND_REPRODUCED = "trend reproduced"
NOT_REPRODUCED = "not reproduced"
NO_VALUE = "no published value"
VERDICTS = (REPRODUCED, TREND_REPRODUCED, NOT_REPRODUCED, NO_VALUE)

# Two-sided 95 % quantiles of Student's t (df 1-30, then 40, 60, 120, ∞),
# the standard table (e.g. NIST/SEMATECH e-Handbook of Statistical Methods,
# §1.3.6.7.2).
_T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160,
        2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056,
        2.052, 2.048, 2.045, 2.042]
_T95_TAIL = [(40, 2.021), (60, 2.000), (120, 1.980)]


def t95(df: int) -> float:
    if df <= 0:
        return math.nan
    if df <= len(_T95):
        return _T95[df - 1]
    for d, t in _T95_TAIL:
        if df <= d:
            return t
    return 1.960


@dataclass
class Stat:
    """A metric over replications: mean, 95 % Student-t interval, count."""

    mean: float
    low: float
    high: float
    n: int

    @classmethod
    def of(cls, xs: list[float]) -> "Stat":
        a = np.asarray([x for x in xs if not math.isnan(x)], dtype=float)
        if a.size == 0:
            return cls(math.nan, math.nan, math.nan, 0)
        m = float(a.mean())
        if a.size == 1:
            return cls(m, math.nan, math.nan, 1)
        h = t95(a.size - 1) * float(a.std(ddof=1)) / math.sqrt(a.size)
        return cls(m, m - h, m + h, int(a.size))

    def text(self, fmt: str = "{:.3g}") -> str:
        if math.isnan(self.mean):
            return "n/a"
        if math.isnan(self.low):
            return fmt.format(self.mean)
        return f"{fmt.format(self.mean)} [{fmt.format(self.low)}, {fmt.format(self.high)}]"


@dataclass
class Row:
    entry: Entry
    stat: Stat
    verdict: str
    detail: str = ""
    ns2: Optional[float] = None
    points: list[tuple[Any, Stat]] = field(default_factory=list)  # trends along an axis


def measure(stores: Mapping[str, Any], e: Entry, where: Mapping[str, Any], experiment: str, path: str) -> Stat:
    """The entry's metric on the runs of `experiment` that `where` selects."""
    vals = per_run(stores[experiment], e.metric, where, e.agg, e.params, e.path, path)
    if not vals:
        raise _error(path, _show(where), f"a selection that matches rows of experiment {experiment!r} "
                     "(check the column names and values against the store: talkspurt.load(DIR/runs/NAME))")
    return Stat.of([v * e.scale for v in vals.values()])


def _show(where: Mapping[str, Any]) -> str:
    return "{ " + ", ".join(f"{k} = {v!r}" for k, v in where.items()) + " }"


def judge(stores: Mapping[str, Any], e: Entry) -> Row:
    if e.section == "value":
        s = measure(stores, e, e.where, e.experiment, f"{e.path}.where")
        if e.value is None:
            return Row(e, s, NO_VALUE)
        if math.isnan(s.mean):
            return Row(e, s, NOT_REPRODUCED, "nothing measured (every run gave NaN)")
        tol = e.tolerance()
        diff = s.mean - e.value
        ok = abs(diff) <= tol + 1e-12 * max(1.0, abs(e.value))
        return Row(e, s, REPRODUCED if ok else NOT_REPRODUCED, f"off by {diff:+.3g} (tolerance ±{tol:.3g})")
    return _trend(stores, e)


def _trend(stores: Mapping[str, Any], e: Entry) -> Row:
    if e.kind in ("less", "greater", "approx"):
        a = measure(stores, e, e.a, e.a_experiment or e.experiment, f"{e.path}.a")
        b = measure(stores, e, e.b, e.b_experiment or e.experiment, f"{e.path}.b")
        if e.kind == "less":
            ok, op = a.mean + e.margin < b.mean, "<"
        elif e.kind == "greater":
            ok, op = a.mean > b.mean + e.margin, ">"
        else:
            ok, op = abs(a.mean - b.mean) <= e.margin + e.rel_margin * abs(b.mean), "≈"
        margin = f" (margin {e.margin:g}{f' + {e.rel_margin:g}·|b|' if e.rel_margin else ''})" if e.margin or e.rel_margin else ""
        detail = f"a = {a.text()} {op} b = {b.text()}{margin}"
        return Row(e, a, TREND_REPRODUCED if ok else NOT_REPRODUCED, detail, points=[("a", a), ("b", b)])
    if e.kind == "order":
        stats = [measure(stores, e, w, e.experiment, f"{e.path}.seq[{i}]") for i, w in enumerate(e.seq)]
        ok = all(x.mean > y.mean + e.margin for x, y in zip(stats, stats[1:]))
        detail = " > ".join(s.text() for s in stats)
        return Row(e, stats[0], TREND_REPRODUCED if ok else NOT_REPRODUCED, detail,
                   points=[(i, s) for i, s in enumerate(stats)])
    pts = [(v, measure(stores, e, {**e.where, e.along: v}, e.experiment, f"{e.path}.along"))
           for v in along_values(stores[e.experiment], e)]
    if len(pts) < 2:
        raise _error(f"{e.path}.along", repr(e.along), "a column with at least two distinct values among the selected rows")
    means = [s.mean for _, s in pts]
    steps = list(zip(means, means[1:]))
    ok = all(y > x + e.margin for x, y in steps) if e.kind == "increasing" else all(y < x - e.margin for x, y in steps)
    detail = ", ".join(f"{v}: {s.text()}" for v, s in pts)
    return Row(e, pts[0][1], TREND_REPRODUCED if ok else NOT_REPRODUCED, detail, points=pts)


_NUM = re.compile(r"^\s*([-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)")


def sort_key(v: Any) -> Any:
    """Numbers sort as numbers, `25ms` by 25, anything else by text."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return (0, float(v), "")
    m = _NUM.match(str(v))
    return (0, float(m.group(1)), str(v)) if m else (1, 0.0, str(v))


def along_values(store: Any, e: Entry) -> list[Any]:
    """The distinct values of `e.along` among the rows `e.where` selects,
    in axis order."""
    from .metrics import select

    tname = e.metric.split(".", 1)[0] if "." in e.metric else "calls"
    df = _table(store, tname)
    if df is None or e.along not in df.columns:
        from .metrics import _columns

        cols = ", ".join(_columns(df)) if df is not None else "none"
        raise _error(f"{e.path}.along", repr(e.along), f"a column of the {tname} table ({cols})")
    rows = select(df, {k: v for k, v in e.where.items() if k in df.columns}, f"{e.path}.where", [e.along])
    vals = list(dict.fromkeys(rows[e.along].tolist()))
    return sorted(vals, key=sort_key)
