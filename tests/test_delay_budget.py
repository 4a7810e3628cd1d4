"""Seed 001 §3's delay budget (Avella & Kakani, after Karam & Tobagi):
D = T_f + l + T_n + T_j with a jitter buffer T_j = 2·T_f, i.e. 3·T_f + l +
T_n per arrived packet, in the `delay_budget_ms` column; with
`[analysis] delay = "avella"` it is the E-model's mouth-to-ear delay.

By hand for seed 001's examples on its 30 ms WAN (one hop of 30 ms at
1 Mb/s here, so T_n = 30 ms + serialization): G.711 at 20 ms packets
(160 B + 40 B headers = 200 B: 1.6 ms on the wire): 60 + 0 + 31.6 =
91.6 ms; G.729 at 30 ms (30 B + 40 B = 70 B: 0.56 ms): 90 + 5 + 30.56 =
125.56 ms (look-ahead from the codec table, 5 ms; the seed's equation
takes ½T_f = 15 ms, its text 7.5 ms)."""

from __future__ import annotations

import pytest

import talkspurt

SC = """
[run]
duration = "10s"
seed = 1
[[links]]
between = ["a", "b"]
rate = "1Mbps"
delay = "30ms"
[[calls]]
from = "a"
to = "b"
codec = "{codec}"
ptime = "{ptime}"
speech = {{ model = "continuous" }}
playout = {{ kind = "fixed", delay = "150ms" }}
{analysis}
"""


@pytest.mark.parametrize("codec, ptime, budget", [("G.711", "20ms", 91.6), ("G.729", "30ms", 125.56)])
def test_budget_by_hand(codec, ptime, budget):
    c = talkspurt.run(SC.format(codec=codec, ptime=ptime, analysis="")).calls.iloc[0]
    assert c.delay_budget_ms == pytest.approx(budget, abs=1e-6)
    # the default scores the playout buffer: ptime + look-ahead + 150 ms
    look = {"G.711": 0.0, "G.729": 5.0}[codec]
    assert c.mouth_to_ear_ms == pytest.approx(float(ptime[:-2]) + look + 150.0, abs=1e-6)


def test_avella_delay_scores_the_budget():
    playout = talkspurt.run(SC.format(codec="G.729", ptime="30ms", analysis="")).calls.iloc[0]
    avella = talkspurt.run(SC.format(codec="G.729", ptime="30ms", analysis='[analysis]\ndelay = "avella"')).calls.iloc[0]
    assert avella.mouth_to_ear_ms == pytest.approx(avella.delay_budget_ms)
    assert avella.loss_total == playout.loss_total  # loss is still the buffer's
    # 125.6 ms against 185 ms of mouth-to-ear delay: less delay impairment
    assert avella.r > playout.r
    with pytest.raises(talkspurt.ScenarioError, match="analysis.delay"):
        talkspurt.run(SC.format(codec="G.729", ptime="30ms", analysis='[analysis]\ndelay = "budget"'))
