"""Rescoring a run under another playout buffer equals running it again."""

from __future__ import annotations

import pandas as pd
import pytest

import talkspurt
from conftest import small_scenario


def _with_playout(scenario: dict, playout: dict) -> dict:
    s = dict(scenario)
    s["calls"] = [dict(g, playout=playout) for g in scenario["calls"]]
    return s


def test_rescore_with_the_same_buffer_reproduces_the_run():
    res = talkspurt.run(small_scenario())
    again = talkspurt.rescore(res)
    pd.testing.assert_frame_equal(again.calls, res.calls)
    pd.testing.assert_frame_equal(again.packets, res.packets)
    pd.testing.assert_frame_equal(again.groups, res.groups)
    assert again.links is res.links  # not recomputed


def test_rescore_equals_a_new_run_under_the_other_buffer():
    base = talkspurt.load_scenario(small_scenario(duration="20s"))
    res = talkspurt.run(base, seed=5)
    for delay in ("40ms", "90ms"):
        playout = {"kind": "fixed", "delay": delay}
        direct = talkspurt.run(_with_playout(base, playout), seed=5)
        again = talkspurt.rescore(res, playout)
        pd.testing.assert_frame_equal(again.calls, direct.calls)
        pd.testing.assert_frame_equal(again.packets, direct.packets)
        pd.testing.assert_frame_equal(again.bursts, direct.bursts)
    # The original is untouched.
    pd.testing.assert_frame_equal(res.calls, talkspurt.run(base, seed=5).calls)


def test_rescore_from_saved_results(tmp_path):
    res = talkspurt.run(small_scenario(), seed=2)
    loaded = talkspurt.Results.load(res.save(tmp_path / "r"))
    a = talkspurt.rescore(loaded, {"kind": "fixed", "delay": "60ms"})
    b = talkspurt.rescore(res, {"kind": "fixed", "delay": "60ms"})
    pd.testing.assert_frame_equal(a.calls, b.calls)


def test_rescore_analysis_and_advantage():
    res = talkspurt.run(small_scenario(), seed=4)
    again = talkspurt.rescore(res, advantage=10)
    assert (again.calls["advantage"] == 10).all()
    # A adds to R one for one where the E-model is not clamped.
    diff = (again.calls["r"] - res.calls["r"]).dropna()
    assert len(diff) and ((diff - 10).abs() < 1e-9).all()


def test_rescore_errors_name_the_argument():
    res = talkspurt.run(small_scenario())
    with pytest.raises(talkspurt.ScenarioError) as e:
        talkspurt.rescore(res, {"kind": "fixed", "delay": "-5ms"})
    assert e.value.path == "playout.delay"
    with pytest.raises(talkspurt.ScenarioError) as e:
        talkspurt.rescore(res, 42)
    assert e.value.path == "playout"
    no_trace = talkspurt.run(small_scenario(), trace=False)
    with pytest.raises(talkspurt.ScenarioError) as e:
        talkspurt.rescore(no_trace)
    assert e.value.path == "packets"
