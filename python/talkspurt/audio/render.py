"""What the listener gets: a call's packet fates applied to its encoded speech.

Readings (docs/models/audio.md):

- A packet of `frames` table-codec frames generated (packetization
  complete) at t_generated carries the speech of [t_generated − frames·F,
  t_generated], F the table codec's frame. Talkspurts are filled with
  consecutive speech from the source; silences are zero (the sent signal).
  When the talkspurts came from the speech's own VAD, each frame carries
  the speech of its own instant instead (the source in real time).
- The receiver plays a talkspurt at generation time + the talkspurt's
  offset (`t_played − t_generated` of its played packets), so playout-delay
  changes between talkspurts shift whole talkspurts.
- Frames before a talkspurt's first played frame are silent: nothing tells
  the decoder a talkspurt began. From that frame on, every frame whose
  packet was not played (lost, late, dropped) is concealed by the decoder,
  up to the talkspurt's last frame. A talkspurt with nothing played is
  silent.
- Opus in-band FEC rebuilds a missing frame from the next frame's packet
  when that packet arrived before the missing frame's playout time.
- A talkspurt that starts before the previous one's playout ended (an
  adaptive buffer shrinking its delay by more than the silence) overwrites
  the overlap.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from .codecs import CodecSpec
from .speech import SpeechSource


@dataclass
class CallTrace:
    """One call's packets, in sequence order (columns of the packets table)."""

    talkspurt: np.ndarray
    frames: np.ndarray
    t_generated: np.ndarray
    t_arrived: np.ndarray
    t_played: np.ndarray
    start_s: float
    stop_s: float
    frame_s: float  # the table codec's frame duration


@dataclass
class Rendered:
    fs: int
    reference: np.ndarray  # the sent speech on the generation timeline
    degraded: np.ndarray  # the played signal on the playout timeline
    aligned: np.ndarray  # the decoded signal with the offsets undone (for STOI)
    spurts: list  # (ref_start, ref_end, deg_start or None) in samples, per talkspurt
    frames_total: int
    frames_missing: int  # not played (lost, late, dropped), anywhere in the call
    frames_concealed: int
    frames_fec: int
    # Per audio frame: its reference start sample and whether it was played
    # (the scored segments' own loss and coverage, `score.score`).
    frame_start: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    frame_ok: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))


def _frames_of(trace: CallTrace, fs: int, frame: int, audio_frame_s: float):
    """Lay the audio codec's frames on each talkspurt's packets.

    Per audio frame: talkspurt, reference sample index, whether every
    packet it overlaps was played, the latest arrival among them, and the
    index of its last packet. When the audio frame equals the run's codec
    frame (the default) each frame lies in exactly one packet. Array
    operations per talkspurt (a 300 s call of 10 ms frames is 30,000
    frames; a loop over them was most of a call's rendering).
    """
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
        edges = np.cumsum(dur[idx])  # packet ends, relative to the talkspurt start
        count = int(np.ceil(edges[-1] / audio_frame_s - 1e-9))
        if count <= 0:
            continue
        k = np.arange(count)
        a = k * audio_frame_s
        b = np.minimum((k + 1) * audio_frame_s, edges[-1])
        # Packets first..lastp (talkspurt positions) overlap frame k.
        first = np.searchsorted(edges, a, side="right")
        lastp = np.searchsorted(edges, b - 1e-12, side="left")
        if np.any(lastp < first):
            raise ValueError("an audio frame overlaps no packet of its talkspurt")
        lost = np.concatenate([[0], np.cumsum(~played[idx])])
        arr_k = arrived[idx][first]
        span = lastp - first
        for j in range(1, int(span.max()) + 1):  # frames over several packets: the latest arrival
            m = span >= j
            arr_k[m] = np.maximum(arr_k[m], arrived[idx][first[m] + j])
        spurt.append(np.full(count, trace.talkspurt[idx[0]], dtype=np.int64))
        start.append(np.rint((s0 + a) * fs).astype(np.int64))
        ok.append(lost[lastp + 1] == lost[first])
        arr.append(arr_k)
        last.append(idx[lastp])
    cat = lambda xs, dt: np.concatenate(xs).astype(dt) if xs else np.zeros(0, dtype=dt)  # noqa: E731
    return cat(spurt, np.int64), cat(start, np.int64), cat(ok, bool), cat(arr, float), cat(last, np.int64)


def render(trace: CallTrace, spec: CodecSpec, source: SpeechSource, *, conceal: bool = True) -> Rendered:
    fs, frame = spec.fs, spec.frame
    spurt, start, ok_all, arr, pkt = _frames_of(trace, fs, frame, spec.frame_ms / 1000)
    length = int(round((trace.stop_s - trace.start_s) * fs)) + frame
    if len(start):
        length = max(length, int(start.max()) + frame)
    ref = np.zeros(length)
    m = len(start)
    # Frames back to back (continuous speech): one slice holds them all.
    contiguous = m > 0 and start[0] >= 0 and bool(np.all(np.diff(start) == frame))

    def rows(x: np.ndarray) -> np.ndarray:
        """x[s0:s0 + frame] for every frame's s0, one row each."""
        if contiguous:
            return x[start[0]:start[0] + m * frame].reshape(m, frame)
        return x[start[:, None] + np.arange(frame)]

    if m and start[0] >= 0 and np.all(np.diff(start) >= frame):
        # Frames apart and in order (the rule): one assignment, the same
        # samples as frame by frame (`take` reads the source on in order).
        vals = source.at_many(start, frame) if source.timeline else source.take(frame * m).reshape(m, frame)
        if contiguous:
            ref[start[0]:start[0] + m * frame] = vals.reshape(-1)
        else:
            ref[start[:, None] + np.arange(frame)] = vals
    else:
        for s0 in start:  # overlapping frames: fill them in order, the later wins
            ref[s0:s0 + frame] = source.at(s0, frame) if source.timeline else source.take(frame)

    offsets = trace.t_played - trace.t_generated  # NaN where not played
    max_off = np.nanmax(offsets) if np.isfinite(offsets).any() else 0.0
    codec = spec.make()
    hold = getattr(codec, "delay", 0)
    deg = np.zeros(length + int(round(max_off * fs)) + 2 * frame + hold)
    aligned = np.zeros(length + 2 * frame + hold)
    spurts = []
    concealed = fec = 0
    # A stateless codec (`transcode`: L16) decodes every frame at once;
    # the others encode and decode frame by frame, in order (and so does
    # L16 in the unreached case of a frame starting before the call).
    bulk = hasattr(codec, "transcode") and (m == 0 or start.min() >= 0)
    decoded = codec.transcode(rows(ref)) if bulk else None
    enc_bits = [] if decoded is not None else [codec.encode(ref[s0:s0 + frame]) for s0 in start]
    bounds = np.flatnonzero(np.diff(spurt)) + 1
    for idx in np.split(np.arange(len(spurt)), bounds):
        if len(idx) == 0:
            continue
        ok = ok_all[idx]
        r0, r1 = int(start[idx[0]]), int(start[idx[-1]]) + frame
        spurt_offsets = offsets[pkt[idx]][np.isfinite(offsets[pkt[idx]])]
        if not ok.any() or len(spurt_offsets) == 0:
            spurts.append((r0, r1, None))
            continue
        off = int(round(spurt_offsets[0] * fs))
        first = int(np.argmax(ok))
        if decoded is not None:
            # Missing frames of a transcoding codec are silence, concealed
            # or not (L16 has no concealment of its own).
            played = decoded[idx[first]:idx[-1] + 1].copy()  # idx is a run of consecutive frames
            played[~ok[first:]] = 0.0
            concealed += int((~ok[first:]).sum()) if conceal else 0
            sig = played.reshape(-1)
            a0 = int(start[idx[first]])
            aligned[a0:a0 + len(sig)] = sig
            deg[a0 + off:a0 + off + len(sig)] = sig
            spurts.append((r0, r1, r0 + off))
            continue
        pieces = []
        for n, f in enumerate(idx[first:], start=first):
            if ok[n]:
                out = codec.decode(enc_bits[f])
            else:
                out = None
                if conceal and getattr(codec, "fec", False) and n + 1 < len(idx):
                    g = idx[n + 1]
                    due = trace.start_s + (start[f] + off) / fs
                    if arr[g] <= due:  # the next frame's packet is there in time
                        out = codec.decode_fec(enc_bits[g])
                        fec += 1
                if out is None and conceal:
                    out = codec.decode(None)
                    concealed += 1
                elif out is None:
                    out = np.zeros(frame)
            pieces.append(out)
        if hasattr(codec, "flush"):
            pieces.append(codec.flush())
        sig = np.concatenate(pieces)
        a0 = int(start[idx[first]])
        aligned[a0:a0 + len(sig)] = sig
        d0 = a0 + off
        deg[d0:d0 + len(sig)] = sig
        spurts.append((r0, r1, r0 + off))
    missing = int((~ok_all).sum())
    return Rendered(fs, ref, deg, aligned, spurts, len(spurt), missing, concealed, fec, start, ok_all)
