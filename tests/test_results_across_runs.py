"""Functions of a run applied to a store, per run; means and intervals over
replications; `talkspurt compare`; manifests name the commit (issue 25)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import talkspurt
from conftest import small_scenario

SWEEP = """
[sweep]
replications = 3
grid = { "links[1].delay" = ["20ms", "120ms"] }
"""


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("store")
    f = d / "s.toml"
    f.write_text(small_scenario(duration="4s") + SWEEP)
    talkspurt.sweep(f, d / "out", workers=2)
    return d / "out"


def test_fairness_of_a_store_is_per_run(store):
    res = talkspurt.load(store)
    per_run = talkspurt.fairness(res)
    assert len(per_run) == 6 and {"run", "point", "replication", "links[1].delay", "fairness"} <= set(per_run.columns)
    for row in per_run.itertuples():
        one = talkspurt.load(store / "runs" / row.run)
        assert row.fairness == pytest.approx(talkspurt.fairness(one))
    # Pooling every run's flows into one index (the old behaviour) differs.
    from talkspurt.fairness import flow_rates, jain_index

    pooled = jain_index(flow_rates(res)["goodput_bps"])
    assert not np.allclose(per_run.fairness, pooled)


def test_rescore_of_a_store_works_per_run_without_warnings(store):
    res = talkspurt.load(store)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PerformanceWarning included
        new = talkspurt.rescore(res, "ramjee-4")
    assert new.calls["run"].nunique() == 6 and set(new.calls.playout.astype(str)) == {"ramjee-4"}
    one = talkspurt.load(store / "runs" / new.calls.run.iloc[0])
    want = talkspurt.rescore(one, "ramjee-4").calls
    got = new.calls[new.calls.run == new.calls.run.iloc[0]]
    np.testing.assert_allclose(got.r.to_numpy(), want.r.to_numpy())
    assert "links[1].delay_ms" in new.calls.columns


def test_rescore_of_a_loaded_run_keeps_column_order_without_warnings(store):
    one = talkspurt.load(next((store / "runs").iterdir()))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = talkspurt.rescore(one, "ramjee-1")
    from talkspurt.rescore import _KEPT_CALL_COLUMNS

    kept = [c for c in _KEPT_CALL_COLUMNS if c in one.calls.columns]
    assert kept and all(c in new.calls.columns for c in kept)
    assert "wire_bytes" in new.packets.columns and "where" in new.packets.columns


def test_t_quantiles_and_intervals():
    from talkspurt.stats import mean_ci, t975, welch

    # Student t 97.5 % quantiles (tables; scipy.stats.t.ppf(0.975, df)).
    for df, want in ((1, 12.7062), (2, 4.3027), (10, 2.2281), (30, 2.0423), (40, 2.0211), (120, 1.9799)):
        assert t975(df) == pytest.approx(want, abs=1e-3)
    m = mean_ci([1.0, 2.0, 3.0])
    # mean 2, s = 1, half width = 4.3027 / √3 = 2.4842
    assert m["n"] == 3 and m["mean"] == 2.0 and m["half_width"] == pytest.approx(2.4842, abs=1e-4)
    assert math.isnan(mean_ci([5.0])["ci_low"])
    w = welch([1.0, 2.0, 3.0], [2.0, 3.0, 4.0])
    # diff 1, se = √(1/3 + 1/3) = 0.8165, df = 4: t = 2.7764 → ±2.2669
    assert w["diff"] == 1.0 and w["diff_ci_high"] - 1.0 == pytest.approx(2.7764 * math.sqrt(2 / 3), abs=1e-3)


def test_summary_has_mean_ci_and_n_per_point(store):
    from talkspurt.stats import summarize

    s = summarize(talkspurt.load(store), "r")
    assert list(s["n"]) == [3, 3] and (s["r_ci_low"] < s["r_mean"]).all() and (s["r_mean"] < s["r_ci_high"]).all()
    html = (store / "r.html")
    from talkspurt.report import write_report

    write_report(store, html)
    text = html.read_text()
    assert "r_ci_low" in text and "loss_total_median %" in text


def test_compare_two_folders(store, tmp_path):
    r = subprocess.run([sys.executable, "-m", "talkspurt", "compare", str(store), str(store)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    from talkspurt.compare import compare

    df = compare(store, store)
    assert len(df) == 4 and (df["diff"] == 0).all() and (df["n_a"] == 3).all()
    bad = subprocess.run([sys.executable, "-m", "talkspurt", "compare", str(store), str(tmp_path)],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "not a results folder" in bad.stderr


def test_every_manifest_names_version_and_commit(store):
    m = json.loads((next((store / "runs").iterdir()) / "manifest.json").read_text())
    assert m["versions"]["talkspurt"] == talkspurt.__version__
    assert "git_commit" in m["versions"]
    assert "git_commit" in json.loads((store / "sweep.json").read_text())["versions"]
