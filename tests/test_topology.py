"""Ready topologies through the front end, and trace paths relative to the
scenario file's folder."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import talkspurt

DUMBBELL = """
[run]
duration = "5s"

[topology]
kind = "dumbbell"
pairs = 2
bottleneck = { rate = "256kbps", delay = "3ms" }

[[calls]]
from = "a1"
to = "b1"
codec = "G.729"
both_ways = true
"""


def test_validate_prints_the_expansion(tmp_path):
    f = tmp_path / "d.toml"
    f.write_text(DUMBBELL)
    out = talkspurt.validate(f)
    assert "topology" not in out
    assert [l["between"] for l in out["links"]] == [
        ["r1", "r2"], ["a1", "r1"], ["a2", "r1"], ["r2", "b1"], ["r2", "b2"]]
    assert out["links"][0]["rate"] == "256kbps" and out["links"][1]["rate"] == "100Mbps"
    assert [(c["label"], c["from"], c["to"]) for c in out["calls"]] == [
        ("calls[0]", "a1", "b1"), ("calls[0]:reverse", "b1", "a1")]
    # The CLI shows the same.
    r = subprocess.run([sys.executable, "-m", "talkspurt", "validate", str(f)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert '"r2",\n        "b2"' in r.stdout or '"b2"' in r.stdout


def test_topology_errors_name_the_key():
    with pytest.raises(talkspurt.ScenarioError) as e:
        talkspurt.validate(DUMBBELL.replace('pairs = 2', 'pairs = 2\nleft = { rate = "fast" }'))
    assert e.value.path == "topology.left.rate"


def _with_trace(file: str) -> str:
    return f"""
[run]
duration = "2s"

[[links]]
between = ["a", "b"]
rate = "1Mbps"
loss = {{ kind = "trace", file = "{file}" }}
forward = {{ schedule = {{ file = "steps.txt", format = "steps" }} }}

[[calls]]
from = "a"
to = "b"
codec = "G.711"
"""


def test_trace_paths_start_at_the_scenario_files_folder(tmp_path, monkeypatch):
    d = tmp_path / "study"
    d.mkdir()
    (d / "drops.txt").write_text("0 0 0 1\n")
    (d / "steps.txt").write_text("1s 0bps\n1.5s 1Mbps\n")
    (d / "s.toml").write_text(_with_trace("drops.txt"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    out = talkspurt.validate(str(d / "s.toml"))
    assert out["links"][0]["forward"]["loss"]["file"] == os.path.abspath(d / "drops.txt")
    assert out["links"][0]["forward"]["schedule"]["file"] == os.path.abspath(d / "steps.txt")
    res = talkspurt.run(d / "s.toml")
    assert res.calls["link_loss"].iloc[0] > 0
    # A sweep file in another folder naming the scenario: paths follow the scenario file.
    (tmp_path / "sw.toml").write_text('[sweep]\nscenario = "study/s.toml"\nreplications = 1\n')
    assert talkspurt.validate(tmp_path / "sw.toml")["links"][0]["forward"]["loss"]["file"] == os.path.abspath(d / "drops.txt")


def test_trace_paths_in_text_start_at_the_working_directory(tmp_path, monkeypatch):
    (tmp_path / "drops.txt").write_text("1 0\n")
    (tmp_path / "steps.txt").write_text("1s 2Mbps\n")
    monkeypatch.chdir(tmp_path)
    out = talkspurt.validate(_with_trace("drops.txt"))
    assert out["links"][0]["forward"]["loss"]["file"] == "drops.txt"
    monkeypatch.chdir(tmp_path.parent)
    with pytest.raises(talkspurt.ScenarioError) as e:
        talkspurt.validate(_with_trace("drops.txt"))
    assert e.value.path.endswith(".file") and "working directory" in str(e.value)
