"""Seed 003 (Sarwar, Boreli & Lochin, CCID4 over satellite), Tables 3–6 and
§7.2, on scenarios/seeds/003's study files: one VoIP call (or 5 and 12)
down the IPSTAR profile over UDP, CCID4 (`tfrc = "linux2008"`, the Linux
sender the paper measured), CCID4-N and CCID4-N100, 10-minute calls.

Published figures and talkspurt's (4 replications; 10 in
docs/reproductions/003.md) — the tolerances below are written per check:

PLR % (sender drops + network), CCID4 / N / N100 / UDP (10 runs, media
started at the connection, issue 23):
  G.711   paper 2.01 / 0.44 / 0.15 / 0.15   talkspurt 1.09 / 0.28 / 0.04 / 0.02
  G.729   paper 1.24 / 0.08 / 0.10 / 0.10   talkspurt 1.07 / 0.01 / 0.02 / 0.00
  Speex   paper 1.84 / 0.15 / 0.10 / 0.10   talkspurt 1.07 / 0.01 / 0.02 / 0.00
Receiver jitter (ms), UDP: paper mean 30.6, max 862.
R, G.711: paper UDP ≈ 79 (MOS 3.9), CCID4 below 50.

Not asserted against the paper (misses diagnosed in docs/reproductions/003.md):
CCID4 on G.711 (the paper's G.711 runs had link losses from the beam's
congestion, which the profile does not model) and on Speex (same packet
rate as G.729, so the same slow-start loss here; the paper's 1.84 against
1.24 % is run-to-run variation), Speex/DTX, the 12-call row."""

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
    # Table 3: CCID4's loss is sender drops in slow start over a 1 s RTT.
    # G.729 within issue 23's target max(0.5 point, 30 %) of 1.24 % (measured
    # 1.23 %); G.711 and Speex lose the same share of packets (slow start
    # counts packets: 1.0-1.5 %, measured 1.24 %, 1.23 %), all of it at the
    # sender (no network loss beyond 0.05 points). UDP below 0.1 %.
    assert abs(plr(calls, "G.729", "CCID4") - PAPER_CCID4["G.729"]) <= max(0.5, 0.3 * PAPER_CCID4["G.729"])
    for load in LOADS:
        c = calls[(calls.load == load) & (calls.transport_label == "CCID4")]
        assert 1.0 <= c.plr.mean() <= 1.5, load
        assert 100 * c.loss_network.mean() <= 0.05, load
        assert plr(calls, load, "UDP") < 0.1  # Table 3: 0.1–0.15 % on the live link


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
    # 50", the proposals in between. UDP and CCID4-N100 within 2 of 79
    # (media started at the connection, issue 23: 4 runs gave 77.5 and
    # 77.6); CCID4 at least 10 below UDP (the bundle's Fig. 4 trend).
    r = g711_r(calls)
    assert abs(r["UDP"] - 79) <= 2, r
    assert abs(r["CCID4-N100"] - 79) <= 2, r
    assert r["CCID4"] < r["CCID4-N"] < r["CCID4-N100"], r
    assert r["CCID4"] < r["UDP"] - 10, r


@pytest.mark.xfail(strict=True, reason="CCID4's G.711 PLR is 1.1 % here against the paper's 2.01 % "
                   "(the beam's congestion is not modelled), so R is 53.6, not below 50. It passed "
                   "before issue 23 only because the media started before the handshake, adding ~1 s "
                   "to every packet's delay (R 47.8)")
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
    # UDP takes what it needs: Jain 0.706 at 780 kb/s (paper 0.74) and 0.500
    # at 1 Mb/s (paper 0.5), within 0.05. The CCID4 family shares with TCP:
    # ≥ 0.85 (measured 0.87–0.93; the paper's 0.98–0.9997 are higher, with
    # TCP's share on the real link unknown) and above UDP at both rates.
    for rate in ("780kbps", "1Mbps"):
        assert abs(fairness[(rate, "UDP")] - TABLE_8[(rate, "UDP")]) <= 0.05, fairness
        for tr in ("CCID4", "CCID4-N", "CCID4-N100"):
            assert fairness[(rate, tr)] >= 0.85, (rate, tr, fairness)
            assert fairness[(rate, tr)] > fairness[(rate, "UDP")] + 0.1, (rate, tr, fairness)
