"""`speech = { model = "vad" }`: a call's talkspurts from real speech.

Seed 000 §4.1 passed its input speech through the Speex codec's voice
activity detection and packetized what it called speech, so the on/off
pattern of the network comes from the speech. Here the VAD runs in Python
(where the audio is) and its decisions become the core's explicit
`model = "schedule"` talkspurts, one list per call; the core then does the
per-packet work. Readings (docs/models/audio.md):

- Call *i* (counted over all groups, as in the `calls` table) carries the
  files from file *i* mod *n* on, looped: the rule the audio pipeline
  uses, so `score_audio` encodes the very speech the VAD called active.
- `detector = "speex"` (default): libspeex's encoder with `SPEEX_SET_VAD`
  (narrowband, 8 kHz, 20 ms frames). A frame is speech unless the encoder
  falls back to its noise sub-mode 1, its VAD-only decision
  (`relative_quality < 2` of `vbr_analysis`, Speex 1.2 nb_celp.c).
  libspeexdsp's preprocessor VAD is not installed on the target systems;
  the codec's VAD is the one seed 000 names ("processed through the Speex
  audio codec for performing voice activity detection").
  `detector = "energy"`: `speech.vad_mask`'s energy detector (35 dB below
  the loudest 10 ms frame), without its own hang-over.
- A codec frame is active if any detector frame it overlaps is. Then
  `hangover` (default 0: Speex adds none of its own beyond the smoothing
  of its quality measure) keeps the frames after each active one active.
  It must be a whole number of the call's codec frames (`check_hangover`):
  a value between two is refused, naming both, rather than rounded, so the
  hang-over that runs is the one written.
- The schedule covers the call's longest possible length (its `length`,
  or the run's duration); the core stops the call at its own end.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import lru_cache

from ..scenario import _error, duration_ns

TYPE_CHECKING = False  # typing's, without importing typing (scenario.py)
if TYPE_CHECKING:
    from typing import Any, Optional

    import numpy as np

# numpy and the speech readers are imported where a `vad` table is
# resolved: every run passes through `resolve`/`restore`, and a run
# without one must not pay for them (issue 14, small runs).

KEYS = ("model", "speech", "detector", "hangover")
SPEEX_FRAME = 160  # 20 ms at 8 kHz
_SET_QUALITY, _GET_MODE, _SET_VAD = 4, 7, 30


def _ms(v: Any, path: str) -> int:
    ns = duration_ns(v, path)  # the core's parser: whole nanoseconds, its messages
    if ns % 1_000_000:
        raise _error(path, json.dumps(v), 'a duration in whole milliseconds, e.g. "0ms" or "200ms"')
    if ns > 2 * 10**9:
        raise _error(path, json.dumps(v), "a hang-over from 0ms to 2s")
    return ns // 1_000_000


def parse(table: Mapping[str, Any], path: str) -> dict[str, Any]:
    """The normalized vad table (every default filled in)."""
    for k in table:
        if k not in KEYS:
            raise _error(f"{path}.{k}", json.dumps(table[k], default=str), "one of the keys " + ", ".join(KEYS))
    out: dict[str, Any] = {"model": "vad"}
    spec = table.get("speech")
    if spec is not None:
        items = [spec] if isinstance(spec, str) else spec
        if not isinstance(items, list) or not items or not all(isinstance(s, str) and s for s in items):
            raise _error(f"{path}.speech", json.dumps(spec, default=str), "a WAV file or folder, or a non-empty list of them")
    from .speech import default_speech_dir, speech_files, where_looked

    if spec is None and default_speech_dir() is None:
        # The VAD's own key, not the audio table's (QA 003: the message
        # pointed at analysis.audio.speech and --speech).
        raise _error(f"{path}.speech", "none", f"{path}.speech naming WAV files or a folder of 8 kHz+ speech, "
                     f"or $TALKSPURT_SPEECH naming a folder; no default was found: {where_looked()} "
                     "(docs/models/audio.md, \"Speech\")")
    try:
        files = speech_files(spec)
    except Exception as e:  # SpeechError: name the key
        raise _error(f"{path}.speech", json.dumps(spec), f"readable WAV files or folders ({e})") from None
    out["speech"] = [str(f) for f in files]
    det = table.get("detector", "speex")
    if det not in ("speex", "energy"):
        raise _error(f"{path}.detector", json.dumps(det, default=str), '"speex" or "energy"')
    out["detector"] = det
    out["hangover"] = f"{_ms(table.get('hangover', '0ms'), f'{path}.hangover')}ms"
    return out


def _dur(ns: int) -> str:
    return f"{ns // 1_000_000}ms" if ns % 1_000_000 == 0 else f"{ns}ns"


def check_hangover(written: Any, hangover_ms: int, frame_ns: int, codec: str, path: str) -> int:
    """The hang-over in codec frames: `hangover_ms` must be a whole number
    of the call's `frame_ns` frames; otherwise a ScenarioError at `path`
    naming the value as written, the frame and the nearest allowed values
    (multiples of the frame within 0-2 s)."""
    ns = hangover_ms * 1_000_000
    frames, rest = divmod(ns, frame_ns)
    if rest == 0:
        return frames
    near = [v for v in (frames * frame_ns, (frames + 1) * frame_ns) if v <= 2 * 10**9]
    near_s = " and ".join(f'"{_dur(v)}"' for v in near)
    raise _error(path, json.dumps(written, default=str),
                 f"a whole number of the call's {_dur(frame_ns)} codec frames ({codec}), not rounded: "
                 f"the nearest {'are' if len(near) > 1 else 'is'} {near_s}")


def speex_frames(x8k: np.ndarray) -> np.ndarray:
    """Per 20 ms frame of 8 kHz speech: whether Speex's VAD calls it speech."""
    import ctypes as C

    import numpy as np

    from .native import load

    lib = load("speex")
    lib.speex_lib_get_mode.restype = C.c_void_p
    lib.speex_encoder_init.restype = C.c_void_p
    enc = C.c_void_p(lib.speex_encoder_init(C.c_void_p(lib.speex_lib_get_mode(C.c_int(0)))))
    q, on, mode = C.c_int(8), C.c_int(1), C.c_int(0)  # quality 8: sub-mode 5, not the noise mode 1
    lib.speex_encoder_ctl(enc, _SET_QUALITY, C.byref(q))
    lib.speex_encoder_ctl(enc, _SET_VAD, C.byref(on))
    bits = C.create_string_buffer(256)  # SpeexBits
    lib.speex_bits_init(bits)
    n = len(x8k) // SPEEX_FRAME
    pcm = np.ascontiguousarray(np.clip(np.rint(x8k[: n * SPEEX_FRAME]), -32768, 32767).astype(np.int16))
    out = np.zeros(n, bool)
    try:
        for k in range(n):
            lib.speex_bits_reset(bits)
            lib.speex_encode_int(enc, pcm[k * SPEEX_FRAME:].ctypes.data_as(C.POINTER(C.c_int16)), bits)
            lib.speex_encoder_ctl(enc, _GET_MODE, C.byref(mode))
            out[k] = mode.value != 1
    finally:
        lib.speex_bits_destroy(bits)
        lib.speex_encoder_destroy(enc)
    return out


def looped(files: tuple[str, ...], first: int, fs: int, n: int) -> np.ndarray:
    """n samples of the files from file `first` mod len on, at fs, looped."""
    import numpy as np

    from .speech import read_wav, resample

    parts = [resample(*read_wav(f), fs) for f in files]
    k = first % len(parts)
    sig = np.concatenate(parts[k:] + parts[:k])
    return sig[np.arange(n) % len(sig)]


@lru_cache(maxsize=64)
def activity(files: tuple[str, ...], first: int, frame_ms: float, frames: int, detector: str,
             hangover_ms: int) -> np.ndarray:
    """Per codec frame of the call's speech: active or not."""
    import numpy as np

    from .speech import vad_mask

    fs = 8000
    frame_s = frame_ms / 1000
    n = int(np.ceil(frames * frame_s * fs)) + SPEEX_FRAME
    x = looped(files, first, fs, n)
    if detector == "speex":
        det, det_s = speex_frames(x), SPEEX_FRAME / fs
    else:
        m = vad_mask(x, fs, frame_ms=10.0, hangover_ms=0.0)
        det, det_s = m[: len(m) // 80 * 80 : 80], 0.010
    # Codec frame j spans [j, j+1)·F; active if any detector frame it overlaps is.
    j = np.arange(frames)
    lo = np.floor(j * frame_s / det_s + 1e-9).astype(int)
    hi = np.ceil((j + 1) * frame_s / det_s - 1e-9).astype(int)
    csum = np.concatenate([[0], np.cumsum(det)])
    act = csum[np.minimum(hi, len(det))] - csum[np.minimum(lo, len(det))] > 0
    # A whole number of frames (`check_hangover` refuses any other value).
    hang, rest = divmod(hangover_ms * 1000, int(round(frame_ms * 1000)))
    if rest:
        raise ValueError(f"hangover {hangover_ms} ms is not a whole number of {frame_ms} ms frames")
    if hang:
        held = act.copy()
        for d in range(1, hang + 1):
            held[d:] |= act[:-d]
        act = held
    return act


def spurts(active: np.ndarray, frame_ms: float) -> list[list[str]]:
    """Runs of active frames as `[begin, end)` durations in nanoseconds."""
    import numpy as np

    a = np.concatenate([[False], active, [False]]).astype(np.int8)
    edges = np.flatnonzero(np.diff(a))
    ns = int(round(frame_ms * 1e6))
    return [[f"{b * ns}ns", f"{e * ns}ns"] for b, e in zip(edges[::2], edges[1::2])]


def _vad_groups(doc: Mapping[str, Any]) -> dict[int, dict[str, Any]]:
    calls = doc.get("calls")
    out = {}
    if isinstance(calls, list):
        for g, c in enumerate(calls):
            sp = c.get("speech") if isinstance(c, Mapping) else None
            if isinstance(sp, Mapping) and sp.get("model") == "vad":
                out[g] = parse(sp, f"calls[{g}].speech")
    return out


def resolve(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The scenario with every `model = "vad"` speech replaced by its
    `model = "schedule"` talkspurts (unchanged if there is none)."""
    tables = _vad_groups(doc)
    if not tables:
        return dict(doc)
    from .. import _core, codecs

    # The normalized scenario (counts, codecs, lengths, the run's duration)
    # with a placeholder speech model, to know each call's frame clock.
    probe = json.loads(json.dumps(doc))
    for g in tables:
        probe["calls"][g]["speech"] = {"model": "continuous"}
    norm = json.loads(_core.validate(json.dumps(probe)))
    frame_ms = {c["name"]: float(c["frame_ms"]) for c in codecs()}
    duration = _ns(norm["run"]["duration"])
    out = json.loads(json.dumps(doc))
    first = 0
    for g, grp in enumerate(norm["calls"]):
        count = int(grp.get("count", 1))
        if g in tables:
            t = tables[g]
            if grp.get("bitrate") is not None or (grp.get("adapt") or {}).get("kind", "none") != "none":
                raise _error(f"calls[{g}].speech.model", '"vad"',
                             "a call on its codec's frames (no bitrate or bit-rate adaptation: their packet "
                             "interval is no speech frame)")
            f = frame_ms[grp["codec"]]
            written = doc["calls"][g]["speech"].get("hangover", "0ms")
            check_hangover(written, int(t["hangover"][:-2]), int(round(f * 1e6)), grp["codec"],
                           f"calls[{g}].speech.hangover")
            length = min(_ns(grp["length"]), duration) if grp.get("length") else duration
            frames = length // int(round(f * 1e6))
            lists = [spurts(activity(tuple(t["speech"]), first + i, f, frames, t["detector"],
                                     int(t["hangover"][:-2])), f) for i in range(count)]
            out["calls"][g]["speech"] = {"model": "schedule", "calls": lists}
        first += count
    return out


def restore(normalized: dict[str, Any], doc: Mapping[str, Any]) -> dict[str, Any]:
    """Put the normalized vad tables back in a normalized scenario (what
    `talkspurt validate` prints and the manifest keeps, instead of the
    talkspurt lists)."""
    for g, t in _vad_groups(doc).items():
        normalized["calls"][g]["speech"] = t
    return normalized


def vad_table(scenario: Optional[Mapping[str, Any]], call: int) -> Optional[dict[str, Any]]:
    """The vad table of `call`'s group in a scenario as run, or None."""
    calls = (scenario or {}).get("calls") or []
    first = 0
    for grp in calls:
        count = int(grp.get("count", 1))
        if first <= call < first + count:
            sp = grp.get("speech") or {}
            return dict(sp) if sp.get("model") == "vad" else None
        first += count
    return None


_UNITS_NS = {"s": 10**9, "ms": 10**6, "us": 10**3, "ns": 1}


def _ns(v: str) -> int:
    """Nanoseconds of a normalized duration (`"10s"`, `"1.5s"`, `"250ms"`)."""
    m = re.fullmatch(r"([0-9]+)(?:\.([0-9]+))?(s|ms|us|ns)", v)
    if not m:
        raise ValueError(f"not a normalized duration: {v!r}")
    whole, frac, unit = m.group(1), m.group(2) or "", m.group(3)
    u = _UNITS_NS[unit]
    return int(whole) * u + (int(frac) * u // 10 ** len(frac) if frac else 0)
