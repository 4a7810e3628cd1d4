"""talkspurt's TFRC and DCCP CCID 3 side by side with ns-2 on the same
scenarios (issue: DCCP and the TFRC family, validation). ns-2 runs live from
bench/ns2/; the talkspurt twins are in tests/data/tfrc/.

1. Bulk TFRC under Bernoulli loss against Agent/TFRC (tfrc_loss.tcl,
   loss.toml: 32-byte TFRC header, 40-byte feedback, loss after the wire,
   t_RTO from ns-2's fixed-point TCP estimator on its 100 ms clock,
   `rto = "ns2"`). Tolerance (the issue's): long-run mean rate over seeds
   1-3 within 10 % of ns-2's. Measured when written (talkspurt / ns-2 - 1):
   plain 1000-byte packets p = 0.003 -0.7 %, 0.01 -1.4 %, 0.03 -0.8 %,
   0.1 +4.4 % (+4.0 % when first written); voip_ mode (200-byte packets,
   the equation with fsize_ 1460 and H = 32 B, 100 packets/s cap, standard
   loss intervals: short_intervals = false) p = 0.1 -0.1 %, 0.2 +0.1 %.
   With `rto = "rfc6298"` and G = 100 ms instead (the twin until this
   was found) p = 0.1 was +24 %: ns-2's estimator keeps RTTVAR in quarter
   ticks, so a steady 105 ms RTT gives t_RTO = 3 ticks = 300 ms where the
   real-valued form tends to SRTT + G = 205 ms; the lower rate then raises
   the loss event rate too (fewer packets per RTT after each loss).
   With TFRC-SP's short-interval rule (RFC 4828 §4.4, which ns-2's voip_
   mode does not have) voip p = 0.2 would be -16 %.
2. An on/off voice call over CCID 3 (RFC 3448) with a 5-packet send buffer
   against Agent/DCCP/TFRC (dccp_onoff.tcl, onoff.toml). Tolerance (the
   issue's): mean and 95th-percentile sender wait over seeds 1-3 within
   20 %, at 100 and 200 ms one-way over 600 s (WAIT_CASES). At 25 ms
   talkspurt waits 32 % less: ns-2's CCID 3 keeps its send timer running
   on a grid of t_ipi slots while idle, so the first packet after a
   silence waits for the next slot, where talkspurt (RFC 3448 §4.6 read
   literally) sends it at once; a test measures that this slot accounts
   for the gap once talkspurt uses ns-2's nofeedback rule (RFC 3448
   without erratum 1458), and that the erratum moves the mean wait, not
   the first packet's.
3. The same on/off call over plain TFRC against Agent/TFRC (tfrc_onoff.tcl,
   onoff_tfrc.toml). Agent/TFRC's idle rules (idleFix_) are neither
   RFC 3448 nor RFC 5348; its waits and rates are asserted to lie between
   talkspurt's two rule sets (figures at the tests below).
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


def _mean_over_seeds(runs: list[dict]) -> dict:
    return {k: statistics.mean(r[k] for r in runs) for k in runs[0]}


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
# 600 s the three-seed means settle. Compared per packet on both sides
# (ns-2: acceptance against the packet's "+" on the first link), mean and
# 95th percentile, tolerance 20 % (the issue's). Measured when written
# (seeds 1-3, 600 s, talkspurt / ns-2): 100 ms mean 82.3 / 85.5 ms (-3.7 %),
# p95 385.8 / 408.3 ms (-5.5 %); 200 ms mean 167.5 / 164.7 ms (+1.7 %),
# p95 667.0 / 676.4 ms (-1.4 %). Re-measured in session 11, after erratum
# 1458 and media_start = "connection": 100 ms 84.4 / 85.5 (-1.3 %), p95
# 401.0 / 408.3 (-1.8 %); 200 ms 172.5 / 164.7 (+4.7 %), p95 711.8 / 676.4
# (+5.2 %). 25 ms is a known gap with its own test below: 10.19 / 14.90 ms
# (-32 %), p95 60.1 / 77.4 ms (-22 %) (9.1 / 14.9 when first written).
WAIT_CASES = (100, 200)
WAIT_DURATION_S = 600


def _talkspurt_ccid3(delay_ms: int, seed: int, erratum_1458: bool = True) -> dict:
    with open(ROOT / "tests" / "data" / "tfrc" / "onoff.toml", "rb") as f:
        s = tomllib.load(f)
    s["run"]["seed"] = seed
    s["run"]["duration"] = f"{WAIT_DURATION_S}s"
    s["links"][1]["delay"] = f"{delay_ms}ms"
    s["calls"][0]["transport"]["erratum_1458"] = erratum_1458
    r = talkspurt.run(s)
    c = r.calls.iloc[0]
    p = r.packets[r.packets["t_sent"].notna()]
    first = p.sort_values("seq").groupby("talkspurt").head(1)
    return {
        "wait_mean_ms": float(c["sender_wait_mean_ms"]),
        "wait_p95_ms": float(c["sender_wait_p95_ms"]),
        "first_wait_mean_ms": 1000.0 * float((first["t_sent"] - first["t_generated"]).mean()),
    }


def _ns2_ccid3(delay_ms: int, seed: int) -> dict:
    n = run_ns2("dccp_onoff.tcl", delay_ms, WAIT_DURATION_S, seed)
    return {"wait_mean_ms": n["wait_pp_mean_ms"], "wait_p95_ms": n["wait_p95_ms"],
            "first_wait_mean_ms": n["first_wait_mean_ms"]}


@pytest.mark.parametrize("delay_ms", WAIT_CASES)
def test_ccid3_sender_wait_after_silence_matches_ns2(delay_ms):
    _need_ns2()
    ns2 = _mean_over_seeds([_ns2_ccid3(delay_ms, seed) for seed in SEEDS])
    ours = _mean_over_seeds([_talkspurt_ccid3(delay_ms, seed) for seed in SEEDS])
    for k in ("wait_mean_ms", "wait_p95_ms"):
        print(f"{delay_ms} ms {k}: talkspurt {ours[k]:.1f}, ns-2 {ns2[k]:.1f} ({ours[k] / ns2[k] - 1:+.1%})")
        assert ours[k] == pytest.approx(ns2[k], rel=0.20), f"{delay_ms} ms {k} seeds {SEEDS}"


def test_ccid3_25ms_gap_is_ns2s_send_slot_after_silence():
    """The known 25 ms gap, measured with its mechanism (docs/models/tfrc.md
    "Against ns-2"). Two rules differ between the simulators here:

    1. ns-2's CCID 3 sender keeps its send timer armed on a grid of t_ipi
       slots while idle (dccp/dccp_tfrc.cc timeout() and
       tfrc_send_packet_sent()) and sends only when no timer is pending
       (tfrc_send_packet()), so the first packet of a talkspurt waits for
       the next slot; talkspurt (RFC 3448 §4.6) sends it at once.
    2. The nofeedback timer while p = 0. talkspurt applies RFC 3448's
       verified erratum 1458 (X halves at an expiry); ns-2.35
       (tfrc_time_no_feedback) follows RFC 3448 as published: X_recv
       halves and X is recomputed by §4.3's slow-start rule, which can
       even raise it. The first expiry of each silence (data was sent
       since the timer was armed, so the idle exception does not apply)
       therefore starts talkspurt's next talkspurt at half the rate.

    With ns-2's own nofeedback rule (erratum_1458 = false) only the slot
    is left: over seeds 1-3 x 600 s ns-2's first packets wait over 3 ms
    (measured 6.84 ms), talkspurt's under 1.5 ms (0.21 ms), and the gap in
    the mean wait over all packets (14.90 - 7.22 = 7.68 ms) equals that
    first-packet gap (6.63 ms) within 25 % (+16 %): the slot delays the
    first packet and what queues behind it. The erratum (talkspurt's
    default) moves the mean, not the first packet: 7.22 -> 10.19 ms
    (+2.98 ms) against 0.21 -> 0.35 ms (+0.14 ms), asserted as a rise in
    the mean with the first packet's change under a tenth of it. Before
    the erratum was applied (5877b34) talkspurt's nofeedback rule capped
    X at itself (neither rule: 9.1 ms), which is where this test's first
    figures (gap 5.8 vs 6.2 ms) came from."""
    _need_ns2()
    ns2 = _mean_over_seeds([_ns2_ccid3(25, seed) for seed in SEEDS])
    ours = _mean_over_seeds([_talkspurt_ccid3(25, seed) for seed in SEEDS])
    pub = _mean_over_seeds([_talkspurt_ccid3(25, seed, erratum_1458=False) for seed in SEEDS])
    gap = ns2["wait_mean_ms"] - pub["wait_mean_ms"]
    first_gap = ns2["first_wait_mean_ms"] - pub["first_wait_mean_ms"]
    d_mean = ours["wait_mean_ms"] - pub["wait_mean_ms"]
    d_first = ours["first_wait_mean_ms"] - pub["first_wait_mean_ms"]
    print(f"25 ms: mean wait ns-2 {ns2['wait_mean_ms']:.2f}, talkspurt with ns-2's nofeedback rule "
          f"{pub['wait_mean_ms']:.2f} (gap {gap:.2f}), with erratum 1458 {ours['wait_mean_ms']:.2f} ms; "
          f"first packet of a talkspurt {ns2['first_wait_mean_ms']:.2f} / {pub['first_wait_mean_ms']:.2f} / "
          f"{ours['first_wait_mean_ms']:.2f} ms (gap {first_gap:.2f}); p95 {ns2['wait_p95_ms']:.1f} / "
          f"{pub['wait_p95_ms']:.1f} / {ours['wait_p95_ms']:.1f} ms")
    assert ns2["first_wait_mean_ms"] > 3.0, f"seeds {SEEDS}"
    assert pub["first_wait_mean_ms"] < 1.5 and ours["first_wait_mean_ms"] < 1.5, f"seeds {SEEDS}"
    assert gap == pytest.approx(first_gap, rel=0.25), f"seeds {SEEDS}"
    assert d_mean > 0 and abs(d_first) < 0.1 * d_mean, f"seeds {SEEDS}"


# Agent/TFRC's own on/off case (tfrc_onoff.tcl, twin onoff_tfrc.toml): the
# same voice source and 5-packet buffer as the CCID 3 case, over plain TFRC
# (ns-2 Agent/TFRC with SndrType_ 1). ns-2's idle rules (idleFix_,
# tcp/tfrc.cc; docs/models/tfrc.md "Agent/TFRC on/off") are neither RFC's:
# after a silence its rate floor is RFC 5348's W_init/R (4 packets per RTT
# here), but its slow start doubles only up to twice the last report's
# X_recv, as RFC 3448, and drops to X_recv when above that. Its waits fall
# between talkspurt's two rule sets, and that is what is asserted: at 100
# and 200 ms one-way, over seeds 1-3 x 600 s, ns-2's mean and 95th-
# percentile sender wait lie strictly between the rfc5348 and rfc3448
# twins', and its time-mean allowed rate and sent packet rate between
# theirs the other way round. Measured when written (rfc5348 / ns-2 /
# rfc3448, seeds 1-3 means):
#   100 ms: wait mean 33.8 / 61.4 / 101.3 ms, p95 214.1 / 223.8 / 466.4 ms,
#           allowed rate 13065 / 7325 / 6304 B/s, sent 17.62 / 16.44 /
#           13.26 packets/s;
#   200 ms: wait mean 54.9 / 141.2 / 178.9 ms, p95 314.6 / 446.3 / 725.9 ms,
#           allowed rate 10781 / 4677 / 4313 B/s, sent 15.51 / 11.53 /
#           10.15 packets/s.
# Neither twin is within the 20 % of ns-2 at both delays: the gap
# is ns-2's own mix of rules, not a bug on either side.
# At 25 ms the 4-packet floor (about 74 packets/s) is above the source's
# 50: ns-2 and rfc5348 wait 0.011 and 0.073 ms, rfc3448 (floor s/R)
# 16.1 ms (seeds 1-3).
# voip_ does not apply to this case: its 100 packets/s cap never binds
# (the sender has a backlog only while its rate is far below that) and its
# equation changes need p > 0; ns-2 gives identical output with and
# without it, talkspurt's TFRC-SP twin is within 0.01 % of plain.
ONOFF_DURATION_S = 600


def _talkspurt_onoff(rules: str, delay_ms: int, seed: int, voip: bool = False) -> dict:
    with open(ROOT / "tests" / "data" / "tfrc" / "onoff_tfrc.toml", "rb") as f:
        s = tomllib.load(f)
    s["run"]["seed"] = seed
    s["run"]["duration"] = f"{ONOFF_DURATION_S}s"
    s["links"][1]["delay"] = f"{delay_ms}ms"
    t = s["calls"][0]["transport"]
    t["tfrc"] = rules
    if voip:
        t.update(small_packets=True, sp_header="32B", short_intervals=False)
    c = talkspurt.run(s).calls.iloc[0]
    return {
        "wait_mean_ms": float(c["sender_wait_mean_ms"]),
        "wait_p95_ms": float(c["sender_wait_p95_ms"]),
        "rate_Bps": float(c["allowed_rate_mean_bps"]) / 8,
        "sent_pps": float(c["generated"] - c["sender_drop"]) / ONOFF_DURATION_S,
    }


def _ns2_onoff(mode: str, delay_ms: int, seed: int) -> dict:
    n = run_ns2("tfrc_onoff.tcl", mode, delay_ms, ONOFF_DURATION_S, seed)
    return {"wait_mean_ms": n["wait_mean_ms"], "wait_p95_ms": n["wait_p95_ms"],
            "rate_Bps": n["rate_mean_Bps"], "sent_pps": n["sent_pps"]}


@pytest.mark.parametrize("delay_ms", [100, 200])
def test_agent_tfrc_onoff_lies_between_rfc5348_and_rfc3448(delay_ms):
    _need_ns2()
    ns2 = _mean_over_seeds([_ns2_onoff("plain", delay_ms, seed) for seed in SEEDS])
    new = _mean_over_seeds([_talkspurt_onoff("rfc5348", delay_ms, seed) for seed in SEEDS])
    old = _mean_over_seeds([_talkspurt_onoff("rfc3448", delay_ms, seed) for seed in SEEDS])
    for k in ns2:
        print(f"{delay_ms} ms {k}: rfc5348 {new[k]:.2f}, ns-2 {ns2[k]:.2f}, rfc3448 {old[k]:.2f}")
    for k in ("wait_mean_ms", "wait_p95_ms"):
        assert new[k] < ns2[k] < old[k], f"{delay_ms} ms {k} seeds {SEEDS}"
    for k in ("rate_Bps", "sent_pps"):
        assert old[k] < ns2[k] < new[k], f"{delay_ms} ms {k} seeds {SEEDS}"


def test_agent_tfrc_onoff_floor_is_four_packets_per_rtt():
    _need_ns2()
    ns2 = statistics.mean(_ns2_onoff("plain", 25, seed)["wait_mean_ms"] for seed in SEEDS)
    new = statistics.mean(_talkspurt_onoff("rfc5348", 25, seed)["wait_mean_ms"] for seed in SEEDS)
    old = statistics.mean(_talkspurt_onoff("rfc3448", 25, seed)["wait_mean_ms"] for seed in SEEDS)
    print(f"25 ms mean wait: rfc5348 {new:.3f}, ns-2 {ns2:.3f}, rfc3448 {old:.3f} ms")
    assert ns2 < 1.0 and new < 1.0, f"seeds {SEEDS}"
    assert old > 10.0, f"seeds {SEEDS}"


def test_voip_mode_does_not_act_on_the_onoff_case():
    _need_ns2()
    seed = SEEDS[0]
    plain, voip = _ns2_onoff("plain", 100, seed), _ns2_onoff("voip", 100, seed)
    ours, ours_sp = _talkspurt_onoff("rfc5348", 100, seed), _talkspurt_onoff("rfc5348", 100, seed, voip=True)
    print(f"100 ms seed {seed}: ns-2 {plain} / voip_ {voip}; talkspurt {ours} / TFRC-SP {ours_sp}")
    assert voip == plain
    for k in ours:
        assert ours_sp[k] == pytest.approx(ours[k], rel=0.01), k
