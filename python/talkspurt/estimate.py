"""How big a run will be, before it runs (issue 25).

A run keeps a record of every voice packet until it is scored. From the
scenario alone (no simulation) this module bounds the voice packets —
every call sending one packet each ptime from its start to its end, as
with continuous speech, so on/off speech sends fewer — and the memory
they need, with the per-packet costs measured on the headline run
(bench/README.md "Memory", tests/test_memory.py):

- exact scoring keeps ~17 B a packet while the calls run, or the compact
  trace's 25 B a packet with the trace on, and ~112 B a packet of the call
  being scored;
- streaming scoring (`[analysis] scoring = "streaming"`, trace off) holds
  only the packets not yet settled: nothing that grows with the run;
- exact scoring with the trace off on a run of 10 minutes or more folds
  each call as it runs (issue 26, bench/README.md "Long calls"): at most
  16 B a packet (one count per distinct delay; a path of fixed rates
  repeats a few values, so usually far less) and, with the offline bounds,
  ~48 B a packet of the call being solved.

`check` refuses a run whose estimate exceeds the memory available now
(`MemAvailable`), naming the figure and how to proceed. The estimate reads
the document as written (defaults filled in here), never fails on a bad
document (the validator reports those), and costs microseconds.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping

from .scenario import _error

TYPE_CHECKING = False  # typing's, without importing typing (scenario.py)
if TYPE_CHECKING:
    from typing import Any, Optional

# Measured per-packet costs (bytes), bench/README.md "Memory".
RUNNING_B = 17  # exact scoring, trace off: per packet while the run lasts
# The compact trace kept with the trace on. Its wire and loss columns are
# runs of equal values since session 21: a few bytes a call where they do
# not vary, 8 bytes a change (a loss starts and ends one); kept at the
# 4 B a packet measured when they were plain columns, which covers a loss
# every fourth packet.
TRACE_B = 25
SCORING_B = 112  # per packet of the call being scored (exact scoring)
BASE_B = 100 * 2**20  # the interpreter with numpy, pandas and pyarrow
FOLD_FROM_S = 600  # run::FOLD_FROM_S: exact scoring folds from this run length on
FOLD_B = 16  # folded exact scoring: per distinct delay (an upper bound per packet)
FOLD_BOUNDS_B = 48  # folded exact scoring: per packet of the call whose bounds are solved

_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0}
_DUR = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([a-zµ]+)\s*$")


def seconds(v: Any) -> Optional[float]:
    """`"150ms"` → 0.15; None when `v` is not a duration."""
    if not isinstance(v, str):
        return None
    m = _DUR.match(v)
    if m is None or m.group(2) not in _UNITS:
        return None
    return float(m.group(1)) * _UNITS[m.group(2)]


def _ptime_s(group: Mapping[str, Any], frames: dict[str, float]) -> float:
    bitrate = group.get("bitrate")
    if isinstance(bitrate, Mapping) and seconds(bitrate.get("interval")):
        return seconds(bitrate["interval"])  # type: ignore[return-value]
    pt = seconds(group.get("ptime"))
    if pt:
        return pt
    frame = frames.get(str(group.get("codec", "G.711")), 0.02)
    return frame if frame > 0.02 else 0.02  # 20 ms, or one frame if longer (docs/scenario.md)


@functools.lru_cache(maxsize=1)
def _frames() -> dict[str, float]:
    from . import codecs

    return {c["name"]: c["frame_ms"] / 1e3 for c in codecs()}


def packets(doc: Mapping[str, Any]) -> tuple[int, int]:
    """(voice packets of the run, of its largest call), upper bounds."""
    duration = seconds((doc.get("run") or {}).get("duration")) or 0.0
    frames = _frames()
    total, largest = 0.0, 0.0
    for g in doc.get("calls") or []:
        if not isinstance(g, Mapping):
            continue
        count = g.get("count", 1)
        count = count if isinstance(count, int) and count > 0 else 1
        start = g.get("start", "0s")
        first = seconds(start.get("from")) if isinstance(start, Mapping) else seconds(start)
        first = first or 0.0
        stagger = seconds(g.get("stagger")) or 0.0
        length = seconds(g.get("length"))
        pt = _ptime_s(g, frames)
        span = max(0.0, duration - first)  # the group's first call is its longest
        largest = max(largest, (min(span, length) if length else span) / pt)
        # Σ over the group's calls of their spans (staggered starts).
        spans = max(0.0, count * (duration - first) - stagger * count * (count - 1) / 2)
        if length:
            spans = min(spans, count * length)
        total += spans / pt
    return int(total), int(largest)


def estimate(doc: Mapping[str, Any], trace: Optional[bool] = None) -> dict[str, Any]:
    """Packets and peak bytes of the run `doc` would make."""
    run = doc.get("run") or {}
    trace = bool(run.get("trace", True)) if trace is None else trace
    streaming = (doc.get("analysis") or {}).get("scoring") == "streaming"
    n, largest = packets(doc)
    analysis = doc.get("analysis") or {}
    folds = not trace and not streaming and (seconds(run.get("duration")) or 0.0) >= FOLD_FROM_S
    if streaming and not trace:
        per, peak = 0, BASE_B
    elif folds:
        per = FOLD_B
        peak = BASE_B + per * n + (FOLD_BOUNDS_B * largest if analysis.get("bounds", True) else 0)
    else:
        per = TRACE_B if trace else RUNNING_B
        peak = BASE_B + per * n + SCORING_B * largest
    return {"packets": n, "largest_call_packets": largest, "bytes": peak, "per_packet_B": per,
            "trace": trace, "streaming": streaming}


def available_bytes() -> Optional[int]:
    """`MemAvailable` of /proc/meminfo (Linux), else None (no check)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        return None
    return None


def human(b: float) -> str:
    for unit, size in (("TB", 2**40), ("GB", 2**30), ("MB", 2**20)):
        if b >= size:
            return f"{b / size:.1f} {unit}"
    return f"{b / 2**10:.0f} kB"


def check(doc: Mapping[str, Any], trace: Optional[bool] = None, available: Optional[int] = None) -> dict[str, Any]:
    """Refuse (ScenarioError on `run.duration`) a run whose estimate exceeds
    the available memory; returns the estimate. A document the validator
    rejects gets the validator's error, not this one."""
    try:
        e = estimate(doc, trace)
    except Exception:  # a malformed document: the validator will say why
        return {}
    avail = available_bytes() if available is None else available
    if avail is None or e["bytes"] <= avail:
        return e
    from . import _core
    from .scenario import to_json

    _core.validate(to_json(doc))  # a bad value (count = 10000000) is named as such
    how = []
    if e["trace"]:
        how.append("turn the trace off (--no-trace, [run] trace = false)")
    if not e["streaming"]:
        how.append('score while running ([analysis] scoring = "streaming", with the trace off: memory stays flat)')
    how.append("shorten the run or use fewer calls")
    how.append("or pass --no-memory-check (check_memory=False) to run anyway")
    duration = (doc.get("run") or {}).get("duration")
    raise _error("run.duration", json.dumps(duration),
                 f"a run that fits in memory: up to {e['packets']:,} voice packets need about {human(e['bytes'])} "
                 f"({e['per_packet_B']} B a packet kept, {SCORING_B} B a packet of the largest call while scored) "
                 f"and {human(avail)} is available; {'; '.join(how)}")
