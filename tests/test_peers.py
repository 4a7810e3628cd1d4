"""tests/peers.py: the Padhye model and the ns-2 runner. The ns-2 test needs
`ns` (bench/setup.sh); like every dependency it is skipped locally when
missing and fails in CI (conftest.py)."""

from __future__ import annotations

import math

import pytest

from conftest import IN_CI
from peers import Ns2Error, jain_index, ns2_available, padhye_throughput, run_ns2


def test_padhye_by_hand():
    # mss 1460 B, RTT 0.1 s, p = 0.01, T0 = 0.2 s, b = 1:
    # RTT sqrt(2p/3) = 0.1 * 0.0816497 = 0.00816497
    # T0 min(1, 3 sqrt(3p/8)) p (1 + 32 p^2) = 0.2 * 0.1837117 * 0.01 * 1.0032 = 0.000368599
    want = 1460 / (0.00816497 + 0.000368599)
    assert padhye_throughput(1460, 0.1, 0.01, 0.2) == pytest.approx(want, rel=1e-6)


def test_padhye_limits_and_shape():
    assert padhye_throughput(1000, 0.1, 0.0, 0.2, wmax_pkts=20) == pytest.approx(20 / 0.1 * 1000)
    assert math.isinf(padhye_throughput(1000, 0.1, 0.0, 0.2))
    # the window cap binds at low loss only
    assert padhye_throughput(1000, 0.1, 1e-6, 0.2, wmax_pkts=20) == pytest.approx(200_000)
    assert padhye_throughput(1000, 0.1, 0.05, 0.2, wmax_pkts=20) < 200_000
    xs = [padhye_throughput(1460, 0.1, p, 0.2) for p in (0.001, 0.003, 0.01, 0.03, 0.1, 0.3)]
    assert all(a > b for a, b in zip(xs, xs[1:]))
    # delayed ACKs (b = 2) are slower; a longer T0 is slower
    assert padhye_throughput(1460, 0.1, 0.01, 0.2, b=2) < padhye_throughput(1460, 0.1, 0.01, 0.2)
    assert padhye_throughput(1460, 0.1, 0.01, 1.0) < padhye_throughput(1460, 0.1, 0.01, 0.2)
    # min(1, .) only matters above p = 8/27 (b = 1)
    p = 0.5
    seed_form = 1460 / (0.1 * math.sqrt(2 * p / 3) + 0.2 * 3 * math.sqrt(3 * p / 8) * p * (1 + 32 * p * p))
    assert padhye_throughput(1460, 0.1, p, 0.2) > seed_form
    with pytest.raises(ValueError):
        padhye_throughput(1460, 0.0, 0.01, 0.2)
    with pytest.raises(ValueError):
        padhye_throughput(1460, 0.1, 1.5, 0.2)


def test_jain_index():
    assert jain_index([1, 1]) == 1.0
    assert jain_index([1, 0]) == 0.5
    assert jain_index([3, 1]) == pytest.approx(16 / 20)


def _need_ns2():
    if not ns2_available():
        if IN_CI:
            pytest.fail("ns-2 (`ns`) missing in CI")
        pytest.skip("ns-2 (`ns`) not installed; bench/setup.sh installs it")


def test_run_ns2_tcp_loss_smoke():
    _need_ns2()
    out = run_ns2("tcp_loss.tcl", "Newreno", 0.01, 20, 1, 5)
    assert out["variant"] == "Newreno" and out["seed"] == 1
    assert out["packet_bytes"] == 1500 and out["ack_bytes"] == 40
    assert 0 < out["goodput_bps"] < 10e6
    assert out["random_losses"] > 0
    # same seed, same run
    assert run_ns2("tcp_loss.tcl", "Newreno", 0.01, 20, 1, 5)["goodput_bps"] == out["goodput_bps"]


def test_run_ns2_reports_failures():
    _need_ns2()
    with pytest.raises(Ns2Error, match="unknown TCP variant"):
        run_ns2("tcp_loss.tcl", "Bogus", 0.01)
    with pytest.raises(FileNotFoundError):
        run_ns2("no_such_script.tcl")
