"""Sweeps, the results store and the local executor (docs/sweeps.md)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

import talkspurt
from talkspurt.sweeps import derive_seed, load_sweep, parse
from conftest import ROOT, small_scenario

SWEEP = """
[sweep]
replications = 2
grid = { "links[1].delay" = ["10ms", "40ms"] }
zip = { "links[1].loss.p" = [0.0, 0.02], "calls[0].count" = [2, 3] }
"""


def sweep_file(tmp_path: Path, duration: str = "3s", sweep: str = SWEEP) -> Path:
    f = tmp_path / "sweep.toml"
    f.write_text(small_scenario(duration=duration) + sweep)
    return f


def test_splitmix64_known_answer():
    # SplitMix64 from state 0: first output 0xE220A8397B1DCDAF (Steele et
    # al. 2014; the reference sequence of java.util.SplittableRandom).
    assert derive_seed(0, 1) == 0xE220A8397B1DCDAF
    assert derive_seed(7, 0) == 7
    assert len({derive_seed(3, r) for r in range(1000)}) == 1000


def test_grid_zip_list_expand_as_a_product(tmp_path):
    doc = talkspurt.load_scenario(small_scenario())
    doc["sweep"] = {"replications": 3, "grid": {"links[1].delay": ["10ms", "20ms", "30ms"], "run.duration": ["1s", "2s"]},
                    "zip": {"links[1].loss.p": [0.0, 0.1], "calls[0].count": [1, 2]},
                    "list": [{"calls[0].codec": "G.711"}, {"calls[0].codec": "G.729"}]}
    sw = parse(doc)
    pts = sw.points()
    assert len(pts) == 3 * 2 * 2 * 2
    assert pts[0] == {"links[1].delay": "10ms", "run.duration": "1s", "links[1].loss.p": 0.0, "calls[0].count": 1,
                      "calls[0].codec": "G.711"}
    # zip axes move together; every grid combination appears once
    assert {(p["links[1].loss.p"], p["calls[0].count"]) for p in pts} == {(0.0, 1), (0.1, 2)}
    assert len({(p["links[1].delay"], p["run.duration"]) for p in pts}) == 6
    runs = sw.runs()
    assert len(runs) == len(pts) * 3
    assert [r.seed for r in runs[:3]] == [3, derive_seed(3, 1), derive_seed(3, 2)]
    assert len({r.run_id for r in runs}) == len(runs)
    # the key is the resolved scenario's: the same point and seed, the same key
    assert runs[0].run_id == parse(doc).runs()[0].run_id


@pytest.mark.parametrize("sweep, path", [
    ({"grid": {"links[1].delay": ["10ms", "-1ms"]}}, "links[1].delay"),
    ({"grid": {"links[1].dely": ["10ms"]}}, "links[1].dely"),
    ({"grid": {"links[9].delay": ["10ms"]}}, "links[9]"),
    ({"grid": {"links[1]delay": ["10ms"]}}, "sweep.grid.links[1]delay"),
    ({"grid": {"links[1].delay": "10ms"}}, "sweep.grid.links[1].delay"),
    ({"zip": {"links[1].delay": ["1ms", "2ms"], "run.seed": [1]}}, "sweep.zip"),
    ({"grid": {"run.seed": [1]}, "zip": {"run.seed": [2]}}, "sweep.zip.run.seed"),
    ({"replications": 0}, "sweep.replications"),
    ({"colour": 1}, "sweep.colour"),
])
def test_bad_sweeps_name_the_key_path(sweep, path):
    doc = talkspurt.load_scenario(small_scenario())
    doc["sweep"] = sweep
    with pytest.raises(talkspurt.ScenarioError) as e:
        parse(doc).runs()
    assert e.value.path == path, str(e.value)


def test_sweep_store_load_and_params_as_columns(tmp_path):
    out = tmp_path / "out"
    res = talkspurt.sweep(sweep_file(tmp_path), out, workers=2)
    assert isinstance(res, talkspurt.SweepResults)
    runs = res.runs
    assert len(runs) == 8 and runs.complete.all()
    c = res.calls
    for col in ("run", "point", "replication", "seed", "links[1].delay", "links[1].loss.p", "calls[0].count"):
        assert col in c.columns, col
    # every run's calls: count calls per run = the swept count
    per_run = c.groupby("run").agg(n=("call", "size"), count=("calls[0].count", "first"))
    assert (per_run.n == per_run["count"]).all()
    # a point, replication 0, equals talkspurt run with the same overrides
    r0 = runs[(runs.point == 3) & (runs.replication == 0)].iloc[0]
    single = talkspurt.run(small_scenario(duration="3s"), overrides={
        "links[1].delay": r0["links[1].delay"], "links[1].loss.p": r0["links[1].loss.p"],
        "calls[0].count": int(r0["calls[0].count"])})
    numbers = [col for col, _unit in res.numbers().values()]  # links[1].delay_ms beside links[1].delay
    assert numbers == ["links[1].delay_ms"]
    mine = c[c.run == r0.run].drop(columns=["run", "point", "replication", "seed", *res.axes, *numbers]
                                   ).reset_index(drop=True)
    pd.testing.assert_frame_equal(mine, single.calls, check_dtype=False, check_categorical=False)
    # ordered bands survive the store
    assert c.band.cat.ordered
    # the store is plain Parquet: one folder per run, manifest beside
    m = json.loads((out / "sweep.json").read_text())
    assert m["format"] == "talkspurt-sweep/1" and len(m["runs"]) == 8
    assert sorted(p.name for p in (out / "runs").iterdir()) == sorted(runs.run)
    # Results.load on a sweep store says what to use instead
    with pytest.raises(FileNotFoundError, match="talkspurt.load"):
        talkspurt.Results.load(out)


def test_duckdb_reads_the_store_as_is(tmp_path):
    import duckdb

    out = tmp_path / "out"
    talkspurt.sweep(sweep_file(tmp_path), out, workers=1, trace=False)
    n, pts = duckdb.sql(f"select count(distinct run), count(distinct point) from "
                        f"read_parquet('{out}/runs/*/calls.parquet')").fetchall()[0]
    assert (n, pts) == (8, 4)
    delays = duckdb.sql(f"""select distinct "links[1].delay" from read_parquet('{out}/runs/*/groups.parquet')
                            order by 1""").fetchall()
    assert delays == [("10ms",), ("40ms",)]


def test_resume_skips_complete_runs_and_redoes_partial_ones(tmp_path):
    f = sweep_file(tmp_path)
    out = tmp_path / "out"
    first = talkspurt.sweep(f, out, workers=2, trace=False)
    before = first.calls.sort_values(["run", "call"]).reset_index(drop=True)
    victim = first.runs.run.iloc[5]
    shutil.rmtree(out / "runs" / victim)
    (out / ".tmp" / "junk.123").mkdir(parents=True)  # a run killed mid-write
    again = talkspurt.sweep(f, out, workers=2, trace=False)
    s = again.manifest["sessions"][-1]
    assert (s["runs_executed"], s["runs_resumed"]) == (1, 7)
    assert not (out / ".tmp").exists()
    after = again.calls.sort_values(["run", "call"]).reset_index(drop=True)
    pd.testing.assert_frame_equal(after, before)
    # Another sweep into the same folder is refused without --force.
    (tmp_path / "x").mkdir()
    other = sweep_file(tmp_path / "x", sweep=SWEEP.replace("40ms", "45ms"))
    with pytest.raises(FileExistsError, match="another sweep"):
        talkspurt.sweep(other, out)


def test_a_dead_worker_is_retried_and_results_do_not_change(tmp_path, monkeypatch):
    f = sweep_file(tmp_path)
    ref = talkspurt.sweep(f, tmp_path / "ref", workers=1, trace=False)
    marker = tmp_path / "kill-once"
    marker.write_text("")
    monkeypatch.setenv("TALKSPURT_FAULT_KILL_ONCE", str(marker))
    res = talkspurt.sweep(f, tmp_path / "out", workers=2, trace=False)
    assert not marker.exists(), "a worker died"
    assert res.manifest["sessions"][-1]["resubmitted"] >= 1
    key = ["run", "call"]
    pd.testing.assert_frame_equal(res.calls.sort_values(key).reset_index(drop=True),
                                  ref.calls.sort_values(key).reset_index(drop=True))


def cli(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "talkspurt", *args], capture_output=True, text=True,
                          timeout=300, **kw)


def test_cli_sweep_quiet_off_tty_and_errors(tmp_path):
    f = sweep_file(tmp_path)
    r = cli("sweep", str(f), "-o", str(tmp_path / "out"), "--no-trace", "-j", "2")
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""  # no progress frames into a pipe
    assert "8 runs (4 points × 2 replications)" in r.stdout
    bad = cli("sweep", str(f), "-o", str(tmp_path / "o2"), "--set", "links[0].rate=-3kbps")
    assert bad.returncode == 2 and bad.stderr.startswith("talkspurt: error: links[0].rate:"), bad.stderr
    assert not (tmp_path / "o2").exists()
    (tmp_path / "neg").mkdir()
    bad = cli("sweep", str(sweep_file(tmp_path / "neg", sweep=SWEEP.replace('"40ms"', '"-40ms"'))),
              "-o", str(tmp_path / "o3"))
    assert bad.returncode == 2 and bad.stderr.startswith("talkspurt: error: links[1].delay:"), bad.stderr
    # The first failing point is grid value 1 with zip value 0: point 2 of
    # grid × zip; only the setting that failed is shown.
    assert bad.stderr.rstrip().endswith('(sweep point 2: links[1].delay = "-40ms")'), bad.stderr
    assert not (tmp_path / "o3").exists()
    bad = cli("sweep", str(f), "-o", str(tmp_path / "o4"), "--executor", "ftp://x")
    assert bad.returncode == 2 and "--executor" in bad.stderr


def test_a_bad_list_point_is_named_by_index_label_and_setting(tmp_path):
    f = sweep_file(tmp_path, sweep="""
[sweep]
list = [
  { label = "ok", "calls[0].ptime" = "20ms" },
  { label = "odd", "calls[0].ptime" = "25ms", "links[1].delay" = "30ms" },
]
""")
    bad = cli("sweep", str(f), "-o", str(tmp_path / "out"))
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1, bad.stderr
    assert bad.stderr.startswith('talkspurt: error: calls[0].ptime: got "25ms"; expected a multiple of the G.711 frame')
    assert bad.stderr.rstrip().endswith('(sweep point 1 "odd": calls[0].ptime = "25ms")'), bad.stderr
    assert not (tmp_path / "out").exists()
    with pytest.raises(talkspurt.ScenarioError, match=r'sweep point 1 "odd"') as e:
        load_sweep(f).runs()
    assert e.value.path == "calls[0].ptime"


def test_sigterm_then_resume_loses_and_duplicates_nothing(tmp_path):
    f = sweep_file(tmp_path, duration="60s", sweep="""
[sweep]
replications = 12
grid = { "links[1].delay" = ["10ms", "40ms"] }
""")
    out = tmp_path / "out"
    p = subprocess.Popen([sys.executable, "-m", "talkspurt", "sweep", str(f), "-o", str(out), "-j", "2", "-q"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while time.time() < deadline and not ((out / "runs").is_dir() and any((out / "runs").iterdir())):
        time.sleep(0.05)
    p.send_signal(signal.SIGTERM)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 143, err
    done = {x.name for x in (out / "runs").iterdir()}
    assert 0 < len(done) < 24, len(done)
    r = cli("sweep", str(f), "-o", str(out), "-j", "2")
    assert r.returncode == 0, r.stderr
    res = talkspurt.load(out)
    assert res.runs.complete.all() and len(res.runs) == 24
    assert res.calls.groupby("run").size().eq(3).all() and res.calls.run.nunique() == 24


def test_dask_local_cluster_gives_the_same_results(tmp_path, monkeypatch):
    from distributed import Client, LocalCluster

    f = sweep_file(tmp_path)
    ref = talkspurt.sweep(f, tmp_path / "local", workers=2, trace=False)
    # One Dask worker dies on its first task; the scheduler reschedules the
    # run on a live worker (the nanny restarts the dead one).
    marker = tmp_path / "kill-once"
    marker.write_text("")
    monkeypatch.setenv("TALKSPURT_FAULT_KILL_ONCE", str(marker))
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        res = talkspurt.sweep(f, tmp_path / "dask", executor=client, trace=False)
        assert not marker.exists(), "a Dask worker died"
        assert res.manifest["sessions"][-1]["executor"] == "Client"
        assert res.runs.complete.all()
        # by address (dask://host:port): a second sweep finds every run done
        addr = "dask://" + cluster.scheduler_address.removeprefix("tcp://")
        again = talkspurt.sweep(f, tmp_path / "dask", executor=addr, trace=False)
        assert again.manifest["sessions"][-1]["runs_executed"] == 0
    key = ["run", "call"]
    for t in ("calls", "groups", "links"):
        a, b = getattr(res, t), getattr(ref, t)
        sort = [k for k in key if k in a.columns] + ([c for c in ("group", "link", "direction") if c in a.columns])
        pd.testing.assert_frame_equal(a.sort_values(sort).reset_index(drop=True),
                                      b.sort_values(sort).reset_index(drop=True))
    assert sorted(res.runs.run) == sorted(ref.runs.run)


# published.toml is a bundle's description (docs/reproductions/README.md), not a scenario.
@pytest.mark.parametrize("path", sorted(p for p in (ROOT / "scenarios" / "seeds").glob("*/*.toml") if p.name != "published.toml"),
                         ids=lambda p: p.name)
def test_seed_study_files_validate_every_run(path):
    doc = talkspurt.load_scenario(path)
    if "sweep" not in doc:  # a base scenario of the sweep files
        talkspurt.validate(doc)
        return
    sw = load_sweep(path)
    runs = sw.runs()
    assert len(runs) == len(sw.points()) * sw.replications > 1


def test_ready_scenarios_validate():
    for p in sorted((ROOT / "scenarios").glob("*.toml")):
        talkspurt.validate(p)


def test_missing_categories_survive_the_store(tmp_path):
    # Everything lost: R is NaN, so band and satisfaction are missing
    # (the core's u32::MAX code), in the run and in the store alike.
    f = tmp_path / "s.toml"
    f.write_text(small_scenario(duration="2s").replace('p = 0.01', 'p = 0.999999') + """
[sweep]
grid = { "links[1].delay" = ["10ms", "20ms"] }
""")
    res = talkspurt.sweep(f, tmp_path / "out", workers=1, trace=False)
    c = res.calls
    assert c.r.isna().all() and c.band.isna().all() and c.satisfaction.isna().all()
    assert c.band.cat.ordered


def test_run_and_validate_use_a_sweep_files_base():
    v = talkspurt.validate(ROOT / "scenarios" / "seeds" / "000" / "udp_delay.toml")
    assert len(v["calls"]) == 3 and v["links"][3]["delay"] == "25ms"
    r = cli("validate", str(ROOT / "scenarios" / "seeds" / "004" / "cbr.toml"))
    assert r.returncode == 0 and '"sweep"' not in r.stdout


LABELLED = """
[sweep]
grid = { "links[1].delay" = ["10ms", "40ms"] }
list = [
  { label = "UDP", "calls[0].transport" = { kind = "udp" } },
  { label = "TFRC SP", "calls[0].transport" = { kind = "dccp", ccid = 4, send_buffer = "5p" } },
]
"""


def test_list_points_name_themselves_with_label(tmp_path):
    # `label` is the point's name, not a key path: it is a column of the
    # store and never reaches the scenario.
    res = talkspurt.sweep(sweep_file(tmp_path, sweep=LABELLED), tmp_path / "out", workers=1, trace=False)
    c = res.calls
    assert "label" in res.axes and set(c.label) == {"UDP", "TFRC SP"}
    assert set(c[c.label == "TFRC SP"].transport) == {"dccp-ccid4"}
    assert set(c[c.label == "UDP"].transport) == {"udp"}


@pytest.mark.parametrize("listed, path", [
    ([{"label": "a", "run.seed": 1}, {"run.seed": 2}], "sweep.list[1].label"),
    ([{"label": "", "run.seed": 1}], "sweep.list[0].label"),
    ([{"label": 3, "run.seed": 1}], "sweep.list[0].label"),
    # QA 000: the duplicate's message named sweep.list[].label, no index.
    ([{"label": "a", "run.seed": 1}, {"label": "b", "run.seed": 2}, {"label": "a", "run.seed": 3}],
     "sweep.list[2].label"),
])
def test_bad_labels_name_the_point(listed, path):
    doc = talkspurt.load_scenario(small_scenario())
    doc["sweep"] = {"list": listed}
    with pytest.raises(talkspurt.ScenarioError) as e:
        parse(doc).runs()
    assert e.value.path == path, str(e.value)
    if path == "sweep.list[2].label":
        assert str(e.value) == ('sweep.list[2].label: got "a"; expected a label used by one list point only '
                                '(sweep.list[0] has it already)')


def test_distinct_axes_folds_axes_that_pair_one_to_one():
    from talkspurt.figures import distinct_axes

    calls = pd.DataFrame({
        "d": ["10ms", "40ms"] * 4,
        "calls[0].codec": ["G.711"] * 4 + ["G.729"] * 4,
        "calls[1].codec": ["G.711"] * 4 + ["G.729"] * 4,  # zipped with calls[0].codec
        "calls[0].transport": ['{"kind":"udp"}', '{"kind":"udp"}', '{"kind":"tcp"}', '{"kind":"tcp"}'] * 2,
        "label": ["UDP", "UDP", "TCP", "TCP"] * 2,
        "run.duration": ["5s"] * 8,  # not varied
    })
    axes = ["d", "calls[0].codec", "calls[1].codec", "calls[0].transport", "label", "run.duration"]
    assert distinct_axes(calls, axes) == ["d", "calls[0].codec", "label"]
    # an axis that splits further than another is kept
    calls.loc[0, "calls[1].codec"] = "GSM-FR"
    assert distinct_axes(calls, axes) == ["d", "calls[0].codec", "calls[1].codec", "label"]


LISTED = """
[sweep]
list = [
  { label = "UDP", "calls[0].transport" = { kind = "udp" } },
  { label = "TFRC", "calls[0].transport" = { kind = "dccp", ccid = 3 } },
]
"""


def test_set_reaches_into_a_list_point(tmp_path):
    # QA 000: --set sweep.list[1].label=… was refused with "expected a key
    # of [sweep]: one of …, list", list being the key it had been given.
    f = sweep_file(tmp_path, sweep=LISTED)
    sw = load_sweep(f, {"sweep.list[1].label": "DCCP", "sweep.list[0].calls[0].codec": "G.729",
                        "sweep.list[1].calls[0].transport": None})
    assert sw.list == [{"label": "UDP", "calls[0].transport": {"kind": "udp"}, "calls[0].codec": "G.729"},
                       {"label": "DCCP"}]
    assert load_sweep(f, {"sweep.list[0]": {"label": "X", "run.seed": 9}}).list[0] == {"label": "X", "run.seed": 9}
    with pytest.raises(talkspurt.ScenarioError) as e:
        load_sweep(f, {"sweep.list[2].label": "UDP"})
    assert str(e.value) == ("sweep.list[2]: got no such point; expected an index from 0 to 1 (the file's [sweep] "
                            "list has 2 points; --set sweep.list=[…] replaces the list)")
    with pytest.raises(talkspurt.ScenarioError) as e:
        load_sweep(f, {"sweep.list[x].label": "UDP"})
    assert e.value.path == "sweep.list[x].label" and "sweep.list[N].<key path or label>" in str(e.value)
    # the duplicate a --set makes is named by its index
    with pytest.raises(talkspurt.ScenarioError) as e:
        load_sweep(f, {"sweep.list[1].label": "UDP"})
    assert e.value.path == "sweep.list[1].label"

