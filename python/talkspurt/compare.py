"""`talkspurt compare DIR_A DIR_B`: two result folders, point by point.

Both folders are sweep stores (`talkspurt sweep -o`) or both single runs
(`talkspurt run -o`). Sweep points are matched by their swept values (the
axes both stores have; a point only one store has is listed as missing
from the other); each replication contributes its run's mean of the
metric, and the difference B − A comes with Welch's 95 % interval
(`talkspurt.stats`). Two single runs are compared call group by call
group, each call one sample.
"""

from __future__ import annotations

import argparse
import os

from .scenario import _error

# typing's, without importing typing: the CLI's parser imports this module
# for every command, `talkspurt run` too (scenario.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Optional, Sequence


HELP = "compare two result folders point by point"
DESCRIPTION = ("Compare two result folders (two sweep stores or two runs): per point (matched by swept values) "
               "the mean of a metric in each, the difference B − A and its 95 % interval (Welch) over "
               "replications.")


def add_arguments(c: argparse.ArgumentParser) -> None:
    """The command's arguments (cli._parser makes its subparser)."""
    c.add_argument("a", metavar="DIR_A", help="first results folder")
    c.add_argument("b", metavar="DIR_B", help="second results folder")
    c.add_argument("--metric", action="append", metavar="COLUMN",
                   help="calls-table column (repeatable; default r and loss_total)")


def compare(a: Any, b: Any, metrics: Sequence[str] = ("r", "loss_total")):
    """A DataFrame: one row per point and metric with `n_a`, `n_b`,
    `mean_a`, `mean_b`, `diff` (B − A), `diff_ci_low`, `diff_ci_high`."""
    import pandas as pd

    from .stats import per_run_means, welch
    from .store import SweepResults, load

    ra = load(a) if isinstance(a, (str, os.PathLike)) else a
    rb = load(b) if isinstance(b, (str, os.PathLike)) else b
    if isinstance(ra, SweepResults) != isinstance(rb, SweepResults):
        raise _error("compare", "a sweep store and a single run", "two sweep stores or two run folders")
    ca, cb = ra.calls, rb.calls
    for m in metrics:
        for name, c in (("DIR_A", ca), ("DIR_B", cb)):
            if c is None or m not in c.columns:
                raise _error("--metric", repr(m), f"a column of the calls table of {name}")
    if isinstance(ra, SweepResults):
        keys = [k for k in ra.axes if k in rb.axes]
        sa = {m: per_run_means(ca, m, keys) for m in metrics}
        sb = {m: per_run_means(cb, m, keys) for m in metrics}
    else:
        keys = ["group"]
        sa = {m: ca[["group", m]] for m in metrics}
        sb = {m: cb[["group", m]] for m in metrics}
    rows = []
    for m in metrics:
        ga = dict(tuple(sa[m].groupby(keys, dropna=False, sort=False, observed=True))) if keys else {(): sa[m]}
        gb = dict(tuple(sb[m].groupby(keys, dropna=False, sort=False, observed=True))) if keys else {(): sb[m]}
        for key in list(dict.fromkeys([*ga, *gb])):
            kt = key if isinstance(key, tuple) else (key,)
            xa = ga[key][m] if key in ga else []
            xb = gb[key][m] if key in gb else []
            rows.append({**dict(zip(keys, kt)), "metric": m, **welch(xa, xb),
                         "only_in": "" if (key in ga and key in gb) else ("A" if key in ga else "B")})
    return pd.DataFrame(rows)


def main(args: argparse.Namespace) -> int:
    from pathlib import Path

    import pandas as pd

    for d in (args.a, args.b):
        p = Path(d)
        if not ((p / "sweep.json").is_file() or (p / "manifest.json").is_file()):
            raise FileNotFoundError(f"{d}: not a results folder (no sweep.json or manifest.json)")
    df = compare(Path(args.a), Path(args.b), args.metric or ("r", "loss_total"))
    with pd.option_context("display.width", 200, "display.max_columns", 40):
        print(df.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    return 0

