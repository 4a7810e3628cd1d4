"""The metric columns and tables through the Python API: playout buffers by
name, `[analysis]` settings, bands, pooled rows and rescoring per group."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import talkspurt
from conftest import small_scenario

BUFFERS = ["fixed", "fixed-depth", "ramjee-1", "ramjee-2", "ramjee-3", "ramjee-4", "quantile"]


@pytest.fixture(scope="module")
def base():
    return talkspurt.run(small_scenario(duration="30s"), seed=21)


@pytest.mark.parametrize("kind", BUFFERS)
def test_every_buffer_by_name_and_the_bound_dominates(kind):
    res = talkspurt.run(small_scenario(duration="20s", playout=f'{{ kind = "{kind}" }}'), seed=8)
    c = res.calls
    assert (c["playout"] == kind).all()
    assert res.manifest["scenario"]["calls"][0]["playout"]["kind"] == kind
    for bound, online in [("bound_g107_r", "r"), ("bound_r", "r_simple"), ("bound_r", "fixed_r")]:
        ok = c[online].isna() | (c[bound] >= c[online] - 1e-9)
        assert ok.all(), f"{kind}: {bound} < {online}\n{c[[bound, online]]}"


def test_bounds_off(base):
    res = talkspurt.rescore(base, analysis={"bounds": False})
    assert res.talkspurts is None
    assert res.calls[["bound_r", "bound_g107_r", "fixed_r"]].isna().all().all()
    pd.testing.assert_series_equal(res.calls["r"], base.calls["r"])


def test_thresholds_are_monotone(base):
    dpr = [talkspurt.rescore(base, analysis={"rtpi_threshold": t}).calls["dpr"] for t in ("20ms", "60ms", "300ms")]
    assert (dpr[0] >= dpr[1]).all() and (dpr[1] >= dpr[2]).all() and dpr[0].sum() > dpr[2].sum()
    pj = [talkspurt.rescore(base, analysis={"jitter_threshold": t}).calls["p_j_jitter"] for t in ("1ms", "20ms")]
    assert (pj[0] >= pj[1]).all() and pj[0].sum() > 0


def test_bands_follow_r(base):
    c = base.calls
    # Ordered worst first (issue 12), so comparisons follow quality.
    assert list(c["band"].cat.categories) == ["Not recommended", "Poor", "Low", "Medium", "High", "Best"]
    assert c["band"].cat.ordered and c["satisfaction"].cat.ordered and c["band_simple"].cat.ordered
    assert c["satisfaction"].cat.categories[-1] == "Very satisfied"
    edges = np.array([-np.inf, 50, 60, 70, 80, 90])
    for r, band in zip(c["r"], c["band"]):
        if np.isnan(r):
            assert pd.isna(band)
        else:
            assert band == c["band"].cat.categories[int(np.nonzero(r >= edges)[0][-1])]
    assert (c["mos"] == [talkspurt.mos_from_r(r) for r in c["r"]]).all()


def test_groups_bursts_talkspurts_agree_with_calls(base):
    c, g, b = base.calls, base.groups, base.bursts
    row = g.set_index("group").loc["(all)"]
    assert row["generated"] == c["generated"].sum()
    assert row["loss_total"] == pytest.approx(1 - c["played"].sum() / c["generated"].sum(), abs=1e-12)
    runs = b.groupby(["call", "kind"], observed=True)["runs"].sum().unstack(fill_value=0)
    assert (runs["lost"].reindex(c["call"], fill_value=0).to_numpy() == c["lost_runs"].to_numpy()).all()
    assert (runs["received"].reindex(c["call"], fill_value=0).to_numpy() == c["received_runs"].to_numpy()).all()
    played = base.talkspurts.groupby("call")["bound_g107_played"].sum()
    assert (played.reindex(c["call"]).to_numpy() == c["bound_g107_played"].to_numpy()).all()


def test_rescore_per_group_mapping():
    text = small_scenario(duration="20s") + """
[[calls]]
label = "second"
from = "a"
to = "b"
codec = "G.729"
"""
    res = talkspurt.run(text, seed=3)
    again = talkspurt.rescore(res, {"second": {"kind": "ramjee-1", "beta": 2}})
    c = again.calls
    assert set(c.loc[c["group"] == "second", "playout"]) == {"ramjee-1"}
    assert set(c.loc[c["group"] != "second", "playout"]) == {"fixed"}
    first = c["group"] != "second"
    pd.testing.assert_frame_equal(c[first], res.calls[first])
    with pytest.raises(talkspurt.ScenarioError) as e:
        talkspurt.rescore(res, {"second": {"kind": "ramjee-1", "beta": -1}})
    assert e.value.path == "playout.second.beta"
