"""Means and confidence intervals over replications (issue 25).

A sweep point's replications are independent runs (seeds derived in
`sweeps.derive_seed`), so each run contributes one value — the mean of a
metric over the run's calls — and the point's interval is Student's t
interval over those values: mean ± t(0.975, n−1)·s/√n. Two points (or two
result folders) are compared by the difference of their means with
Welch's interval (unequal variances; Welch–Satterthwaite degrees of
freedom).
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Optional

# t(0.975, df) for df = 1..30 (two-sided 95 %), from the Student t
# distribution's quantile function (e.g. scipy.stats.t.ppf(0.975, df));
# beyond 30 the value is interpolated in 1/df between t(30) and the normal
# 1.95996 (within 0.001 of the exact quantile at df 40, 60 and 120).
_T975 = (12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
         2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
         2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423)
_Z975 = 1.959964


def t975(df: float) -> float:
    """The 97.5 % quantile of Student's t with `df` degrees of freedom
    (non-integer df, as Welch's, interpolated); NaN for df < 1."""
    if not df >= 1:
        return math.nan
    if df <= 30:
        lo = int(math.floor(df))
        if lo == df or lo >= 30:
            return _T975[lo - 1]
        a, b = _T975[lo - 1], _T975[lo]
        return a + (b - a) * (df - lo)
    # 1/df interpolation between df = 30 and ∞.
    w = 30.0 / df
    return _Z975 + (_T975[29] - _Z975) * w


def mean_ci(values: Iterable[float], level: float = 0.95) -> dict[str, Any]:
    """`{"n", "mean", "ci_low", "ci_high", "half_width"}` of the finite values;
    the interval is NaN with fewer than two values."""
    if level != 0.95:
        raise ValueError(f"level: {level!r}; only 0.95 is supported")
    xs = [float(x) for x in values if x is not None and math.isfinite(float(x))]
    n = len(xs)
    if n == 0:
        return {"n": 0, "mean": math.nan, "ci_low": math.nan, "ci_high": math.nan, "half_width": math.nan}
    m = sum(xs) / n
    if n < 2:
        return {"n": 1, "mean": m, "ci_low": math.nan, "ci_high": math.nan, "half_width": math.nan}
    s = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    h = t975(n - 1) * s / math.sqrt(n)
    return {"n": n, "mean": m, "ci_low": m - h, "ci_high": m + h, "half_width": h}


def welch(a: Iterable[float], b: Iterable[float]) -> dict[str, Any]:
    """Difference of means b − a with Welch's 95 % interval."""
    xa = [float(x) for x in a if x is not None and math.isfinite(float(x))]
    xb = [float(x) for x in b if x is not None and math.isfinite(float(x))]
    na, nb = len(xa), len(xb)
    ma = sum(xa) / na if na else math.nan
    mb = sum(xb) / nb if nb else math.nan
    out = {"n_a": na, "n_b": nb, "mean_a": ma, "mean_b": mb, "diff": mb - ma,
           "diff_ci_low": math.nan, "diff_ci_high": math.nan}
    if na < 2 or nb < 2:
        return out
    va = sum((x - ma) ** 2 for x in xa) / (na - 1)
    vb = sum((x - mb) ** 2 for x in xb) / (nb - 1)
    se2 = va / na + vb / nb
    if se2 == 0:
        out["diff_ci_low"] = out["diff_ci_high"] = mb - ma
        return out
    df = se2 ** 2 / ((va / na) ** 2 / (na - 1) + (vb / nb) ** 2 / (nb - 1))
    h = t975(df) * math.sqrt(se2)
    out["diff_ci_low"], out["diff_ci_high"] = mb - ma - h, mb - ma + h
    return out


def per_run_means(calls, metric: str, keys: list[str]):
    """One row per run: its keys and the mean of `metric` over its calls."""
    cols = [k for k in dict.fromkeys(["run", *keys]) if k in calls.columns]
    return calls.groupby(cols, dropna=False, observed=True, sort=False)[metric].mean().reset_index()


def summarize(store, metric: str = "r", by: Optional[list[str]] = None):
    """Per point of a sweep (or per `by` columns): `n` replications, the
    mean over replications of each run's mean `metric`, and its 95 %
    interval (`ci_low`, `ci_high`)."""
    import pandas as pd

    keys = list(by) if by is not None else ["point", *store.axes]
    runs = per_run_means(store.calls, metric, keys)
    rows = []
    for key, g in runs.groupby(keys, dropna=False, observed=True, sort=False):
        key = key if isinstance(key, tuple) else (key,)
        rows.append({**dict(zip(keys, key)), **mean_ci(g[metric])})
    out = pd.DataFrame(rows)
    return out.rename(columns={"mean": f"{metric}_mean", "ci_low": f"{metric}_ci_low",
                               "ci_high": f"{metric}_ci_high", "half_width": f"{metric}_ci_half"})
