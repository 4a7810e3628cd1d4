"""Seed 000's derived metric: fairness among the voice calls of one run.

§5.2 (l. 837): "Simultaneous DCCP traffic flows sharing a bottlenecked
link were found to be relatively fair to each other. No starvation
effects have been observed." The thesis gives no index; the bundle reads
it as Jain's fairness index (Jain, Chiu & Hawe, DEC-TR-301, 1984) over the
selected calls' delivery ratios, arrived/generated: 1 when every call gets
the same share of its packets through, 1/n when one call gets everything.
Delivery ratios rather than rates, since the calls' talkspurts differ and
their rates with them.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

from .metrics import RunTables, derived, selected_calls


def jain(x: np.ndarray) -> float:
    """Jain's index (Σx)² / (n·Σx²); NaN for no values or all zero."""
    x = np.asarray(x, dtype=float)
    if len(x) == 0 or not np.any(x):
        return float("nan")
    return float(x.sum() ** 2 / (len(x) * (x**2).sum()))


@derived("jain_delivery")
def jain_delivery(t: RunTables, where: Mapping[str, Any], params: Mapping[str, Any]) -> float:
    """Jain's index over the selected calls of arrived/generated (calls
    that generated nothing are left out)."""
    c = selected_calls(t, where)
    c = c[c["generated"] > 0]
    return jain((c["arrived"] / c["generated"]).to_numpy())
