"""The audio codecs and G.711 concealment, checked without the simulator.

Figures and their sources are written next to each check. In CI every
codec library and the `pesq` package must be there (a missing one fails).
"""

from __future__ import annotations

import sys

import numpy as np
import pytest

from conftest import SPEECH

import talkspurt
from talkspurt.audio import codecs as ac
from talkspurt.audio import g711, plc
from talkspurt.audio.score import p862_1_inverse, p862_map, pesq_score
from talkspurt.audio.speech import read_wav, resample, vad_mask

FILES = sorted(SPEECH.glob("*.wav"))
TABLE = {c["name"]: c for c in talkspurt.codecs()}


def _audioop():
    if sys.version_info >= (3, 13):
        return pytest.importorskip("audioop")  # audioop-lts, the audio extra installs it
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        import audioop
    return audioop


def test_speech_material_is_there():
    assert len(FILES) == 8, f"expected the 8 shared recordings in {SPEECH}"


# -- G.711 (ITU-T G.711 Tables 1a/2a) against CPython's audioop, every code ----
@pytest.mark.parametrize("law", ["ulaw", "alaw"])
def test_g711_matches_audioop_on_every_value(law):
    audioop = _audioop()
    x = np.arange(-32768, 32768, dtype=np.int16)
    enc = getattr(g711, f"{law}_encode")(x)
    ref = np.frombuffer(getattr(audioop, f"lin2{law}")(x.tobytes(), 2), np.uint8)
    assert np.array_equal(enc, ref)
    codes = np.arange(256, dtype=np.uint8)
    dec = getattr(g711, f"{law}_decode")(codes)
    ref = np.frombuffer(getattr(audioop, f"{law}2lin")(codes.tobytes(), 2), np.int16)
    assert np.array_equal(dec, ref)


# -- Appendix I PLC -------------------------------------------------------------
def test_plc_without_erasures_is_the_input_delayed_by_3_75_ms():
    rng = np.random.default_rng(1)
    x = rng.normal(0, 3000, 80 * 20)
    p = plc.G711Plc()
    out = np.concatenate([p.good(x[i:i + 80]) for i in range(0, len(x), 80)] + [p.flush()])
    assert plc.DELAY == 30  # G.711 App. I: 3.75 ms at 8 kHz
    assert np.array_equal(out[plc.DELAY:], x)
    assert not out[:plc.DELAY].any()


@pytest.mark.parametrize("period", [40, 57, 83, 120])
def test_plc_pitch_of_a_periodic_signal_is_its_period(period):
    # A tone plus its third harmonic: the normalised correlation peaks at the
    # period and its multiples (App. I §I.2.2 searches 40-120 samples,
    # 5-15 ms). The 2:1 coarse search may land on an even multiple of an odd
    # period, which repeats the waveform just as exactly; even periods are
    # found themselves (the shortest of equal lags wins).
    n = np.arange(plc.HISTORY)
    h = 4000 * np.sin(2 * np.pi * n / period) + 1500 * np.sin(6 * np.pi * n / period + 0.3)
    got = plc.find_pitch(h)
    assert got % period == 0
    if period % 2 == 0:
        assert got == period


def test_plc_repeats_the_pitch_period_then_fades_to_silence_after_60_ms():
    period = 64
    n = np.arange(80 * 10)
    x = 5000 * np.sin(2 * np.pi * n / period)
    p = plc.G711Plc()
    for i in range(0, len(x), 80):
        p.good(x[i:i + 80])
    erased = [p.erased() for _ in range(8)]
    first = erased[0]
    # The first erased frame continues the waveform at its period (plus the
    # overlap-add with the delayed tail): same energy, close to the sine.
    cont = 5000 * np.sin(2 * np.pi * (np.arange(len(x), len(x) + 80) - plc.DELAY) / period)
    assert np.corrcoef(first[plc.DELAY:], cont[plc.DELAY:])[0, 1] > 0.95
    rms = [np.sqrt(np.mean(e ** 2)) for e in erased]
    assert rms[1] < rms[0] and rms[3] < rms[2]  # 20 % per 10 ms from the second frame
    # Silent from 60 ms of erasure on, after the 3.75 ms of the delay line.
    tail = np.concatenate(erased[6:])[plc.DELAY:]
    assert not tail.any()


# -- real codecs: bitstreams -----------------------------------------------------
@pytest.mark.parametrize("name", [n for n in TABLE if n not in ac.UNAVAILABLE])
def test_bitstream_size_equals_the_codec_table(name):
    """Each library's frame is the table's `frame_bytes`: G.729 80 bits,
    GSM 06.10 33 octets, Speex NB per sub-mode, AMR-NB per mode plus the
    one-octet table of contents of RFC 4867 §5.3's storage format."""
    spec = ac.resolve(name)
    c = spec.make()
    x, _ = read_wav(FILES[0])
    sizes = {len(c.encode(x[i:i + spec.frame])) for i in range(0, 40 * spec.frame, spec.frame)}
    expected = TABLE[name]["frame_bytes"] + (1 if name.startswith("AMR") else 0)
    assert sizes == {expected}
    assert spec.frame_ms == TABLE[name]["frame_ms"]


def _codec_pesq(name: str, files) -> list[float]:
    out = []
    for f in files:
        x, fs = read_wav(f)
        spec = ac.resolve(name)
        c = spec.make()
        n = len(x) // spec.frame * spec.frame
        parts = [c.decode(c.encode(x[i:i + spec.frame])) for i in range(0, n, spec.frame)]
        if hasattr(c, "flush"):
            parts.append(c.flush())
        y = np.concatenate(parts)
        out.append(pesq_score(8000, x[:n], y[:n], "nb"))
    return out


# G.113 Ie (the table's `Ie`) through the E-model's listening quality,
# MOS(R = 93.2 − Ie) (G.107 §7, Annex B), is the ITU's figure for each codec
# at 0 % loss. PESQ and the E-model do not agree exactly: P.862 §7 reports
# most residual errors within 0.5 MOS, which is the tolerance here. Mean
# over the 8 shared recordings (the P.862 conformance references).
# Measured (2026-11): G.711 4.40 vs 4.41; G.729 (bcg729, Annex A) 3.71 vs
# 4.14; GSM-FR 3.67 vs 3.74; AMR 4.75 3.33 vs 3.70; AMR 12.2 4.11 vs 4.29.
@pytest.mark.parametrize("name", ["G.711", "G.729", "GSM-FR", "AMR-NB-4.75", "AMR-NB-7.4", "AMR-NB-12.2"])
def test_zero_loss_pesq_is_within_0_5_of_the_g113_e_model_figure(name):
    scores = _codec_pesq(name, FILES)
    expected = talkspurt.mos_from_r(93.2 - TABLE[name]["Ie"])
    assert abs(np.mean(scores) - expected) <= 0.5, (scores, expected)


def test_zero_loss_g711_is_transparent():
    # G.711 is the E-model's reference (Ie = 0): PESQ ≥ 4.0 on every file
    # and ≥ 4.3 on average (the identity scores 4.55).
    scores = _codec_pesq("G.711", FILES)
    assert min(scores) >= 4.0 and np.mean(scores) >= 4.3


def test_more_bits_score_higher_at_zero_loss():
    # Speex has no G.113 Ie; its sub-modes must at least rank by bit rate
    # (Valin, Speex manual §9: quality rises with the mode), as AMR's do.
    two = FILES[:4]
    for names in (["Speex-NB-3.95", "Speex-NB-8", "Speex-NB-15", "Speex-NB-24.6"],
                  ["AMR-NB-4.75", "AMR-NB-7.4", "AMR-NB-12.2"]):
        means = [np.mean(_codec_pesq(n, two)) for n in names]
        assert means == sorted(means), dict(zip(names, means))


# -- PESQ and its mappings -------------------------------------------------------
@pytest.mark.parametrize("mode,fs", [("nb", 8000), ("wb", 16000)])
def test_identity_scores_the_top_of_the_mapped_scale(mode, fs):
    # Identical signals have no disturbance: raw P.862 = 4.5, mapped by
    # P.862.1 (nb) to 4.549 or by P.862.2 (wb) to 4.644.
    x, rate = read_wav(FILES[0])
    x = resample(x, rate, fs)
    got = pesq_score(fs, x, x, mode)
    assert got == pytest.approx(p862_map(4.5, mode), abs=1e-3)
    assert got >= 4.4


def test_p862_1_inverse_undoes_the_mapping():
    for raw in (-0.4, 1.0, 2.237, 3.18, 4.4):
        assert p862_1_inverse(p862_map(raw, "nb")) == pytest.approx(raw, abs=1e-9)


def test_silent_degraded_scores_the_bottom_of_the_scale():
    x, _ = read_wav(FILES[0])
    assert pesq_score(8000, x, np.zeros_like(x), "nb") == pytest.approx(p862_map(-0.5, "nb"))


# -- speech input -----------------------------------------------------------------
def test_resampling_round_trip_keeps_the_speech():
    x, fs = read_wav(FILES[1])
    back = resample(resample(x, fs, 16000), 16000, fs)
    err = x[100:-100] - back[100:-100]
    snr = 10 * np.log10(np.sum(x[100:-100] ** 2) / np.sum(err ** 2))
    assert snr > 30, snr  # the anti-alias filter removes only the top of the band


def test_vad_finds_a_burst_and_its_hangover():
    fs = 8000
    x = np.zeros(fs * 3)
    x[fs: 2 * fs] = 3000 * np.sin(2 * np.pi * 300 * np.arange(fs) / fs)
    m = vad_mask(x, fs, hangover_ms=200)
    assert not m[: fs - 80].any()
    assert m[fs + 80: 2 * fs].all()
    assert m[2 * fs: 2 * fs + 1500].all() and not m[2 * fs + 1700:].any()


def test_default_speech_is_the_shared_folder_beside_the_project(monkeypatch, root):
    from talkspurt.audio.speech import default_speech_dir, speech_files

    monkeypatch.delenv("TALKSPURT_SPEECH", raising=False)
    monkeypatch.chdir(root / "docs")
    assert default_speech_dir().resolve() == SPEECH.resolve()
    assert [f.name for f in speech_files(None)] == [f.name for f in FILES]
