"""The Python API: run and validate scenarios."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping, Sequence

from . import _core
from . import overrides as _overrides
from .scenario import _error, load_scenario, read_scenario_file, to_json
from .versions import versions

TYPE_CHECKING = False  # typing's, without importing typing (scenario.py)
if TYPE_CHECKING:
    from typing import Any, Callable, Optional, Union

    from .results import Results
    from .scenario import ScenarioLike


def resolve(scenario: ScenarioLike, overrides: Optional[Mapping[str, Any]] = None) -> dict[str, Any]:
    """The scenario document with `overrides` (`{"links[1].delay": "100ms"}`)
    applied, not yet validated."""
    doc = load_scenario(scenario)
    # A scenario file may carry a [sweep] table (talkspurt sweep); a single
    # run is its base scenario — for a sweep file, the scenario it names.
    sweep = doc.pop("sweep", None)
    if isinstance(sweep, Mapping) and isinstance(sweep.get("scenario"), str) and not doc \
            and isinstance(scenario, (str, os.PathLike)) and os.path.isfile(scenario):
        # Relative to the sweep file's folder (an absolute path stays as it is).
        doc = read_scenario_file(os.path.join(os.path.dirname(os.fspath(scenario)), sweep["scenario"]))
        doc.pop("sweep", None)
    if overrides:
        _overrides.apply(doc, overrides)
    return _overrides.drop_empty_groups(doc)


def validate(scenario: ScenarioLike, overrides: Optional[Mapping[str, Any]] = None) -> dict[str, Any]:
    """Validate a scenario; return it normalized, every default filled in.

    `overrides` maps key paths to values, as `talkspurt run --set` does.
    Raises `ScenarioError` naming the key path, the value and what is allowed.
    """
    from .audio import split

    from .audio.talkspurts import restore

    core, audio = split(resolve(scenario, overrides))
    out = restore(json.loads(_core.validate(to_json(core))), core)
    if audio is not None:
        from .audio.config import require_extra

        require_extra(audio.stoi)  # what `run` would need, said before it runs
        out.setdefault("analysis", {})["audio"] = audio.to_table()
    return out


def _queue_series(as_run: dict) -> bool:
    """Whether some link direction's queue asks for its series (`series = true`)."""
    for link in as_run.get("links", []):
        for table in (link, link.get("forward") or {}, link.get("reverse") or {}):
            if (table.get("queue") or {}).get("series", False):
                return True
    return False


def _run_core(text: str, seed, trace, progress, specs, key: str, partial: bool,
              meanwhile: Optional[Callable[[], None]] = None, defer_records: Optional[bool] = None) -> dict[str, Any]:
    """`_core.run`, stoppable: from the main thread the core runs in a
    worker thread while the main thread waits, so Ctrl-C (or SIGTERM's
    handler) is handled at once; it sets the core's interrupt flag, which
    the event loop checks every 50 ms and scoring between calls, and the
    run returns within a fraction of a second with nothing scored (or, with
    `partial`, scored up to where it stopped). Elsewhere (a worker thread,
    a pool's task) the core runs in the calling thread.

    `meanwhile()`, if given, is called on the main thread once the core
    has run for `MEANWHILE_AFTER_S` and is still running (the core holds no
    GIL): Python work the caller will likely need after the run (`run()`:
    importing pandas). A shorter run never calls it, so it never pays for
    work its caller may not want. A press of Ctrl-C during it is honoured
    when it returns.

    `defer_records`: the core's (None: the calls' records are handed to a
    second thread while the event loop runs, on two cores or more, once
    recording proves dear; False in a pool's worker, `executors.execute`;
    docs/results.md, "Threads of a run")."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        return _core.run(text, seed, trace, progress, specs, key, partial, None, defer_records)
    flag = _core.Interrupt()
    box: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        try:
            box["raw"] = _core.run(text, seed, trace, progress, specs, key, partial, flag, defer_records)
        except BaseException as e:  # handed to the main thread
            box["error"] = e
        finally:
            done.set()

    # An Event, not Thread.join: a join interrupted by Ctrl-C marks the thread
    # finished while it still runs (CPython gh-90882), and an interpreter that
    # exits under a thread inside the core aborts ("FATAL: exception not
    # rethrown": the exit unwinds the thread through PyO3's catch_unwind). So
    # Ctrl-C is held back from before the thread starts (a press just after
    # `start()` once left it running: CI, a pool worker) and raised only in
    # `check()`, where the handler below stops the core and waits for it.
    from .interrupts import deferred_interrupts

    with deferred_interrupts() as check:
        threading.Thread(target=work, name="talkspurt-run", daemon=True).start()
        try:
            t0 = time.perf_counter()
            while not done.wait(0.05):  # short waits: signals are checked between them
                check()
                if meanwhile is not None and time.perf_counter() - t0 >= MEANWHILE_AFTER_S:
                    meanwhile, later = None, meanwhile
                    later()
        except BaseException:
            flag.set()  # prompt: the core checks the flag every 50 ms
            done.wait()  # presses meanwhile are only noted; none abandons the core
            check.forget()
            if partial and "raw" in box:
                return box["raw"]
            raise
    if "error" in box:
        raise box["error"]
    return box["raw"]


def run(
    scenario: ScenarioLike,
    seed: Optional[int] = None,
    *,
    overrides: Optional[Mapping[str, Any]] = None,
    trace: Optional[bool] = None,
    progress: Optional[Callable[[float], None]] = None,
    pcap: Optional[Union[str, "os.PathLike[str]"]] = None,
    capture: Optional[Sequence[str]] = None,
    force: bool = False,
    check_memory: bool = True,
    partial: bool = False,
) -> "Results":
    """Run a scenario and return its `Results`.

    `overrides` maps key paths to values (`{"links[1].delay": "100ms",
    "run.seed": 3}`), applied to the document before validation; `seed`
    overrides `[run].seed`; `trace` overrides `[run].trace` (the per-packet
    table); `progress(fraction)` is called now and then.
    `pcap` names a folder for libpcap captures of what `capture` lists
    (default `["calls"]`: each call's receiver; `"link:I[:forward|reverse]"`
    and `"A>B"` name link directions; docs/pcap.md); an existing .pcap file
    there is an error unless `force`.
    `check_memory`: refuse (ScenarioError on `run.duration`) a run whose
    estimated memory exceeds what is available (`talkspurt.estimate`).
    `partial`: when Ctrl-C stops the run, return what ran, scored, with
    `manifest["partial"]` true (and the interruption's simulated time),
    instead of raising KeyboardInterrupt without scoring.
    Same scenario and seed give identical results. A `LatePlayoutWarning`
    is issued when most packets of some call arrived after their playout
    time (the buffer, not the network, then decides R), a
    `SilentCallWarning` when some call generated nothing, an
    `OversizePacketWarning` when some call's packets exceeded a 1500 B
    Ethernet MTU on the wire, a `SegmentedPacketWarning` when a TCP call's
    voice packets were larger than its mss (`notices.py`).
    """
    res = _run(scenario, seed, overrides=overrides, trace=trace, progress=progress, pcap=pcap,
               capture=capture, force=force, check_memory=check_memory, partial=partial,
               meanwhile=_import_pandas)
    from . import notices

    said = notices.said(res.summary_columns(notices.COLUMNS), res.manifest["scenario"],  # not the whole table
                        res.manifest.get("largest_bytes", ()))
    if said:
        import warnings

        for category, text in said:
            warnings.warn(text, category, stacklevel=2)
    return res


# When a run has lasted this long, `run()` imports pandas beside it: about
# what the import itself takes here (0.3-0.7 s, bench/README.md "Where the
# API's time goes"). The import then ends by the time a run of twice that
# does, and a run that reads no table pays at most this much more; a
# shorter run (the headline's 0.15-0.2 s) never imports it.
MEANWHILE_AFTER_S = 0.3


def _import_pandas() -> None:
    """Import pandas (with numpy and pyarrow: 0.3-0.7 s) while the core
    runs, on the second core, rather than after it when the first table is
    read: `talkspurt.run()` returns DataFrames. Not for the CLI, whose
    tables need no pandas. Its ~90 MB are then resident during the run
    rather than only after it. A failure here is left to the import that
    needs pandas, which reports it."""
    try:
        import pandas  # noqa: F401
    except Exception:
        pass


def _run(
    scenario: ScenarioLike,
    seed: Optional[int] = None,
    *,
    overrides: Optional[Mapping[str, Any]] = None,
    trace: Optional[bool] = None,
    progress: Optional[Callable[[float], None]] = None,
    pcap: Any = None,
    capture: Optional[Sequence[str]] = None,
    force: bool = False,
    keys: tuple[str, str] = ("pcap", "capture"),
    check_memory: bool = True,
    partial: bool = False,
    meanwhile: Optional[Callable[[], None]] = None,
    defer_records: Optional[bool] = None,
) -> "Results":
    from . import pcap as _pcap
    from .results import Results

    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0 or seed >= 2**64):
        raise _error("seed", repr(seed), "an integer from 0 to 2^64-1")
    from .audio import split

    pcap_dir, specs = _pcap.check(pcap, capture, force, keys)
    core, audio = split(resolve(scenario, overrides))  # the audio table is Python's (audio/config.py)
    if audio is not None:
        from .audio.config import require_extra

        require_extra(audio.stoi)  # before the simulation, not after it
    if check_memory:
        from . import estimate

        estimate.check(core, trace)
    text = to_json(core)
    # datetime's isoformat(timespec="seconds") of the UTC time, without
    # importing datetime (~2 ms of a process, issue 26).
    started = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())
    t0 = time.perf_counter()
    raw = _run_core(text, seed, trace, progress, specs or None, keys[1], partial, meanwhile, defer_records)
    wall = time.perf_counter() - t0
    completed = raw.pop("completed", True)
    raw.pop("interrupted", None)
    captures = raw.pop("captures")
    if pcap_dir is not None:
        _pcap.write(pcap_dir, captures, force)
    from .audio.talkspurts import restore

    as_run = restore(json.loads(raw["scenario"]), core)  # vad tables, not their talkspurt lists
    if not as_run.get("run", {}).get("series", False) and not _queue_series(as_run):
        raw["series"] = None  # no endpoint or queue series asked for: no table, no file
    manifest = {
        "scenario": as_run,
        "seed": raw["seed"],
        "started_utc": started,
        "wall_time_s": wall,
        "events": raw["events"],
        "voice_packets": raw["voice_packets"],
        "sim_end_s": raw["sim_end_s"],
        # Per call group: [largest IP packet, largest application unit] in bytes (notices.sized).
        "largest_bytes": [list(x) for x in raw.pop("largest", [])],
        **({"pcap": {"dir": str(pcap_dir), "files": [n for n, _ in captures]}} if pcap_dir is not None else {}),
        **({} if completed else {"partial": True}),
        "versions": versions(),
    }
    res = Results(raw, manifest)
    if audio is not None:
        manifest["scenario"].setdefault("analysis", {})["audio"] = audio.to_table()
        if res.packets is None:
            raise _error("analysis.audio", "a table", "[run] trace = true (the audio needs the per-packet table)")
        from .audio import with_audio

        t1 = time.perf_counter()
        with_audio(res, audio)
        manifest["audio_wall_time_s"] = time.perf_counter() - t1
    return res

