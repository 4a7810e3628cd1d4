"""The VAD's `hangover` (`speech = { model = "vad" }`, docs/scenario.md) is
a whole number of the call's codec frames or an error: never rounded.
Before, it became round(hangover / frame) frames, so on 20 ms frames 30 ms
ran as 40 ms, 50 ms as 40 ms (round half to even) and 10 ms as none.

Self-contained: one 8 kHz WAV written here (1 s of silence, a 0.5 s tone,
1.5 s of silence) and the energy detector, so no shared speech is needed."""

from __future__ import annotations

import subprocess
import sys
import wave

import numpy as np
import pytest

import talkspurt
from talkspurt import ScenarioError


def _wav(tmp_path):
    f = tmp_path / "burst.wav"
    x = np.zeros(3 * 8000, np.int16)
    t = np.arange(4000) / 8000
    x[8000:12000] = (10000 * np.sin(2 * np.pi * 440 * t)).astype(np.int16)  # [1.0 s, 1.5 s)
    with wave.open(str(f), "wb") as w:
        w.setnchannels(1), w.setsampwidth(2), w.setframerate(8000), w.writeframes(x.tobytes())
    return f


def _scenario(tmp_path, codec: str, hangover: str) -> str:
    f = tmp_path / "s.toml"
    f.write_text(f"""
[run]
duration = "3s"
trace = true
[[links]]
between = ["a", "b"]
rate = "10Mbps"
delay = "10ms"
[[calls]]
from = "a"
to = "b"
codec = "{codec}"
transport = {{ kind = "udp" }}
speech = {{ model = "vad", speech = "{_wav(tmp_path)}", detector = "energy", hangover = "{hangover}" }}
""")
    return str(f)


def _want(written: str, frame: str, codec: str, near: list[str]) -> str:
    nearest = " and ".join(f'"{v}"' for v in near)
    return (f'calls[0].speech.hangover: got "{written}"; expected a whole number of the call\'s {frame} '
            f"codec frames ({codec}), not rounded: the nearest {'are' if len(near) > 1 else 'is'} {nearest}")


# (codec, hangover as written, its frame, the nearest whole numbers of
# frames within 0-2 s). What round() made of each on 20 ms frames: 30 ms
# -> 2 frames (40 ms), 50 ms -> 2 (40 ms, half to even), 10 ms -> 0.
BAD = [
    ("GSM-FR", "30ms", "20ms", ["20ms", "40ms"]),
    ("GSM-FR", "0.03s", "20ms", ["20ms", "40ms"]),
    ("GSM-FR", "50ms", "20ms", ["40ms", "60ms"]),
    ("Speex-NB-8", "10ms", "20ms", ["0ms", "20ms"]),
    ("G.723.1-6.3", "1990ms", "30ms", ["1980ms"]),  # 2010 ms is above the 2 s limit
]


@pytest.mark.parametrize("codec,written,frame,near", BAD, ids=[f"{c}-{w}" for c, w, _, _ in BAD])
def test_a_hangover_between_frames_is_refused_naming_the_nearest(tmp_path, codec, written, frame, near):
    with pytest.raises(ScenarioError) as e:
        talkspurt.validate(_scenario(tmp_path, codec, written))
    assert str(e.value) == _want(written, frame, codec, near)
    assert e.value.path == "calls[0].speech.hangover"


def test_the_cli_exits_2_without_a_traceback_or_results(tmp_path):
    out = tmp_path / "out"
    r = subprocess.run([sys.executable, "-m", "talkspurt", "run", _scenario(tmp_path, "GSM-FR", "30ms"),
                        "-o", str(out)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r
    assert r.stderr == f"talkspurt: error: {_want('30ms', '20ms', 'GSM-FR', ['20ms', '40ms'])}\n"
    assert r.stdout == ""
    assert not out.exists()  # nothing written


@pytest.mark.parametrize("codec,hangover,active", [("GSM-FR", "0ms", 25), ("GSM-FR", "40ms", 27),
                                                    ("G.711", "30ms", 53)])
def test_the_hangover_that_runs_is_the_one_written(tmp_path, codec, hangover, active):
    # The tone covers 10 ms detector frames 100-149 ([1.0 s, 1.5 s)): GSM-FR's
    # 20 ms codec frames 50-74 (25) or G.711's 10 ms frames 100-149 (50) are
    # active, and the hang-over adds exactly hangover / frame frames after
    # them: 40 ms = 2 GSM-FR frames, 30 ms = 3 G.711 frames; the packets
    # carry exactly those frames, in one talkspurt.
    res = talkspurt.run(_scenario(tmp_path, codec, hangover))
    pk = res.packets
    frames = int(pk["frames"].sum())
    assert frames == active, (codec, hangover, frames)
    assert pk["talkspurt"].nunique() == 1
