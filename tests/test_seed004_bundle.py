"""Seed 004 (Barberis et al., AVoIP): the model pieces the reproduction
bundle (scenarios/seeds/004/published.toml) rests on, each on a short run
of the bundle's own scenario files with the figure and tolerance stated:

- the CBR sources' bytes and RTCP (reading headers-rtcp): 512 B of payload
  counted by the rate (`bitrate.counts = "payload"`) leave as 552 B packets,
  and with RTCP every 1 s Table 1's 20 x 16 kb/s cell comes within 1.5
  points of the paper; 512 B IP packets without RTCP sit at the fluid
  limit 12 points under it;
- AVoIP's delay signal (reading avoip-delay): the one-way delay the
  receiver relays; Table 3's 10-source rate with it and with the RTT;
- every AVoIP rate change has a cause, counted per call and in the
  adapt_cause series (Fig. 4's "mostly halving");
- a fixed RTCP interval the no-report step always beats is rejected.
The bundle itself runs in tests/test_reproduce_bundles.py."""

from __future__ import annotations

import numpy as np
import pytest

import talkspurt
from conftest import ROOT

SEED004 = ROOT / "scenarios" / "seeds" / "004"
CBR = SEED004 / "homogeneous_cbr.toml"
AVOIP = SEED004 / "homogeneous_avoip.toml"


def _fwd(r):
    return r.calls[r.calls.group == "forward"]


def test_cbr_payload_counting_and_rtcp_close_table1_gap():
    # Table 1, CBR 16 kb/s, 20 sources each way: paper 31.7 % loss. 60 s.
    # Chosen reading (552 B packets every 256 ms, RTCP every 1 s): measured
    # 32.3 % (the ns-2.35 twin 32.7 % at 300 s); within
    # 1.5 points. Plain reading (512 B IP packets, no RTCP): the fluid
    # limit with the 16 384 B buffer filling once, 1 - 256/320 -
    # 16384·8/(320 000·60) = 19.32 % (measured 19.31), within 0.3 points.
    base = {"run.duration": "60s", "calls[0].bitrate.rate": "16kbps", "calls[1].bitrate.rate": "16kbps"}
    r = talkspurt.run(CBR, overrides=base, trace=True)
    f = _fwd(r)
    loss = (f.loss_network * f.generated).sum() / f.generated.sum() * 100
    print("headers-rtcp", loss)
    assert abs(loss - 31.7) <= 1.5, loss
    p = r.packets
    fwd_calls = set(f.call)
    assert (p[p.call.isin(fwd_calls)].wire_bytes == 552).all()
    assert (f.rtcp_sender_bps > 0).all() and (f.rtcp_receiver_bps > 0).all()
    plain = dict(base)
    for g in (0, 1):
        plain[f"calls[{g}].bitrate"] = {"rate": "16kbps", "packet": "512B"}
        plain[f"calls[{g}].rtcp"] = {"interval": "fixed", "min_interval": "1000s"}
    r = talkspurt.run(CBR, overrides=plain, trace=False)
    f = _fwd(r)
    loss = (f.loss_network * f.generated).sum() / f.generated.sum() * 100
    print("plain", loss)
    fluid = (1 - 256 / 320 - 16384 * 8 / (320_000 * 60)) * 100
    assert abs(loss - fluid) <= 0.3, (loss, fluid)


def _avoip(n, delay, seed, duration="300s"):
    ov = {"calls[0].count": n, "calls[1].count": n, "run.seed": seed, "run.duration": duration,
          "calls[0].adapt.delay": delay, "calls[1].adapt.delay": delay}
    return talkspurt.run(AVOIP, overrides=ov, trace=False)


def test_avoip_one_way_delay_settles_table3_rate():
    # Table 3, 10 AVoIP sources each way: 18.81 kb/s. With the paper's
    # signal (one-way delay relayed in the reports) seeds 1-2 give 18.3
    # kb/s (within 15 %, the bundle's tolerance); with the RTCP RTT, which
    # also carries the reverse sources' queue, 14.0 kb/s: asserted at least
    # 2 kb/s lower.
    ow = np.mean([_fwd(_avoip(10, "one-way", s)).bitrate_mean_bps.mean() for s in (1, 2)]) / 1e3
    rtt = np.mean([_fwd(_avoip(10, "rtt", s)).bitrate_mean_bps.mean() for s in (1, 2)]) / 1e3
    print("one-way", ow, "rtt", rtt)
    assert abs(ow - 18.81) <= 0.15 * 18.81, ow
    assert rtt < ow - 2.0, (ow, rtt)


def test_avoip_rate_changes_carry_their_cause():
    # Fig. 4 (20 sources): "the algorithm is mostly operated through loss
    # indications resulting in rate halving while single-step reductions
    # due to delay indications rarely take place": halvings outnumber delay
    # decrements (measured 199 : 43 over 20 calls, 2 seeds). Every change has
    # one cause: the four per-call counts add up to adapt_changes, and the
    # adapt_cause series (codes 2-5) has one row per change.
    r = talkspurt.run(AVOIP, overrides={"calls[0].count": 20, "calls[1].count": 20, "run.duration": "200s"}, trace=False)
    c = r.calls
    f = _fwd(r)
    assert f.adapt_halvings.sum() > f.adapt_decrements.sum(), f[["adapt_halvings", "adapt_decrements"]].sum().to_dict()
    parts = c.adapt_halvings + c.adapt_decrements + c.adapt_increments + c.adapt_no_report
    assert (parts == c.adapt_changes).all()
    s = r.series[r.series.name == "adapt_cause"]
    assert len(s) == c.adapt_changes.sum() + len(c)  # plus each call's starting state (code 0)
    assert set(s.value.unique()) <= {0.0, 2.0, 3.0, 4.0, 5.0}


def test_rtcp_interval_the_no_report_step_always_beats_is_rejected():
    # §2.2: one step down when no report came for 5 s. Reports exactly 5 s
    # apart never arrive in time (issue 22: every source pinned at 8 kb/s).
    with pytest.raises(talkspurt.ScenarioError) as e:
        talkspurt.validate(AVOIP, {"calls[0].rtcp": {"interval": "fixed", "min_interval": "5s"}})
    assert "calls[0].adapt.no_report" in str(e.value)
    # RFC 3550's randomised 5 s minimum can draw 2.05-6.16 s: accepted.
    talkspurt.validate(AVOIP, {"calls[0].rtcp": {"interval": "rfc3550", "min_interval": "5s"}})
    talkspurt.validate(AVOIP, {"calls[0].rtcp": {"interval": "fixed", "min_interval": "4s"}})
