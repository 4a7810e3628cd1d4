"""Seed 003's derived metrics (Sarwar, Boreli & Lochin, CCID4 over
satellite): the paper's packet loss rate, the slow-start exit of a bulk
TFRC flow (Fig. 3) and a rate averaged over a window of a sender's series
(Figs 6-7)."""

from __future__ import annotations

import math
from typing import Any, Mapping

import pandas as pd

from ..scenario import _error
from .metrics import RunTables, derived, selected_calls


@derived("plr_pooled")
def plr(t: RunTables, where: Mapping[str, Any], params: Mapping[str, Any]) -> float:
    """Seed 003 §5.1's PLR of the selected calls: sender drops (P_TP) plus
    network loss (PER), pooled over the calls' generated packets; late
    packets are the separate P_J. A fraction (scale 100 gives %)."""
    c = selected_calls(t, where)
    gen = c["generated"].astype(float)
    lost = (c["loss_sender"].astype(float) + c["loss_network"].astype(float)) * gen
    return float(lost.sum() / gen.sum()) if gen.sum() else math.nan


def _sender_series(t: RunTables, where: Mapping[str, Any], name: str) -> pd.DataFrame:
    s = t.get("series")
    if s is None:
        raise _error("metric", "a series metric on an experiment without series", "[run] series = true in its scenario")
    rows = s[(s["name"].astype(str) == name) & (s["side"].astype(str) == "sender")]
    flow = where.get("flow")
    if flow is not None:
        rows = rows[rows["flow"] == flow]
    return rows.sort_values("t")


@derived("first_loss_s")
def first_loss_s(t: RunTables, where: Mapping[str, Any], params: Mapping[str, Any]) -> float:
    """When the TFRC sender leaves slow start (Fig. 3): the time of its first
    report with p > 0, seconds (NaN if it never does). `where.flow` picks the
    flow (default: every sender of the run)."""
    s = _sender_series(t, where, "p")
    hit = s[s["value"].astype(float) > 0]
    return float(hit["t"].iloc[0]) if len(hit) else math.nan


@derived("series_mean")
def series_mean(t: RunTables, where: Mapping[str, Any], params: Mapping[str, Any]) -> float:
    """Time-weighted mean of the sender series `params.name` (e.g. `x_bps`)
    over [params.from, params.to] seconds, the series held between samples."""
    name = str(params.get("name", "x_bps"))
    t0, t1 = float(params.get("from", 0.0)), float(params.get("to", math.inf))
    s = _sender_series(t, where, name)
    if s.empty:
        return math.nan
    ts, vs = s["t"].astype(float).to_numpy(), s["value"].astype(float).to_numpy()
    total, acc = 0.0, 0.0
    for i in range(len(ts)):
        a = max(ts[i], t0)
        b = min(ts[i + 1] if i + 1 < len(ts) else t1, t1)
        if b > a:
            acc += vs[i] * (b - a)
            total += b - a
    return acc / total if total > 0 else math.nan


@derived("jain_groups")
def jain_groups(t: RunTables, where: Mapping[str, Any], params: Mapping[str, Any]) -> float:
    """Jain's index of the traffic groups' goodputs, each group's flows
    summed (seed 003 §8, Table 8: the VoIP stream against the TCP flow):
    (Σx)² / (n·Σx²)."""
    tr = t.get("traffic")
    if tr is None or tr.empty:
        return math.nan
    x = tr.groupby("group", observed=True)["goodput_bps"].sum().astype(float)
    return float(x.sum() ** 2 / (len(x) * (x ** 2).sum())) if (x ** 2).sum() > 0 else math.nan


@derived("loss_fraction")
def loss_fraction(t: RunTables, where: Mapping[str, Any], params: Mapping[str, Any]) -> float:
    """Table 7's "actual packet loss rate" of a download: (queue drops +
    link losses) / offered packets of one link direction, the `links` row
    named `params.link` (default "gateway->terminal", the downlink)."""
    ln = t.get("links")
    if ln is None:
        return math.nan
    row = ln[ln["link"].astype(str) == str(params.get("link", "gateway->terminal"))]
    if row.empty:
        return math.nan
    r = row.iloc[0]
    offered = float(r["offered"])
    return (float(r["queue_drops"]) + float(r["link_losses"])) / offered if offered > 0 else math.nan
