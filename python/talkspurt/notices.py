"""Results that look normal but are not what a study measures, said
aloud: calls whose buffer, not their network, decides R (most packets
arrived after their playout time: issue 25; held-out checks of 2026-11-29,
the default fixed 150 ms behind a 300 ms queue or on a 470 ms satellite
path), and calls that generated nothing in a non-empty generation period
(a TCP or DCCP connection that never opened: seed 002's lost SYNs, whose
calls drop out of `rtpi` but count as 0 in Jain). Shared by the CLI (a line
on stderr) and `talkspurt.run` (warnings)."""

from __future__ import annotations

from typing import Any, Sequence

LATE_WARNING = 0.5  # share of a call's packets arriving after their playout time
COLUMNS = ["call", "loss_late", "generated", "start_s", "stop_s"]  # what `said` reads of the calls table


class LatePlayoutWarning(UserWarning):
    """Most packets of some call arrived after their playout time."""


class SilentCallWarning(UserWarning):
    """Some call generated no packet in a non-empty generation period."""


def late(calls: Sequence[Any], late_share: Sequence[Any]) -> list[Any]:
    """The calls (or points) whose late share exceeds `LATE_WARNING`."""
    return [c for c, x in zip(calls, late_share) if x is not None and x == x and x > LATE_WARNING]


def message(bad: Sequence[Any], scenario: dict, noun: str = "call", how: str = "") -> str:
    """What to say about `bad`, naming the playouts the scenario uses."""
    kinds = sorted({str((g.get("playout") or {}).get("kind", "fixed")) + (
        f" {(g.get('playout') or {}).get('delay')}" if (g.get("playout") or {}).get("delay") else "")
        for g in scenario.get("calls", [])})
    return (f"{noun}{'s' if len(bad) > 1 else ''} {_shown(bad)}: {how}more than {LATE_WARNING:.0%} of the packets "
            f"arrived after their playout time (playout: {', '.join(kinds)}); R reflects the buffer, not the "
            "network. A fixed delay counts from generation (a mouth-to-ear budget): set it above the path's "
            "delay; an adaptive buffer (playout = { kind = \"ramjee-4\" }) re-plans at talkspurt starts, so "
            "under continuous speech it keeps its first choice (docs/scenario.md, playout)")


def silent(cols: dict) -> list[Any]:
    """The calls that generated nothing although their generation period
    (`start_s` to `stop_s`) is not empty."""
    return [c for c, g, a, b in zip(cols.get("call", []), cols.get("generated", []), cols.get("start_s", []),
                                    cols.get("stop_s", [])) if g == 0 and a is not None and b is not None and b > a]


def silent_message(bad: Sequence[Any], total: int) -> str:
    return (f"{len(bad)} of {total} calls ({_shown(bad)}) generated no packet in their generation period: a connection "
            "that never opened (a lost SYN or DCCP-Request with media_start = \"connection\")? Such a call's rtpi, "
            "delay and R are NaN and left out of the groups' means, while its goodput 0 counts in jain_goodput")


def said(cols: dict, scenario: dict) -> list[tuple[type[UserWarning], str]]:
    """What a single run's calls (`cols`: at least `COLUMNS`) call for:
    (warning class, text), late playout first."""
    out: list[tuple[type[UserWarning], str]] = []
    bad = late(cols.get("call", []), cols.get("loss_late", []))
    if bad:
        out.append((LatePlayoutWarning, message(bad, scenario)))
    quiet = silent(cols)
    if quiet:
        out.append((SilentCallWarning, silent_message(quiet, len(cols.get("call", [])))))
    return out


def _shown(ids: Sequence[Any]) -> str:
    return ", ".join(str(c) for c in ids[:8]) + (" …" if len(ids) > 8 else "")
