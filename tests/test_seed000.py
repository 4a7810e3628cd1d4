"""Seed 000 (Balan, VoIP over DCCP), Figs 5.1–5.4: the thesis's findings
about its seven transports, checked on scenarios/seeds/000's study files.

The thesis publishes figures, not tables, so the checks are its stated
findings (section and line of the text cited per check), each with the
margin in R the test allows. Runs are shorter than the study files' (60 s
and 120 s instead of 600 s, reading "run-length") to keep CI quick; the medians
are over every call (12 per run) of every replication. The whole set of
the thesis's claims is the bundle's published.toml (`talkspurt reproduce
000`); the last test here checks that file against its sweeps."""

from __future__ import annotations

import pytest

import talkspurt
from talkspurt.sweeps import load_sweep
from conftest import ROOT

STUDY = ROOT / "scenarios" / "seeds" / "000"


# The bundle's verdicts at --quick scale (30 s runs, 1 replication) that
# are not within a replication's spread of their margin: |a - b| clears the
# margin by 5 R or more (2 R inside it for "approx"; equal for identical
# curves; 3 R per step for orders). tests/test_reproduce_bundles.py takes
# them as QUICK["000"]. Established by `talkspurt reproduce 000 --quick`
# (53 trends reproduced, 6 not; full scale 55 and 4). Two entries left the
# list when the first-TFRC-rate fix (issue 23) merged: Fig. 5.5 TFRC at 1 %
# vs 0.316 % (25.3 < 32.7 now holds) and FR MD vs UDP at 0.1 % (75.3 vs
# 81.2, 0.9 R outside its 5 R margin) moved by less than their spread.
# With FR MD's floor from the handshake's R (issue 23): 54 reproduced and 5
# not at quick scale, 57 and 2 at full scale. Fig. 5.3's FR MD vs TCP at
# 100 ms holds at full scale (74.6 vs 78.8) but not in 30 s runs (66.5 vs
# 78.8, 7.5 R outside the margin): its sender drops all fall in each call's
# first talkspurt, which weighs four times as much in a 30 s call.
# One more left when media began to start at the connection (issue 23,
# `media_start = "connection"`): Fig. 5.9 TFRC vs UDP with 1 TCP flow
# (jain_delivery) is 'not reproduced' at quick scale since.
# At the session-10 merge (FR MD floor from the handshake's R with media
# started at the connection): Fig. 5.4's G.711 ordering FR MD > FR > SP at
# 100 ms is 'not reproduced' in 30 s runs and left the list.
# With the media-start reading made explicit in the bundle (h-000b; same
# runs, 55 / 4 full, 50 / 9 quick): Fig. 5.3's FR MD vs TCP at 100 ms
# left the list (quick 'not reproduced', full 77.5 vs 78.5 'reproduced':
# the scales disagree), and Fig. 5.2's TCP (RFC 3390) vs UDP at 200 ms
# joined as 'not reproduced' at both scales: the two curves are identical
# there (84.2 and 84.2), since RFC 3390's 4380 B per 400 ms RTT exceeds
# G.711's 8700 B/s and no frame waits for the window.
# With TCP's limited transmit on by default (RFC 3042, 2026-11-28; the
# thesis's FreeBSD has it on, reading "tcp-stack"): 30 of the 348 quick
# rows move (TCP points with loss, Fig. 5.9 beside greedy TCP), no quick
# verdict moves (50 / 9, as with it off), full scale 55 / 4 unchanged.
QUICK_VERDICTS: dict[tuple[str, str, str], str] = {
    ('Fig. 5.1', 'TFRC', 'G.729, 25 ms vs 100 ms'): 'trend reproduced',
    ('Fig. 5.1', 'TFRC SP', 'G.729, 25 ms vs 100 ms'): 'trend reproduced',
    ('Fig. 5.1', 'TFRC SP FR', 'G.729, 25 ms vs 100 ms'): 'trend reproduced',
    ('Fig. 5.1', 'TFRC SP FR vs TFRC SP', 'G.729, 100 ms'): 'trend reproduced',
    ('Fig. 5.1', 'TFRC SP vs TFRC', 'G.729, 100 ms'): 'trend reproduced',
    ('Fig. 5.2', 'TFRC', 'G.711, 25 ms vs 100 ms'): 'trend reproduced',
    ('Fig. 5.2', 'TFRC SP', 'G.711, 25 ms vs 100 ms'): 'trend reproduced',
    ('Fig. 5.2', 'TFRC SP FR', 'G.711, 25 ms vs 100 ms'): 'trend reproduced',
    ('Fig. 5.2', 'TFRC SP FR vs TFRC SP', 'G.711, 100 ms'): 'trend reproduced',
    ('Fig. 5.2', 'TFRC SP vs TFRC', 'G.711, 100 ms'): 'trend reproduced',
    ('Fig. 5.1', 'TFRC SP FR MD vs TFRC SP', 'G.729, 100 ms'): 'trend reproduced',
    ('Fig. 5.1', 'TFRC SP FR MD vs TCP (RFC 3390 IW)', 'G.729, 100 ms'): 'trend reproduced',
    ('Fig. 5.2', 'TFRC SP FR MD vs TCP (RFC 3390 IW)', 'G.711, 100 ms'): 'trend reproduced',
    ('Fig. 5.1', 'TFRC SP FR MD vs TFRC SP', 'G.729, 200 ms'): 'trend reproduced',
    ('Fig. 5.1', 'TFRC SP FR MD vs TCP (RFC 3390 IW)', 'G.729, 200 ms'): 'trend reproduced',
    ('Fig. 5.2', 'TFRC SP FR MD vs TCP (RFC 3390 IW)', 'G.711, 200 ms'): 'trend reproduced',
    ('Fig. 5.2', 'TCP (RFC 3390 IW) vs UDP', 'G.711, 300 ms'): 'trend reproduced',
    ('Fig. 5.2', 'TCP (RFC 3390 IW) vs UDP', 'G.711, 400 ms'): 'trend reproduced',
    ('Fig. 5.3', 'TFRC', 'G.729, 25 ms vs 200 ms'): 'trend reproduced',
    ('Fig. 5.5', 'TCP (RFC 3390 IW)', 'G.729, loss 1 % vs loss 0.01 %'): 'trend reproduced',
    ('Fig. 5.5', 'TFRC SP FR MD vs UDP', 'G.729, loss 1 %'): 'trend reproduced',
    ('Fig. 5.6', 'TCP (RFC 3390 IW)', 'G.711, loss 1 % vs loss 0.01 %'): 'trend reproduced',
    ('Fig. 5.6', 'TFRC SP FR MD vs UDP', 'G.711, loss 1 %'): 'trend reproduced',
    ('Fig. 5.9', 'UDP', '1 TCP vs 0 TCP'): 'trend reproduced',
    ('Fig. 5.9', 'UDP', '2 TCP vs 0 TCP'): 'trend reproduced',
    ('Fig. 5.9', 'TFRC', '1 TCP vs 0 TCP'): 'trend reproduced',
    ('Fig. 5.9', 'TFRC', '2 TCP vs 0 TCP'): 'trend reproduced',
    ('Fig. 5.9', 'TFRC SP', '1 TCP vs 0 TCP'): 'trend reproduced',
    ('Fig. 5.9', 'TFRC SP', '2 TCP vs 0 TCP'): 'trend reproduced',
    ('Fig. 5.9', 'TFRC SP FR', '1 TCP vs 0 TCP'): 'trend reproduced',
    ('Fig. 5.9', 'TFRC SP FR', '2 TCP vs 0 TCP'): 'trend reproduced',
    ('Fig. 5.9', 'TFRC SP FR MD', '1 TCP vs 0 TCP'): 'trend reproduced',
    ('Fig. 5.9', 'TFRC SP FR MD', '2 TCP vs 0 TCP'): 'trend reproduced',
    ('Fig. 5.3', 'TFRC SP FR MD vs TCP (RFC 3390 IW)', 'G.729, 200 ms'): 'not reproduced',
    ('Fig. 5.2', 'TCP (RFC 3390 IW) vs UDP', 'G.711, 200 ms'): 'not reproduced',
    ('Fig. 5.9', 'TFRC vs UDP', '0 TCP (jain_delivery)'): 'trend reproduced',
    ('Fig. 5.9', 'TFRC SP vs UDP', '0 TCP (jain_delivery)'): 'trend reproduced',
    ('Fig. 5.9', 'TFRC SP vs UDP', '1 TCP (jain_delivery)'): 'trend reproduced',
    ('Fig. 5.9', 'TFRC SP FR vs UDP', '0 TCP (jain_delivery)'): 'trend reproduced',
    ('Fig. 5.9', 'TFRC SP FR vs UDP', '1 TCP (jain_delivery)'): 'trend reproduced',
    ('Fig. 5.9', 'TFRC SP FR MD vs UDP', '0 TCP (jain_delivery)'): 'trend reproduced',
    ('Fig. 5.9', 'TFRC SP FR MD vs UDP', '1 TCP (jain_delivery)'): 'trend reproduced',
}


def medians(tmp_path, name: str, delays: list[str], duration: str, reps: int):
    sw = load_sweep(STUDY / name)
    sw.grid = {**sw.grid, "links[3].delay": delays}
    sw.replications = reps
    res = talkspurt.sweep(sw, tmp_path / name, overrides={"run.duration": duration}, workers=2, trace=False)
    c = res.calls
    return c.groupby(["calls[0].codec", "label", "links[3].delay"], observed=True).bound_r.median(), c


@pytest.fixture(scope="module")
def no_loss(tmp_path_factory):
    return medians(tmp_path_factory.mktemp("s000"), "transports_delay.toml", ["25ms", "100ms", "300ms"], "60s", 1)


@pytest.fixture(scope="module")
def small_loss(tmp_path_factory):
    # 8 repetitions (24 calls per point): with 2 (6 calls) the G.711 median
    # gap between TFRC SP FR and TFRC SP moved from 9.2 to 2.6 R when RFC
    # 3448 erratum 1458 changed only the flows' first seconds (before their
    # first loss), i.e. that sample was too small for a 5 R margin.
    return medians(tmp_path_factory.mktemp("s000"), "transports_delay_loss.toml", ["100ms"], "120s", 8)


@pytest.mark.parametrize("codec", ["G.729", "G.711"])
def test_without_loss_faster_restart_changes_nothing(no_loss, codec):
    # §5.1 (Figs 5.1 c, 5.2 c): with no loss TFRC stays in slow start, where
    # Faster Restart may only double, so TFRC SP FR "is identical" to TFRC SP.
    _, c = no_loss
    sp = c[(c.label == "TFRC SP") & (c["calls[0].codec"] == codec)].sort_values(["links[3].delay", "call"])
    fr = c[(c.label == "TFRC SP FR") & (c["calls[0].codec"] == codec)].sort_values(["links[3].delay", "call"])
    assert list(sp.bound_r) == list(fr.bound_r)


@pytest.mark.parametrize("codec", ["G.729", "G.711"])
def test_tfrc_quality_falls_sharply_with_delay(no_loss, codec):
    # §5.1: "a sharp decrease of the quality score once the delay increases",
    # due to the RTTs needed to reach the codec's rate after each silence;
    # UDP loses only what delay itself costs. Margins: TFRC drops ≥ 30 R
    # from 25 to 100 ms (measured 65–107), UDP ≤ 5 (measured 1.8–2.3).
    m, _ = no_loss
    for label in ("TFRC", "TFRC SP"):
        drop = m[codec, label, "25ms"] - m[codec, label, "100ms"]
        assert drop >= 30, (label, drop)
    assert m[codec, "UDP", "25ms"] - m[codec, "UDP", "100ms"] <= 5


def test_dccp_scales_better_than_tcp_to_the_higher_rate_codec(no_loss):
    # §5.2 (l. 843): "DCCP scales better than TCP to codecs using higher
    # bandwidths ... a consequence of the fact that TFRC SP's send rate
    # during slowstart, computed in number of packets over a time interval,
    # is independent of the packet payload". Read as: TFRC SP's R gap to TCP
    # (RFC 3390 IW) is smaller for G.711 than for G.729 at the same delay,
    # by at least 10 R (the bundle's trends compare one codec at a time, so
    # this claim lives here). Measured at 100 ms (60 s, seed 1): G.729
    # -108.2, G.711 -64.5 (43.7 apart); at full scale (120 s x 2) -110.4
    # and -66.6; TFRC SP FR MD -6.3 and -4.7.
    m, _ = no_loss
    gap = {c: m[c, "TFRC SP", "100ms"] - m[c, "TCP (RFC 3390 IW)", "100ms"] for c in ("G.729", "G.711")}
    assert gap["G.711"] >= gap["G.729"] + 10, gap


@pytest.mark.parametrize("codec", ["G.729", "G.711"])
def test_fr_md_gains_but_stays_below_tcp(no_loss, codec):
    # §5.1 (Fig. 5.1 d): eight packets per RTT "allows a more free traffic
    # dynamic, resulting in a less pronounced quality loss"; TCP's larger
    # initial window keeps it ahead ("still inferior to the one of TCP").
    m, _ = no_loss
    assert m[codec, "TFRC SP FR MD", "100ms"] >= m[codec, "TFRC SP", "100ms"] + 30
    assert m[codec, "TFRC SP FR MD", "100ms"] < m[codec, "TCP (RFC 3390 IW)", "100ms"]


def test_g711_tcp_falls_below_udp_at_long_delay(no_loss):
    # §5.1 (Fig. 5.2): at G.711's rate "the initial congestion window is below
    # the codec's nominal rate", so TCP's quality falls below UDP's, and
    # RFC 2581's smaller window falls further than RFC 3390's. Each frame is
    # a 174 B segment (TCP_NODELAY), 8700 B/s: RFC 3390's 4380 B per RTT
    # covers it up to RTT 503 ms, RFC 2581's 2920 B up to 336 ms, so the
    # check is at 300 ms one-way (RTT ~600 ms), where both windows are below
    # the rate. Bundle means (SACK, 120 s × 2): 51.0 < 61.4 < 70.8.
    m, _ = no_loss
    tcp3390, tcp2581, udp = (m["G.711", k, "300ms"] for k in ("TCP (RFC 3390 IW)", "TCP (RFC 2581 IW)", "UDP"))
    assert tcp2581 < tcp3390 < udp


# G.729's "FR MD similar to TCP" stopped holding when this session's
# branches merged (FR MD's sender drops at 100 ms 0.29 % -> 0.66 %); it holds
# again since a call's media starts when its connection opens (issue 23,
# `media_start = "connection"`): the extra drops were the frames generated
# during the handshake, queued behind it in the 5-packet buffer.
@pytest.mark.parametrize("codec", ["G.729", "G.711"])
def test_with_loss_faster_restart_helps_and_fr_md_nears_tcp(small_loss, codec):
    # §5.1 "Varying Delay and Small Loss" (Figs 5.3 c–d, 5.4 c–d): once a loss
    # moves TFRC to congestion avoidance, Faster Restart's quadrupling gives
    # "superior performance" over TFRC SP (margin ≥ 5 R; measured 11.5 for
    # G.729 and 9.8 for G.711, 2026-11-29), and TFRC SP FR MD "achieves a
    # performance similar to the one of TCP" (within 5 R; measured 1.4 below
    # for G.729, 77.3 vs 78.7, and 0.9 for G.711, 88.1 vs 89.0, at 100 ms;
    # the same with limited transmit on or off). G.729's FR MD loses all
    # its sender drops in each call's first talkspurt (handshake, then the
    # floor of 8 packets per RTT = 40/s against the codec's 50): it missed
    # (72.4, drops 0.60 %) while that floor waited for the first feedback,
    # fixed in cc/tfrc (fr_md_floor_from_the_handshake_rtt, issue 23).
    # In the bundle's 600 s calls (reading "run-length", seeds 1-2) both
    # hold by more: TFRC SP FR above TFRC SP by 26.8 (G.729) and 19.4
    # (G.711), FR MD 78.6 vs TCP 78.2 and 89.2 vs 88.5.
    m, _ = small_loss
    assert m[codec, "TFRC SP FR", "100ms"] >= m[codec, "TFRC SP", "100ms"] + 5
    assert abs(m[codec, "TFRC SP FR MD", "100ms"] - m[codec, "TCP (RFC 3390 IW)", "100ms"]) <= 5


def test_bundle_names_only_points_its_sweeps_run():
    # Every `where` of scenarios/seeds/000/published.toml selects a point
    # its experiment's sweep defines: the label is one of the sweep's list
    # labels, and each swept key path's value is one the sweep runs. A
    # typo would otherwise only show as an empty selection at reproduce time.
    import tomllib

    pub = tomllib.loads((STUDY / "published.toml").read_text())
    sweeps = {}
    for name, exp in pub["experiments"].items():
        sw = load_sweep(STUDY / exp["sweep"])
        values = {"label": {pt["label"] for pt in sw.list}}
        for table in (sw.grid, sw.zip):
            for k, v in table.items():
                values[k] = set(v)
        sweeps[name] = values
    wheres = [(v["experiment"], v["where"]) for v in pub["value"]]
    for t in pub["trend"]:
        for side in ("a", "b"):
            if side in t:
                wheres.append((t.get(f"{side}_experiment", t["experiment"]), t[side]))
        wheres += [(t["experiment"], w) for w in t.get("seq", [])]
    assert len(wheres) > 300
    for exp, where in wheres:
        for k, v in where.items():
            assert k in sweeps[exp], (exp, k)
            assert v in sweeps[exp][k], (exp, k, v)


def test_jain_delivery_by_hand():
    # Jain's index (Σx)²/(n·Σx²) on delivery ratios, the bundle's reading of
    # §5.2's "relatively fair": equal ratios give 1; ratios 1 and 0.5 give
    # 1.5²/(2·1.25) = 0.9; one call of four getting everything gives 1/4.
    # Calls that generated nothing are left out.
    import pandas as pd

    from talkspurt.reproductions.metrics_000 import jain, jain_delivery

    assert jain([0.8, 0.8, 0.8]) == pytest.approx(1.0)
    assert jain([1.0, 0.5]) == pytest.approx(0.9)
    assert jain([1.0, 0.0, 0.0, 0.0]) == pytest.approx(0.25)

    class Tables:
        def get(self, name):
            return pd.DataFrame({"call": [0, 1, 2], "label": ["x", "x", "y"],
                                 "generated": [100, 200, 0], "arrived": [100, 100, 0]})

    assert jain_delivery(Tables(), {"label": "x"}, {}) == pytest.approx(0.9)
