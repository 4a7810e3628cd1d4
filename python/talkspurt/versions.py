"""The `versions` table of a manifest: talkspurt, Python and the host."""

from __future__ import annotations

import functools
import os
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (a run never needs it)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Optional


def platform_name() -> str:
    """`platform.platform()`, cheaper on Linux.

    On Linux the standard string is `system-release-machine-with-libcVERSION`
    made filename-safe (see `_filename_safe`). `platform.platform()` also
    asks `uname -p` (a child process: 18-40 ms) for the processor name and
    then drops it (GNU coreutils prints "unknown", which is removed, or the
    machine name, dropped as a repeat), and importing `platform` compiles
    ten regular expressions (5-9 ms, 2 % of the headline run's process).
    Both are skipped: `os.uname()` and glibc's `confstr` give the same
    fields, which `platform.libc_ver()` itself reads first. The string is
    checked against `platform.platform()` in tests/test_versions.py.
    Elsewhere (or without glibc's confstr) the standard call is kept.
    """
    libc = None
    if sys.platform == "linux":
        try:
            libc = os.confstr("CS_GNU_LIBC_VERSION")  # "glibc 2.36"
        except (AttributeError, ValueError, OSError):
            libc = None
    parts = libc.split(maxsplit=1) if libc else []
    if len(parts) != 2:
        import platform

        return platform.platform()
    u = os.uname()
    return _filename_safe([u.sysname, u.release, u.machine, "with", parts[0] + parts[1]])


# Characters `platform.platform()` replaces by "-" ("_" for a space).
_UNSAFE = str.maketrans({" ": "_", "/": "-", "\\": "-", ":": "-", ";": "-", '"': "-", "(": "-", ")": "-"})


def _filename_safe(fields: list[str]) -> str:
    """Join the non-empty fields with "-" as `platform.platform()` formats
    them: stripped, unsafe characters replaced, "unknown" removed, runs of
    "-" folded to one and trailing ones dropped."""
    s = "-".join(f.strip() for f in fields if f).translate(_UNSAFE).replace("unknown", "")
    while "--" in s:
        s = s.replace("--", "-")
    return s.rstrip("-")


def _checkout_root(package: str | os.PathLike[str]) -> Optional[Path]:
    """The talkspurt checkout the package runs from (`ROOT/python/talkspurt`
    beside `ROOT/crates/talkspurt-core`), or None for an installed copy. Only
    such a root's git directory is read: an installed package inside some
    other repository (a venv in a project's checkout, pyenv's own clone) is
    not built from that repository's commit."""
    # os.path, not pathlib: an installed copy (the usual case, every run's
    # manifest) then never imports pathlib.
    package = os.fspath(package)
    parent = os.path.dirname(package)
    root = os.path.dirname(parent)
    if os.path.basename(package) == "talkspurt" and os.path.basename(parent) == "python" \
            and os.path.isdir(os.path.join(root, "crates", "talkspurt-core")):
        from pathlib import Path

        return Path(root)
    return None


def _git_dir(root: Path) -> Optional[Path]:
    g = root / ".git"
    if g.is_dir():
        return g
    if g.is_file():  # a worktree or submodule: "gitdir: <path>"
        text = g.read_text().strip()
        if text.startswith("gitdir:"):
            from pathlib import Path

            p = Path(text[len("gitdir:"):].strip())
            return p if p.is_absolute() else (root / p)
    return None


def _checkout_commit(package: str | os.PathLike[str]) -> Optional[str]:
    """HEAD of the checkout the package runs from, read from git's files
    (a child process would cost more than a small run)."""
    root = _checkout_root(package)
    gd = _git_dir(root) if root is not None else None
    if gd is None:
        return None
    head = (gd / "HEAD").read_text().strip()
    if not head.startswith("ref:"):
        return head or None
    ref = head[len("ref:"):].strip()
    common = gd
    if (gd / "commondir").is_file():
        from pathlib import Path

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
    return None


@functools.lru_cache(maxsize=1)
def git_commit() -> Optional[str]:
    """The commit talkspurt was built from: from a checkout (`maturin
    develop`), that checkout's HEAD, read from its files without running
    git; otherwise the commit baked into the extension when it was built
    (`crates/talkspurt-py/build.rs`); None when neither is known (built
    from an archive without git, or the files cannot be read). Uncommitted
    changes are not detected."""
    try:
        commit = _checkout_commit(os.path.dirname(os.path.realpath(__file__)))
    except OSError:
        commit = None
    if commit is None:
        from . import _core

        commit = getattr(_core, "__git_commit__", "") or None
    return commit


def versions() -> dict[str, Any]:
    """talkspurt's version and the git commit it was built from (None
    outside a checkout), Python, and the host."""
    from . import _core

    return {"talkspurt": _core.__version__, "git_commit": git_commit(), "python": sys.version.split()[0],
            "platform": platform_name()}
