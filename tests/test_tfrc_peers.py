"""talkspurt's TFRC and DCCP CCID 3 side by side with ns-2 on the same
scenarios (issue: DCCP and the TFRC family, validation). ns-2 runs live from
bench/ns2/; the talkspurt twins are in tests/data/tfrc/.

1. Bulk TFRC under Bernoulli loss against Agent/TFRC (tfrc_loss.tcl,
   loss.toml: 32-byte TFRC header, 40-byte feedback, loss after the wire,
   t_RTO from ns-2's fixed-point TCP estimator on its 100 ms clock,
   `rto = "ns2"`). Tolerance (the issue's): long-run mean rate over seeds
   1-3 within 10 % of ns-2's. Measured when written (talkspurt / ns-2 - 1):
   plain 1000-byte packets p = 0.003 -0.7 %, 0.01 -1.4 %, 0.03 -0.8 %,
   0.1 +4.0 %; voip_ mode (200-byte packets, the equation with fsize_ 1460
   and H = 32 B, 100 packets/s cap, standard loss intervals:
   short_intervals = false) p = 0.1 -0.1 %, 0.2 0.0 %.
   With `rto = "rfc6298"` and G = 100 ms instead (the twin until this
   was found) p = 0.1 was +24 %: ns-2's estimator keeps RTTVAR in quarter
   ticks, so a steady 105 ms RTT gives t_RTO = 3 ticks = 300 ms where the
   real-valued form tends to SRTT + G = 205 ms; the lower rate then raises
   the loss event rate too (fewer packets per RTT after each loss).
   With TFRC-SP's short-interval rule (RFC 4828 §4.4, which ns-2's voip_
   mode does not have) voip p = 0.2 would be -16 %.
2. An on/off voice call over CCID 3 (RFC 3448) with a 5-packet send buffer
   against Agent/DCCP/TFRC (dccp_onoff.tcl, onoff.toml). Tolerance (the
   issue's): mean sender wait over seeds 1-3 within 20 %, at 100 and
   200 ms one-way over 600 s (WAIT_CASES). At 25 ms talkspurt waits 41 %
   less: ns-2's CCID 3 keeps its send timer running on a grid of t_ipi
   slots while idle, so the first packet after a silence waits for the
   next slot, where talkspurt (RFC 3448 §4.6 read literally) sends it at
   once; at 25 ms that slot is a large part of the wait.
3. Agent/TFRC's own on/off behaviour (idleFix_) is neither RFC 3448 nor
   RFC 5348 and is not compared (docs/models/tfrc.md).
"""

from __future__ import annotations

import copy
import statistics
import tomllib

import pytest

import talkspurt
from conftest import IN_CI, ROOT
from peers import ns2_available, run_ns2

SEEDS = (1, 2, 3)
CASES = [("plain", 0.003), ("plain", 0.01), ("plain", 0.03), ("plain", 0.1), ("voip", 0.1), ("voip", 0.2)]


def _need_ns2():
    if not ns2_available():
        if IN_CI:
            pytest.fail("ns-2 (`ns`) missing in CI")
        pytest.skip("ns-2 (`ns`) not installed; bench/setup.sh installs it")


def _talkspurt(mode: str, p: float, seed: int) -> float:
    with open(ROOT / "tests" / "data" / "tfrc" / "loss.toml", "rb") as f:
        s = tomllib.load(f)
    s = copy.deepcopy(s)
    s["run"]["seed"] = seed
    s["links"][1]["forward"]["loss"]["p"] = p
    if mode == "voip":
        # ns-2 voip_: equation with fsize_ 1460 and size/(size + headersize_),
        # at most voip_max_pkt_rate_ = 100 packets/s (TFRC-SP's 10 ms); its
        # TFRCSink keeps standard loss intervals (ShortIntervals_ 0).
        s["traffic"][0]["transport"].update(small_packets=True, sp_header="32B", packet="200B", short_intervals=False)
    return float(talkspurt.run(s).traffic["goodput_bps"].iloc[0]) / 8


@pytest.mark.parametrize(("mode", "p"), CASES)
def test_long_run_rate_matches_ns2(mode, p):
    _need_ns2()
    ns2 = statistics.mean(run_ns2("tfrc_loss.tcl", mode, p, 200, seed, 50)["segment_Bps"] for seed in SEEDS)
    ours = statistics.mean(_talkspurt(mode, p, seed) for seed in SEEDS)
    print(f"{mode} p={p}: talkspurt {ours:.0f} B/s, ns-2 {ns2:.0f} B/s ({ours / ns2 - 1:+.1%})")
    assert ours == pytest.approx(ns2, rel=0.10), f"{mode} p={p} seeds {SEEDS}"


# One-way delays compared, and the simulated time: the speech patterns
# differ between the simulators, and over onoff.toml's 120 s the per-seed
# waits at 200 ms spread 166-306 ms (talkspurt) and 149-203 ms (ns-2); over
# 600 s the three-seed means settle (100 ms: 84.2 / 86.5 ms, -2.7 %; 200 ms:
# 171.3 / 174.8 ms, -2.0 %, with RFC 3448 erratum 1458 applied, which ns-2
# does not; +6 % and +4 % before it). 25 ms is not asserted:
# 9.0 / 15.3 ms (-41 %, 1200 s), see docs/models/tfrc.md "Against ns-2".
WAIT_CASES = (100, 200)
WAIT_DURATION_S = 600


def _talkspurt_wait(delay_ms: int, seed: int) -> float:
    with open(ROOT / "tests" / "data" / "tfrc" / "onoff.toml", "rb") as f:
        s = tomllib.load(f)
    s["run"]["seed"] = seed
    s["run"]["duration"] = f"{WAIT_DURATION_S}s"
    s["links"][1]["delay"] = f"{delay_ms}ms"
    return float(talkspurt.run(s).calls["sender_wait_mean_ms"].iloc[0])


@pytest.mark.parametrize("delay_ms", WAIT_CASES)
def test_ccid3_sender_wait_after_silence_matches_ns2(delay_ms):
    _need_ns2()
    ns2 = statistics.mean(run_ns2("dccp_onoff.tcl", delay_ms, WAIT_DURATION_S, seed)["wait_mean_ms"] for seed in SEEDS)
    ours = statistics.mean(_talkspurt_wait(delay_ms, seed) for seed in SEEDS)
    print(f"{delay_ms} ms: talkspurt {ours:.1f} ms, ns-2 {ns2:.1f} ms ({ours / ns2 - 1:+.1%})")
    assert ours == pytest.approx(ns2, rel=0.20), f"{delay_ms} ms seeds {SEEDS}"
