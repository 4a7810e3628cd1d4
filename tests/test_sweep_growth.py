"""Sweeps that grow, `--set` on sweeps and scenarios, dry runs, Ctrl-C,
unreachable schedulers, numeric axis columns (issue 25)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import talkspurt
from talkspurt.overrides import apply, parse_assignment
from conftest import small_scenario

SWEEP = """
[sweep]
replications = 1
grid = { "links[1].delay" = ["100ms", "25ms", "50ms"] }
"""


def cli(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "talkspurt", *args], capture_output=True, text=True,
                          timeout=300, **kw)


def study(tmp_path: Path, sweep: str = SWEEP, duration: str = "2s") -> Path:
    f = tmp_path / "study.toml"
    f.write_text(small_scenario(duration=duration) + sweep)
    return f


def test_a_finished_sweep_grows_without_force_and_runs_only_the_new_points(tmp_path):
    f = study(tmp_path)
    out = tmp_path / "out"
    first = talkspurt.sweep(f, out, workers=1, trace=False)
    assert len(first.runs) == 3
    before = {p.name: p.stat().st_mtime_ns for p in (out / "runs").iterdir()}
    # A replication more and a grid value more: 4 values × 2 replications.
    grown = talkspurt.sweep(f, out, workers=1, trace=False,
                            overrides={"sweep.replications": 2,
                                       "sweep.grid.links[1].delay": ["100ms", "25ms", "50ms", "200ms"]})
    s = grown.manifest["sessions"][-1]
    assert (s["runs_executed"], s["runs_resumed"]) == (5, 3)
    after = {p.name: p.stat().st_mtime_ns for p in (out / "runs").iterdir()}
    assert all(after[k] == v for k, v in before.items())  # untouched
    assert len(after) == 8 and grown.runs.complete.all()
    # Identity comes from the grown sweep: points renumbered consistently.
    c = grown.calls
    assert set(zip(c.point, c.replication)) == {(p, r) for p in range(4) for r in range(2)}
    assert len(grown.manifest["sessions"]) == 2


def test_force_removes_only_runs_that_left_the_sweep(tmp_path):
    f = study(tmp_path)
    out = tmp_path / "out"
    talkspurt.sweep(f, out, workers=1, trace=False)
    smaller = {"sweep.grid.links[1].delay": ["25ms", "50ms"]}
    # The 100 ms run is not part of the smaller sweep: refused without force…
    with pytest.raises(FileExistsError, match="1 of its 3 complete runs are not part of this one"):
        talkspurt.sweep(f, out, workers=1, trace=False, overrides=smaller)
    kept = talkspurt.sweep(f, out, workers=1, trace=False, overrides=smaller, force=True)
    # …and with force only that run goes: nothing is executed again.
    assert kept.manifest["sessions"][-1]["runs_executed"] == 0
    assert len(list((out / "runs").iterdir())) == 2


def test_swept_values_with_units_get_a_numeric_column(tmp_path):
    res = talkspurt.sweep(study(tmp_path), tmp_path / "out", workers=1, trace=False)
    c = res.calls
    # The label column keeps its text; the number sorts and groups by value.
    assert set(c["links[1].delay"]) == {"25ms", "50ms", "100ms"}
    assert list(c.groupby("links[1].delay_ms").r.median().index) == [25.0, 50.0, 100.0]
    assert res.runs.set_index("links[1].delay")["links[1].delay_ms"].to_dict() == \
        {"100ms": 100.0, "25ms": 25.0, "50ms": 50.0}
    # In the files too, for DuckDB and polars.
    import pyarrow.parquet as pq

    t = pq.read_table(next((tmp_path / "out" / "runs").iterdir()) / "calls.parquet")
    assert "links[1].delay_ms" in t.column_names


def test_set_sweep_keys_and_dry_run(tmp_path):
    f = study(tmp_path)
    r = cli("sweep", str(f), "-o", str(tmp_path / "out"), "--dry-run", "--set", "sweep.replications=3")
    assert r.returncode == 0, r.stderr
    assert 'point 1: links[1].delay = "25ms"' in r.stdout
    assert "3 points × 3 replications = 9 runs; 0 already in" in r.stdout and "9 to run" in r.stdout
    assert not (tmp_path / "out").exists()
    bad = cli("sweep", str(f), "-o", str(tmp_path / "out"), "--dry-run", "--set", "sweep.replicas=3")
    assert bad.returncode == 2 and "sweep.replicas" in bad.stderr, bad.stderr


def test_set_null_removes_a_key_and_wildcards_set_every_entry():
    k, v = parse_assignment("calls[0].feedback=null")
    assert (k, v) == ("calls[0].feedback", None)
    doc = {"calls": [{"codec": "G.711", "feedback": {"kind": "nack"}}, {"codec": "G.711"}]}
    apply(doc, {"calls[0].feedback": None, "calls[*].codec": "G.729"})
    assert doc == {"calls": [{"codec": "G.729"}, {"codec": "G.729"}]}
    with pytest.raises(talkspurt.ScenarioError, match=r"links\[0\]"):
        apply({"links": [{}]}, {"links[0]": None})
    with pytest.raises(talkspurt.ScenarioError, match=r"run\[\*\]"):
        apply({"run": {}}, {"run[*].seed": 1})


def test_count_zero_leaves_a_group_out(tmp_path):
    sc = small_scenario(duration="2s")
    with_traffic = talkspurt.run(sc, trace=False)
    without = talkspurt.run(sc, trace=False, overrides={"traffic[0].count": 0})
    assert len(with_traffic.traffic) == 1 and len(without.traffic) == 0
    assert "traffic" not in without.manifest["scenario"] or without.manifest["scenario"]["traffic"] == []
    # In a sweep: with and without cross traffic.
    res = talkspurt.sweep(study(tmp_path, '[sweep]\ngrid = { "traffic[0].count" = [0, 1] }\n'), tmp_path / "o",
                          workers=1, trace=False)
    assert sorted(res.traffic["traffic[0].count"].unique()) == [1]
    assert res.runs.complete.all()


def test_unreachable_dask_scheduler_says_so_and_leaves_nothing(tmp_path):
    pytest.importorskip("distributed")
    out = tmp_path / "out"
    r = cli("sweep", str(study(tmp_path)), "-o", str(out), "--executor", "dask://127.0.0.1:9",
            env={**__import__("os").environ, "TALKSPURT_DASK_TIMEOUT": "1"})
    assert r.returncode == 2, r.stderr
    line = r.stderr.strip().splitlines()[-1]
    assert line.startswith("talkspurt: error: --executor:") and "unreachable" in line, r.stderr
    assert not out.exists()


def test_ctrl_c_during_a_sweep_leaves_no_tmp_and_records_the_session(tmp_path):
    f = study(tmp_path, '[sweep]\nreplications = 40\n', duration="20s")
    out = tmp_path / "out"
    p = subprocess.Popen([sys.executable, "-m", "talkspurt", "sweep", str(f), "-o", str(out), "-j", "2", "-q"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline and not ((out / "runs").is_dir() and any((out / "runs").iterdir())):
        time.sleep(0.05)
    import os

    os.killpg(p.pid, signal.SIGINT)  # Ctrl-C reaches the whole foreground group
    _, err = p.communicate(timeout=120)
    assert p.returncode == 130, err
    assert not (out / ".tmp").exists()
    m = json.loads((out / "sweep.json").read_text())
    s = m["sessions"][-1]
    assert s["interrupted"] == "KeyboardInterrupt"
    assert s["runs_executed"] <= len(list((out / "runs").iterdir())) < 40
