"""Issue 26 target 4: exact scoring folded as a call runs gives the same
bits as scoring its recorded packets, the offline bounds included.

A run of 10 minutes or more with the trace off folds each call as it
runs (run::FOLD_FROM_S): its percentiles from exact counts of distinct
delays, its offline bounds from each talkspurt's distinct delays and
counts (playout::SpurtDelays), with no per-packet array. With the trace
on the same run records every packet and scores the records. Every
column of `calls`, `groups` and `talkspurts` must be equal, bit for bit
(NaN equal to NaN), on calls with loss, with jitter (every delay
distinct), on/off speech and continuous speech (one talkspurt a call).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import talkspurt

SCENARIO = """
[run]
duration = "10min"
seed = {seed}

[analysis]
scoring = "exact"
bounds = true

[[links]]
between = ["a", "b"]
rate = "{rate}"
delay = "{delay}"
{loss}
{jitter}

[[calls]]
count = {count}
from = "a"
to = "b"
codec = "{codec}"
{speech}
playout = {{ kind = "{playout}" }}
"""

ONOFF = 'speech = { model = "exponential", talk = "1s", silence = "1.5s" }'
GE = 'loss = { kind = "gilbert-elliott", p = 0.01, r = 0.3 }'
BERNOULLI = 'loss = { kind = "bernoulli", p = 0.02 }'
# Heavy loss flattens Ie (30·ln(1 + 15e): slope 450 at e = 0, 113 at 0.2)
# and 200 ms + jitter is past Id's knee (177.3 ms, slope 0.134 a ms), so
# discarding a talkspurt's slowest packets pays: the optimum discards.
HEAVY = 'loss = { kind = "bernoulli", p = 0.2 }'
CONT = 'speech = { model = "continuous" }'
NORMAL = 'jitter = { kind = "normal", mean = "20ms", sd = "15ms" }'

CASES = {
    # Few distinct delays: one group or a few a talkspurt.
    "onoff-ge-loss": dict(seed=11, rate="1Mbps", delay="40ms", loss=GE, jitter="", count=1, codec="G.711", speech=ONOFF, playout="ramjee-1"),
    # Every delay distinct; the optimum discards packets (l_max > 0).
    "onoff-jitter": dict(seed=12, rate="1Mbps", delay="200ms", loss=HEAVY, jitter=NORMAL, count=2, codec="G.711", speech=ONOFF, playout="ramjee-1"),
    # Continuous speech: one talkspurt a call, every delay distinct.
    "continuous-jitter": dict(seed=13, rate="2Mbps", delay="200ms", loss=HEAVY, jitter=NORMAL, count=2, codec="G.729", speech=CONT, playout="quantile"),
    # Continuous speech, calls queueing behind each other on a slow link.
    "continuous-queue": dict(seed=14, rate="256kbps", delay="40ms", loss=BERNOULLI, jitter="", count=3, codec="G.711", speech=CONT, playout="fixed-depth"),
}


def _same(a: pd.DataFrame, b: pd.DataFrame, what: str) -> int:
    assert list(a.columns) == list(b.columns), what
    assert len(a) == len(b), what
    for c in a.columns:
        x, y = a[c].to_numpy(), b[c].to_numpy()
        if x.dtype.kind == "f":
            same = (x.view(np.uint64) == y.view(np.uint64)) | (np.isnan(x) & np.isnan(y))
            assert same.all(), f"{what}.{c}: recorded {x[~same][:3]}, folded {y[~same][:3]}"
        else:
            assert (x == y).all(), f"{what}.{c}"
    return a.size


@pytest.mark.parametrize("case", sorted(CASES))
def test_folded_bounds_equal_the_recorded_ones(tmp_path, case):
    path = tmp_path / f"{case}.toml"
    path.write_text(SCENARIO.format(**CASES[case]))
    recorded = talkspurt.run(str(path), trace=True)
    folded = talkspurt.run(str(path), trace=False)
    assert folded.packets is None and recorded.packets is not None
    c = recorded.calls
    # The bounds are computed (not NaN) and the case is what it says.
    assert c["bound_r"].notna().all() and c["fixed_r"].notna().all(), c[["bound_r", "fixed_r"]]
    assert (c["generated"] > 10_000).all()  # 10 min: 12,000 packets on/off, 30,000 continuous
    n = _same(recorded.calls, folded.calls, f"{case} calls")
    n += _same(recorded.groups, folded.groups, f"{case} groups")
    n += _same(recorded.talkspurts, folded.talkspurts, f"{case} talkspurts")
    assert n > 100
    spurts = recorded.talkspurts
    if CASES[case]["speech"] == ONOFF:
        assert spurts.groupby("call").size().min() > 100, case
    else:
        assert spurts.groupby("call").size().max() == 1, case
    if CASES[case]["jitter"]:
        # Some packets discarded by the optimum: the DP's backtrack is
        # exercised beyond "play everything".
        assert (c["bound_played"] < c["played"] + c["late"]).any(), c[["bound_played", "played", "late"]]
