"""The `[analysis] audio = {...}` table: keys, defaults, validation.

Validated here (the audio pipeline is Python's); the core never sees the
table. Errors are `ScenarioError`s naming `analysis.audio.<key>`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Optional

import json

from .._core import format_duration
from ..scenario import _error, duration_ns

PATH = "analysis.audio"


class AudioError(ValueError):
    """Bad audio input (a speech file, a codec, a call index): the message
    names the setting, the value and what is allowed."""
OPUS_FRAMES_MS = (2.5, 5.0, 10.0, 20.0, 40.0, 60.0)


@dataclass(frozen=True)
class AudioConfig:
    """Defaults and their sources:

    - `speech`: WAV files or folders; default `../shared/speech/` (the P.862
      conformance references) or `$TALKSPURT_SPEECH`.
    - `fill`: `"continuous"` reads the files straight on; `"active"` keeps
      only what the VAD calls speech, so talkspurts carry speech throughout
      (seed 000 §4.1). Default continuous.
    - `codec`: the real codec for the audio; default the call's own. `"Opus"`
      (libopus, not in the run's table) and `"L16"` (no codec) use the run's
      packet pattern.
    - `law`: G.711 companding, `"mu"` (default, G.711 µ-law as in North
      America and RFC 3551 PCMU) or `"a"`.
    - `conceal`: decoder concealment on (default) or zero-filled losses.
    - `mode`: PESQ `"nb"` (P.862 + P.862.1, default; 8 kHz) or `"wb"`
      (P.862.2, 16 kHz: Opus only among the codecs here).
    - `bitrate`, `fec`, `dtx`, `loss_perc`: Opus encoder settings; defaults
      12 kb/s in `nb` and 20 kb/s in `wb` (the tops of RFC 7587 §3.1.1's
      recommended 8–12 and 16–20 kb/s for narrowband and wideband speech),
      FEC on with 10 % expected loss, DTX off.
    - `segment`: the shortest PESQ segment, default 10 s (P.862 §7 asks for
      8–20 s), at most 19.5 s, the longest segment (score.PESQ_MAX_S: P.862's
      reference code overruns its utterance table beyond);
      `max_segments`: score only the first n (seed 001: one 15 s).
    - `stoi`: also compute STOI (Taal et al. 2011). Default false.
    - `workers`: processes for the calls; default all cores.
    """

    speech: Optional[tuple[str, ...]] = None
    fill: str = "continuous"
    codec: Optional[str] = None
    law: str = "mu"
    conceal: bool = True
    mode: str = "nb"
    bitrate: Optional[int] = None  # per mode, see above
    fec: bool = True
    dtx: bool = False
    loss_perc: int = 10
    segment: float = 10.0
    max_segments: Optional[int] = None
    stoi: bool = False
    workers: Optional[int] = None

    def to_table(self) -> dict[str, Any]:
        """The normalized table (for the manifest), absent optionals left out."""
        d = asdict(self)
        d["segment"] = format_duration(round(self.segment * 1e9))  # exact: ns / 1e9 reads back below 2^53 ns
        if d["speech"] is not None:
            d["speech"] = list(d["speech"])
        return {k: v for k, v in d.items() if v is not None}


def _seconds(v: Any, key: str, hi: float, why: str = "") -> float:
    ns = duration_ns(v, f"{PATH}.{key}")  # the core's parser: whole nanoseconds, its messages
    if not 10**9 <= ns <= hi * 10**9:
        raise _error(f"{PATH}.{key}", json.dumps(v), f"a duration from 1s to {hi:g}s{why}")
    return ns / 1e9


def _bool(v: Any, key: str) -> bool:
    if not isinstance(v, bool):
        raise _error(f"{PATH}.{key}", repr(v), "true or false")
    return v


def _int(v: Any, key: str, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise _error(f"{PATH}.{key}", repr(v), f"an integer from {lo} to {hi}")
    return v


def _choice(v: Any, key: str, allowed: tuple[str, ...]) -> str:
    if v not in allowed:
        raise _error(f"{PATH}.{key}", repr(v), " or ".join(f'"{a}"' for a in allowed))
    return v


def parse(table: Any) -> AudioConfig:
    """Validate an `audio` table; unknown keys are errors."""
    if isinstance(table, bool) and table:
        table = {}
    if not isinstance(table, Mapping):
        raise _error(PATH, repr(table), "a table of audio settings, e.g. { codec = \"Opus\", stoi = true }")
    known = set(AudioConfig.__dataclass_fields__)
    for k in table:
        if k not in known:
            raise _error(f"{PATH}.{k}", repr(table[k]), "one of the keys " + ", ".join(sorted(known)))
    kw: dict[str, Any] = {}
    t = table
    if "speech" in t:
        v = t["speech"]
        items = [v] if isinstance(v, str) else v
        if not isinstance(items, list) or not items or not all(isinstance(s, str) and s for s in items):
            raise _error(f"{PATH}.speech", repr(v), "a WAV file or folder, or a non-empty list of them")
        kw["speech"] = tuple(items)
    if "fill" in t:
        kw["fill"] = _choice(t["fill"], "fill", ("continuous", "active"))
    if "codec" in t:
        from .codecs import UNAVAILABLE

        v = t["codec"]
        from .. import codecs as table_codecs

        names = [c["name"] for c in table_codecs()] + ["Opus", "L16"]
        if v not in names or v in UNAVAILABLE:
            ok = [n for n in names if n not in UNAVAILABLE]
            raise _error(f"{PATH}.codec", repr(v), "one of " + ", ".join(ok))
        kw["codec"] = v
    if "law" in t:
        kw["law"] = _choice(t["law"], "law", ("mu", "a"))
    for k in ("conceal", "fec", "dtx", "stoi"):
        if k in t:
            kw[k] = _bool(t[k], k)
    if "mode" in t:
        kw["mode"] = _choice(t["mode"], "mode", ("nb", "wb"))
    if "bitrate" in t:
        kw["bitrate"] = _int(t["bitrate"], "bitrate", 6000, 510000)  # libopus's range
    if "loss_perc" in t:
        kw["loss_perc"] = _int(t["loss_perc"], "loss_perc", 0, 100)
    if "segment" in t:
        from .score import PESQ_MAX_S

        kw["segment"] = _seconds(t["segment"], "segment", PESQ_MAX_S,
                                 " (P.862 overruns its 50-utterance table on longer references)")
    if "max_segments" in t:
        kw["max_segments"] = _int(t["max_segments"], "max_segments", 1, 10**6)
    if "workers" in t:
        kw["workers"] = _int(t["workers"], "workers", 1, 1024)
    cfg = AudioConfig(**kw)
    if cfg.mode == "wb" and cfg.codec not in ("Opus", "L16"):
        raise _error(f"{PATH}.mode", '"wb"', 'wideband PESQ needs a 16 kHz codec: codec = "Opus" or "L16", '
                     'or mode = "nb" (the other codecs run at 8 kHz)')
    return cfg


# The modules of the `audio` extra (pyproject.toml) and what needs them.
EXTRA = (("pesq", "PESQ"), ("scipy", "resampling"))


def require_extra(stoi: bool = False, find=None) -> None:
    """A one-line AudioError, not a ModuleNotFoundError traceback, when the
    `audio` extra is not installed (`pip install 'talkspurt[audio]'`, or
    `pip install '.[audio]'` in a clone)."""
    import importlib.util

    find = find or importlib.util.find_spec
    missing = [name for name, _ in EXTRA + ((("pystoi", "STOI"),) if stoi else ()) if find(name) is None]
    if missing:
        raise AudioError(f"{PATH}: got no {', '.join(missing)} module{'s' if len(missing) > 1 else ''}; expected "
                         f"the audio extra installed: pip install 'talkspurt[audio]' (in a clone: "
                         f"pip install '.[audio]')")
