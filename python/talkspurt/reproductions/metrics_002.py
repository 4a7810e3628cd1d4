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


def _over_sent(t: RunTables, where: Mapping[str, Any], delayed: bool) -> float:
    calls = selected_calls(t, where)
    if calls.empty:
        return math.nan
    num = lambda c: pd.to_numeric(calls[c])
    # Packets that left the sender and met a fate: D = G − S − F (the
    # backlog a TCP sender never sent, and what was still in flight at the
    # end, are not counted). For UDP D = G − S; for TCP D is about the
    # arrived count, as a receiver that counts "sent" by the highest
    # sequence number it received would see it (and as the ns-2 twin
    # counts it: its agent's maxseq_ + 1).
    sent = num("generated") - num("sender_drop") - num("in_flight")
    d = num("delayed")
    x = d / sent if delayed else (num("arrived") - d) / sent
    x = x[sent > 0].dropna()
    return float(x.mean()) if len(x) else math.nan


@derived("dpr_over_sent")
def dpr_over_sent(t: RunTables, where: Mapping[str, Any], params: Mapping[str, Any]) -> float:
    """Seed 002's Delayed Packets Rate with the packets the transport sent
    as the denominator instead of those the application generated (reading
    `rt-denominator`): delayed / (generated − sender_drop − in_flight),
    averaged over the selected calls. Equal to `calls.dpr` when nothing
    waits in a send buffer at the end (UDP); for a backlogged TCP flow it
    leaves out the backlog, as the ns-2 twin does."""
    return _over_sent(t, where, True)


@derived("rtpi_over_sent")
def rtpi_over_sent(t: RunTables, where: Mapping[str, Any], params: Mapping[str, Any]) -> float:
    """RTPI over the packets the transport sent (reading `rt-denominator`):
    (arrived − delayed) / (generated − sender_drop − in_flight), averaged
    over the selected calls."""
    return _over_sent(t, where, False)
