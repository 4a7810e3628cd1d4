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
