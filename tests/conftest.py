"""Shared fixtures. In CI (CI=true) a missing dependency is a failure, never a skip."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SPEECH = ROOT.parent / "shared" / "speech"
IN_CI = os.environ.get("CI", "").lower() == "true"


def pytest_configure(config) -> None:
    # Several tests press Ctrl-C on a child process (test_interrupt,
    # test_reproduce_many, test_sweep_growth). A child inherits an *ignored*
    # SIGINT (a shell without job control starts background jobs that way,
    # as does nohup), and a Python started so keeps ignoring it: the press
    # is lost and the child runs on (exit 0, or the test's timeout). A
    # handler, unlike SIG_IGN, is reset to the default in a child at exec,
    # so installing Python's own here gives every child the terminal's
    # behaviour whatever started pytest.
    import signal

    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


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


def ctrl_c_group(p, timeout_s: float, hung: str) -> tuple[str, str]:
    """Press Ctrl-C on `p`'s process group (as a terminal does for its
    foreground group) and return its (stdout, stderr); if it has not ended
    within `timeout_s`, kill the group and fail with `hung`."""
    import signal
    import subprocess

    os.killpg(p.pid, signal.SIGINT)
    try:
        return p.communicate(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        pytest.fail(hung)


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
