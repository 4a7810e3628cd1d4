"""Shared fixtures. In CI (CI=true) a missing dependency is a failure, never a skip."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SPEECH = ROOT.parent / "shared" / "speech"
IN_CI = os.environ.get("CI", "").lower() == "true"


@pytest.fixture
def root() -> Path:
    return ROOT


def small_scenario(duration: str = "5s", seed: int = 3, **calls) -> str:
    """A dumbbell with on/off G.711 calls, link loss and Poisson cross traffic."""
    extra = "".join(f"{k} = {v}\n" for k, v in calls.items())
    return f"""
[run]
duration = "{duration}"
seed = {seed}

[[links]]
between = ["a", "r"]
rate = "10Mbps"
delay = "1ms"

[[links]]
between = ["r", "b"]
rate = "250kbps"
delay = "20ms"
queue = {{ kind = "droptail", limit = "20p" }}
loss = {{ kind = "bernoulli", p = 0.01 }}

[[calls]]
count = 3
from = "a"
to = "b"
codec = "G.711"
speech = {{ model = "exponential", talk = "1s", silence = "1.5s" }}
{extra}
[[traffic]]
from = "a"
to = "b"
kind = "poisson"
rate = "50kbps"
packet = "500B"
"""


def assert_group_gone(pgid: int, what: str, timeout_s: float = 10.0) -> None:
    """No process of group `pgid` (a pool's workers, its resource tracker)
    outlives its leader: the group empties once the tracker sees its pipe
    close, within `timeout_s`."""
    import time

    deadline = time.time() + timeout_s
    while time.time() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    pytest.fail(f"{what}: processes of the pool outlived it")
