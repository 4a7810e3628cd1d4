"""PESQ (ITU-T P.862 with the P.862.1 / P.862.2 mappings) and STOI of a
rendered call.

PESQ is specified for recordings of about 8–20 s (P.862 §7), and its
reference C code overruns its 50-entry utterance table on longer ones
(`PESQ_MAX_S`). A call is therefore cut into segments of at least
`segment` and at most 19.5 s: in the silences between talkspurts where
there are some (the reference at the middle of the silence, the degraded
signal at the middle of the same silence as played, whose talkspurts are
shifted by their playout offsets), inside a talkspurt at the quietest
20 ms of the reference where there are none (continuous speech). The
call's score is the mean over segments, weighted by their reference speech
duration; the worst segment is reported too. P.862 runs in a child process
(`pesq_guard.py`), so a crash costs a NaN and a note, not the run.
Seed 001 scored the first 15 s of each call; `segment = "15s"` with
`max_segments = 1` reproduces that.

Beside the score: the speech seconds PESQ heard (`pesq_speech_s`), the
share of the call's frames in the scored segments (`pesq_coverage`) and
their own loss (`pesq_loss`), so a score can be read against what it
covers. P.862 §7 asks for about 8–20 s of speech per pair: below
`MIN_SPEECH_S` of scored speech the score is flagged (`pesq_short`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

import numpy as np

from .render import Rendered


def p862_1_inverse(mos_lqo: float) -> float:
    """Raw P.862 score from a P.862.1 MOS-LQO: inverse of
    y = 0.999 + 4.0 / (1 + exp(−1.4945·x + 4.6607)) (P.862.1 eq. 1)."""
    if not 0.999 < mos_lqo < 4.999:
        return math.nan
    return (4.6607 - math.log(4.0 / (mos_lqo - 0.999) - 1.0)) / 1.4945


MIN_SPEECH_S = 8.0  # P.862 §7: recordings of about 8–20 s (here: scored active speech)

P862_RAW_MIN = -0.5  # P.862 §10.2.4: the raw score's range is −0.5 … 4.5


def p862_map(raw: float, mode: str) -> float:
    """P.862.1 (narrowband) or P.862.2 (wideband) mapping of a raw score."""
    if mode == "nb":
        return 0.999 + 4.0 / (1.0 + math.exp(-1.4945 * raw + 4.6607))
    return 0.999 + 4.0 / (1.0 + math.exp(-1.3669 * raw + 3.8224))


def pesq_score(fs: int, ref: np.ndarray, deg: np.ndarray, mode: str) -> float:
    """MOS-LQO of one pair (NaN where P.862 failed; `pesq_noted` says why)."""
    return pesq_noted(fs, ref, deg, mode)[0]


def pesq_noted(fs: int, ref: np.ndarray, deg: np.ndarray, mode: str) -> tuple[float, Optional[str]]:
    """MOS-LQO of one pair and a note: P.862.1 for `nb`, P.862.2 for `wb`
    (ludlows' `pesq` package, the ITU reference C code, run in a child
    process by `pesq_guard`). NaN without a note where P.862 finds no
    utterance in the reference; NaN with a one-line note where P.862
    crashed, hung or raised. A silent degraded signal (every talkspurt of
    the segment lost) cannot be time-aligned by P.862; it scores the bottom
    of the scale, the mapping of the lowest raw score."""
    from .pesq_guard import guard

    if not np.any(ref):
        return math.nan, None
    if not np.any(deg):
        return p862_map(P862_RAW_MIN, mode), None
    return guard().score(fs, ref, deg, mode)


STOI_MAX_DELAY_S = 0.03  # codec delays here are 0–10 ms (look-ahead, G.711 App. I's 3.75 ms)


def codec_delay(ref: np.ndarray, dec: np.ndarray, fs: int, span_s: float = 10.0) -> int:
    """Samples by which the decoded signal lags the reference: the lag in
    0–30 ms of the largest cross-correlation over the first `span_s` s.
    STOI compares short-time envelopes sample-aligned, so the codec's
    constant delay is removed first (PESQ aligns by itself)."""
    n = min(len(ref), int(span_s * fs))
    max_lag = int(STOI_MAX_DELAY_S * fs)
    if n <= max_lag:
        return 0
    x = ref[: n - max_lag]
    cc = [float(np.dot(x, dec[k:k + len(x)])) for k in range(max_lag + 1)]
    return int(np.argmax(cc))


# P.862's utterance tables hold MAXNUTTERANCES = 50 entries (pesq.h) and are
# written without a bound check: a reference with more utterances overruns
# them (a segmentation fault; issue 22). An utterance counts when its VAD
# run lasts ≥ MINUTTLENGTH = 50 frames of 4 ms (Downsample: 32 samples at
# 8 kHz, 64 at 16 kHz), and the VAD joins runs ≤ JOINSPEECHLGTH = 50 frames
# apart, so counted utterances start ≥ 101 frames apart: 50 of them need at
# least 50·50 + 49·51 = 4999 frames, 19.996 s of reference. Segments are
# kept under 19.5 s, inside P.862 §7's 8–20 s as well.
PESQ_MAX_S = 19.5


@dataclass
class Segment:
    ref: tuple[int, int]
    deg: tuple[int, int]
    speech_s: float


def _quietest(ref: np.ndarray, lo: int, hi: int, fs: int) -> int:
    """The middle of the 20 ms window of least energy in ref[lo:hi] (the
    earliest on ties): where a continuous talkspurt is cut, in a pause of
    the speech itself when it has one."""
    w = max(1, int(0.02 * fs))
    k = (hi - lo) // w
    if k <= 0:
        return lo
    e = np.square(ref[lo:lo + k * w]).reshape(k, w).sum(axis=1)
    return lo + int(np.argmin(e)) * w + w // 2


def segments(r: Rendered, segment_s: float, max_segments: Optional[int] = None,
             max_s: float = PESQ_MAX_S) -> list[Segment]:
    """Cut the call into segments of ≥ `segment_s` and ≤ `max_s` seconds.

    A segment ends in the middle of the first silence after a talkspurt
    that ends ≥ segment_s past its start (the degraded signal in the middle
    of the same silence as played). When there is no such silence within
    max_s (continuous speech: one talkspurt for the whole call), it ends
    inside the talkspurt, at the quietest 20 ms of the reference between
    segment_s and max_s, and the degraded signal at the same instant as
    played (the talkspurt's playout offset). Cuts leave at least half a
    segment after them; a last segment shorter than that joins the one
    before when both fit in max_s. The first degraded segment starts where
    the call's start is played (its first talkspurt's offset).
    """
    if segment_s > max_s:
        raise ValueError(f"segment {segment_s:g} s is longer than PESQ's limit of {max_s:g} s")
    spurts = r.spurts
    if not spurts:
        return []
    # Degraded position of an unplayed talkspurt: the last known offset.
    offs, last = [], None
    for r0, _, d0 in spurts:
        last = d0 - r0 if d0 is not None else last
        offs.append(last)
    first = next((o for o in offs if o is not None), 0)
    offs = [first if o is None else o for o in offs]
    fs = r.fs
    seg, cap, half = int(round(segment_s * fs)), int(max_s * fs), int(round(0.5 * segment_s * fs))
    n_ref, n_deg = len(r.reference), len(r.degraded)
    # Silences: (end of the talkspurt before, reference cut, degraded cut).
    gaps = [(spurts[i][1], (spurts[i][1] + spurts[i + 1][0]) // 2,
             (spurts[i][1] + offs[i] + spurts[i + 1][0] + offs[i + 1]) // 2) for i in range(len(spurts) - 1)]
    starts = np.array([s[0] for s in spurts])

    def deg_at(p: int) -> int:
        """Degraded sample of reference sample p: its talkspurt's offset
        (in a silence, the offset of the talkspurt before it, not past the
        next one's start as played)."""
        i = max(0, int(np.searchsorted(starts, p, side="right")) - 1)
        d = p + offs[i]
        if i + 1 < len(spurts) and p >= spurts[i][1]:
            d = min(d, spurts[i + 1][0] + offs[i + 1])
        return d

    def speech(a: int, b: int) -> float:
        return sum(max(0, min(r1, b) - max(r0, a)) for r0, r1, _ in spurts) / fs

    out: list[Segment] = []
    # Both signals start at the call's start: the degraded one as played,
    # one playout offset later (a 3 s buffer is 3 s of silence otherwise).
    cur_r, cur_d = 0, max(0, min(deg_at(0), n_deg))
    k = 0
    while cur_r < n_ref:
        while k < len(gaps) and gaps[k][0] - cur_r < seg:
            k += 1
        cut = None
        if k < len(gaps) and gaps[k][1] - cur_r <= cap and n_ref - gaps[k][1] >= half:
            cut = (gaps[k][1], max(gaps[k][2], cur_d))
        elif n_ref - cur_r > cap:
            hi = min(cur_r + cap, n_ref - half)
            p = _quietest(r.reference, min(cur_r + seg, hi), hi, fs)
            cut = (p, max(deg_at(p), cur_d))
        if cut is None:
            out.append(Segment((cur_r, n_ref), (cur_d, n_deg), speech(cur_r, n_ref)))
            break
        out.append(Segment((cur_r, cut[0]), (cur_d, cut[1]), speech(cur_r, cut[0])))
        cur_r, cur_d = cut
        if max_segments is not None and len(out) >= max_segments:
            break
    # A short tail joins the previous segment when both fit.
    if len(out) >= 2 and out[-1].ref[1] == n_ref and out[-1].ref[1] - out[-1].ref[0] < half \
            and out[-1].ref[1] - out[-2].ref[0] <= cap:
        a, b = out[-2], out[-1]
        out[-2:] = [Segment((a.ref[0], b.ref[1]), (a.deg[0], b.deg[1]), a.speech_s + b.speech_s)]
    return out


def score(r: Rendered, *, mode: str = "nb", segment_s: float = 10.0, max_segments: Optional[int] = None,
          stoi: bool = False) -> dict[str, float]:
    """The call's audio columns (see docs/results.md)."""
    segs = segments(r, segment_s, max_segments)
    scores, weights, scored, notes = [], [], [], []
    for i, s in enumerate(segs):
        v, note = pesq_noted(r.fs, r.reference[s.ref[0]:s.ref[1]], r.degraded[s.deg[0]:s.deg[1]], mode)
        if note is not None:
            notes.append(f"segment {i} ({s.ref[0] / r.fs:.1f}-{s.ref[1] / r.fs:.1f} s): {note}")
        if not math.isnan(v):
            scores.append(v)
            weights.append(s.speech_s)
            scored.append(s)
    # What PESQ actually heard: the frames of the scored segments, their own
    # loss and their share of the call (a call with 26 % loss can score
    # well on one clean segment; issue 25).
    in_scored = np.zeros(len(r.frame_start), dtype=bool)
    for s in scored:
        in_scored |= (r.frame_start >= s.ref[0]) & (r.frame_start < s.ref[1])
    n_scored = int(in_scored.sum())
    mos = float(np.average(scores, weights=weights)) if scores else math.nan
    row = {
        "pesq_mos": mos,
        "pesq_min": min(scores) if scores else math.nan,
        "pesq_raw": p862_1_inverse(mos) if mode == "nb" else math.nan,
        "pesq_short": bool(sum(weights) < MIN_SPEECH_S),
        "pesq_segments": len(scores),
        "pesq_failed": len(notes),
        "pesq_note": "; ".join(notes[:1]) + (f" (and {len(notes) - 1} more)" if len(notes) > 1 else ""),
        "pesq_speech_s": float(sum(weights)),
        "pesq_loss": float((~r.frame_ok[in_scored]).sum() / n_scored) if n_scored else math.nan,
        "pesq_coverage": n_scored / len(r.frame_start) if len(r.frame_start) else math.nan,
        "audio_frames": r.frames_total,
        "audio_missing": r.frames_missing,
        "audio_concealed": r.frames_concealed,
        "audio_fec": r.frames_fec,
    }
    if stoi:
        from pystoi import stoi as _stoi

        end = max((s.ref[1] for s in segs), default=0)
        ref = r.reference[:end]
        lag = codec_delay(ref, r.aligned, r.fs)
        deg = np.pad(r.aligned[lag:lag + end], (0, max(0, end - len(r.aligned) + lag)))
        row["stoi"] = float(_stoi(ref, deg, r.fs, extended=False)) if np.any(ref) and np.any(deg) else math.nan
    return row
