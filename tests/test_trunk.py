"""IAX2 trunking through `talkspurt.run()` (`calls[i].trunk`, docs/models/trunk.md):
N calls in one connection, one packet per 20 ms tick of
IP 20 + UDP 8 + trunk header 8 + N · (entry 6 + frame) bytes (RFC 5456),
each call scored on its own row, a lost trunk packet lost by every call."""

from __future__ import annotations

import pytest

import talkspurt

N = 4


def trunked(**trunk) -> dict:
    return {
        "run": {"duration": "20s", "seed": 2, "trace": True},
        "links": [{"between": ["pbx", "far"], "rate": "10Mbps", "delay": "40ms"}],
        "calls": [{
            "count": N, "from": "pbx", "to": "far", "codec": "G.711", "ptime": "20ms",
            "speech": {"model": "continuous"},
            "start": {"kind": "uniform", "from": "0s", "to": "20ms"},
            "transport": {"kind": "udp"},
            "playout": {"kind": "fixed", "delay": "150ms"},
            "trunk": trunk,
        }],
    }


def test_trunked_calls_share_packets_and_keep_their_rows():
    res = talkspurt.run(trunked())
    calls, pk = res.calls, res.packets
    assert len(calls) == N and (calls["loss_total"] == 0).all()
    # Each frame leaves at the first 20 ms tick after it is complete: at
    # most 20 ms of extra delay, the same tick for every call's frame.
    pk = pk.assign(tick=((pk["t_generated"] * 1000 // 20) + 1) * 20 / 1000)
    assert ((pk["t_sent"] - pk["tick"]).abs() < 1e-9).all()
    assert (pk["wire_bytes"] == 6 + 160).all()
    # One packet per tick that has frames: nothing else crosses the link.
    fwd = res.links.iloc[0]
    ticks = pk["tick"].nunique()
    assert fwd["delivered"] == ticks
    # Closed form of the bytes: 36 B per packet + 166 B per frame (G.711,
    # 20 ms); the link's busy time over the run's span (20 s and the last
    # packet's 40 ms flight: within 0.5 %).
    bits = 8 * (36 * ticks + 166 * len(pk))
    assert fwd["utilization"] == pytest.approx(bits / 10e6 / 20.0, rel=5e-3)
    # Rows are per call: each scored on its own delays (phases differ).
    assert calls["delay_p95_ms"].nunique() == N


def test_a_lost_trunk_packet_is_lost_by_every_call():
    s = trunked()
    s["links"][0]["loss"] = {"kind": "bernoulli", "p": 0.05}
    res = talkspurt.run(s)
    pk = res.packets
    lost = pk[pk["fate"] == "link_loss"]
    assert len(lost) > 4 * 20
    # Every lost tick (after all calls started) is lost by all N calls.
    per_tick = lost.groupby("t_sent")["call"].nunique()
    assert (per_tick == N).all(), per_tick.value_counts()
    assert res.calls["loss_network"].std() < 0.01


@pytest.mark.parametrize("key, value, path", [
    ("interval", "0ms", "calls[0].trunk.interval"),
    ("interval", "2s", "calls[0].trunk.interval"),
    ("mtu", "100B", "calls[0].trunk.mtu"),
    ("timer", "20ms", "calls[0].trunk.timer"),
])
def test_bad_trunk_keys_name_their_path(key, value, path):
    with pytest.raises(talkspurt.ScenarioError) as e:
        talkspurt.run(trunked(**{key: value}))
    assert str(e.value).startswith(f"{path}: got "), str(e.value)


def test_trunk_rejects_rtcp():
    s = trunked()
    s["calls"][0]["rtcp"] = {}
    with pytest.raises(talkspurt.ScenarioError) as e:
        talkspurt.run(s)
    assert str(e.value).startswith("calls[0].rtcp: got "), str(e.value)


def test_aligned_starts_put_one_frame_of_each_call_in_every_packet():
    # start = "0s" (the default): every call's frame k is complete at
    # exactly k · 20 ms, a trunk tick. The tick at T carries the frames
    # completed in [T − 20 ms, T) (docs/models/trunk.md), so each frame
    # waits exactly 20 ms, whatever order the simulator runs that
    # instant's events in, and each packet carries one frame of each of
    # the 12 calls: IP 20 + UDP 8 + 8 + 12 · (6 + 160) = 2028 B, the
    # trunk frame 2000 B. (Before the tie rule: waits of 0 or 20 ms and
    # 13-entry packets of 2194 B.)
    s = trunked()
    s["calls"][0].update(count=12, start="0s")
    with pytest.warns(talkspurt.OversizePacketWarning, match="up to 2028 B"):
        res = talkspurt.run(s)
    pk = res.packets
    assert ((pk["t_sent"] - pk["t_generated"] - 0.020).abs() < 1e-9).all()
    per_packet = pk.groupby("t_sent")["call"]
    assert (per_packet.size() == 12).all() and (per_packet.nunique() == 12).all()
    assert res.links.iloc[0]["delivered"] == per_packet.ngroups
    assert res.manifest["largest_bytes"] == [[2028, 2000]]
