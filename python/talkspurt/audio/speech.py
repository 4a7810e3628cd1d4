"""Input speech: WAV files, resampling, a looping source, and a VAD.

The default material is the project's `../shared/speech/` (the ITU-T P.862
conformance references: 8 kHz, 16-bit mono); any PCM WAV works.
"""

from __future__ import annotations

import os
import wave
from math import gcd
from pathlib import Path
from typing import Optional, Sequence

import numpy as np


from .config import AudioError


class SpeechError(AudioError):
    """A speech file that cannot be used; the message names it and why."""


def read_wav(path: str | os.PathLike) -> tuple[np.ndarray, int]:
    """(samples as float in int16 units, sample rate) of a PCM WAV.

    8/16/24/32-bit integer PCM; several channels are averaged to mono.
    """
    p = Path(path)
    if not p.is_file():
        raise SpeechError(f"speech: got {_q(p)}; expected an existing WAV file or folder (the file does not exist)")
    try:
        with wave.open(str(p), "rb") as w:
            ch, width, fs, n = w.getnchannels(), w.getsampwidth(), w.getframerate(), w.getnframes()
            raw = w.readframes(n)
    except (wave.Error, EOFError, OSError) as e:
        raise SpeechError(f"speech: got {_q(p)}; expected a PCM WAV file (not a readable PCM WAV: {e})") from None
    if width == 1:
        x = (np.frombuffer(raw, np.uint8).astype(float) - 128.0) * 256.0
    elif width == 2:
        x = np.frombuffer(raw, "<i2").astype(float)
    elif width == 3:
        b = np.frombuffer(raw, np.uint8).reshape(-1, 3).astype(np.int32)
        x = ((b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)) << 8 >> 8).astype(float) / 256.0
    elif width == 4:
        x = np.frombuffer(raw, "<i4").astype(float) / 65536.0
    else:
        raise SpeechError(f"speech: got {_q(p)} with {8 * width}-bit samples; expected 8, 16, 24 or 32-bit PCM")
    if ch > 1:
        x = x.reshape(-1, ch).mean(axis=1)
    if len(x) == 0:
        raise SpeechError(f"speech: got {_q(p)}, which holds no samples; expected a WAV file with speech")
    return x, fs


def write_wav(path: str | os.PathLike, x: np.ndarray, fs: int) -> None:
    """16-bit mono PCM WAV (clipped)."""
    data = np.clip(np.rint(x), -32768, 32767).astype("<i2").tobytes()
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(fs)
        w.writeframes(data)


def resample(x: np.ndarray, fs_in: int, fs_out: int) -> np.ndarray:
    """Polyphase resampling (scipy's `resample_poly`, Kaiser-windowed FIR)."""
    if fs_in == fs_out:
        return x
    from scipy.signal import resample_poly

    g = gcd(fs_in, fs_out)
    return resample_poly(x, fs_out // g, fs_in // g)


def vad_mask(x: np.ndarray, fs: int, *, frame_ms: float = 10.0, threshold_db: float = -35.0,
             hangover_ms: float = 200.0) -> np.ndarray:
    """Per-sample speech activity: a frame is active when its energy is within
    `threshold_db` of the loudest frame's, held for `hangover_ms` after
    (an energy detector with hang-over, like the G.729 Annex B and Speex VADs'
    first stage; not either of them)."""
    n = max(1, int(fs * frame_ms / 1000))
    frames = len(x) // n
    if frames == 0:
        return np.zeros(len(x), bool)
    e = (x[: frames * n].reshape(frames, n) ** 2).mean(axis=1)
    db = 10 * np.log10(e + 1e-9)
    active = db > db.max() + threshold_db
    hang = int(round(hangover_ms / frame_ms))
    held = active.copy()
    last = -10**9
    for i, a in enumerate(active):
        if a:
            last = i
        elif i - last <= hang:
            held[i] = True
    mask = np.repeat(held, n)
    return np.concatenate([mask, np.full(len(x) - len(mask), held[-1] if frames else False)])


def _q(p) -> str:
    """A path quoted as the core quotes values (JSON string)."""
    import json

    return json.dumps(str(p))


def default_speech_dir() -> Optional[Path]:
    """`$TALKSPURT_SPEECH`, else `../shared/speech` beside the project root
    found upward from the working directory (where `pyproject.toml` is)."""
    env = os.environ.get("TALKSPURT_SPEECH")
    if env:
        return Path(env)
    here = Path.cwd().resolve()
    for d in (here, *here.parents):
        if (d / "pyproject.toml").is_file() and (d.parent / "shared" / "speech").is_dir():
            return d.parent / "shared" / "speech"
    return None


def where_looked() -> str:
    """Where `default_speech_dir` looked, for a message when it found nothing."""
    return (f"$TALKSPURT_SPEECH is unset, and no folder at or above {Path.cwd().resolve()} is a project root "
            "(with pyproject.toml) that has ../shared/speech")


def speech_files(spec: Optional[Sequence[str] | str],
                 keys: str = "analysis.audio.speech or --speech") -> list[Path]:
    """The WAV files a `speech` setting names: files, or folders of *.wav.
    `keys` names the settings that give speech, for the message when none
    is given and no default is found."""
    if spec is None:
        d = default_speech_dir()
        if d is None:
            raise SpeechError(f"speech: got none (no speech given and no default found: {where_looked()}); "
                              f"expected {keys} naming WAV files or a folder of 8 kHz+ "
                              "speech, or $TALKSPURT_SPEECH naming a folder (docs/models/audio.md, \"Speech\")")
        spec = [str(d)]
    items = [spec] if isinstance(spec, (str, os.PathLike)) else list(spec)
    out: list[Path] = []
    for s in items:
        p = Path(s)
        if p.is_dir():
            found = sorted(p.glob("*.wav"))
            if not found:
                raise SpeechError(f"speech: got {_q(p)}, a folder that holds no .wav files; expected WAV files or a folder of them")
            out.extend(found)
        elif p.exists():
            out.append(p)
        else:
            raise SpeechError(f"speech: got {_q(p)}; expected an existing WAV file or folder (the file does not exist)")
    if not out:
        raise SpeechError("speech: no files given")
    return out


_PREPARED: dict[tuple, np.ndarray] = {}


def _prepared(path: str, fs: int, active_only: bool) -> np.ndarray:
    """A file's samples at `fs` (its VAD's speech only with `active_only`),
    read and resampled once per process: every call of a sweep's runs
    reads the same few files (seed 001: 648 calls, 8 files). Keyed by the
    file's size and modification time as well, so an edited file is read
    again. The array is read-only (shared by every source)."""
    try:
        st = os.stat(path)
    except OSError:
        read_wav(path)  # raises the SpeechError naming the file
        raise
    key = (path, st.st_size, st.st_mtime_ns, fs, active_only)
    x = _PREPARED.get(key)
    if x is None:
        x, rate = read_wav(path)
        if active_only:
            x = x[vad_mask(x, rate)]
        x = resample(x, rate, fs)
        x.flags.writeable = False
        if len(_PREPARED) >= 256:
            _PREPARED.clear()
        _PREPARED[key] = x
    return x


class SpeechSource:
    """The files concatenated, resampled to `fs`, read in order and looped.

    `active_only` keeps only what `vad_mask` calls speech, so every talkspurt
    carries speech (seed 000 §4.1 fills the on periods with continuous
    speech). `start` picks the first file (calls start at different ones).
    `timeline`: the source runs in real time from the call's start and a
    talkspurt carries the speech of its own instants (`at`), as when the
    talkspurts came from this speech's VAD (`speech = { model = "vad" }`).
    """

    def __init__(self, files: Sequence[Path], fs: int, *, active_only: bool = False, start: int = 0,
                 timeline: bool = False):
        parts = [_prepared(str(f), fs, active_only) for f in files]
        k = start % len(parts)
        self.signal = np.concatenate(parts[k:] + parts[:k])
        if len(self.signal) == 0:
            raise SpeechError("speech: the files hold no active speech")
        self.pos = 0
        self.timeline = timeline

    def take(self, n: int) -> np.ndarray:
        """The next n samples, wrapping around at the end."""
        L = len(self.signal)
        if self.pos + n <= L:  # no wrap: a copy of one slice
            out = self.signal[self.pos:self.pos + n].copy()
        else:
            out = self.signal[(self.pos + np.arange(n)) % L]
        self.pos = (self.pos + n) % L
        return out

    def at(self, pos: int, n: int) -> np.ndarray:
        """Samples [pos, pos + n) of the looped signal (the timeline reading)."""
        return self.signal[(pos + np.arange(n)) % len(self.signal)]

    def at_many(self, pos: np.ndarray, n: int) -> np.ndarray:
        """`at(p, n)` for every p of `pos`, one row each."""
        return self.signal[(pos[:, None] + np.arange(n)) % len(self.signal)]
