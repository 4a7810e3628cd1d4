"""The audio codecs: a run's codec name (or an override) → a real encoder and
decoder with the codec's own concealment.

Each codec object encodes one frame of int16-range PCM into bytes, and
decodes bytes (or `None` for a missing frame, which conceals) into one
frame of float PCM. `fs` is the sample rate it runs at and `frame` the
samples per frame.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable, Optional

import numpy as np

from . import g711, native
from .config import AudioError
from .plc import DELAY as PLC_DELAY, FRAME as PLC_FRAME, G711Plc

# Codecs of the run's table with no maintained library on Debian/PyPI.
UNAVAILABLE = {
    "G.723.1-5.3": "no maintained G.723.1 library is packaged for Debian or PyPI",
    "G.723.1-6.3": "no maintained G.723.1 library is packaged for Debian or PyPI",
}


class G711Codec:
    """G.711 µ-law or A-law; `plc` selects Appendix I concealment, else
    missing frames are zero-filled (the table's G.711-noPLC)."""

    fs = 8000

    def __init__(self, law: str = "mu", plc: bool = True, frame: int = 80):
        self.frame = frame
        self._enc, self._dec = ((g711.ulaw_encode, g711.ulaw_decode) if law == "mu"
                                else (g711.alaw_encode, g711.alaw_decode))
        self.plc = G711Plc() if plc else None
        self.delay = 0 if self.plc is None else PLC_DELAY  # Appendix I's 3.75 ms

    def encode(self, pcm: np.ndarray) -> bytes:
        return self._enc(np.clip(np.rint(pcm), -32768, 32767)).tobytes()

    def decode(self, data: Optional[bytes]) -> np.ndarray:
        if self.plc is None:
            if data is None:
                return np.zeros(self.frame)
            return self._dec(np.frombuffer(data, dtype=np.uint8)).astype(float)
        out = []
        for k in range(0, self.frame, PLC_FRAME):
            if data is None:
                out.append(self.plc.erased())
            else:
                part = np.frombuffer(data[k:k + PLC_FRAME], dtype=np.uint8)
                out.append(self.plc.good(self._dec(part).astype(float)))
        return np.concatenate(out)

    def flush(self) -> np.ndarray:
        return np.zeros(0) if self.plc is None else self.plc.flush()


class L16Codec:
    """No codec: 16-bit linear PCM (RFC 3551 §4.5.11 L16, mono), missing
    frames zero-filled. The identity path of the tests."""

    def __init__(self, frame: int):
        self.frame = frame

    def encode(self, pcm: np.ndarray) -> bytes:
        return np.clip(np.rint(pcm), -32768, 32767).astype("<i2").tobytes()

    def decode(self, data: Optional[bytes]) -> np.ndarray:
        if data is None:
            return np.zeros(self.frame)
        return np.frombuffer(data, dtype="<i2").astype(float)

    def transcode(self, pcm: np.ndarray) -> np.ndarray:
        """decode(encode(row)) of every row (frame) at once: L16 keeps no
        state, so frames need not pass one by one (render.py). A missing
        frame decodes to silence."""
        return np.clip(np.rint(pcm), -32768, 32767).astype("<i2").astype(float)


@dataclass(frozen=True)
class CodecSpec:
    """How to build one codec: its sample rate, frame and factory."""

    name: str
    fs: int
    frame_ms: float
    make: Callable[[], Any]
    library: str  # what does the work, for docs and errors

    @property
    def frame(self) -> int:
        return int(round(self.fs * self.frame_ms / 1000))


def _table_codec(name: str, law: str) -> Optional[CodecSpec]:
    """The real codec behind a name of the run's codec table."""
    if name == "G.711":
        return CodecSpec(name, 8000, 10, lambda: G711Codec(law, True), "G.711 + Appendix I PLC (talkspurt)")
    if name == "G.711-noPLC":
        return CodecSpec(name, 8000, 10, lambda: G711Codec(law, False), "G.711, zero-filled losses (talkspurt)")
    if name in ("G.729", "G.729A+VAD"):
        return CodecSpec(name, 8000, 10, native.G729Codec, "bcg729 (G.729 Annex A)")
    if name == "GSM-FR":
        return CodecSpec(name, 8000, 20, native.GsmCodec, "libgsm (GSM 06.10) + GSM 06.11 muting")
    m = re.fullmatch(r"AMR-NB-([\d.]+)", name)
    if m and m.group(1) in native.AMR_MODES:
        mode = native.AMR_MODES[m.group(1)]
        return CodecSpec(name, 8000, 20, lambda: native.AmrCodec(mode), "opencore-amrnb")
    m = re.fullmatch(r"Speex-NB-([\d.]+)", name)
    # libspeex's narrowband sub-modes (modes/nb_mode): 3.95 kb/s was added last, as 8.
    speex = {"2.15": 1, "5.95": 2, "8": 3, "11": 4, "15": 5, "18.2": 6, "24.6": 7, "3.95": 8}
    if m and m.group(1) in speex:
        sub = speex[m.group(1)]
        return CodecSpec(name, 8000, 20, lambda: native.SpeexCodec(sub), "libspeex")
    return None


OPUS_RATES = (8000, 12000, 16000, 24000, 48000)


def opus_spec(fs: int, frame_ms: float, bitrate: int, fec: bool, dtx: bool, loss_perc: int) -> CodecSpec:
    frame = int(round(fs * frame_ms / 1000))
    return CodecSpec("Opus", fs, frame_ms,
                     lambda: native.OpusCodec(fs, frame, bitrate, fec, dtx, loss_perc), "libopus")


def l16_spec(fs: int, frame_ms: float) -> CodecSpec:
    frame = int(round(fs * frame_ms / 1000))
    return CodecSpec("L16", fs, frame_ms, lambda: L16Codec(frame), "none (linear PCM)")


def resolve(name: str, law: str = "mu") -> CodecSpec:
    """The spec for a codec-table name; ValueError when none can be had."""
    if name in UNAVAILABLE:
        raise AudioError(f"analysis.audio.codec: got \"{name}\"; expected a codec with an audio implementation "
                         f"({UNAVAILABLE[name]}): choose another codec for the audio with analysis.audio.codec")
    spec = _table_codec(name, law)
    if spec is None:
        raise AudioError(f"analysis.audio.codec: got \"{name}\"; expected a codec with an audio implementation")
    return spec
