"""talkspurt's TCP side by side with ns-2 on the same scenarios (issue:
TCP as a real transport, validation). ns-2 runs live from bench/ns2/; the
talkspurt twins are tests/data/tcp/{loss,compete}.toml, which mirror ns-2's
conventions (bench/README.md, "TCP peers": 1500-byte packets, 40-byte ACKs,
IW 2 after one RTT of (pseudo-)SYN, no delayed ACKs, min RTO 200 ms on a
10 ms clock, loss after the wire, DropTail limit + 1 in ns-2).

Tolerances are the issue's: mean goodput over seeds 1–3 within 10 % of
ns-2's, and the two-flow Jain index within 0.05 of ns-2's."""

from __future__ import annotations

import copy
import statistics
import tomllib

import pytest

import talkspurt
from conftest import IN_CI, ROOT
from peers import ns2_available, run_ns2

DATA = ROOT / "tests" / "data" / "tcp"
SEEDS = (1, 2, 3)
# talkspurt cc name -> ns-2 agent
VARIANTS = {"reno": "Reno", "newreno": "Newreno", "sack": "Sack1"}
NS2_AGENT = {**VARIANTS, "vegas": "Vegas"}


def _need_ns2():
    if not ns2_available():
        if IN_CI:
            pytest.fail("ns-2 (`ns`) missing in CI")
        pytest.skip("ns-2 (`ns`) not installed; bench/setup.sh installs it")


def _scenario(name: str) -> dict:
    with open(DATA / f"{name}.toml", "rb") as f:
        return tomllib.load(f)


def _talkspurt_loss(cc: str, p: float, seed: int, limited_transmit: bool = False) -> float:
    s = copy.deepcopy(_scenario("loss"))
    s["run"]["seed"] = seed
    s["run"]["trace"] = False
    s["links"][1]["forward"]["loss"]["p"] = p
    s["traffic"][0]["transport"]["cc"] = cc
    s["traffic"][0]["transport"]["limited_transmit"] = limited_transmit
    return float(talkspurt.run(s).traffic["goodput_bps"].iloc[0])


# Vegas included at every p: a second loss in a window is fast-retransmitted
# like ns-2's (docs/models/tcp.md), which removed the −16 % gap at 3 %.
CASES = [(cc, p) for cc in NS2_AGENT for p in (0.001, 0.003, 0.01, 0.03)]


@pytest.mark.parametrize(("cc", "p"), CASES)
def test_single_flow_goodput_matches_ns2(cc, p):
    _need_ns2()
    ns2 = statistics.mean(run_ns2("tcp_loss.tcl", NS2_AGENT[cc], p, 100, seed, 10)["goodput_bps"] for seed in SEEDS)
    ours = statistics.mean(_talkspurt_loss(cc, p, seed) for seed in SEEDS)
    print(f"{cc} p={p}: talkspurt {ours / 1e6:.3f} Mb/s, ns-2 {ns2 / 1e6:.3f} Mb/s ({ours / ns2 - 1:+.1%})")
    assert ours == pytest.approx(ns2, rel=0.10), f"{cc} p={p} seeds {SEEDS}"


# ns-2's agents run limited transmit (`singledup_ 1`, its default). With it
# on here too the two agree as closely as with it off (docs/models/tcp.md,
# "Limited transmit"): before the segments it sends were kept out of
# ssthresh's FlightSize (RFC 5681 §3.2 step 2), NewReno and SACK were
# +9–22 % at 1–3 % loss. Measured 2026-11-28: reno +0.4 / +5.7 %, newreno
# −0.6 / +4.6 %, sack +0.5 / +4.7 % at p = 0.01 / 0.03.
@pytest.mark.parametrize(("cc", "p"), [(cc, p) for cc in VARIANTS for p in (0.01, 0.03)])
def test_single_flow_goodput_with_limited_transmit_matches_ns2(cc, p):
    _need_ns2()
    ns2 = statistics.mean(run_ns2("tcp_loss.tcl", NS2_AGENT[cc], p, 100, seed, 10)["goodput_bps"] for seed in SEEDS)
    ours = statistics.mean(_talkspurt_loss(cc, p, seed, limited_transmit=True) for seed in SEEDS)
    print(f"{cc} p={p} limited transmit: talkspurt {ours / 1e6:.3f} Mb/s, ns-2 {ns2 / 1e6:.3f} Mb/s ({ours / ns2 - 1:+.1%})")
    assert ours == pytest.approx(ns2, rel=0.10), f"{cc} p={p} seeds {SEEDS}"


@pytest.mark.parametrize("cc", list(VARIANTS))
def test_two_flows_share_like_ns2(cc):
    _need_ns2()
    ns2_jain, ours_jain, ns2_total, ours_total = [], [], [], []
    for seed in SEEDS:
        out = run_ns2("tcp_compete.tcl", VARIANTS[cc], 100, seed, 10)
        ns2_jain.append(out["jain_index"])
        ns2_total.append(out["total_goodput_bps"])
        s = copy.deepcopy(_scenario("compete"))
        s["run"]["seed"] = seed
        s["run"]["trace"] = False
        for t in s["traffic"]:
            t["transport"]["cc"] = cc
        res = talkspurt.run(s)
        ours_jain.append(talkspurt.fairness(res, per="flow"))
        ours_total.append(float(res.traffic["goodput_bps"].sum()))
    j_ns2, j_ours = statistics.mean(ns2_jain), statistics.mean(ours_jain)
    print(f"{cc}: Jain talkspurt {j_ours:.4f}, ns-2 {j_ns2:.4f}; total {statistics.mean(ours_total):.0f} vs {statistics.mean(ns2_total):.0f} b/s")
    assert abs(j_ours - j_ns2) <= 0.05, f"{cc} seeds {SEEDS}: {ours_jain} vs {ns2_jain}"
    assert statistics.mean(ours_total) == pytest.approx(statistics.mean(ns2_total), rel=0.10)
