"""Seed 004 (Barberis et al., adaptive VoIP) §5.2–5.3, Figs 5–12: AVoIP and
CBR voice against interference that comes and goes, on the study files
scenarios/seeds/004/ftp.toml (ten voice sources each way, three greedy
FTP/TCP flows switched on and off as in Fig. 5) and pareto.toml (one voice
source each way, ten Pareto on/off UDP sources, Fig. 9's schedule read as
Fig. 5's). Each file is a sweep: AVoIP and CBR 8/16/24/32 kb/s.

Both files are experiments of the seed 004 reproduction bundle
(scenarios/seeds/004/published.toml, docs/reproductions/004.md): AVoIP
reads the one-way delay the receivers relay, CBR sources send 512 B of
payload + 40 B of headers with RTCP every 1 s.

Paper / talkspurt:

FTP (3 replications): AVoIP mean rate 11.6 / 15.1 kb/s (13.75 with the RTT
  signal); Figs 7–8, AVoIP's runs of received packets are longer than
  every CBR rate's (mean run 119 vs 3.4–45 packets); Fig. 6, the rate falls
  by single 8 kb/s steps (delay indications) far more often than by
  halving (≈ 6:1). (Measured after the RFC 6298 §3 (Karn) TCP change
  of 2026-11-28; before it 14.7 kb/s, mean run 221, ≈ 10:1.)
Pareto (8 replications): AVoIP mean rate 27.88 / 24.8 kb/s; Figs 11–12,
  loss bursts of five or more packets rare for AVoIP and more frequent for
  CBR sources, even at rates far below AVoIP's average: 12 such bursts in
  8 runs against 27–89, and 2.2 % of AVoIP's loss bursts against 15 % / 5 %
  at 8 / 16 kb/s.

Not asserted (gaps, docs/sweeps.md): "no losses after the first UDP
sources are deactivated" (§5.3) — under the Fig. 5 reading of Fig. 9's
schedule nine sources are still on after 170 s and the voice source keeps
losing until about 230 s; at 24 and 32 kb/s the CBR sources' share of
long loss bursts (1.6 %, 1.0 %) is below AVoIP's (2.2 %), their losses
being many short bursts."""

from __future__ import annotations

import pytest

import talkspurt
from talkspurt.sweeps import load_sweep
from conftest import ROOT

SEED004 = ROOT / "scenarios" / "seeds" / "004"
CBR = ("CBR 8 kb/s", "CBR 16 kb/s", "CBR 24 kb/s", "CBR 32 kb/s")


def _sweep(name, reps, out):
    sw = load_sweep(SEED004 / f"{name}.toml")
    sw.replications = reps
    res = talkspurt.sweep(sw, out, workers=2, trace=False)
    calls = res.calls[res.calls.group == "voice"]  # the forward direction
    bursts = res.bursts.merge(calls[["run", "call"]], on=["run", "call"])
    return calls, bursts


@pytest.fixture(scope="module")
def ftp(tmp_path_factory):
    return _sweep("ftp", 3, tmp_path_factory.mktemp("s004ftp") / "out")


@pytest.fixture(scope="module")
def pareto(tmp_path_factory):
    return _sweep("pareto", 8, tmp_path_factory.mktemp("s004par") / "out")


def test_ftp_avoip_rate(ftp):
    # §5.2: "AVoIP sources (whose measured average rate was 11.6 kb/s)". Not
    # reproduced (docs/reproductions/004.md): the model gives 14.78 kb/s over
    # 40 seeds of ftp.toml's AVoIP point (per-run SD 0.99 kb/s; runs
    # 12.6-16.4; measured 2026-11-29). This pins that figure: the fixture's
    # 3-seed mean lies within 3 standard errors of it, 3 x 0.99 / sqrt(3) =
    # 1.71 kb/s, so a change to the model that moves the rate shows here,
    # while the seeds' own spread does not. (Until 2026-11-29 it asserted
    # 11.6 kb/s + 30 %, at most 15.08, which the shipped 3-seed mean, 15.076,
    # met by the luck of its seeds.)
    calls, _ = ftp
    rate = calls[calls.label == "AVoIP"].bitrate_mean_bps.mean()
    assert abs(rate - 14_780) <= 3 * 990 / 3**0.5, rate


def test_ftp_avoip_receives_longer_runs_than_cbr(ftp):
    # Figs 7–8: longer uninterrupted streams of received packets, "AVoIP
    # sources appear to have the edge": AVoIP's mean received run at least
    # twice every CBR rate's (measured 119 vs 45, 40, 14 at 8–24 kb/s, 3.4
    # at 32). It holds for ftp.toml's TCP without limited transmit, as the
    # paper's ns-2 of 2000 ran (reading ftp-tcp); with it on, 80 vs 43 at
    # 8 kb/s, under twice.
    calls, _ = ftp
    mean = calls.groupby("label").received_run_mean.mean()
    for cbr in CBR:
        assert mean["AVoIP"] >= 2 * mean[cbr], (cbr, mean.to_dict())


def test_ftp_rate_falls_by_single_steps():
    # Fig. 6 and its text: with FTP interference the delay indications give
    # "a smooth transition to lower bit rates ... by single-step decreases".
    # Decreases from 24 kb/s or more (below, a halving and a step are the
    # same move) by one 8 kb/s step outnumber halvings at least 3:1
    # (measured 403:95, 345:36, 468:57 for seeds 1–3 with the one-way
    # delay signal; before the RFC 6298 §3 TCP change 428:41, 403:19,
    # 506:44).
    for seed in (1, 2, 3):
        r = talkspurt.run(SEED004 / "ftp.toml", overrides={"run.series": True, "run.seed": seed}, trace=True)
        s = r.series[r.series.name == "bitrate_bps"]
        single = halve = 0
        for _, g in s.groupby("flow"):
            v = g.sort_values("t").value.to_numpy()
            for a, b in zip(v[:-1], v[1:]):
                if b < a and a >= 24_000:
                    single += a - b == 8_000
                    halve += a - b > 8_000
        print(f"seed {seed}: {single} single steps, {halve} halvings")
        assert single >= 20 and single >= 3 * halve


def test_pareto_avoip_rate(pareto):
    # §5.3: "the AVoIP source reached an average of 27.88 kb/s"; within
    # 50 % (one source against heavy-tailed traffic: the 8 runs give
    # 15.7–38.3 kb/s, mean 24.8).
    calls, _ = pareto
    rate = calls[calls.label == "AVoIP"].bitrate_mean_bps.mean()
    assert abs(rate - 27_880) <= 0.5 * 27_880, rate


def test_pareto_long_loss_bursts_rare_for_avoip(pareto):
    # Figs 11–12: gaps of five or more lost packets "were rarely observed,
    # while this event was more frequent for CBR sources, even at rates much
    # lower than the average rate achieved by the AVoIP source". Count: at
    # most 3/4 of every CBR rate's (measured 12 vs 27, 39, 57, 89). Share
    # of loss bursts: at most half of CBR 8 and 16 kb/s's (2.2 % vs 15 %,
    # 5.3 %).
    _, bursts = pareto
    lost = bursts[bursts.kind == "lost"]
    long = lost[lost.length >= 5].groupby("label").runs.sum().reindex(["AVoIP", *CBR], fill_value=0)
    share = long / lost.groupby("label").runs.sum()
    print(long.to_dict(), share.to_dict())
    for cbr in CBR:
        assert long["AVoIP"] <= 0.75 * long[cbr], (cbr, long.to_dict())
    for cbr in CBR[:2]:
        assert share["AVoIP"] <= 0.5 * share[cbr], (cbr, share.to_dict())


def test_interference_schedule(pareto, ftp):
    # Figs 5 and 9: nothing interferes before 50 s, so no source type loses
    # a packet while the link carries voice alone at CBR rates the link
    # holds (checked on the calls' first loss: the congestion onset). Ten
    # sources each way at 24 kb/s do not fit once headers and RTCP count
    # (10 x 24 x 552/512 = 259 kb/s: Table 3's 7.18 % loss): 8 and 16 kb/s.
    for calls, _ in (ftp, pareto):
        cbr = calls[calls.label.isin(CBR[:2])]
        assert (cbr.congestion_onset_s.dropna() >= 50).all(), cbr.congestion_onset_s.min()
