"""talkspurt: simulate voice calls over transport protocols and score them.

    >>> import talkspurt
    >>> res = talkspurt.run("scenarios/quickstart.toml")
    >>> res.calls[["call", "loss_total", "mouth_to_ear_ms", "r", "mos", "bound_g107_r"]]
    >>> talkspurt.rescore(res, playout="ramjee-4").calls  # same run, another buffer
    >>> talkspurt.score_audio(res, {"codec": "Opus"})  # PESQ on real speech

The per-packet work runs in the Rust core (`talkspurt._core`); this package
loads scenarios, runs them, and returns pandas DataFrames.
"""

from __future__ import annotations


from ._core import ScenarioError, __version__, codecs, emodel, emodel_simplified, mos_from_r
from .api import run, validate
from .fairness import fairness, jain_index
from .notices import LatePlayoutWarning, OversizePacketWarning, SegmentedPacketWarning, SilentCallWarning
from .rescore import rescore
from .results import Results
from .scenario import load_scenario

TYPE_CHECKING = False  # typing's, without importing typing (scenario.py)
if TYPE_CHECKING:
    from .store import SweepResults, load



def __getattr__(name: str):
    # `sweep` and `derive_seed` load talkspurt.sweeps (process pools, hashing,
    # temporary files) on first use: a single run does not pay for it
    # (issue 14 target 5).
    # The results store (sweeps' folders) likewise: its module compiles
    # regular expressions and imports tempfile and shutil, ~10-30 ms of
    # every process that only runs (issue 26, the API's overhead).
    if name in ("SweepResults", "load"):
        from . import store

        return getattr(store, name)
    if name in ("sweep", "derive_seed"):
        from . import sweeps

        return getattr(sweeps, name)
    # Results across runs (issue 25): loaded on first use.
    if name == "summarize":
        from .stats import summarize

        return summarize
    if name == "compare":
        from .compare import compare

        return compare
    if name == "estimate":
        from .estimate import estimate

        return estimate
    if name == "reproduce":
        from .reproductions import reproduce

        return reproduce
    if name == "reproduce_many":
        from .reproductions import reproduce_many

        return reproduce_many
    raise AttributeError(f"module 'talkspurt' has no attribute {name!r}")


def score_audio(results, config=None, *, calls=None, wav_dir=None):
    """PESQ (and optionally STOI) of calls on real speech through real codecs;
    see `talkspurt.audio.score_audio`."""
    from .audio.pipeline import score_audio as _score

    return _score(results, config, calls=calls, wav_dir=wav_dir)


__all__ = [
    "LatePlayoutWarning",
    "OversizePacketWarning",
    "Results",
    "ScenarioError",
    "SegmentedPacketWarning",
    "SilentCallWarning",
    "__version__",
    "codecs",
    "compare",
    "emodel",
    "estimate",
    "emodel_simplified",
    "fairness",
    "jain_index",
    "SweepResults",
    "derive_seed",
    "load",
    "load_scenario",
    "sweep",
    "mos_from_r",
    "reproduce",
    "reproduce_many",
    "rescore",
    "run",
    "score_audio",
    "summarize",
    "validate",
]
