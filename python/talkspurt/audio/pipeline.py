"""Per-call audio of a run: build each call's trace, render it, score it;
calls in parallel processes."""

from __future__ import annotations

import os
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from . import codecs as audio_codecs
from .config import EXTRA, PATH, AudioConfig, AudioError, require_extra  # noqa: F401 (re-exported)
from .render import CallTrace, Rendered, render
from .score import PESQ_MAX_S, score
from .speech import SpeechSource, speech_files, write_wav

if TYPE_CHECKING:
    from ..results import Results

COLUMNS = ["pesq_mos", "pesq_min", "pesq_raw", "pesq_short", "pesq_segments", "pesq_failed", "pesq_note",
           "pesq_speech_s", "pesq_loss", "pesq_coverage", "audio_frames", "audio_missing", "audio_concealed",
           "audio_fec"]
OPUS_BITRATE = {"nb": 12000, "wb": 20000}  # RFC 7587 §3.1.1, top of the speech ranges
INT_COLUMNS = ("call", "pesq_segments", "pesq_failed", "audio_frames", "audio_missing", "audio_concealed", "audio_fec")


def codec_spec(cfg: AudioConfig, table_codec: str, table_frame_ms: float) -> audio_codecs.CodecSpec:
    """The real codec for a call of `table_codec`, under `cfg`."""
    name = cfg.codec or table_codec
    if name == "Opus":
        fs = 16000 if cfg.mode == "wb" else 8000
        frame_ms = table_frame_ms if table_frame_ms in (10.0, 20.0) else 20.0
        bitrate = cfg.bitrate or OPUS_BITRATE[cfg.mode]
        return audio_codecs.opus_spec(fs, frame_ms, bitrate, cfg.fec, cfg.dtx, cfg.loss_perc)
    if name == "L16":
        return audio_codecs.l16_spec(16000 if cfg.mode == "wb" else 8000, table_frame_ms)
    if name == "G.711" and not cfg.conceal:
        name = "G.711-noPLC"
    return audio_codecs.resolve(name, cfg.law)


TRACE_INT = ("talkspurt", "frames")
TRACE_TIME = ("t_generated", "t_arrived", "t_played")


def _traces(packets, calls: list[int]) -> dict[int, dict[str, np.ndarray]]:
    """Each call's packets in sequence order, as the columns a CallTrace
    needs: the columns are read once and ordered by (call, seq) with one
    sort (a pandas group and sort per call cost more than rendering it)."""
    call = packets["call"].to_numpy(dtype=np.int64)
    seq = packets["seq"].to_numpy(dtype=np.int64)
    order = np.lexsort((seq, call))
    cols = {k: packets[k].to_numpy(dtype=np.int64)[order] for k in TRACE_INT}
    cols.update({k: packets[k].to_numpy(dtype=float, na_value=np.nan)[order] for k in TRACE_TIME})
    by_call = call[order]
    out = {}
    for c in calls:
        a, b = np.searchsorted(by_call, c, side="left"), np.searchsorted(by_call, c, side="right")
        out[c] = {k: v[a:b] for k, v in cols.items()}
    return out


def _trace(cols: dict[str, np.ndarray], start_s: float, stop_s: float, frame_ms: float) -> CallTrace:
    return CallTrace(**cols, start_s=float(start_s), stop_s=float(stop_s), frame_s=frame_ms / 1000)


def speech_source(cfg: AudioConfig, call: int, files, fs: int, timeline: bool = False) -> SpeechSource:
    """Call `call`'s speech: the files from file `call` mod n on, at `fs`;
    in real time (`timeline`) when the run's VAD took its talkspurts from it."""
    return SpeechSource(files, fs, active_only=cfg.fill == "active", start=call, timeline=timeline)


def _speech_of(cfg: AudioConfig, scenario, call: int, default_files):
    """(files, timeline) of a call: its group's `model = "vad"` speech if
    the run took the talkspurts from it (the same speech, so what was "on"
    is what gets encoded), else the audio table's."""
    from .talkspurts import vad_table

    vt = vad_table(scenario, call)
    if vt is None:
        return default_files, False
    if cfg.speech is not None or cfg.fill != "continuous":
        raise AudioError(f"{PATH}.speech: call {call}'s talkspurts come from its speech's VAD "
                         "(speech = { model = \"vad\" }), which also gives the audio; leave "
                         f"{PATH}.speech and {PATH}.fill unset")
    return speech_files(vt["speech"]), True


def _vad(scenario, call: int) -> bool:
    from .talkspurts import vad_table

    return vad_table(scenario, call) is not None


def horizon(trace: CallTrace, cfg: AudioConfig) -> CallTrace:
    """With `max_segments`, the part of the call its segments can reach:
    max_segments × PESQ_MAX_S, plus one `segment` so every cut falls where
    it falls in the whole call (score.segments keeps half a segment after a
    cut). Rendering is causal (encoders and concealment run forward), so
    those segments are the whole call's; a 300 s call scored on its first
    15 s renders 35 s, not 300."""
    if cfg.max_segments is None:
        return trace
    end = trace.start_s + cfg.max_segments * PESQ_MAX_S + cfg.segment
    if end >= trace.stop_s:
        return trace
    keep = trace.t_generated <= end
    return CallTrace(talkspurt=trace.talkspurt[keep], frames=trace.frames[keep],
                     t_generated=trace.t_generated[keep], t_arrived=trace.t_arrived[keep],
                     t_played=trace.t_played[keep], start_s=trace.start_s, stop_s=end, frame_s=trace.frame_s)


def _one(args) -> tuple[dict[str, Any], Optional[Rendered]]:
    cfg, call, spec_args, trace, (files, timeline), keep = args
    if not keep:  # WAVs asked for: the whole call
        trace = horizon(trace, cfg)
    spec = codec_spec(cfg, *spec_args)
    source = speech_source(cfg, call, files, spec.fs, timeline)
    r = render(trace, spec, source, conceal=cfg.conceal)
    row = score(r, mode=cfg.mode, segment_s=cfg.segment, max_segments=cfg.max_segments, stoi=cfg.stoi)
    row["call"] = call
    return row, (r if keep else None)


def _jobs(results: "Results", cfg: AudioConfig, calls: Optional[list[int]], keep: bool):
    packets = results.packets
    if packets is None:
        raise AudioError(f"{PATH}: the audio needs the per-packet table; run with [run] trace = true")
    table = results.calls
    n = len(table)
    wanted = list(range(n)) if calls is None else calls
    for c in wanted:
        if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or not 0 <= c < n:
            raise AudioError(f"call: got {c}; expected a call index from 0 to {n - 1}")
    from .. import codecs as table_codecs

    frame_ms = {c["name"]: float(c["frame_ms"]) for c in table_codecs()}
    scenario = (getattr(results, "manifest", None) or {}).get("scenario")
    all_vad = all(_vad(scenario, int(c)) for c in wanted)
    files = None if all_vad and cfg.speech is None else speech_files(cfg.speech)
    traces = _traces(packets, [int(c) for c in wanted])
    codecs, start_s, stop_s = (table[k].to_numpy() for k in ("codec", "start_s", "stop_s"))
    jobs = []
    for c in wanted:
        c = int(c)
        codec = str(codecs[c])
        codec_spec(cfg, codec, frame_ms[codec])  # fail early, in this process
        speech = _speech_of(cfg, scenario, c, files)
        trace = _trace(traces[c], start_s[c], stop_s[c], frame_ms[codec])
        jobs.append((cfg, c, (codec, frame_ms[codec]), trace, speech, keep))
    return jobs


def score_audio(results: "Results", config: Optional[AudioConfig | dict] = None, *,
          calls: Optional[list[int]] = None, wav_dir: Optional[str | os.PathLike] = None):
    """Score calls of `results` on real speech: a DataFrame with one row per
    call (`call` and the audio columns of docs/results.md).

    `config` is an `AudioConfig` or an `audio` table; `calls` a list of call
    indices (default all); `wav_dir` writes `call<N>_reference.wav` and
    `call<N>_degraded.wav` there (the folder must not hold them already).
    """
    import pandas as pd

    from .config import parse

    cfg = config if isinstance(config, AudioConfig) else parse(config or {})
    require_extra(cfg.stoi)
    jobs = _jobs(results, cfg, calls, wav_dir is not None)
    if wav_dir is not None:
        d = Path(wav_dir)
        if d.exists() and not d.is_dir():
            raise AudioError(f"wav: got \"{d}\", which exists and is not a folder; expected a folder for the WAV files")
        clash = [f for _, c, *_ in jobs for f in (d / f"call{c}_reference.wav", d / f"call{c}_degraded.wav")
                 if f.exists()]
        if clash:
            raise AudioError(f"{clash[0]} exists; choose another folder (files are never overwritten)")
    workers = cfg.workers or os.cpu_count() or 1
    if workers > 1 and len(jobs) > 1:
        from concurrent.futures.process import BrokenProcessPool

        try:
            from ..executors import as_done, deferred_interrupts, guarded, spawning, worker_signals

            # Ctrl-C stops the calls being rendered and drops the rest (see
            # interrupts.deferred_interrupts: never raised inside the pool's locks).
            ex = ProcessPoolExecutor(max_workers=min(workers, len(jobs)), initializer=worker_signals)
            try:
                with deferred_interrupts() as check:
                    with spawning():
                        futs = [ex.submit(guarded, _one, j) for j in jobs]
                    for _ in as_done(futs, check):
                        pass
                out = [f.result() for f in futs]
            except BaseException:
                ex.shutdown(wait=True, cancel_futures=True)
                raise
            ex.shutdown(wait=True)
        except BrokenProcessPool:
            # PESQ runs in its own child (pesq_guard.py); a worker dying is
            # a codec library's crash. Say so in one line.
            raise AudioError(f"{PATH}: a process rendering the calls died (a codec library crashed); "
                             f"run with {PATH}.workers = 1 to see which call") from None
    else:
        out = [_one(j) for j in jobs]
    if wav_dir is not None:
        Path(wav_dir).mkdir(parents=True, exist_ok=True)
    rows = []
    for row, r in out:
        rows.append(row)
        if row["pesq_failed"]:
            warnings.warn(f"call {row['call']}: {row['pesq_failed']} PESQ segment(s) scored NaN: {row['pesq_note']}",
                          RuntimeWarning, stacklevel=2)
        if r is not None:
            write_wav(Path(wav_dir) / f"call{row['call']}_reference.wav", r.reference, r.fs)
            write_wav(Path(wav_dir) / f"call{row['call']}_degraded.wav", r.degraded, r.fs)
    cols = ["call"] + COLUMNS + (["stoi"] if cfg.stoi else [])
    df = pd.DataFrame(rows, columns=cols)
    for k in INT_COLUMNS:
        df[k] = df[k].astype("int64")
    return df


def with_audio(results: "Results", cfg: AudioConfig) -> None:
    """Add the audio columns to `results.calls` (the `[analysis] audio` metric)."""
    df = score_audio(results, cfg)
    calls = results.calls
    merged = calls.merge(df, on="call", how="left")
    results._frames["calls"] = merged
