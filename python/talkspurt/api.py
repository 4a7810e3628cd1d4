"""The Python API: run and validate scenarios."""

from __future__ import annotations

import json
import platform
import sys
import time
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable, Optional

from . import _core
from .scenario import ScenarioLike, _error, load_scenario, to_json

if TYPE_CHECKING:
    from .results import Results


def validate(scenario: ScenarioLike) -> dict[str, Any]:
    """Validate a scenario; return it normalized, every default filled in.

    Raises `ScenarioError` naming the key path, the value and what is allowed.
    """
    return json.loads(_core.validate(to_json(load_scenario(scenario))))


def run(
    scenario: ScenarioLike,
    seed: Optional[int] = None,
    *,
    trace: Optional[bool] = None,
    progress: Optional[Callable[[float], None]] = None,
) -> "Results":
    """Run a scenario and return its `Results`.

    `seed` overrides `[run].seed`; `trace` overrides `[run].trace` (the
    per-packet table); `progress(fraction)` is called now and then.
    Same scenario and seed give identical results.
    """
    from .results import Results

    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0 or seed >= 2**64):
        raise _error("seed", repr(seed), "an integer from 0 to 2^64-1")
    text = to_json(load_scenario(scenario))
    started = datetime.now(timezone.utc)
    t0 = time.perf_counter()
    raw = _core.run(text, seed, trace, progress)
    wall = time.perf_counter() - t0
    manifest = {
        "scenario": json.loads(raw["scenario"]),
        "seed": raw["seed"],
        "started_utc": started.isoformat(timespec="seconds"),
        "wall_time_s": wall,
        "events": raw["events"],
        "voice_packets": raw["voice_packets"],
        "sim_end_s": raw["sim_end_s"],
        "versions": {
            "talkspurt": _core.__version__,
            "python": sys.version.split()[0],
            "platform": platform.platform(),
        },
    }
    return Results(raw, manifest)

