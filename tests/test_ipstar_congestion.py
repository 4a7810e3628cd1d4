"""The `satellite-ipstar` profile's beam congestion (the downlink's on/off
background load, docs/models/network.md "Seed 003's beam congestion"):
its three figures are calibrated to seed 003's Table 3 UDP rows, so the
profile's UDP loss must fall in the calibrated band.

Published (Table 3, UDP, 10 live runs of 10 min): G.711 0.15 %, G.729
0.10 %, 12 G.711 calls 1.55 % (an IAX2 trunk: one 2028 B packet per 20 ms,
as tables_3_5.toml runs it). Calibrated profile (1.0 Mb/s, 3 s on, 65 s
off): fitted on seeds 1-12 to 0.168 / 0.081 / 1.61 %; seeds 13-32, held
out, give 0.146 / 0.068 / 1.52 %. Here 20 runs of 10 min (seeds 1-20).
The tolerance is ±40 % of the published figure: 20 runs hold ≈ 175
congestion episodes of exponential length, so the mean's relative
standard deviation is ≈ 15 %, and 40 % is more than 2.5 of them. Without
the background (BER only) the same runs lose 0.008 / 0.001 % on single
calls and ≈ 0.16 % on the trunk (1 − (1 − 1e-7)^(2028·8)), far outside
the band."""

from __future__ import annotations

import copy
import tomllib

import pytest

import talkspurt
from conftest import ROOT

BASE = ROOT / "scenarios" / "seeds" / "003" / "base.toml"
ROWS = {  # label: (codec, calls, Table 3 UDP PLR %); several calls are an IAX2 trunk
    "G.711": ("G.711-noPLC", 1, 0.15),
    "G.729": ("G.729", 1, 0.10),
    "G.711, 12 calls": ("G.711-noPLC", 12, 1.55),
}
SEEDS = range(1, 21)


def udp_plr(codec: str, count: int, background: bool = True) -> float:
    doc = tomllib.loads(BASE.read_text())
    doc["run"].update(trace=False)
    doc["calls"][0].update(codec=codec, count=count, transport={"kind": "udp"})
    if count > 1:  # as tables_3_5.toml: one trunk, calls at uniform phases
        doc["calls"][0].update(trunk={}, start={"kind": "uniform", "from": "0s", "to": "20ms"})
    if not background:
        doc["links"][1]["forward"] = {"background": {"kind": "none"}}
    out = []
    for seed in SEEDS:
        d = copy.deepcopy(doc)
        d["run"]["seed"] = seed
        c = talkspurt.run(d).calls
        out.append(100 * (c.loss_sender + c.loss_network).mean())
    return sum(out) / len(out)


@pytest.mark.parametrize("row", ROWS)
def test_udp_loss_in_the_calibrated_band(row):
    codec, count, paper = ROWS[row]
    got = udp_plr(codec, count)
    assert abs(got - paper) <= 0.4 * paper, f"{row}: {got:.3f} % against Table 3's {paper} % ± 40 %"


def test_without_the_background_the_ber_alone_misses_table_3():
    # The reason for the model: BER 1e-7 alone loses under a tenth of
    # Table 3's G.711 UDP figure (measured 0.008 % against 0.15 %).
    assert udp_plr("G.711-noPLC", 1, background=False) < 0.1 * ROWS["G.711"][2]


def test_background_needs_a_drop_tail_queue():
    doc = tomllib.loads(BASE.read_text())
    doc["links"][1]["queue"] = {"kind": "codel"}
    with pytest.raises(talkspurt.ScenarioError, match=r"links\[1\]\.background"):
        talkspurt.validate(doc)
