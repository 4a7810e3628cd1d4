"""Calls whose buffer, not their network, decides the result: most packets
arrived after their playout time (issue 25; held-out checks of 2026-11-29:
the default fixed 150 ms behind a 300 ms queue, or on a 470 ms satellite
path, leaves nothing to play). Shared by the CLI (a line on stderr) and
`talkspurt.run` (a `LatePlayoutWarning`)."""

from __future__ import annotations

from typing import Any, Sequence

LATE_WARNING = 0.5  # share of a call's packets arriving after their playout time


class LatePlayoutWarning(UserWarning):
    """Most packets of some call arrived after their playout time."""


def late(calls: Sequence[Any], late_share: Sequence[Any]) -> list[Any]:
    """The calls (or points) whose late share exceeds `LATE_WARNING`."""
    return [c for c, x in zip(calls, late_share) if x is not None and x == x and x > LATE_WARNING]


def message(bad: Sequence[Any], scenario: dict, noun: str = "call", how: str = "") -> str:
    """What to say about `bad`, naming the playouts the scenario uses."""
    kinds = sorted({str((g.get("playout") or {}).get("kind", "fixed")) + (
        f" {(g.get('playout') or {}).get('delay')}" if (g.get("playout") or {}).get("delay") else "")
        for g in scenario.get("calls", [])})
    shown = ", ".join(str(c) for c in bad[:8]) + (" …" if len(bad) > 8 else "")
    return (f"{noun}{'s' if len(bad) > 1 else ''} {shown}: {how}more than {LATE_WARNING:.0%} of the packets "
            f"arrived after their playout time (playout: {', '.join(kinds)}); R reflects the buffer, not the "
            "network. A fixed delay counts from generation (a mouth-to-ear budget): set it above the path's "
            "delay; an adaptive buffer (playout = { kind = \"ramjee-4\" }) re-plans at talkspurt starts, so "
            "under continuous speech it keeps its first choice (docs/scenario.md, playout)")
