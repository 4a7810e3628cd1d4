"""Derived metrics of seed 002 (Papadimitriou & Tsaoussidis)."""

from __future__ import annotations

import math
from typing import Any, Mapping

import pandas as pd

from .metrics import RunTables, derived, selected_calls


@derived("plr_per_flow")
def packet_loss_rate(t: RunTables, where: Mapping[str, Any], params: Mapping[str, Any]) -> float:
    """Seed 002 §III.B's Packet Loss Rate, averaged over the selected calls
    as the paper averages its per-flow metrics: lost / sent = 1 − received /
    sent, which Algorithm 1's counts give as 1 − RTPI − DPR per call
    (docs/models/metrics.md §1: RTPI + DPR + PLR = 1)."""
    calls = selected_calls(t, where)
    if calls.empty:
        return math.nan
    plr = 1.0 - pd.to_numeric(calls["rtpi"]) - pd.to_numeric(calls["dpr"])
    plr = plr.dropna()
    return float(plr.mean()) if len(plr) else math.nan
