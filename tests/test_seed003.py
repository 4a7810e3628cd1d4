"""Seed 003 (Sarwar, Boreli & Lochin, CCID4 over satellite), Tables 3–6 and
§7.2, on scenarios/seeds/003's study files: one VoIP call (or 5 and 12)
down the IPSTAR profile over UDP, CCID4 (`tfrc = "linux2008"`, the Linux
sender the paper measured), CCID4-N and CCID4-N100, 10-minute calls.

Published figures and talkspurt's (4 replications; 10 in
docs/reproductions/003.md) — the tolerances below are written per check:

PLR % (sender drops + network), CCID4 / N / N100 / UDP, with the profile's
calibrated beam congestion and media started at the connection (10 runs,
docs/reproductions/003.md):
  G.711   paper 2.01 / 0.44 / 0.15 / 0.15   talkspurt 1.30 / 0.49 / 0.29 / 0.19
  G.729   paper 1.24 / 0.08 / 0.10 / 0.10   talkspurt 1.21 / 0.15 / 0.13 / 0.10
  Speex   paper 1.84 / 0.15 / 0.10 / 0.10   talkspurt 1.21 / 0.15 / 0.13 / 0.10
Receiver jitter (ms), UDP: paper mean 30.6, max 862.
R, G.711: paper UDP ≈ 79 (MOS 3.9), CCID4 below 50.

Not asserted against the paper (misses diagnosed in docs/reproductions/003.md):
CCID4 on G.711 and on Speex (the same 50 packets/s as G.729, so the same
slow-start loss here; the sender loss grows with the RTT, and the paper's
2.01 and 1.84 % fit runs about 0.4 s slower), Speex/DTX, the 12-call row."""

from __future__ import annotations

import pytest

import talkspurt
from talkspurt.sweeps import load_sweep
from conftest import ROOT

STUDY = ROOT / "scenarios" / "seeds" / "003" / "tables_3_5.toml"
LOADS = ("G.711", "G.729", "Speex")
PAPER_CCID4 = {"G.711": 2.01, "G.729": 1.24, "Speex": 1.84}  # Table 3


@pytest.fixture(scope="module")
def calls(tmp_path_factory):
    sw = load_sweep(STUDY)
    sw.list = [p for p in sw.list if p["label"].split(" / ")[0] in LOADS]
    sw.replications = 4
    res = talkspurt.sweep(sw, tmp_path_factory.mktemp("s003") / "out", workers=2, trace=False)
    c = res.calls
    c["plr"] = 100 * (c.loss_sender + c.loss_network)
    c[["load", "transport_label"]] = c.label.str.split(" / ", expand=True)
    return c


def plr(c, load, tr):
    return c[(c.load == load) & (c.transport_label == tr)].plr.mean()


def test_ccid4_loses_what_the_paper_measured(calls):
    # Table 3: CCID4's loss is sender drops in slow start over a 1 s RTT
    # (1.0-1.5 %: slow start counts packets, and the three codecs send 50
    # packets/s) plus the link's own, the profile's calibrated beam
    # congestion (0.02-0.3 % of packets, the UDP rows' range over 4 runs:
    # Table 3 says 0.1-0.15 %; the calibrated band is tested in
    # test_ipstar_congestion.py). G.729 within issue 23's target
    # max(0.5 point, 30 %) of 1.24 % (measured 1.32 % over 10 runs).
    assert abs(plr(calls, "G.729", "CCID4") - PAPER_CCID4["G.729"]) <= max(0.5, 0.3 * PAPER_CCID4["G.729"])
    for load in LOADS:
        c = calls[(calls.load == load) & (calls.transport_label == "CCID4")]
        assert 1.0 <= 100 * c.loss_sender.mean() <= 1.5, load
        assert 0.02 <= 100 * c.loss_network.mean() <= 0.3, load
        assert 0.02 <= plr(calls, load, "UDP") <= 0.3, load


PAPER_T5 = {"G.711": (0.44, 0.15), "G.729": (0.08, 0.10), "Speex": (0.15, 0.10)}  # Table 5 N, N100


@pytest.mark.parametrize("load", LOADS)
def test_ccid4_n_and_n100_match_table_5(calls, load):
    # Table 5 within 0.3 points (the paper's N/N100 rows sit at its UDP floor;
    # measured 0.46/0.16/0.16 and 0.21/0.16/0.16 %).
    n, n100 = PAPER_T5[load]
    assert abs(plr(calls, load, "CCID4-N") - n) <= 0.3
    assert abs(plr(calls, load, "CCID4-N100") - n100) <= 0.3


@pytest.mark.parametrize("load", LOADS)
def test_ccid4_n_and_n100_cut_the_loss(calls, load):
    # Table 5: both proposals cut CCID4's loss several-fold (paper 4.6–20×);
    # here N by ≥ 1.5× (measured 2.7–7.7×) and N100 by ≥ 4× (5.9–7.7×).
    base = plr(calls, load, "CCID4")
    assert plr(calls, load, "CCID4-N") <= base / 1.5
    assert plr(calls, load, "CCID4-N100") <= base / 4


def test_jitter_is_the_network_s(calls):
    # Tables 4 and 6: receiver jitter ≈ 30 ms whatever the transport (the
    # bursty link's, not DCCP's): mean within 10 % of 30.6 ms for every
    # transport; the per-call maximum 0.5–1.0 s on average (paper 798–963 ms).
    for tr, g in calls.groupby("transport_label"):
        assert abs(g.jitter_receiver_mean_ms.mean() - 30.6) <= 3.06, tr
        assert 500 <= g.jitter_receiver_max_ms.mean() <= 1000, tr


def g711_r(calls):
    return {tr: calls[(calls.load == "G.711") & (calls.transport_label == tr)].r.mean()
            for tr in ("UDP", "CCID4", "CCID4-N", "CCID4-N100")}


def test_g711_quality(calls):
    # §7.2 (A = 40, 400 ms buffer, G.711 without PLC): "79 (MOS 3.9) for a
    # G.711 call with either UDP or our proposal CCID4-N100", CCID4 "below
    # 50", the proposals in between. UDP measured 75.6 over 10 runs, a
    # diagnosed miss (docs/reproductions/003.md, Fig. 4): the paper's R takes
    # PLR + P_J = 0.16 %, talkspurt's buffer also drops 0.16 % late (the
    # link's stalls) on top of the congestion's 0.12 %. Asserted: UDP between
    # the E-model's R at this delay with 0.5 % loss (71.2) and with 0.16 %
    # (77.7: Ie_eff = 95·p/(p + 4.3)); CCID4-N100 (media started at the
    # connection, issue 23) within 2 of UDP; CCID4 at least 10 below UDP (the
    # bundle's Fig. 4 trend).
    r = g711_r(calls)
    assert 71.2 <= r["UDP"] <= 77.7, r
    assert abs(r["CCID4-N100"] - r["UDP"]) <= 2, r
    assert r["CCID4"] < r["CCID4-N"] < r["CCID4-N100"], r
    assert r["CCID4"] < r["UDP"] - 10, r


@pytest.mark.xfail(strict=True, reason="CCID4's G.711 PLR is 1.3 % here against the paper's 2.01 % "
                   "(the same slow-start loss as every 50 packet/s codec; the paper's fits a longer RTT), "
                   "so R is 50.1 over 10 runs (51.3 over the 4 here), not below 50. It passed before issue 23 only "
                   "because the media started before the handshake, adding ~1 s to every packet's delay "
                   "(R 47.8 then; 44.7 with today's satellite profile, reading media-start of 003.md)")
def test_g711_ccid4_below_50(calls):
    assert g711_r(calls)["CCID4"] < 50


TABLE_8 = {  # seed 003 Table 8, Jain's index of (VoIP stream, TCP)
    ("780kbps", "UDP"): 0.74, ("1Mbps", "UDP"): 0.5,
    ("780kbps", "CCID4"): 0.9997, ("1Mbps", "CCID4"): 0.985,
}


@pytest.fixture(scope="module")
def fairness(tmp_path_factory):
    sw = load_sweep(ROOT / "scenarios" / "seeds" / "003" / "table_8.toml")
    sw.replications = 1
    res = talkspurt.sweep(sw, tmp_path_factory.mktemp("s003f") / "out", workers=2, trace=False)
    out = {}
    for run in res.runs.itertuples():
        r = talkspurt.Results.load(res.directory / "runs" / run.run)
        rate = r.manifest["scenario"]["traffic"][0]["rate"]
        out[(rate, run.label)] = talkspurt.fairness(r, per="group")
    return out


def test_table_8_udp_is_unfair_and_ccid4_fair(fairness):
    # UDP takes what it needs: Jain 0.500 at 1 Mb/s (paper 0.5), within
    # 0.05; at 780 kb/s 0.65 (3 runs; paper 0.74, a diagnosed miss: the
    # profile's 25-packet queue leaves TCP less room), below 0.74. The CCID4
    # family shares with TCP: ≥ 0.85 (3 runs: means 0.993 / 0.965 / 0.976
    # for CCID4 / -N / -N100, runs 0.905–1.000, docs/reproductions/003.md;
    # the paper's 0.98–0.9997, with TCP's variant unknown) and above UDP.
    assert abs(fairness[("1Mbps", "UDP")] - TABLE_8[("1Mbps", "UDP")]) <= 0.05, fairness
    assert fairness[("780kbps", "UDP")] < TABLE_8[("780kbps", "UDP")], fairness
    for rate in ("780kbps", "1Mbps"):
        for tr in ("CCID4", "CCID4-N", "CCID4-N100"):
            assert fairness[(rate, tr)] >= 0.85, (rate, tr, fairness)
            assert fairness[(rate, tr)] > fairness[(rate, "UDP")] + 0.1, (rate, tr, fairness)
