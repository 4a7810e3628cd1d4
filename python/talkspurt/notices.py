"""Results that look normal but are not what a study measures, said
aloud: calls whose buffer, not their network, decides R (most packets
arrived after their playout time: issue 25; held-out checks of 2026-11-29,
the default fixed 150 ms behind a 300 ms queue or on a 470 ms satellite
path), and calls that generated nothing in a non-empty generation period
(a TCP or DCCP connection that never opened: seed 002's lost SYNs, whose
calls drop out of `rtpi` but count as 0 in Jain), and packets whose size
the simulator carries but a real path would not: above a 1500 B Ethernet
MTU (no fragmentation or path MTU is modelled; seed 003's 12-call IAX2
trunk sends 2028 B packets over DCCP), or voice packets split into several
segments by a TCP `mss` smaller than them. Shared by the CLI (a line on
stderr) and `talkspurt.run` (warnings)."""

from __future__ import annotations

TYPE_CHECKING = False  # typing's, without importing typing (scenario.py)
if TYPE_CHECKING:
    from typing import Any, Sequence

LATE_WARNING = 0.5  # share of a call's packets arriving after their playout time
COLUMNS = ["call", "loss_late", "generated", "start_s", "stop_s"]  # what `said` reads of the calls table


class LatePlayoutWarning(UserWarning):
    """Most packets of some call arrived after their playout time."""


class SilentCallWarning(UserWarning):
    """Some call generated no packet in a non-empty generation period."""


class OversizePacketWarning(UserWarning):
    """Some call's packets were larger than a 1500 B Ethernet MTU on the wire."""


class SegmentedPacketWarning(UserWarning):
    """Some TCP call's voice packets were larger than a segment's data (its
    `mss`, less 12 B with timestamps): each left in several segments."""


# Ethernet's payload (RFC 894), the MTU of nearly every path today. The
# simulator checks none: a link carries a packet of any size whole.
MTU = 1500
_IP_TCP = 40  # IPv4 + TCP headers without options: mss = MTU - 40 (RFC 9293 §3.7.1)
# The timestamps option, padded (RFC 7323 §3: 10 B + 2 B). Like every option
# of a data segment it comes out of the mss (RFC 6691 §2): a full segment
# carries mss - 12 B of data and is still mss + 40 B on the wire.
TIMESTAMPS_OPTION = 12

_BEYOND_MTU = {
    "udp": "a real path would fragment it (RFC 791 §2.3), or drop it with DF set, and losing any fragment loses "
           "the packet",
    "echo": "a real path would fragment it (RFC 791 §2.3), or drop it with DF set",
    "tfrc": "a real path would fragment the datagram (RFC 791 §2.3) or drop it with DF set, and TFRC's s would "
            "not be one packet",
    "dccp": "a DCCP stack does not send a packet larger than its current MPS, which the path MTU bounds: it "
            "refuses it and tells the application (RFC 4340 §14; Linux returns EMSGSIZE), so on a 1500 B path "
            "these packets would not be sent at all",
    "tcp": "a TCP stack's segments are at most mss + 40 B of IP and TCP headers (with timestamps the option's "
           "12 B come out of the mss: mss - 12 B of data, RFC 6691 §2), and the path MTU bounds its mss: for a "
           "1500 B path set transport.mss to 1460B, with or without timestamps (RFC 9293 §3.7.1)",
}


def _bytes(v: Any, default: int) -> int:
    """A normalized size ("160B") as an integer."""
    return int(str(v)[:-1]) if isinstance(v, str) and v.endswith("B") and v[:-1].isdigit() else default


def sized(scenario: dict, largest: Sequence[Any]) -> list[tuple[type[UserWarning], str]]:
    """Notices about packet sizes: per call group of the scenario as run,
    `largest[g]` = (largest IP packet its calls' flows sent, largest
    application unit they handed to the transport), measured by the core
    during the run (`World::largest_by_group`)."""
    out: list[tuple[type[UserWarning], str]] = []
    first = 0
    for g, grp in enumerate(scenario.get("calls") or []):
        count = int(grp.get("count", 1))
        ids = list(range(first, first + count))
        first += count
        if g >= len(largest):
            continue
        packet, unit = (int(x) for x in largest[g])
        t = grp.get("transport") or {}
        kind = str(t.get("kind", "udp"))
        who = f"{grp.get('label') or f'calls[{g}]'} (call{'s' if count > 1 else ''} {_span(ids)})"
        trunk = " (the group's IAX2 trunk; trunk.mtu splits a tick's frames over several packets)" if grp.get("trunk") else ""
        if packet > MTU:
            out.append((OversizePacketWarning,
                        f"{who}: packets of up to {packet} B on the wire over {kind}{trunk}, above the {MTU} B Ethernet "
                        f"MTU. talkspurt checks no MTU and models no fragmentation: each crosses every link as one "
                        f"packet, while {_BEYOND_MTU.get(kind, _BEYOND_MTU['udp'])} (docs/scenario.md, [[links]])"))
        if kind == "tcp" and unit > 0:
            mss, framing = _bytes(t.get("mss"), MTU - _IP_TCP), _bytes(t.get("framing"), 2)
            smss = mss - (TIMESTAMPS_OPTION if t.get("timestamps") else 0)  # data of a full segment
            write = unit + framing
            if write > smss:
                n = -(-write // smss)
                over = (f"larger than transport.mss = \"{mss}B\"" if smss == mss else
                        f"larger than the {smss} B of data a segment carries (transport.mss = \"{mss}B\" less "
                        f"{TIMESTAMPS_OPTION} B of timestamps, RFC 6691 §2)")
                what = "trunk packet" if grp.get("trunk") else "voice packet"
                out.append((SegmentedPacketWarning,
                            f"{who}: each {what} is a {write} B write into the TCP stream ({unit} B + {framing} B "
                            f"framing), {over}: it is split over at least {n} segments, each with its own "
                            f"{_IP_TCP + mss - smss} B of IP and TCP headers, and is delivered when its last byte "
                            f"arrives. Legal, to study segmentation; a 1500 B path has mss = \"1460B\" "
                            f"(docs/scenario.md, TCP mss)"))
    return out


def _span(ids: Sequence[int]) -> str:
    return str(ids[0]) if len(ids) == 1 else f"{ids[0]}–{ids[-1]}"


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


def said(cols: dict, scenario: dict, largest: Sequence[Any] = ()) -> list[tuple[type[UserWarning], str]]:
    """What a single run's calls (`cols`: at least `COLUMNS`) call for:
    (warning class, text), late playout first, packet sizes last
    (`largest`: the manifest's `largest_bytes`, see `sized`)."""
    out: list[tuple[type[UserWarning], str]] = []
    bad = late(cols.get("call", []), cols.get("loss_late", []))
    if bad:
        out.append((LatePlayoutWarning, message(bad, scenario)))
    quiet = silent(cols)
    if quiet:
        out.append((SilentCallWarning, silent_message(quiet, len(cols.get("call", [])))))
    out.extend(sized(scenario, largest or ()))
    return out


def _shown(ids: Sequence[Any]) -> str:
    return ", ".join(str(c) for c in ids[:8]) + (" …" if len(ids) > 8 else "")
