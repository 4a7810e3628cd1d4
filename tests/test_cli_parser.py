"""The command line builds only the named command's parser (issue 26:
the others were ~4 ms of every `talkspurt run`): it must parse, help and
fail exactly as that command's subparser of the whole parser does."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from talkspurt import cli

# Each command with arguments that exercise its options (parsed, not run).
ARGV = {
    "run": ["s.toml", "--set", "run.seed=3", "-o", "out", "--seed", "4", "--no-trace", "--force", "--pcap", "p",
            "--capture", "calls", "-q", "--keep-partial", "--no-memory-check"],
    "validate": ["s.toml", "--format", "toml", "--set", "a=1"],
    "codecs": [],
    "sweep": ["s.toml", "-o", "d", "--executor", "dask", "-j", "3", "--no-trace", "--force", "-q", "--dry-run"],
    "report": ["r", "-o", "f.html", "--force", "--metric", "rtpi", "--x", "k", "--stat", "mean", "--run", "1",
               "--call", "2"],
    "plot": ["r", "-o", "d", "--format", "svg", "--force", "--metric", "runs"],
    "reproduce": ["000", "001", "-o", "d", "--quick", "--item", "Table 1", "-j", "2", "--doc", "x.md", "--timings",
                  "t.json", "--force", "-q"],
    "audio": ["r", "--call", "1", "--speech", "a.wav", "--codec", "Opus", "--mode", "wb", "--no-conceal", "--fill",
              "active", "--segment", "5s", "--stoi", "--wav", "w", "--workers", "2"],
    "compare": ["a", "b", "--metric", "r"],
}


def _subparser(name: str) -> argparse.ArgumentParser:
    full = cli._parser()
    sub = next(a for a in full._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[name]


def test_every_command_is_covered():
    full = cli._parser()
    sub = next(a for a in full._actions if isinstance(a, argparse._SubParsersAction))
    assert sorted(sub.choices) == sorted(ARGV)
    assert all(cli._command_of([name]) == name for name in ARGV)
    assert cli._command_of(["--help"]) is None and cli._command_of(["runn"]) is None and cli._command_of([]) is None


@pytest.mark.parametrize("name", sorted(ARGV))
def test_a_command_alone_parses_and_helps_as_its_subcommand(name):
    alone = cli._parser(name)
    assert alone.format_help() == _subparser(name).format_help()
    assert alone.format_usage() == _subparser(name).format_usage()
    assert vars(alone.parse_args(ARGV[name])) == vars(cli._parser().parse_args([name, *ARGV[name]]))


def test_errors_read_as_the_subcommands_did():
    # `python -m talkspurt` goes through main(): the command's own parser.
    def run(*args):
        return subprocess.run([sys.executable, "-m", "talkspurt", *args], capture_output=True, text=True, timeout=60)

    missing, unknown, typo = run("run"), run("run", "x.toml", "--bogus"), run("runn")
    assert missing.returncode == unknown.returncode == typo.returncode == 2
    assert missing.stderr.endswith("talkspurt run: error: the following arguments are required: scenario\n")
    assert unknown.stderr.endswith("talkspurt run: error: unrecognized arguments: --bogus\n")
    assert "argument COMMAND: invalid choice: 'runn'" in typo.stderr
    assert missing.stderr.startswith("usage: talkspurt run [-h] [--set KEY=VALUE]")


@pytest.mark.parametrize("columns", ["60", "132", "", "0", "x"])
def test_help_is_as_wide_as_argparse_would_make_it(monkeypatch, columns):
    # The parsers' formatter finds the width without importing shutil;
    # it must be the width argparse's own finds (COLUMNS, else the
    # terminal's, else 80; less 2), and the help wrapped to it.
    import shutil

    monkeypatch.setenv("COLUMNS", columns)
    assert cli._columns() == shutil.get_terminal_size().columns
    p = cli._parser("run")
    assert p._get_formatter()._width == argparse.HelpFormatter("talkspurt run")._width
    assert max(len(line) for line in p.format_help().splitlines()) <= cli._columns() - 2


def test_the_run_command_imports_no_shutil_pathlib_or_typing():
    # argparse imports shutil (with bz2, lzma, zlib) for its formatter's
    # width, and the CLI used to import pathlib and typing: ~8 ms of each
    # `talkspurt run` (issue 26). pathlib may come with the run in a
    # checkout, where `versions` reads git's files; only what talkspurt adds
    # counts (a base interpreter's .pth hooks may load some before).
    code = ("import sys; WATCH = ('shutil', 'pathlib', 'typing', 'copy', 'tomllib', 'datetime'); "
            "before = set(sys.modules); from talkspurt.cli import main; "
            "rc = main(['run', sys.argv[1], '--no-trace', '-q']); "
            "print('ADDED', [m for m in WATCH if m in sys.modules and m not in before and m != 'pathlib'], rc)")
    from conftest import ROOT

    r = subprocess.run([sys.executable, "-c", code, str(ROOT / "scenarios" / "quickstart.toml")],
                       capture_output=True, text=True, timeout=120)
    assert "ADDED [] 0" in r.stdout, (r.stdout[-500:], r.stderr[-2000:])
