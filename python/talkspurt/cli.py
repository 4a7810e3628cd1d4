"""The `talkspurt` command.

Exit status: 0 success; 2 bad input (scenario, arguments, output folder) —
with a one-line error and no output files; 130 interrupted (Ctrl-C), 143
terminated (SIGTERM), in both cases with no partial output left; 1
internal error. A closed stdout (`talkspurt run … | head`) is not an error:
output stops, results are still written.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys

from ._core import ScenarioError, __version__

# typing's, without importing typing; pathlib is imported by the commands
# that use it: `talkspurt run` needs neither (issue 26, scenario.py).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Optional, Sequence

# Columns of the per-call table printed by `run`.
SUMMARY = [
    ("call", "call"), ("group", "group"), ("codec", "codec"), ("ptime_ms", "ptime"),
    ("transport", "transport"), ("generated", "pkts"), ("loss_total", "loss%"),
    ("loss_queue", "queue%"), ("loss_link", "link%"), ("loss_late", "late%"),
    ("delay_mean_ms", "delay"), ("delay_p95_ms", "p95"), ("jitter_ms", "jitter"),
    ("mouth_to_ear_ms", "m2e"), ("r", "R"), ("mos", "MOS"), ("r_simple", "R_cr"),
    ("bound_g107_r", "R_opt"), ("bound_r", "R_cr_opt"), ("pesq_mos", "PESQ"),  # PESQ with [analysis] audio
]
# The short headers are explained in the README ("Reading the table"); a
# test keeps the two in step.
PERCENT = {"loss_total", "loss_queue", "loss_link", "loss_late"}
# Columns the table reads beside SUMMARY's (summary.format_table).
TABLE_READS = ["emodel_extrapolated"]
MAX_ROWS = 20


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, its width found as argparse finds it
    (`shutil.get_terminal_size`: COLUMNS, else the terminal's, else 80;
    less 2) without importing shutil, which with bz2, lzma and zlib was
    ~2 ms of every command: a parser builds a formatter for each argument
    (issue 26)."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: Optional[int] = None) -> None:
        super().__init__(prog, indent_increment, max_help_position, _columns() - 2 if width is None else width)


def _columns() -> int:
    """`shutil.get_terminal_size().columns` (tests/test_cli_parser.py compares them)."""
    try:
        n = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        n = 0
    if n <= 0:
        try:
            n = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            n = 0
    return n if n > 0 else 80


def _parser(command: Optional[str] = None) -> argparse.ArgumentParser:
    """The command line's parser: every command as a subcommand; or, given
    `command` (`_command_of`), that command's alone, which parses its
    arguments, prints its help and reports its errors as its subcommand
    does (prog "talkspurt COMMAND") without building the others (issue 26:
    their ~10 parsers and 75 arguments, with a gettext lookup for each
    help string, were ~4 ms of each `talkspurt run`)."""
    from . import compare as _compare

    commands = {**_COMMANDS, "compare": (_compare.HELP, _compare.DESCRIPTION, _compare.add_arguments)}
    if command is not None:
        _, description, add = commands[command]
        p = argparse.ArgumentParser(prog=f"talkspurt {command}", description=description, formatter_class=_HelpFormatter)
        add(p)
        p.set_defaults(command=command)
        return p
    p = argparse.ArgumentParser(
        formatter_class=_HelpFormatter,
        prog="talkspurt",
        description="Simulate voice calls over transport protocols and score their quality.",
    )
    p.add_argument("--version", action="version", version=f"talkspurt {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name, (help_, description, add) in commands.items():
        add(sub.add_parser(name, help=help_, description=description, formatter_class=_HelpFormatter))
    return p


def _command_of(argv: Sequence[str]) -> Optional[str]:
    """The command `argv` names first, if it is one (else None: the whole
    parser, for `--help`, `--version` and a mistyped command)."""
    return argv[0] if argv and (argv[0] in _COMMANDS or argv[0] == "compare") else None


def _args_run(r: argparse.ArgumentParser) -> None:
    r.add_argument("scenario", help="scenario file (TOML, or JSON when named *.json)")
    _add_set(r)
    r.add_argument("-o", "--output", metavar="DIR", help="write results into DIR (must be new or empty)")
    r.add_argument("--seed", type=int, help="override [run].seed")
    r.add_argument("--no-trace", action="store_true", help="skip the per-packet table (faster, less memory)")
    r.add_argument("--force", action="store_true", help="replace the contents of an existing DIR (and .pcap files)")
    r.add_argument("--pcap", metavar="DIR", help="write libpcap captures into DIR (docs/pcap.md)")
    r.add_argument("--capture", action="append", metavar="SPEC",
                   help='what to capture with --pcap: "calls" (default), "call:N", "link:I", '
                        '"link:I:forward|reverse", "A>B"; repeatable')
    r.add_argument("-q", "--quiet", action="store_true", help="no table, no progress bar")
    r.add_argument("--keep-partial", action="store_true",
                   help="on Ctrl-C, score what ran and write it (manifest: partial = true); default: write nothing")
    r.add_argument("--no-memory-check", action="store_true",
                   help="run even when the estimated memory exceeds what is available")


def _args_validate(v: argparse.ArgumentParser) -> None:
    v.add_argument("scenario", help="scenario file (TOML, or JSON when named *.json)")
    _add_set(v)
    v.add_argument("--format", choices=("json", "toml"), default="json", help="output format (default json)")


def _args_none(_: argparse.ArgumentParser) -> None:
    pass


def _args_sweep(s: argparse.ArgumentParser) -> None:
    s.add_argument("scenario", help="scenario file with a [sweep] table, or a sweep file naming its scenario")
    _add_set(s)
    s.add_argument("-o", "--output", metavar="DIR", required=True, help="results store (new, empty, or this sweep's)")
    s.add_argument("--executor", default="local", metavar="WHERE",
                   help="local (process pool, default), dask (a LocalCluster) or dask://host:port")
    s.add_argument("-j", "--workers", type=int, metavar="N", help="worker processes (default: one per core)")
    s.add_argument("--no-trace", action="store_true", help="skip the per-packet tables (faster, smaller)")
    s.add_argument("--force", action="store_true", help="replace a DIR holding something else")
    s.add_argument("-q", "--quiet", action="store_true", help="no progress bar, no summary")
    s.add_argument("--dry-run", action="store_true",
                   help="print the points and the number of runs (and how many DIR already holds); run nothing")


def _args_report(rp: argparse.ArgumentParser) -> None:
    rp.add_argument("results", help="results folder")
    rp.add_argument("-o", "--output", metavar="FILE", help="HTML file (default RESULTS/report.html)")
    rp.add_argument("--force", action="store_true", help="replace an existing FILE")
    _add_figure_selection(rp)


def _args_plot(pl: argparse.ArgumentParser) -> None:
    pl.add_argument("results", help="results folder")
    pl.add_argument("-o", "--output", metavar="DIR", help="figure folder (default RESULTS/figures)")
    pl.add_argument("--format", choices=["png", "svg", "both"], default="both")
    pl.add_argument("--force", action="store_true", help="replace existing figure files")
    _add_figure_selection(pl)


def _args_reproduce(rp2: argparse.ArgumentParser) -> None:
    rp2.add_argument("bundle", nargs="*", help="bundle id (000-004) or a folder holding published.toml; several, "
           "or all (every bundle found); without one, list the bundles")
    rp2.add_argument("-o", "--output", metavar="DIR", help="output folder (default out/reproduce-NNN[-quick]); with "
           "several bundles, the folder holding DIR/NNN for each (default: each in out/reproduce-NNN[-quick])")
    rp2.add_argument("--quick", action="store_true", help="scaled-down runs (CI); every output says so")
    rp2.add_argument("--item", action="append", metavar="ITEM", help='only this table/figure, e.g. "Table 1" (repeatable)')
    rp2.add_argument("-j", "--workers", type=int, metavar="N", help="worker processes (default: one per core)")
    rp2.add_argument("--executor", default="local", metavar="WHERE",
                     help="local (process pool, default), dask (a LocalCluster) or dask://host:port")
    rp2.add_argument("--doc", metavar="FILE", help="also write the Markdown reproduction to FILE (full scale only); "
           "a folder (always so with several bundles) receives NNN.md for each")
    rp2.add_argument("--timings", metavar="FILE", help="write how the invocation spent its time as JSON: each phase, "
           "the seconds of the workers' jobs by kind, how busy the workers were")
    rp2.add_argument("--force", action="store_true", help="write into a non-empty DIR / replace FILE")
    rp2.add_argument("-q", "--quiet", action="store_true", help="no progress bar, no table")


def _args_audio(a: argparse.ArgumentParser) -> None:
    a.add_argument("results", help="results folder written by `talkspurt run -o`")
    a.add_argument("--call", type=int, action="append", metavar="N",
                   help="call index (repeatable; default every call)")
    a.add_argument("--speech", action="append", metavar="WAV",
                   help="speech WAV file or folder (repeatable; default ../shared/speech or $TALKSPURT_SPEECH)")
    a.add_argument("--codec", help='audio codec instead of the call\'s own: a codec-table name, "Opus" or "L16"')
    a.add_argument("--mode", choices=("nb", "wb"), default="nb", help="PESQ narrowband (P.862.1) or wideband (P.862.2)")
    a.add_argument("--no-conceal", action="store_true", help="zero-fill lost frames instead of concealing them")
    a.add_argument("--fill", choices=("continuous", "active"), default="continuous",
                   help="active: keep only what the VAD calls speech, so talkspurts carry speech throughout")
    a.add_argument("--segment", metavar="DURATION", default="10s", help="PESQ segment length (default 10s)")
    a.add_argument("--stoi", action="store_true", help="also compute STOI")
    a.add_argument("--wav", metavar="DIR", help="write callN_reference.wav and callN_degraded.wav into DIR")
    a.add_argument("--workers", type=int, help="processes (default: all cores)")


# Each command but `compare` (compare.py's): its help, description and the
# function adding its arguments.
_COMMANDS = {
    "run": ("run a scenario, print per-call quality, optionally save results",
             "Run a scenario; print a per-call table; with -o write calls/packets/"
             "links/traffic/series as Parquet plus manifest.json.", _args_run),
    "validate": ("check a scenario and print it normalized",
             "Validate a scenario; print it with every default filled in (JSON, or TOML "
             "with --format toml).", _args_validate),
    "codecs": ("list the codec table",
             "List codecs with frame, rate, Ie and Bpl.", _args_none),
    "sweep": ("run a parameter sweep into a results store",
             "Run every point and replication of a [sweep] (docs/sweeps.md) into DIR: "
             "one Parquet dataset partitioned by run, plus sweep.json. Re-running the same "
             "command resumes an interrupted sweep.", _args_sweep),
    "report": ("write an HTML report of a results folder",
             "Write one self-contained HTML file (figures embedded) for the results of "
             "talkspurt run -o or talkspurt sweep -o.", _args_report),
    "plot": ("draw the figures of a results folder",
             "Draw the figures of a results folder as PNG and SVG files.", _args_plot),
    "reproduce": ("reproduce a seed study: the paper's numbers beside ours (and ns-2's)",
             "Run a reproduction bundle (scenarios/seeds/NNN, docs/reproductions/README.md) "
             "and write comparison.csv, reproduction.md and report.html into DIR. Several "
             "bundles (or all) run in one invocation on one pool of workers, bundle NNN "
             "into DIR/NNN, each exactly as when run alone. Re-running the same command "
             "resumes.", _args_reproduce),
    "audio": ("PESQ of calls of saved results, on real speech through real codecs",
             "Apply each packet's fate of a saved run (talkspurt run -o DIR) to real "
             "speech through the call's codec with its concealment, and score it with "
             "PESQ (ITU-T P.862). Prints one row per call; --wav writes what the "
             "listener hears. See docs/models/audio.md.", _args_audio),
}


# figures.KINDS, named here so that building the parser imports neither
# matplotlib nor numpy (tests/test_figures_ux.py keeps the two in step).
FIGURE_KINDS = ("quality", "rtpi", "goodput", "ftp-goodput", "fairness", "loss-stages", "runs")


def _add_figure_selection(p: argparse.ArgumentParser) -> None:
    p.add_argument("--metric", action="append", metavar="KIND|COLUMN",
                   help=f"what a sweep's figures plot: {', '.join(FIGURE_KINDS)} or a calls-table column "
              "(repeatable; default quality)")
    p.add_argument("--x", metavar="AXIS", help="the swept key path on the x axis (default: one figure per axis)")
    p.add_argument("--stat", choices=("median", "mean"), default="median",
                   help="median and quartiles over calls, or mean over replications with its 95%% interval")
    p.add_argument("--run", metavar="RUN|POINT", help="the run of a sweep the per-run figures show: its key or a "
                                 "point index (default the first complete run)")
    p.add_argument("--call", type=int, metavar="N", help="the call the per-call panels show (default the first)")


def _figure_selection(args: argparse.Namespace) -> dict[str, Any]:
    return {"metrics": tuple(args.metric or ("quality",)), "x": args.x, "run": args.run, "call": args.call,
            "stat": args.stat}


def _add_set(p: argparse.ArgumentParser) -> None:
    p.add_argument("--set", dest="sets", action="append", default=[], metavar="KEY=VALUE",
                   help="override a value by key path, e.g. --set links[1].delay=100ms --set run.seed=3 "
              "(repeatable; VALUE is a TOML value or a bare string)")


def _overrides(sets: list[str]) -> dict[str, Any]:
    from .overrides import parse_assignment

    out: dict[str, Any] = {}
    for text in sets:
        k, v = parse_assignment(text)
        out[k] = v
    return out


def _fail(msg: str) -> int:
    print(f"talkspurt: error: {msg}", file=sys.stderr)
    return 2


def _table(calls) -> str:
    """The per-call summary of `calls`: a DataFrame, or columns as lists."""
    from .summary import columns_from_frame, format_table

    cols = calls if isinstance(calls, dict) else columns_from_frame(calls)
    return format_table(cols, SUMMARY, PERCENT, MAX_ROWS)


class _FilePath:
    """A scenario named on the command line: a path, never TOML text,
    whatever characters it holds (an `os.PathLike`, as `load_scenario`
    reads it), without importing pathlib."""

    __slots__ = ("path",)

    def __init__(self, path: str) -> None:
        self.path = path

    def __fspath__(self) -> str:
        return self.path


def _check_output(out: Path, force: bool) -> Optional[str]:
    """Refuse, before simulating, an output folder that cannot be used.
    Creates nothing: the folder and its parents appear only with the results."""
    if out.exists():
        if not out.is_dir():
            return f"output {out} exists and is not a directory"
        if any(out.iterdir()) and not force:
            return f"output {out} is not empty; choose a new directory or pass --force to replace it"
    anc = out.parent.absolute()
    while not anc.exists():
        anc = anc.parent
    if not anc.is_dir():
        return f"output {out}: {anc} is not a directory"
    if not os.access(anc, os.W_OK | os.X_OK):
        return f"output {out}: cannot write in {anc} (permission denied)"
    return None


class Terminated(BaseException):
    """SIGTERM, raised in the main thread so every `finally` (temporary
    result folders) runs before exit status 143."""


def _on_sigterm(signum, frame) -> None:
    raise Terminated()


def _progress_bar(quiet: bool, **kw):
    """A tqdm bar on stderr, or None: quiet when asked or when stderr is not
    a terminal, so no frames land in a redirected log."""
    if quiet or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(file=sys.stderr, **kw)


def _print(*args: Any) -> None:
    """print() that stops quietly when stdout is closed (`| head`)."""
    global _stdout_closed
    if _stdout_closed:
        return
    try:
        print(*args)
        sys.stdout.flush()
    except BrokenPipeError:
        _stdout_closed = True
        # Point stdout at /dev/null so the interpreter's final flush is silent.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


_stdout_closed = False


def _run(args: argparse.Namespace) -> int:
    from . import pcap as _pcap
    from ._core import one_malloc_arena
    from .api import _run as run
    from .api import resolve, validate

    # The scoring threads reuse the freed records' memory (bench/README.md, Profiles).
    one_malloc_arena()

    if args.output is not None and not args.output.strip():
        return _fail("-o/--output: got an empty path; expected a directory")
    out = None
    if args.output:
        from pathlib import Path  # only with -o: a run that prints its table never needs it

        out = Path(args.output)
    sets = _overrides(args.sets)
    if args.seed is not None and "run.seed" in sets:
        return _fail(f"--seed {args.seed} and --set run.seed={sets['run.seed']}: both set the seed; give one of them")
    # The scenario is a path, never TOML text, whatever characters it holds.
    doc = resolve(_FilePath(args.scenario), sets)
    validate(doc)  # a bad scenario fails before anything touches the disk
    _pcap.check(args.pcap, args.capture, args.force, ("--pcap", "--capture"))
    if out is not None:
        problem = _check_output(out, args.force)
        if problem:
            return _fail(problem)
    bar = _progress_bar(args.quiet, total=1000, delay=1.0, unit="‰", leave=False,
                        bar_format="{l_bar}{bar}| {elapsed}<{remaining}")
    progress = None
    if bar is not None:
        def progress(f: float) -> None:
            bar.update(int(f * 1000) - bar.n)
    try:
        res = run(doc, args.seed, trace=False if args.no_trace else None, progress=progress, pcap=args.pcap,
                  capture=args.capture, force=args.force, keys=("--pcap", "--capture"),
                  check_memory=not args.no_memory_check, partial=args.keep_partial)
    finally:
        if bar is not None:
            bar.close()
    if res.manifest.get("partial"):
        if out is not None:
            res.save(out, overwrite=args.force)
        print(f"talkspurt: interrupted at {res.manifest['sim_end_s']:.3f} s of simulated time"
              + (f"; partial results written to {out}/ (manifest: partial = true)" if out is not None else ""),
              file=sys.stderr)
        return 130
    if not args.quiet:
        from . import notices

        m = res.manifest
        # Only what the table and the notices read, not every column (issue 26).
        cols = res.summary_columns(list(dict.fromkeys([c for c, _ in SUMMARY] + TABLE_READS + notices.COLUMNS)))
        _print(_table(cols))

        for _, text in notices.said(cols, m["scenario"], m.get("largest_bytes", ())):
            print(f"talkspurt: warning: {text}", file=sys.stderr)
        _print(f"seed {m['seed']}, {m['voice_packets']} voice packets, {m['events']} events, "
               f"{m['wall_time_s']:.3g} s")
    if out is not None:
        res.save(out, overwrite=args.force)
        if not args.quiet:
            _print(f"results written to {out}/")
    if args.pcap is not None and not args.quiet:
        _print(f"captures written to {args.pcap}/: {', '.join(res.manifest['pcap']['files'])}")
    return 0


def _sweep(args: argparse.Namespace) -> int:
    import time
    from pathlib import Path

    from .sweeps import load_sweep, sweep

    if args.workers is not None and args.workers < 1:
        return _fail(f"-j/--workers: got {args.workers}; expected an integer ≥ 1")
    from .executors import parse_executor

    parse_executor(args.executor)
    sw = load_sweep(Path(args.scenario), _overrides(args.sets))
    if args.dry_run:
        return _sweep_dry_run(sw, args.output)
    runs = sw.runs()  # validates every point before anything is written
    bar = _progress_bar(args.quiet, total=len({r.run_id for r in runs}), unit="run", smoothing=0.1,
                        bar_format="{l_bar}{bar}| {n_fmt}/{total_fmt} runs [{elapsed}<{remaining}]")

    def progress(done: int, total: int) -> None:
        if bar is not None:
            bar.update(done - bar.n)

    t0 = time.perf_counter()
    try:
        res = sweep(sw, args.output, executor=args.executor, workers=args.workers,
                    trace=False if args.no_trace else None, progress=progress, force=args.force)
    finally:
        if bar is not None:
            bar.close()
    if not args.quiet:
        calls = res.calls
        if calls is not None and "loss_late" in calls.columns:
            med = calls.groupby("point", observed=True)["loss_late"].median()
            _warn_late(list(med.index), list(med), res.manifest.get("base", {}), "point", "in the median call, ")
        s = res.manifest.get("sessions", [{}])[-1] if "sessions" in res.manifest else {}
        _print(f"{len(runs)} runs ({len(sw.points())} points × {sw.replications} replications), "
               f"{s.get('runs_executed', '?')} executed, {s.get('runs_resumed', 0)} already done, "
               f"{time.perf_counter() - t0:.2f} s; results in {args.output}/")
    return 0


def _warn_late(calls: Sequence[Any], late: Sequence[Any], scenario: dict, noun: str = "call", how: str = "") -> None:
    """Warn (stderr) when most packets of some call arrived too late to be
    played (`notices.py`). No effect on the exit status."""
    from . import notices

    bad = notices.late(calls, late)
    if bad:
        print(f"talkspurt: warning: {notices.message(bad, scenario, noun, how)}", file=sys.stderr)


def _sweep_dry_run(sw, output: str) -> int:
    """`talkspurt sweep --dry-run`: the points and the run count; nothing runs
    or is written."""
    import json

    from .sweeps import LABEL, plan

    p = plan(sw, output)
    axes = sw.axes
    for i, point in enumerate(p["points"]):
        values = ", ".join(f"{k} = {json.dumps(point[k], default=str)}" for k in axes if k in point)
        label = f" [{point[LABEL]}]" if LABEL in point else ""
        _print(f"point {i}{label}: {values or '(the base scenario)'}")
    _print(f"{len(p['points'])} points × {p['replications']} replications = {p['runs']} runs"
           + (f" ({p['unique_runs']} distinct)" if p["unique_runs"] != p["runs"] else "")
           + f"; {p['already_done']} already in {output}/, {p['to_run']} to run")
    return 0


def _report(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .report import write_report

    out = Path(args.output) if args.output else Path(args.results) / "report.html"
    if out.exists() and not args.force:
        return _fail(f"output {out} exists; choose another file or pass --force to replace it")
    write_report(args.results, out, **_figure_selection(args))
    _print(f"report written to {out}")
    return 0


def _plot(args: argparse.Namespace) -> int:
    from pathlib import Path

    from .figures import save_figures

    out = Path(args.output) if args.output else Path(args.results) / "figures"
    formats = ("png", "svg") if args.format == "both" else (args.format,)
    files = save_figures(args.results, out, formats=formats, overwrite=args.force, **_figure_selection(args))
    for f in files:
        _print(str(f))
    return 0


def _reproduce(args: argparse.Namespace) -> int:
    from pathlib import Path

    if not args.bundle:
        from .reproductions.bundle import available

        for b in available():
            _print(f"{b.id:<6} {len(b.entries):>4} entries  {b.study['title']}  ({b.directory})")
        return 0
    if args.workers is not None and args.workers < 1:
        return _fail(f"-j/--workers: got {args.workers}; expected an integer ≥ 1")
    if len(args.bundle) > 1 or args.bundle == ["all"]:
        return _reproduce_many(args)
    from .reproductions import Ns2Failed, reproduce

    args.bundle = args.bundle[0]
    out = args.output or f"out/reproduce-{Path(args.bundle).name}{'-quick' if args.quick else ''}"
    bars: dict[str, Any] = {}

    def progress(stage: str, done: int, total: int) -> None:
        if stage not in bars:
            bar = _progress_bar(args.quiet, total=total, desc=stage, unit="run", leave=False,
                                bar_format="{desc}: {bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}]")
            if bar is None:
                return
            bars[stage] = bar
        bars[stage].update(done - bars[stage].n)

    timings: dict[str, Any] = {}
    try:
        df = reproduce(args.bundle, out, quick=args.quick, items=args.item, executor=args.executor,
                       workers=args.workers, progress=progress, doc=args.doc, force=args.force,
                       timings=timings if args.timings else None)
    except Ns2Failed as e:
        print(f"talkspurt: ns-2 twin failed: {e}", file=sys.stderr)
        return 1
    finally:
        for b in bars.values():
            b.close()
    if args.timings:
        _write_timings(args.timings, timings)
    if not args.quiet:
        _print(df.attrs["terminal"])
        _print(f"comparison.csv, reproduction.md and report.html written to {out}/"
               + (f"; {df.attrs.get('doc', args.doc)} updated" if args.doc else ""))
    return 0


def _reproduce_many(args: argparse.Namespace) -> int:
    """`talkspurt reproduce 000 001 … [-o DIR]` (or `all`): every bundle in
    one invocation on one pool; each bundle's outputs as when run alone."""
    from .reproductions import Ns2Failed, reproduce_many
    from .reproductions.bundle import available

    if args.item:
        return _fail(f"--item: got {args.item[0]!r} with several bundles; give one bundle to select its items")
    names = [b.directory for b in available()] if args.bundle == ["all"] else args.bundle
    bar: list[Any] = []
    seen: dict[str, tuple[int, int]] = {}

    def progress(stage: str, done: int, total: int) -> None:
        seen[stage] = (done, total)
        if not bar:
            b = _progress_bar(args.quiet, total=0, desc="all bundles", unit="job", leave=False,
                              bar_format="{desc}: {bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}]")
            if b is None:
                return
            bar.append(b)
        b = bar[0]
        b.total = sum(t for _, t in seen.values())
        b.update(sum(d for d, _ in seen.values()) - b.n)

    timings: dict[str, Any] = {}
    try:
        dfs = reproduce_many(names, args.output, quick=args.quick, executor=args.executor, workers=args.workers,
                             progress=progress, doc=args.doc, force=args.force, timings=timings)
    except Ns2Failed as e:
        print(f"talkspurt: ns-2 twin failed: {e}", file=sys.stderr)
        return 1
    finally:
        for b in bar:
            b.close()
    if args.timings:
        _write_timings(args.timings, timings)
    if not args.quiet:
        for bid, df in dfs.items():
            _print(df.attrs["terminal"])
            _print("")
        where = f"{args.output}/NNN" if args.output else "out/reproduce-NNN" + ("-quick" if args.quick else "")
        _print(f"{len(dfs)} bundles ({', '.join(dfs)}): comparison.csv, reproduction.md and report.html written to "
               f"{where}/" + (f"; {args.doc}/NNN.md updated" if args.doc else ""))
    return 0


def _write_timings(path: str, timings: dict[str, Any]) -> None:
    import json
    from pathlib import Path

    from .store import _atomic_write_text

    _atomic_write_text(Path(path), json.dumps(timings, indent=2) + "\n")


def _audio(args: argparse.Namespace) -> int:
    from pathlib import Path

    import pandas as pd

    from .audio.pipeline import score_audio
    from .results import Results

    d = Path(args.results)
    if not (d / "manifest.json").is_file():
        return _fail(f"{d}: not a results folder (no manifest.json); write one with `talkspurt run SCENARIO -o DIR`")
    try:
        res = Results.load(d)
    except (OSError, ValueError) as e:
        return _fail(f"{d}: cannot read the results ({e})")
    table = {"segment": args.segment, "mode": args.mode, "conceal": not args.no_conceal, "fill": args.fill,
             "stoi": args.stoi}
    for k, v in (("speech", args.speech), ("codec", args.codec), ("workers", args.workers)):
        if v is not None:
            table[k] = v
    df = score_audio(res, table, calls=args.call, wav_dir=args.wav)
    with pd.option_context("display.width", 200, "display.max_columns", 40):
        print(df.to_string(index=False, float_format=lambda x: f"{x:.3f}"))
    if args.wav:
        print(f"WAV files written to {args.wav}/")
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    argv_ = sys.argv[1:] if argv is None else list(argv)
    command = _command_of(argv_)
    args = _parser(command).parse_args(argv_[1:] if command else argv_)
    previous = None
    if argv is None:  # the command, not a test calling main(): own SIGTERM
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        code = _dispatch(args)
    except Terminated:
        print("talkspurt: terminated", file=sys.stderr)
        code = 143
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    if argv is None and command == "run":
        _exit_now(code)
    return code


def _exit_now(code: int) -> None:
    """End the `talkspurt run` process once its output is out, without the
    interpreter's teardown: its results are written and their files
    closed, its threads done, and freeing every module and object one by
    one was ~10 ms of a run's wall time (issue 26). Not for `main(argv)`
    called from Python, nor for commands with process pools."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):
            pass
    os._exit(code)


def _dispatch(args: argparse.Namespace) -> int:
    try:
        if args.command == "run":
            return _run(args)
        if args.command == "sweep":
            return _sweep(args)
        if args.command == "report":
            return _report(args)
        if args.command == "plot":
            return _plot(args)
        if args.command == "validate":
            import json

            from .api import resolve, validate

            doc = validate(resolve(_FilePath(args.scenario), _overrides(args.sets)))
            if args.format == "toml":
                from .tomlout import dumps

                _print(dumps(doc).rstrip("\n"))
            else:
                _print(json.dumps(doc, indent=2))
            return 0
        if args.command == "codecs":
            from . import codecs

            for c in codecs():
                _print(f"{c['name']:<15} frame {c['frame_ms']:>4g} ms {c['frame_bytes']:>3} B  "
                      f"{c['bitrate_bps'] / 1000:>6.2f} kb/s  look-ahead {c['lookahead_ms']:>4g} ms  "
                      f"Ie {c['Ie']:>4g}  Bpl {c['Bpl']:>4g} (given for {c['Bpl_packet_ms']:g} ms packets)")
            return 0
        if args.command == "audio":
            return _audio(args)
        if args.command == "compare":
            from .compare import main as compare_main

            return compare_main(args)
        if args.command == "reproduce":
            return _reproduce(args)
    except ScenarioError as e:
        return _fail(str(e))
    except (FileExistsError, FileNotFoundError, NotADirectoryError) as e:
        return _fail(str(e))
    except ValueError as e:
        from .audio.config import AudioError

        if isinstance(e, AudioError):
            return _fail(str(e))
        raise
    except OSError as e:
        # Writing results failed (disk full, permissions): nothing partial is left.
        return _fail(f"could not write results: {e}")
    except KeyboardInterrupt:
        print("talkspurt: interrupted", file=sys.stderr)
        return 130
    except Exception as e:
        from .executors import RunFailed

        if isinstance(e, RunFailed):
            print(f"talkspurt: run failed: {e}", file=sys.stderr)
            return 1
        raise
    return 1
