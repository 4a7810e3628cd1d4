"""The `versions` table of a manifest: talkspurt, Python and the host."""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from typing import Any, Optional


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


def _git_dir(start: Path) -> Optional[Path]:
    for d in (start, *start.parents):
        g = d / ".git"
        if g.is_dir():
            return g
        if g.is_file():  # a worktree or submodule: "gitdir: <path>"
            text = g.read_text().strip()
            if text.startswith("gitdir:"):
                p = Path(text[len("gitdir:"):].strip())
                return p if p.is_absolute() else (d / p)
    return None


@functools.lru_cache(maxsize=1)
def git_commit() -> Optional[str]:
    """The commit of the source tree talkspurt runs from (a checkout with
    `maturin develop`), read from the repository's files without running
    git (a child process would cost more than a small run); None for an
    installed wheel or when the files cannot be read. Uncommitted changes
    are not detected."""
    try:
        gd = _git_dir(Path(__file__).resolve().parent)
        if gd is None:
            return None
        head = (gd / "HEAD").read_text().strip()
        if not head.startswith("ref:"):
            return head or None
        ref = head[len("ref:"):].strip()
        common = gd
        if (gd / "commondir").is_file():
            c = Path((gd / "commondir").read_text().strip())
            common = c if c.is_absolute() else (gd / c).resolve()
        for base in (gd, common):
            f = base / ref
            if f.is_file():
                return f.read_text().strip() or None
        packed = common / "packed-refs"
        if packed.is_file():
            for line in packed.read_text().splitlines():
                parts = line.split()
                if len(parts) == 2 and parts[1] == ref:
                    return parts[0]
    except OSError:
        return None
    return None


def versions() -> dict[str, Any]:
    """talkspurt's version and the git commit it was built from (None
    outside a checkout), Python, and the host."""
    from . import _core

    return {"talkspurt": _core.__version__, "git_commit": git_commit(), "python": sys.version.split()[0],
            "platform": platform_name()}
