"""PESQ (ITU-T P.862 with the P.862.1 / P.862.2 mappings) and STOI of a
rendered call.

PESQ is specified for recordings of about 8–20 s (P.862 §7; its utterance
search holds at most 50 utterances), so a longer call is cut into segments
of at least `segment` seconds, cut in the silences between talkspurts: the
reference at the middle of the silence, the degraded signal at the middle
of the same silence as played (whose talkspurts are shifted by their
playout offsets). The call's score is the mean over segments, weighted by
their reference speech duration; the worst segment is reported too.
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
    """MOS-LQO of one pair: P.862.1 for `nb`, P.862.2 for `wb` (ludlows'
    `pesq` package, the ITU reference C code). NaN where P.862 finds no
    utterance in the reference. A silent degraded signal (every talkspurt
    of the segment lost) cannot be time-aligned by P.862; it scores the
    bottom of the scale, the mapping of the lowest raw score."""
    from pesq import NoUtterancesError, pesq

    if not np.any(ref):
        return math.nan
    if not np.any(deg):
        return p862_map(P862_RAW_MIN, mode)
    try:
        return float(pesq(fs, ref.astype(np.float64), deg.astype(np.float64), mode))
    except NoUtterancesError:
        return math.nan


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


@dataclass
class Segment:
    ref: tuple[int, int]
    deg: tuple[int, int]
    speech_s: float


def segments(r: Rendered, segment_s: float, max_segments: Optional[int] = None) -> list[Segment]:
    """Cut the call into segments of whole talkspurts, ≥ segment_s long."""
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
    out: list[Segment] = []
    seg_start = 0
    ref_cut = 0
    deg_cut = 0
    speech = 0
    for i, (r0, r1, _) in enumerate(spurts):
        speech += r1 - r0
        nxt = i + 1 < len(spurts)
        if nxt and (r1 - ref_cut) < segment_s * fs:
            continue
        if nxt:
            n0 = spurts[i + 1][0]
            rc = (r1 + n0) // 2
            dc = max((r1 + offs[i] + n0 + offs[i + 1]) // 2, deg_cut)
        else:
            rc, dc = len(r.reference), len(r.degraded)
        out.append(Segment((ref_cut, rc), (deg_cut, dc), speech / fs))
        ref_cut, deg_cut, speech, seg_start = rc, dc, 0, i + 1
        if max_segments is not None and len(out) >= max_segments:
            break
    # A short tail joins the previous segment.
    if len(out) >= 2 and (out[-1].ref[1] - out[-1].ref[0]) < 0.5 * segment_s * fs:
        a, b = out[-2], out[-1]
        out[-2:] = [Segment((a.ref[0], b.ref[1]), (a.deg[0], b.deg[1]), a.speech_s + b.speech_s)]
    return out


def score(r: Rendered, *, mode: str = "nb", segment_s: float = 10.0, max_segments: Optional[int] = None,
          stoi: bool = False) -> dict[str, float]:
    """The call's audio columns (see docs/results.md)."""
    segs = segments(r, segment_s, max_segments)
    scores, weights, scored = [], [], []
    for s in segs:
        v = pesq_score(r.fs, r.reference[s.ref[0]:s.ref[1]], r.degraded[s.deg[0]:s.deg[1]], mode)
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
