"""Packet-capture export: check the target folder before a run, write the
libpcap files the Rust core recorded (docs/pcap.md) after it.

Each file is written to a temporary name in the folder and renamed into
place, so a reader never sees half a file; an existing capture file is
never replaced unless `force`.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from .scenario import _error

TYPE_CHECKING = False  # typing's, without importing typing (scenario.py)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Optional


def check(pcap: Any, capture: Optional[Sequence[str]], force: bool,
          keys: tuple[str, str] = ("pcap", "capture")) -> tuple[Optional[Path], list[str]]:
    """Validate the options; return the folder and the capture specs.
    `keys` name the options in errors (`pcap`/`capture`, or the CLI's
    `--pcap`/`--capture`)."""
    pk, ck = keys
    if capture is not None:
        if isinstance(capture, str) or not all(isinstance(c, str) for c in capture):
            raise _error(ck, repr(capture), 'a list of capture specs, e.g. ["calls", "link:1:forward"]')
        if pcap is None:
            raise _error(ck, repr(list(capture)), f"{pk} set too (the folder the capture files go to)")
    if pcap is None:
        return None, []
    if not isinstance(pcap, (str, os.PathLike)) or not os.fspath(pcap).strip():
        raise _error(pk, repr(pcap), "a folder path (new, or holding no .pcap files)")
    from pathlib import Path  # only with a capture: a run without one never imports pathlib

    out = Path(os.fspath(pcap))
    if out.exists() and not out.is_dir():
        raise NotADirectoryError(f"{pk}: {out} exists and is not a directory")
    if out.is_dir() and not force:
        old = sorted(p.name for p in out.glob("*.pcap"))
        if old:
            raise FileExistsError(f"{pk}: {out} already holds {', '.join(old[:3])}"
                                  f"{' …' if len(old) > 3 else ''}; choose a new folder or pass --force "
                                  f"(force=True) to replace them")
    specs = list(capture) if capture is not None else ["calls"]
    if not specs:
        raise _error(ck, "[]", "at least one capture spec, or no capture option at all")
    return out, specs


def write(out: Path, files: list[tuple[str, bytes]], force: bool) -> list[Path]:
    """Write each (name, bytes) atomically into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, data in files:
        dest = out / name
        if dest.exists() and not force:
            raise FileExistsError(f"pcap: {dest} exists; pass --force (force=True) to replace it")
        tmp = out / f".{name}.{os.getpid()}.tmp"
        try:
            with open(tmp, "wb") as f:
                f.write(data)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, dest)
        finally:
            if tmp.exists():
                tmp.unlink()
        written.append(dest)
    return written
