"""Seed 004's derived metrics (Barberis et al., AVoIP): what Figs 4, 6,
10 and §5.2–5.3 claim about the AVoIP rate changes and the losses, read
from a run's tables. Registered with the engine's `@derived`."""

from __future__ import annotations

import math
from typing import Any, Mapping

from ..scenario import _error
from .metrics import RunTables, derived, selected_calls

# `cause` (a pseudo-column of `where`, applied here) -> the calls table's
# per-call count of AVoIP rate changes with that cause (docs/results.md).
CAUSES = {
    "halve": "adapt_halvings",
    "decrement": "adapt_decrements",
    "increment": "adapt_increments",
    "no_report": "adapt_no_report",
}


def _cause(where: Mapping[str, Any]) -> str:
    c = str(where.get("cause", ""))
    if c not in CAUSES:
        raise _error("where.cause", repr(where.get("cause")), f"one of {', '.join(CAUSES)}")
    return CAUSES[c]


@derived("adapt_changes_by_cause")
def adapt_changes_by_cause(t: RunTables, where: Mapping[str, Any], params: Mapping[str, Any]) -> float:
    """Rate changes per call with the cause `where.cause` (halve,
    decrement, increment, no_report), averaged over the selected calls:
    Fig. 4's "mostly operated through loss indications resulting in rate
    halving", Fig. 6's "single-step decreases"."""
    col = _cause(where)
    calls = selected_calls(t, where)
    return float(calls[col].mean()) if len(calls) else math.nan


@derived("adapt_decrement_share")
def adapt_decrement_share(t: RunTables, where: Mapping[str, Any], params: Mapping[str, Any]) -> float:
    """Of the rate decreases the delay or loss tests made (single-step
    decrements and halvings), the share that were single steps, pooled over
    the selected calls (§5.1: "single-step reductions are more frequent
    when non-adaptive interfering traffic is present")."""
    calls = selected_calls(t, where)
    d, h = float(calls["adapt_decrements"].sum()), float(calls["adapt_halvings"].sum())
    return d / (d + h) if d + h else math.nan


@derived("loss_after")
def loss_after(t: RunTables, where: Mapping[str, Any], params: Mapping[str, Any]) -> float:
    """Fraction of the selected calls' packets generated at or after
    `params.from` (seconds) that the network lost (queue drop or link
    loss): §5.3's "no losses are detected after the first UDP sources are
    deactivated". Needs the packets table (the experiment's trace = true)."""
    p = t.get("packets")
    if p is None:
        raise _error("metric", "loss_after on an experiment without packets", "an experiment with trace = true")
    calls = selected_calls(t, where)
    rows = p[p["call"].isin(calls["call"]) & (p["t_generated"] >= float(params.get("from", 0.0)))]
    if not len(rows):
        return math.nan
    lost = rows["fate"].astype(str).isin(["queue_drop", "link_loss"])
    return float(lost.mean())


@derived("run_count_at_least")
def run_count_at_least(t: RunTables, where: Mapping[str, Any], params: Mapping[str, Any]) -> float:
    """Runs of `params.kind` (lost or received) at least `params.min`
    packets long, per selected call (Figs 11–12: "long, disruptive playback
    gaps (five or more lost packets) were rarely observed")."""
    b = t.get("bursts")
    if b is None:
        raise _error("metric", "run_count_at_least on an experiment without a bursts table", "an experiment whose runs write bursts")
    calls = selected_calls(t, where)
    if not len(calls):
        return math.nan
    rows = b[b["call"].isin(calls["call"]) & (b["kind"].astype(str) == str(params.get("kind", "lost")))]
    return float(rows.loc[rows["length"] >= float(params.get("min", 1)), "runs"].sum()) / len(calls)


@derived("adapt_changes_in_window")
def adapt_changes_in_window(t: RunTables, where: Mapping[str, Any], params: Mapping[str, Any]) -> float:
    """AVoIP rate changes with the cause `where.cause` made within
    `where.window` ("FROM-TO" seconds, half-open) per selected call, from
    the `adapt_cause` series (the experiment's runs need `[run] series =
    true`): Fig. 10's single-step decrements "visible not only when the UDP
    sources are activated, but also when they are deactivated". The series
    is per flow; its flows are the AVoIP calls' in call order (the builder
    allocates flows call by call), which maps them to the calls table."""
    codes = {"halve": 2.0, "decrement": 3.0, "increment": 4.0, "no_report": 5.0}
    cause = str(where.get("cause", ""))
    if cause not in codes:
        raise _error("where.cause", repr(where.get("cause")), f"one of {', '.join(codes)}")
    try:
        lo, hi = (float(x) for x in str(where.get("window", "")).split("-"))
    except ValueError:
        raise _error("where.window", repr(where.get("window")), '"FROM-TO" in seconds, e.g. "170-260"') from None
    s = t.get("series")
    if s is None:
        raise _error("metric", "adapt_changes_in_window on an experiment without series", "[run] series = true")
    s = s[s["name"].astype(str) == "adapt_cause"]
    calls = t.get("calls")
    avoip = calls[calls["adapt"].astype(str) == "avoip"].sort_values("call")
    flows = sorted(s["flow"].unique())
    if len(flows) != len(avoip):
        raise _error("metric", "adapt_changes_in_window: series flows and AVoIP calls differ", "one adapt_cause flow per AVoIP call")
    flow_of = dict(zip(avoip["call"], flows))
    chosen = selected_calls(t, where)
    fl = [flow_of[c] for c in chosen["call"] if c in flow_of]
    if not fl:
        return math.nan
    rows = s[s["flow"].isin(fl) & (s["value"] == codes[cause]) & (s["t"] >= lo) & (s["t"] < hi)]
    return float(len(rows)) / len(fl)
