"""The audio path: a run's per-packet fates applied to real speech through
real codecs with their concealment, scored with PESQ (ITU-T P.862).

    >>> res = talkspurt.run("scenarios/quickstart.toml")
    >>> talkspurt.score_audio(res, {"codec": "Opus", "stoi": True}, calls=[0], wav_dir="wavs")

Pipeline and readings: docs/models/audio.md. Columns: docs/results.md.
Attributes load on first use (numpy, scipy and the codec libraries are not
imported by `import talkspurt`).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping

TYPE_CHECKING = False  # typing's, without importing typing (scenario.py)
if TYPE_CHECKING:
    from typing import Any, Optional

    from .config import AudioConfig

_WHERE = {
    "AudioConfig": "config", "AudioError": "config", "parse": "config",
    "COLUMNS": "pipeline", "score_audio": "pipeline", "with_audio": "pipeline",
    "SpeechError": "speech", "SpeechSource": "speech", "read_wav": "speech", "resample": "speech",
    "vad_mask": "speech", "write_wav": "speech",
}
__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        return getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def split(scenario: Mapping[str, Any]) -> tuple[dict[str, Any], Optional["AudioConfig"]]:
    """(the scenario without `analysis.audio`, its parsed config or None).

    Here rather than in config.py: every run splits, and a scenario without
    an audio table need not import config.py (dataclasses and inspect, about
    5 ms of a small run)."""
    analysis = scenario.get("analysis")
    if not isinstance(analysis, Mapping) or "audio" not in analysis:
        return dict(scenario), None
    from .config import parse

    cfg = parse(analysis["audio"])
    rest = {k: v for k, v in analysis.items() if k != "audio"}
    out = dict(scenario)
    out["analysis"] = rest
    return out, cfg
