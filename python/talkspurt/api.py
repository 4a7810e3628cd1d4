"""The Python API: run and validate scenarios."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Optional, Union

from . import _core
from . import overrides as _overrides
from .scenario import ScenarioLike, _error, load_scenario, read_scenario_file, to_json
from .versions import versions

if TYPE_CHECKING:
    from .results import Results


def resolve(scenario: ScenarioLike, overrides: Optional[Mapping[str, Any]] = None) -> dict[str, Any]:
    """The scenario document with `overrides` (`{"links[1].delay": "100ms"}`)
    applied, not yet validated."""
    doc = load_scenario(scenario)
    # A scenario file may carry a [sweep] table (talkspurt sweep); a single
    # run is its base scenario — for a sweep file, the scenario it names.
    sweep = doc.pop("sweep", None)
    if isinstance(sweep, Mapping) and isinstance(sweep.get("scenario"), str) and not doc \
            and isinstance(scenario, (str, os.PathLike)) and Path(os.fspath(scenario)).is_file():
        base = Path(sweep["scenario"])
        if not base.is_absolute():
            base = Path(os.fspath(scenario)).parent / base
        doc = read_scenario_file(base)
        doc.pop("sweep", None)
    if overrides:
        _overrides.apply(doc, overrides)
    return doc


def validate(scenario: ScenarioLike, overrides: Optional[Mapping[str, Any]] = None) -> dict[str, Any]:
    """Validate a scenario; return it normalized, every default filled in.

    `overrides` maps key paths to values, as `talkspurt run --set` does.
    Raises `ScenarioError` naming the key path, the value and what is allowed.
    """
    from .audio import split

    from .audio.talkspurts import restore

    core, audio = split(resolve(scenario, overrides))
    out = restore(json.loads(_core.validate(to_json(core))), core)
    if audio is not None:
        out.setdefault("analysis", {})["audio"] = audio.to_table()
    return out


def _queue_series(as_run: dict) -> bool:
    """Whether some link direction's queue asks for its series (`series = true`)."""
    for link in as_run.get("links", []):
        for table in (link, link.get("forward") or {}, link.get("reverse") or {}):
            if (table.get("queue") or {}).get("series", False):
                return True
    return False


def run(
    scenario: ScenarioLike,
    seed: Optional[int] = None,
    *,
    overrides: Optional[Mapping[str, Any]] = None,
    trace: Optional[bool] = None,
    progress: Optional[Callable[[float], None]] = None,
    pcap: Optional[Union[str, "os.PathLike[str]"]] = None,
    capture: Optional[Sequence[str]] = None,
    force: bool = False,
) -> "Results":
    """Run a scenario and return its `Results`.

    `overrides` maps key paths to values (`{"links[1].delay": "100ms",
    "run.seed": 3}`), applied to the document before validation; `seed`
    overrides `[run].seed`; `trace` overrides `[run].trace` (the per-packet
    table); `progress(fraction)` is called now and then.
    `pcap` names a folder for libpcap captures of what `capture` lists
    (default `["calls"]`: each call's receiver; `"link:I[:forward|reverse]"`
    and `"A>B"` name link directions; docs/pcap.md); an existing .pcap file
    there is an error unless `force`.
    Same scenario and seed give identical results.
    """
    return _run(scenario, seed, overrides=overrides, trace=trace, progress=progress, pcap=pcap,
                capture=capture, force=force)


def _run(
    scenario: ScenarioLike,
    seed: Optional[int] = None,
    *,
    overrides: Optional[Mapping[str, Any]] = None,
    trace: Optional[bool] = None,
    progress: Optional[Callable[[float], None]] = None,
    pcap: Any = None,
    capture: Optional[Sequence[str]] = None,
    force: bool = False,
    keys: tuple[str, str] = ("pcap", "capture"),
) -> "Results":
    from . import pcap as _pcap
    from .results import Results

    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0 or seed >= 2**64):
        raise _error("seed", repr(seed), "an integer from 0 to 2^64-1")
    from .audio import split

    pcap_dir, specs = _pcap.check(pcap, capture, force, keys)
    core, audio = split(resolve(scenario, overrides))  # the audio table is Python's (audio/config.py)
    text = to_json(core)
    started = datetime.now(timezone.utc)
    t0 = time.perf_counter()
    raw = _core.run(text, seed, trace, progress, specs or None, keys[1])
    wall = time.perf_counter() - t0
    captures = raw.pop("captures")
    if pcap_dir is not None:
        _pcap.write(pcap_dir, captures, force)
    from .audio.talkspurts import restore

    as_run = restore(json.loads(raw["scenario"]), core)  # vad tables, not their talkspurt lists
    if not as_run.get("run", {}).get("series", False) and not _queue_series(as_run):
        raw["series"] = None  # no endpoint or queue series asked for: no table, no file
    manifest = {
        "scenario": as_run,
        "seed": raw["seed"],
        "started_utc": started.isoformat(timespec="seconds"),
        "wall_time_s": wall,
        "events": raw["events"],
        "voice_packets": raw["voice_packets"],
        "sim_end_s": raw["sim_end_s"],
        **({"pcap": {"dir": str(pcap_dir), "files": [n for n, _ in captures]}} if pcap_dir is not None else {}),
        "versions": versions(),
    }
    res = Results(raw, manifest)
    if audio is not None:
        manifest["scenario"].setdefault("analysis", {})["audio"] = audio.to_table()
        if res.packets is None:
            raise _error("analysis.audio", "a table", "[run] trace = true (the audio needs the per-packet table)")
        from .audio import with_audio

        t1 = time.perf_counter()
        with_audio(res, audio)
        manifest["audio_wall_time_s"] = time.perf_counter() - t1
    return res

