"""The `talkspurt` command.

Exit status: 0 success; 2 bad input (scenario, arguments, output folder) —
with a one-line error and no output files; 130 interrupted; 1 internal error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional, Sequence

from ._core import ScenarioError

# Columns of the per-call table printed by `run`.
SUMMARY = [
    ("call", "call"), ("group", "group"), ("codec", "codec"), ("ptime_ms", "ptime"),
    ("transport", "transport"), ("generated", "pkts"), ("loss_total", "loss%"),
    ("loss_queue", "queue%"), ("loss_link", "link%"), ("loss_late", "late%"),
    ("delay_mean_ms", "delay"), ("delay_p95_ms", "p95"), ("jitter_ms", "jitter"),
    ("mouth_to_ear_ms", "m2e"), ("r", "R"), ("mos", "MOS"), ("r_simple", "R_cr"),
    ("bound_g107_r", "R_opt"), ("bound_r", "R_cr_opt"),
]
PERCENT = {"loss_total", "loss_queue", "loss_link", "loss_late"}
MAX_ROWS = 20


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="talkspurt",
        description="Simulate voice calls over transport protocols and score their quality.",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)
    r = sub.add_parser("run", help="run a scenario, print per-call quality, optionally save results",
                       description="Run a scenario; print a per-call table; with -o write calls/packets/"
                                   "links/traffic/series as Parquet plus manifest.json.")
    r.add_argument("scenario", help="scenario file (TOML)")
    r.add_argument("-o", "--output", metavar="DIR", help="write results into DIR (must be new or empty)")
    r.add_argument("--seed", type=int, help="override [run].seed")
    r.add_argument("--no-trace", action="store_true", help="skip the per-packet table (faster, less memory)")
    r.add_argument("--force", action="store_true", help="replace the contents of an existing DIR")
    r.add_argument("-q", "--quiet", action="store_true", help="no table, no progress bar")
    v = sub.add_parser("validate", help="check a scenario and print it normalized",
                       description="Validate a scenario; print it with every default filled in (JSON).")
    v.add_argument("scenario", help="scenario file (TOML)")
    sub.add_parser("codecs", help="list the codec table", description="List codecs with frame, rate, Ie and Bpl.")
    return p


def _fail(msg: str) -> int:
    print(f"talkspurt: error: {msg}", file=sys.stderr)
    return 2


def _table(calls) -> str:
    import pandas as pd

    cols = [c for c, _ in SUMMARY if c in calls.columns]
    df = calls[cols].copy()
    for c in PERCENT & set(cols):
        df[c] = df[c] * 100.0
    note = ""
    if len(df) > MAX_ROWS:
        num = df.drop(columns=["call"]).groupby(["group", "codec", "transport"], observed=True).mean(numeric_only=True)
        num.insert(0, "calls", calls.groupby(["group", "codec", "transport"], observed=True).size())
        df = num.reset_index()
        note = f"({len(calls)} calls: means per group; every call is in calls.parquet with -o)\n"
    df = df.rename(columns=dict(SUMMARY))
    with pd.option_context("display.width", 200, "display.max_columns", 40):
        return note + df.to_string(index=False, float_format=lambda x: f"{x:.2f}")


def _check_output(out: Path, force: bool) -> Optional[str]:
    """Refuse, before simulating, an output folder that cannot be used."""
    import tempfile

    if out.exists():
        if not out.is_dir():
            return f"output {out} exists and is not a directory"
        if any(out.iterdir()) and not force:
            return f"output {out} is not empty; choose a new directory or pass --force to replace it"
    parent = out.parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryDirectory(dir=parent, prefix=f".{out.name}.probe.").cleanup()
    except OSError as e:
        return f"output {out}: cannot write in {parent} ({e.strerror or e})"
    return None


def _run(args: argparse.Namespace) -> int:
    from .api import run

    if args.output is not None and not args.output.strip():
        return _fail("-o/--output: got an empty path; expected a directory")
    out: Optional[Path] = Path(args.output) if args.output else None
    if out is not None:
        problem = _check_output(out, args.force)
        if problem:
            return _fail(problem)
    bar = None
    progress = None
    if not args.quiet:
        from tqdm import tqdm

        bar = tqdm(total=1000, delay=1.0, file=sys.stderr, unit="‰", leave=False,
                   bar_format="{l_bar}{bar}| {elapsed}<{remaining}")

        def progress(f: float) -> None:
            bar.update(int(f * 1000) - bar.n)
    try:
        res = run(args.scenario, args.seed, trace=False if args.no_trace else None, progress=progress)
    finally:
        if bar is not None:
            bar.close()
    if not args.quiet:
        m = res.manifest
        print(_table(res.calls))
        print(f"seed {m['seed']}, {m['voice_packets']} voice packets, {m['events']} events, "
              f"{m['wall_time_s']:.2f} s")
    if out is not None:
        res.save(out, overwrite=args.force)
        if not args.quiet:
            print(f"results written to {out}/")
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    args = _parser().parse_args(argv)
    try:
        if args.command == "run":
            return _run(args)
        if args.command == "validate":
            import json

            from .api import validate

            print(json.dumps(validate(args.scenario), indent=2))
            return 0
        if args.command == "codecs":
            from . import codecs

            for c in codecs():
                print(f"{c['name']:<15} frame {c['frame_ms']:>4g} ms {c['frame_bytes']:>3} B  "
                      f"{c['bitrate_bps'] / 1000:>6.2f} kb/s  look-ahead {c['lookahead_ms']:>4g} ms  "
                      f"Ie {c['Ie']:>4g}  Bpl {c['Bpl']:>4g}")
            return 0
    except ScenarioError as e:
        return _fail(str(e))
    except OSError as e:
        # Writing results failed (disk full, permissions): nothing partial is left.
        return _fail(f"could not write results: {e}")
    except KeyboardInterrupt:
        print("talkspurt: interrupted", file=sys.stderr)
        return 130
    return 1
