"""Rendering a call with array operations gives the samples, to the bit,
of rendering it frame by frame (the loops render.py had before issue 26),
and the PESQ guard's memory answers a pair it has scored with the same
score to the bit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from conftest import SPEECH

import talkspurt
from talkspurt.audio import codecs as audio_codecs
from talkspurt.audio.pesq_guard import PesqGuard
from talkspurt.audio.render import CallTrace, _frames_of, render
from talkspurt.audio.speech import SpeechSource, speech_files


def frames_of_loop(trace: CallTrace, fs: int, frame: int, audio_frame_s: float):
    """render._frames_of as it was: one Python iteration per audio frame."""
    n = len(trace.frames)
    dur = trace.frames * trace.frame_s
    t_start = trace.t_generated - dur - trace.start_s
    played = ~np.isnan(trace.t_played)
    arrived = np.where(np.isnan(trace.t_arrived), np.inf, trace.t_arrived)
    spurt, start, ok, arr, last = [], [], [], [], []
    bounds = np.flatnonzero(np.diff(trace.talkspurt)) + 1 if n else []
    for idx in np.split(np.arange(n), bounds):
        if len(idx) == 0:
            continue
        s0 = t_start[idx[0]]
        edges = np.cumsum(dur[idx])
        count = int(np.ceil(edges[-1] / audio_frame_s - 1e-9))
        for k in range(count):
            a, b = k * audio_frame_s, min((k + 1) * audio_frame_s, edges[-1])
            first = int(np.searchsorted(edges, a, side="right"))
            lastp = int(np.searchsorted(edges, b - 1e-12, side="left"))
            cover = idx[first:lastp + 1]
            spurt.append(trace.talkspurt[idx[0]])
            start.append(int(round((s0 + a) * fs)))
            ok.append(bool(played[cover].all()))
            arr.append(float(arrived[cover].max()))
            last.append(int(cover[-1]))
    return (np.array(spurt, dtype=np.int64), np.array(start, dtype=np.int64), np.array(ok, dtype=bool),
            np.array(arr), np.array(last, dtype=np.int64))


def synthetic_trace(seed: int, frame_s: float = 0.01, spurts: int = 12) -> CallTrace:
    """Talkspurts of packets of 1-4 frames (ptime changing within a
    talkspurt, as adaptation does), 20 % lost, arrival jitter, one offset
    per talkspurt, some talkspurts entirely lost (with `spurts` > 1; one
    talkspurt is continuous speech, its frames back to back)."""
    rng = np.random.default_rng(seed)
    spurt, frames, gen = [], [], []
    t = 0.37 + rng.random()
    for s in range(spurts):
        for _ in range(int(rng.integers(1, 60 if spurts > 1 else 600))):
            f = int(rng.integers(1, 5))
            t += f * frame_s
            spurt.append(s)
            frames.append(f)
            gen.append(t)
        t += rng.random() * 2
    gen = np.array(gen)
    arrived = gen + 0.03 + 0.05 * rng.random(len(gen))
    arrived[rng.random(len(gen)) < 0.2] = np.nan
    spurt_a = np.array(spurt, dtype=np.int64)
    if spurts > 1:
        arrived[np.isin(spurt_a, rng.choice(spurts, 2, replace=False))] = np.nan
    offset = 0.06 + 0.01 * rng.integers(0, 8, spurts)
    played = np.where(np.isnan(arrived), np.nan, gen + offset[spurt_a])
    return CallTrace(talkspurt=spurt_a, frames=np.array(frames, dtype=np.int64), t_generated=gen,
                     t_arrived=arrived, t_played=played, start_s=0.37, stop_s=float(gen[-1]) + 1.0,
                     frame_s=frame_s)


def assert_same(a, b):
    for x, y in zip(a, b):
        assert x.dtype == y.dtype and np.array_equal(x, y), (x, y)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("audio_frame_s", [0.01, 0.02, 0.03, 0.025])
def test_frames_laid_at_once_are_the_frames_laid_one_by_one(seed, audio_frame_s):
    # 10 ms table frames under audio frames of 10, 20, 30 and 25 ms: a
    # frame in one packet, over two or three, or straddling a packet edge.
    tr = synthetic_trace(seed)
    fs = 8000
    frame = int(round(fs * audio_frame_s))
    assert_same(_frames_of(tr, fs, frame, audio_frame_s), frames_of_loop(tr, fs, frame, audio_frame_s))


class FrameByFrameL16:
    """L16 without `transcode`: render takes the frame-by-frame path."""

    def __init__(self, frame: int):
        self.codec = audio_codecs.L16Codec(frame)

    def encode(self, pcm):
        return self.codec.encode(pcm)

    def decode(self, data):
        return self.codec.decode(data)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("conceal", [True, False])
@pytest.mark.parametrize("timeline", [False, True])
@pytest.mark.parametrize("spurts", [12, 1])
def test_l16_rendered_at_once_equals_frame_by_frame(seed, conceal, timeline, spurts):
    tr = synthetic_trace(seed, spurts=spurts)
    files = speech_files(str(SPEECH))
    bulk = audio_codecs.l16_spec(8000, 10)
    slow = audio_codecs.CodecSpec("L16", 8000, 10, lambda: FrameByFrameL16(80), "test")
    assert not hasattr(slow.make(), "transcode")
    a = render(tr, bulk, SpeechSource(files, 8000, start=seed, timeline=timeline), conceal=conceal)
    b = render(tr, slow, SpeechSource(files, 8000, start=seed, timeline=timeline), conceal=conceal)
    for k in ("reference", "degraded", "aligned", "frame_start", "frame_ok"):
        x, y = getattr(a, k), getattr(b, k)
        assert x.dtype == y.dtype and np.array_equal(x, y), k
    assert a.spurts == b.spurts
    assert (a.frames_total, a.frames_missing, a.frames_concealed, a.frames_fec) == \
        (b.frames_total, b.frames_missing, b.frames_concealed, b.frames_fec)
    # The reference, frame by frame as render filled it before.
    src = SpeechSource(files, 8000, start=seed, timeline=timeline)
    ref = np.zeros(len(a.reference))
    for s0 in a.frame_start:
        ref[s0:s0 + 80] = src.at(s0, 80) if timeline else src.take(80)
    assert np.array_equal(ref, a.reference)


def test_seed_001_call_renders_the_same_both_ways(monkeypatch):
    # A run of seed 001's kind (continuous speech, adaptation changing the
    # ptime, heavy loss at 200 kb/s): the call's whole rendering and score
    # row are the same by either path.
    monkeypatch.setenv("TALKSPURT_SPEECH", str(SPEECH))
    from talkspurt.audio.pipeline import _jobs, codec_spec, speech_source
    from talkspurt.audio.config import parse

    sc = """
[run]
duration = "40s"
seed = 1
trace = true
[[links]]
between = ["a", "r"]
rate = "100Mbps"
[[links]]
between = ["r", "b"]
rate = "200kbps"
delay = "30ms"
queue = { kind = "droptail", limit = "50p" }
[[calls]]
count = 4
from = "a"
to = "b"
codec = "G.711"
ptime = "20ms"
speech = { model = "continuous" }
stagger = "2s"
playout = { kind = "fixed", delay = "3s" }
rtcp = { interval = "fixed", min_interval = "5s" }
adapt = { kind = "busse1996" }
"""
    res = talkspurt.run(sc)
    cfg = parse({"codec": "L16", "segment": "15s", "max_segments": 1, "workers": 1})
    missing = 0
    for (_, c, spec_args, trace, (files, timeline), _) in _jobs(res, cfg, None, True):
        spec = codec_spec(cfg, *spec_args)
        slow = audio_codecs.CodecSpec("L16", spec.fs, spec.frame_ms, lambda: FrameByFrameL16(spec.frame), "test")
        a = render(trace, spec, speech_source(cfg, c, files, spec.fs, timeline))
        b = render(trace, slow, speech_source(cfg, c, files, spec.fs, timeline))
        assert np.array_equal(a.degraded, b.degraded) and np.array_equal(a.reference, b.reference)
        assert (a.frames_missing, a.frames_concealed) == (b.frames_missing, b.frames_concealed)
        assert a.spurts == b.spurts
        missing += a.frames_missing
    assert missing > 0  # the loss path was taken


def test_a_pair_scored_again_is_answered_from_memory_with_the_same_bits():
    files = speech_files(str(SPEECH))
    ref = SpeechSource(files, 8000).take(8 * 8000)
    deg = ref.copy()
    deg[8000:8800] = 0.0  # 100 ms lost
    g = PesqGuard()
    try:
        v1, n1 = g.score(8000, ref, deg, "nb")
        assert n1 is None and 1.0 < v1 < 4.5
        assert (g.hits, g.misses) == (0, 1)
        v2, n2 = g.score(8000, ref.copy(), deg.copy(), "nb")
        assert (g.hits, g.misses) == (1, 1)
        assert n2 is None and math.copysign(1, v1) == math.copysign(1, v2) and v1.hex() == v2.hex()
        # One sample changed is another pair: scored by P.862 again.
        deg[100] += 1.0
        g.score(8000, ref, deg, "nb")
        assert (g.hits, g.misses) == (1, 2)
        # A fresh guard (a fresh child) computes the same bits.
        deg[100] -= 1.0
        fresh = PesqGuard()
        try:
            v3, _ = fresh.score(8000, ref, deg, "nb")
        finally:
            fresh.close()
        assert v3.hex() == v1.hex()
    finally:
        g.close()


def test_failures_are_not_remembered(tmp_path):
    # A child that dies: NaN and a note, asked again next time (not cached).
    crash = tmp_path / "crash.py"
    crash.write_text("import os, sys\nsys.stdin.buffer.read(24)\nos._exit(3)\n")
    import sys

    g = PesqGuard(command=[sys.executable, str(crash)])
    try:
        x = np.ones(8000)
        v, note = g.score(8000, x, x, "nb")
        assert math.isnan(v) and note is not None
        v, note = g.score(8000, x, x, "nb")
        assert math.isnan(v) and note is not None
        assert (g.hits, g.misses) == (0, 2) and g.cache == {}
    finally:
        g.close()


def test_take_reads_the_source_on_in_order_and_wraps():
    src = SpeechSource(speech_files(str(SPEECH)), 8000)
    L = len(src.signal)
    sizes = (100, L - 150, 100, 3 * L + 7, 5, 80)
    got = np.concatenate([src.take(n) for n in sizes])
    assert np.array_equal(got, np.resize(src.signal, sum(sizes)))  # np.resize repeats the signal
    assert src.pos == sum(sizes) % L
    a = src.take(10)
    a[:] = 0.0  # a copy: the source is untouched
    assert np.any(src.signal[src.pos - 10:src.pos])


@pytest.mark.parametrize("speech,transport", [
    ('{ model = "exponential", talk = "1s", silence = "1.5s" }', '{ kind = "udp" }'),
    ('{ model = "continuous" }', '{ kind = "udp" }'),
    ('{ model = "exponential", talk = "1s", silence = "1.5s" }', '{ kind = "dccp", ccid = 3 }'),
])
def test_call_traces_are_each_calls_packets_in_sequence_order(speech, transport):
    # pipeline._traces sorts the packets table once by (call, seq); the
    # per-call pandas group and sort it replaced gave the same columns.
    from talkspurt.audio.pipeline import TRACE_INT, TRACE_TIME, _traces

    res = talkspurt.run(f"""
[run]
duration = "20s"
seed = 4
trace = true
[[links]]
between = ["a", "b"]
rate = "300kbps"
delay = "20ms"
loss = {{ kind = "bernoulli", p = 0.05 }}
queue = {{ kind = "droptail", limit = "10p" }}
[[calls]]
count = 5
from = "a"
to = "b"
codec = "G.711"
speech = {speech}
transport = {transport}
start = {{ kind = "uniform", from = "0s", to = "2s" }}
""")
    p = res.packets
    assert not p.duplicated(["call", "seq"]).any()
    got = _traces(p, list(range(6)))  # call 5 does not exist: no packets
    groups = dict(tuple(p.groupby("call", sort=True, observed=True)))
    for c in range(6):
        g = groups.get(c, p.iloc[0:0]).sort_values("seq")
        for k in TRACE_INT:
            assert np.array_equal(got[c][k], g[k].to_numpy(dtype=np.int64)), (c, k)
        for k in TRACE_TIME:
            x, y = got[c][k], g[k].to_numpy(dtype=float, na_value=np.nan)
            assert x.dtype == y.dtype and np.array_equal(x, y, equal_nan=True), (c, k)
    assert len(got[5]["frames"]) == 0 and sum(len(got[c]["frames"]) for c in range(5)) == len(p)
