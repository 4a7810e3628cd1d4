"""TCP through the Python API and the CLI: voice over TCP, bulk cross
traffic, the traffic table's TCP columns, series, fairness, and bad TCP
input rejected with its key path (exit status 2)."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest

import talkspurt

SCENARIO = """
[run]
duration = "30s"
seed = 4
series = true

[[links]]
between = ["a", "r"]
rate = "100Mbps"
delay = "1ms"

[[links]]
between = ["r", "b"]
rate = "2Mbps"
delay = "20ms"
queue = { kind = "droptail", limit = "30p" }

[[calls]]
count = 2
from = "a"
to = "b"
codec = "G.711"
speech = { model = "continuous" }
transport = { kind = "tcp", cc = "sack", nodelay = true }
label = "voice"

[[traffic]]
count = 2
from = "a"
to = "b"
kind = "bulk"
transport = { kind = "tcp", cc = "cubic" }
label = "ftp"

[analysis]
interval = ["5s", "30s"]
"""


@pytest.fixture(scope="module")
def res():
    return talkspurt.run(SCENARIO)


def test_voice_over_tcp_is_reliable_but_delayed(res):
    c = res.calls
    assert list(c["transport"]) == ["tcp", "tcp"]
    # Reliable: nothing is lost in the network, frames only wait.
    assert (c["queue_drop"] == 0).all() and (c["link_loss"] == 0).all()
    assert (c["arrived"] + c["in_flight"] + c["sender_drop"] == c["generated"]).all()
    # Competing with two greedy flows in a 30-packet queue, the calls see
    # queueing delay well above the 21 ms path.
    assert (c["delay_p95_ms"] > 40).all()


def test_traffic_table_has_tcp_columns(res):
    t = res.traffic
    for col in ["goodput_bps", "sent_bps", "segments_sent", "retransmits", "fast_retransmits", "timeouts", "rtt_mean_ms", "rto_mean_ms"]:
        assert col in t.columns
    # The two bulk flows and the calls share 2 Mb/s: the flows take most of it.
    total = t["goodput_bps"].sum()
    assert 1.2e6 < total < 2e6
    assert (t["rtt_mean_ms"] > 42).all()
    assert (t["sent_bps"] >= t["goodput_bps"]).all()


def test_series_has_cwnd_per_tcp_sender(res):
    s = res.series
    names = set(s["name"])
    assert {"cwnd", "ssthresh", "rtt_ms", "rto_ms"} <= names
    cwnd = s[s["name"] == "cwnd"]
    assert cwnd["flow"].nunique() == 4  # 2 calls + 2 bulk flows
    assert (cwnd["value"] >= 1460).all()


def test_fairness_per_flow_and_per_group(res):
    j_flows = talkspurt.fairness(res, groups=["ftp"])
    assert 0.5 <= j_flows <= 1.0
    # Two groups summed: the voice aggregate (~2 × 87 kb/s) against the
    # bulk aggregate (≥ 1.2 Mb/s) is far from fair.
    j_groups = talkspurt.fairness(res, per="group")
    assert j_groups < 0.7
    assert talkspurt.jain_index([1, 1, 1]) == 1.0
    assert talkspurt.jain_index([1, 0]) == 0.5
    assert math.isnan(talkspurt.jain_index([]))
    with pytest.raises(ValueError, match="groups"):
        talkspurt.fairness(res, groups=["nope"])
    with pytest.raises(ValueError, match="per"):
        talkspurt.fairness(res, per="call")


def test_same_seed_same_tcp_run(res):
    again = talkspurt.run(SCENARIO)
    assert again.traffic.equals(res.traffic)
    assert again.calls[["arrived", "delay_p95_ms"]].equals(res.calls[["arrived", "delay_p95_ms"]])


@pytest.mark.parametrize(
    ("transport", "path"),
    [
        ('{ kind = "tcp", cc = "bbr" }', "calls[0].transport.cc"),
        ('{ kind = "tcp", mss = "0B" }', "calls[0].transport.mss"),
        ('{ kind = "tcp", rcv_window = "100B" }', "calls[0].transport.rcv_window"),
        ('{ kind = "tcp", cc = "reno", cubic = { beta = 0.5 } }', "calls[0].transport.cubic"),
    ],
)
def test_cli_rejects_bad_tcp_options(tmp_path, transport, path):
    text = SCENARIO.replace('{ kind = "tcp", cc = "sack", nodelay = true }', transport)
    f = tmp_path / "bad.toml"
    f.write_text(text)
    r = subprocess.run([sys.executable, "-m", "talkspurt", "run", str(f)], capture_output=True, text=True)
    assert r.returncode == 2, r.stderr
    assert path in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
