"""The rough edges a new user hit (issue 12, item 7): each with a test."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import talkspurt
from conftest import ROOT, small_scenario

QUICKSTART = ROOT / "scenarios" / "quickstart.toml"


def cli(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "talkspurt", *args], capture_output=True, text=True,
                          timeout=120, **kw)


def test_version():
    r = cli("--version")
    assert r.returncode == 0 and r.stdout.strip() == f"talkspurt {talkspurt.__version__}"


def test_readme_shows_the_venv_step():
    readme = (ROOT / "README.md").read_text()
    first = readme.index("```bash")
    block = readme[first: readme.index("```", first + 7)]
    assert "python3 -m venv" in block and ". .venv/bin/activate" in block


def test_path_with_equals_sign_is_a_path(tmp_path):
    d = tmp_path / "delay=50ms"
    d.mkdir()
    f = d / "s.toml"
    f.write_text(small_scenario(duration="2s"))
    assert talkspurt.load_scenario(str(f))["run"]["duration"] == "2s"
    r = cli("run", str(f), "-q")
    assert r.returncode == 0, r.stderr


def test_json_scenario(tmp_path):
    f = tmp_path / "s.json"
    f.write_text(json.dumps(talkspurt.load_scenario(small_scenario(duration="2s"))))
    r = cli("run", str(f))
    assert r.returncode == 0, r.stderr
    assert "calls[0]" in r.stdout
    bad = tmp_path / "bad.json"
    bad.write_text('{"run": ')
    r = cli("run", str(bad))
    assert r.returncode == 2 and "invalid JSON" in r.stderr and "Traceback" not in r.stderr


def test_bad_scenario_with_output_creates_nothing(tmp_path):
    out = tmp_path / "a" / "b" / "out"
    r = cli("run", str(QUICKSTART), "--set", "links[1].rate=-1kbps", "-o", str(out))
    assert r.returncode == 2 and r.stderr.startswith("talkspurt: error: links[1].rate:")
    assert list(tmp_path.iterdir()) == []


def test_result_folders_get_the_umask_mode(tmp_path):
    out = tmp_path / "out"
    old = os.umask(0o022)
    try:
        talkspurt.run(small_scenario(duration="2s")).save(out)
    finally:
        os.umask(old)
    assert out.stat().st_mode & 0o777 == 0o755


def test_sigterm_leaves_no_partial_output(tmp_path):
    out = tmp_path / "out"
    f = tmp_path / "long.toml"
    # Long enough that SIGTERM arrives while simulating (~10 s of it; a
    # 20000 s run once was, and finished in 1.5 s after the CLI got faster).
    # No bounds: scoring does not look at signals, the simulation does.
    f.write_text(small_scenario(duration="400000s") + "\n[analysis]\nbounds = false\n")
    p = subprocess.Popen([sys.executable, "-m", "talkspurt", "run", str(f), "-q", "--no-trace", "-o", str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 143, err
    assert "Traceback" not in err
    assert list(tmp_path.iterdir()) == [f], list(tmp_path.iterdir())


def test_redirected_stderr_gets_no_progress_frames(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text(small_scenario(duration="3000s"))  # > 1 s: the bar would show
    r = cli("run", str(f), "--no-trace")
    assert r.returncode == 0
    assert r.stderr == ""


def test_closed_stdout_is_not_an_error(tmp_path):
    out = tmp_path / "out"
    p = subprocess.Popen([sys.executable, "-m", "talkspurt", "run", str(QUICKSTART), "-o", str(out)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    p.stdout.readline()  # like `| head -1`
    p.stdout.close()
    err = p.stderr.read().decode()
    assert p.wait(timeout=60) == 0, err
    assert "Traceback" not in err and "Broken pipe" not in err
    assert (out / "calls.parquet").is_file()


def test_table_marks_extrapolated_rows():
    from talkspurt.cli import _table

    calls = talkspurt.run(QUICKSTART, overrides={"links[1].delay": "100ms", "run.seed": 3}).calls
    text = _table(calls)
    n = int(calls.emodel_extrapolated.sum())
    assert n > 0, "this seed has extrapolated calls"
    assert text.count("*") == n + 1 and "emodel_extrapolated" in text


def test_set_overrides_in_cli_and_api(tmp_path):
    res = talkspurt.run(QUICKSTART, overrides={"links[1].delay": "100ms", "run.seed": 3})
    sc = res.manifest["scenario"]
    assert sc["links"][1]["delay"] == "100ms" and res.manifest["seed"] == 3
    out = tmp_path / "o"
    r = cli("run", str(QUICKSTART), "-q", "--set", "links[1].delay=100ms", "--set", "run.seed=3", "-o", str(out))
    assert r.returncode == 0, r.stderr
    m = json.loads((out / "manifest.json").read_text())
    assert m["scenario"]["links"][1]["delay"] == "100ms" and m["seed"] == 3
    # A table on the way is created; the core validates the result.
    v = talkspurt.validate(QUICKSTART, {"analysis.rtpi_threshold": "200ms",
                                        "calls[0].playout": {"kind": "ramjee-2"}})
    assert v["analysis"]["rtpi_threshold"] == "200ms" and v["calls"][0]["playout"]["kind"] == "ramjee-2"


@pytest.mark.parametrize("assignment, path, words", [
    ("links[5].delay=1ms", "links[5]", "below 2"),
    ("links[1].dely=1ms", "links[1].dely", "delay"),
    ("links[1]delay=1ms", "links[1]delay", "key path"),
    ("run.seed=-3", "run.seed", ""),
    ("run.duration[0]=1s", "run.duration[0]", "list"),
    ("nokey", "--set", "KEY=VALUE"),
    ("run.seed=", "run.seed", "value"),
])
def test_set_errors_name_the_key_path(assignment, path, words):
    r = cli("run", str(QUICKSTART), "--set", assignment)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert r.stderr.startswith(f"talkspurt: error: {path}:"), r.stderr
    assert words in r.stderr
    with pytest.raises(talkspurt.ScenarioError) as e:
        from talkspurt.overrides import parse_assignment

        talkspurt.validate(QUICKSTART, dict([parse_assignment(assignment)]))
    assert e.value.path == (path if path != "--set" else "--set")


def test_readme_explains_every_table_header():
    from talkspurt.cli import SUMMARY

    readme = (ROOT / "README.md").read_text()
    section = readme[readme.index("### Reading the table"):]
    section = section[: section.index("\n### ", 5)]
    for column, header in SUMMARY:
        assert f"`{header}`" in section and (column == header or f"`{column}`" in section), (column, header)
    assert "emodel_extrapolated" in section
