"""The `versions` table of a manifest: talkspurt, Python and the host."""

from __future__ import annotations

import sys
from typing import Any


def platform_name() -> str:
    """`platform.platform()`, without its `uname -p` child process on Linux.

    On Linux `platform.platform()` asks `uname -p` (a fork and exec, plus
    importing `subprocess`: 18-40 ms, more than the rest of a small run's
    Python side) for the processor name, then drops it: GNU coreutils prints
    either "unknown", which the formatter removes, or the machine name, which
    equals `uname().machine` and is dropped as a repeat. The string is
    therefore the same without asking (checked in tests/test_versions.py).
    Elsewhere the processor name can differ from the machine (macOS: "arm"
    vs "arm64"), so the standard call is kept.
    """
    import platform

    fmt = getattr(platform, "_platform", None)  # the standard formatter, private
    if sys.platform != "linux" or fmt is None:
        return platform.platform()
    u = platform.uname()  # the processor field is resolved lazily: not read here
    libc, version = platform.libc_ver()
    return fmt(u.system, u.release, u.machine, "with", libc + version)


def versions() -> dict[str, Any]:
    from . import _core

    return {"talkspurt": _core.__version__, "python": sys.version.split()[0], "platform": platform_name()}
