"""The Python API: run/validate/emodel, Results as DataFrames, determinism."""

from __future__ import annotations

import hashlib
import json
import math

import numpy as np
import pandas as pd
import pytest

import talkspurt
from conftest import small_scenario


def trace_hash(res: talkspurt.Results) -> str:
    h = hashlib.sha256()
    for name in ("packets", "calls"):
        df = getattr(res, name)
        h.update(pd.util.hash_pandas_object(df, index=False).values.tobytes())
    return h.hexdigest()


def test_run_returns_dataframes_with_documented_columns():
    res = talkspurt.run(small_scenario())
    assert isinstance(res.calls, pd.DataFrame) and len(res.calls) == 3
    for col in ["call", "codec", "generated", "sender_drop", "queue_drop", "link_loss", "late", "played",
                "loss_total", "delay_mean_ms", "delay_p50_ms", "delay_p95_ms", "delay_p99_ms", "jitter_ms",
                "mouth_to_ear_ms", "r", "mos", "r_simple", "mos_simple"]:
        assert col in res.calls.columns, col
    p = res.packets
    assert set(p["fate"].cat.categories) == {"played", "late", "sender_drop", "queue_drop", "link_loss", "in_flight"}
    # Every packet of a call is counted exactly once across the fates.
    counts = p.groupby("call", observed=True)["fate"].value_counts().unstack(fill_value=0)
    c = res.calls.set_index("call")
    assert (counts["played"] == c["played"]).all()
    assert (counts["late"] == c["late"]).all()
    assert (counts.sum(axis=1) == c["generated"]).all()
    # Played packets have a playout time; lost ones none.
    played = p[p["fate"] == "played"]
    assert played["t_played"].notna().all()
    assert p[p["fate"] == "queue_drop"]["t_arrived"].isna().all()
    # Link and traffic tables exist and account for the queue drops.
    assert res.links["queue_drops"].sum() >= c["queue_drop"].sum()
    assert len(res.traffic) == 1 and res.traffic["goodput_bps"].iloc[0] > 0


def test_same_seed_identical_different_seed_differs():
    a = talkspurt.run(small_scenario(), seed=11)
    b = talkspurt.run(small_scenario(), seed=11)
    c = talkspurt.run(small_scenario(), seed=12)
    assert trace_hash(a) == trace_hash(b), "seed 11 twice differed"
    assert trace_hash(a) != trace_hash(c), "seeds 11 and 12 gave the same trace"
    assert a.manifest["seed"] == 11 and c.manifest["seed"] == 12


def test_scenario_from_path_text_and_dict_agree(tmp_path):
    text = small_scenario()
    f = tmp_path / "s.toml"
    f.write_text(text)
    import tomllib

    d = tomllib.loads(text)
    hashes = {trace_hash(talkspurt.run(x)) for x in (text, f, str(f), d)}
    assert len(hashes) == 1


def test_validate_fills_defaults():
    v = talkspurt.validate(small_scenario())
    assert v["calls"][0]["ptime"] == "20ms"
    assert v["calls"][0]["transport"]["kind"] == "udp"
    assert v["links"][0]["queue"]["limit"] == "50p"


def test_trace_off_has_no_packets_but_same_calls():
    on = talkspurt.run(small_scenario())
    off = talkspurt.run(small_scenario(), trace=False)
    assert off.packets is None
    pd.testing.assert_frame_equal(on.calls, off.calls)


def test_progress_callback_reaches_one():
    seen = []
    talkspurt.run(small_scenario(duration="60s"), progress=seen.append)
    assert seen and seen[-1] == 1.0
    assert all(0.0 <= x <= 1.0 for x in seen)


def test_save_is_complete_and_readable(tmp_path):
    res = talkspurt.run(small_scenario())
    out = res.save(tmp_path / "out")
    names = sorted(p.name for p in out.iterdir())
    # No series.parquet: `[run] series` is off (issue 12: not written when off).
    assert res.series is None
    assert names == ["bursts.parquet", "calls.parquet", "groups.parquet", "links.parquet", "manifest.json",
                     "packets.parquet", "talkspurts.parquet", "traffic.parquet"]
    back = pd.read_parquet(out / "calls.parquet")
    pd.testing.assert_frame_equal(back, res.calls, check_dtype=False)
    m = json.loads((out / "manifest.json").read_text())
    assert m["seed"] == 3 and m["scenario"]["run"]["duration"] == "5s" and "talkspurt" in m["versions"]
    with pytest.raises(FileExistsError):
        res.save(out)


def test_emodel_defaults_and_hand_computed_points():
    # G.107 defaults: R = 93.2 (93.2062 by the equations).
    assert talkspurt.emodel()["R"] == pytest.approx(93.2062, abs=0.01)
    # Ie,eff = Ie + (95 − Ie)·Ppl/(Ppl/BurstR + Bpl): G.711 Ie 0, Bpl 25.1,
    # Ppl 2 %, BurstR 1 → 95·2/27.1 = 7.0111.
    r = talkspurt.emodel(Ie=0, Bpl=25.1, Ppl=2, BurstR=1)
    assert r["Ie_eff"] == pytest.approx(95 * 2 / 27.1, abs=1e-6)
    with pytest.raises(ValueError, match="unknown E-model parameter"):
        talkspurt.emodel(Foo=1)
    with pytest.raises(ValueError):
        talkspurt.emodel(Ta=900)  # beyond Table 3's range without extended=True
    assert math.isfinite(talkspurt.emodel(extended=True, T=900, Ta=900, Tr=1800)["R"])


def test_simplified_emodel_matches_seed_000():
    # R = 94.2 − [λ1 + λ2 ln(1 + λ3 e)] − [0.024 d + 0.11 (d − 177.3) H(d − 177.3)]
    # G.729 (10, 47.82, 18), e = 0.02, d = 200 ms:
    ie = 10 + 47.82 * math.log(1 + 18 * 0.02)
    idd = 0.024 * 200 + 0.11 * (200 - 177.3)
    assert talkspurt.emodel_simplified(0.02, 200, codec="G.729") == pytest.approx(94.2 - ie - idd, abs=1e-9)
    assert talkspurt.mos_from_r(0) == 1.0 and talkspurt.mos_from_r(100) == 4.5


def test_codec_table():
    names = {c["name"]: c for c in talkspurt.codecs()}
    assert names["G.711"]["bitrate_bps"] == 64000 and names["G.729"]["bitrate_bps"] == 8000
    assert names["G.723.1-6.3"]["frame_ms"] == 30


def test_streaming_scoring_from_python():
    """`[analysis] scoring = "streaming"` (issue 14): needs the trace off,
    says so by key; with it off, the counts equal exact scoring's."""
    text = small_scenario("10s") + '\n[analysis]\nscoring = "streaming"\n'
    with pytest.raises(talkspurt.ScenarioError, match=r"analysis\.scoring"):
        talkspurt.run(text)
    streaming = talkspurt.run(text, trace=False)
    exact = talkspurt.run(small_scenario("10s"), trace=False)
    assert streaming.packets is None and streaming.talkspurts is None
    for col in ["generated", "played", "late", "queue_drop", "link_loss", "delay_mean_ms", "jitter_ms", "r", "mos"]:
        pd.testing.assert_series_equal(streaming.calls[col], exact.calls[col])
    assert streaming.calls["bound_r"].isna().all() and not exact.calls["bound_r"].isna().any()
    rel = (streaming.calls["delay_p95_ms"] / exact.calls["delay_p95_ms"] - 1).abs()
    assert (rel <= 1 / 256).all(), rel
