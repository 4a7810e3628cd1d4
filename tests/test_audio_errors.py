"""The audio path's errors: one line in the core's style, no tracebacks
(issue 25)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import talkspurt
from conftest import small_scenario
from talkspurt.audio.config import AudioError
from talkspurt.audio.pipeline import require_extra


def test_a_missing_audio_extra_is_one_line_naming_the_install():
    with pytest.raises(AudioError) as e:
        require_extra(stoi=True, find=lambda name: None if name in ("pesq", "pystoi") else object())
    msg = str(e.value)
    assert msg == ("analysis.audio: got no pesq, pystoi modules; expected the audio extra installed: "
                   "pip install 'talkspurt[audio]' (in a clone: pip install '.[audio]')")
    require_extra(stoi=False, find=lambda name: object())  # all there: nothing raised


def _cli_without_pesq(*args: str, cwd) -> subprocess.CompletedProcess:
    """The CLI in a process where `pesq` cannot be imported (None in
    sys.modules: importlib.util.find_spec answers None), as without the
    audio extra."""
    code = ("import sys; sys.modules['pesq'] = None; from talkspurt.cli import main; "
            f"sys.exit(main({list(args)!r}))")
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("command", ["validate", "run", "sweep", "sweep-dry-run"])
def test_a_missing_audio_extra_fails_every_command_up_front(tmp_path, command):
    # QA 001: validate exited 0 and sweep exited 1 after writing out/sweep.json.
    f = tmp_path / "s.toml"
    f.write_text(small_scenario(duration="3s") + '[sweep]\ngrid = { "links[1].delay" = ["10ms", "40ms"] }\n')
    audio = 'analysis.audio={ codec = "L16", segment = "15s", max_segments = 1 }'
    args = {"validate": ["validate", str(f)], "run": ["run", str(f), "-q", "-o", "out"],
            "sweep": ["sweep", str(f), "-q", "-j", "1", "-o", "out"],
            "sweep-dry-run": ["sweep", str(f), "--dry-run", "-o", "out"]}[command]
    r = _cli_without_pesq(*args, "--set", audio, cwd=tmp_path)
    assert r.returncode == 2, r.stderr
    assert r.stderr == ("talkspurt: error: analysis.audio: got no pesq module; expected the audio extra installed: "
                        "pip install 'talkspurt[audio]' (in a clone: pip install '.[audio]')\n")
    assert not (tmp_path / "out").exists()  # no sweep.json, no results


def test_vad_speech_not_found_names_the_vad_key_and_where_it_looked(tmp_path):
    # QA 003: outside the repository the message pointed at
    # analysis.audio.speech / --speech, keys of another table.
    f = tmp_path / "s.toml"
    f.write_text(small_scenario(duration="3s"))
    env = {k: v for k, v in os.environ.items() if k != "TALKSPURT_SPEECH"}
    r = subprocess.run([sys.executable, "-m", "talkspurt", "validate", str(f), "--set",
                        'calls[0].speech={ model = "vad" }'], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2, r.stderr
    assert r.stderr == (
        "talkspurt: error: calls[0].speech.speech: got none; expected calls[0].speech.speech naming WAV files or a "
        "folder of 8 kHz+ speech, or $TALKSPURT_SPEECH naming a folder; no default was found: $TALKSPURT_SPEECH is "
        f"unset, and no folder at or above {tmp_path.resolve()} is a project root (with pyproject.toml) that has "
        "../shared/speech (docs/models/audio.md, \"Speech\")\n")


def test_speech_errors_quote_like_the_core(tmp_path):
    res = talkspurt.run(small_scenario(duration="3s"))
    with pytest.raises(AudioError) as e:
        talkspurt.score_audio(res, {"speech": str(tmp_path / "x.wav")})
    assert str(e.value).startswith(f'speech: got "{tmp_path / "x.wav"}"; expected an existing WAV file')
    assert "'" not in str(e.value)


def test_no_speech_found_is_one_line_on_the_cli(tmp_path):
    d = tmp_path / "run"
    talkspurt.run(small_scenario(duration="3s")).save(d)
    env = {k: v for k, v in os.environ.items() if k != "TALKSPURT_SPEECH"}
    r = subprocess.run([sys.executable, "-m", "talkspurt", "audio", str(d), "--call", "0"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("talkspurt: error: speech: got none"), r.stderr


def test_pesq_reports_what_its_segments_cover():
    pytest.importorskip("pesq")
    from conftest import SPEECH

    if not SPEECH.is_dir():
        pytest.skip("no speech")
    sc = small_scenario(duration="40s").replace("p = 0.01", "p = 0.05")
    res = talkspurt.run(sc)
    full = talkspurt.score_audio(res, {"speech": str(SPEECH), "workers": 1}, calls=[0]).iloc[0]
    one = talkspurt.score_audio(res, {"speech": str(SPEECH), "workers": 1, "max_segments": 1}, calls=[0]).iloc[0]
    assert full.pesq_coverage == pytest.approx(1.0, abs=0.02)  # every segment scored (bar NaN ones)
    # Over the whole call the scored frames' loss is the call's audio loss.
    assert full.pesq_loss == pytest.approx(full.audio_missing / full.audio_frames, abs=0.02)
    assert 0 < one.pesq_coverage < 0.7 and one.pesq_speech_s < full.pesq_speech_s
    short = talkspurt.score_audio(talkspurt.run(small_scenario(duration="4s")),
                                  {"speech": str(SPEECH), "workers": 1}, calls=[0]).iloc[0]
    assert bool(short.pesq_short) and not bool(full.pesq_short)
