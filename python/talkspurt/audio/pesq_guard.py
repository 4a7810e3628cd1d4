"""PESQ where a crash cannot take the run down.

The `pesq` package runs ITU-T P.862's reference C code inside the calling
process. That code writes its utterance tables (50 entries, `MAXNUTTERANCES`
in pesq.h) without a bound check, so a reference with more utterances
overruns them and the process dies with a segmentation fault (issue 22: a
continuously talking 300 s call, exit 139 alone, `BrokenProcessPool` in the
calls' process pool). `score.py` keeps segments short enough that this
cannot happen (`PESQ_MAX_S`); this module makes sure that if P.862 dies
anyway, on any input, only a child process dies.

Each process that scores keeps one child (`pesq_server.py`, numpy and
`pesq` only), started on first use and restarted after a crash. A pair
sent to a child that dies, hangs past `timeout_s` or raises scores NaN with
a one-line note saying what happened; the call's `pesq_failed` column
counts such segments and `pesq_note` holds the first note.

P.862 is a function of the pair's samples, the sample rate and the mode
alone, so the guard remembers its answers (`CACHE_SIZE` pairs, keyed by a
BLAKE2b digest of exactly what the child would be sent) and answers a pair
it has scored before without asking the child: the same score to the last
bit. Identical pairs recur in sweeps: calls whose scored segment lost
nothing, and runs whose voice path is identical (seed 001's None + Quick
and None + 3550 differ only on the reverse path). Failures are not
remembered (a crash or a hang is retried on the next request).
"""

from __future__ import annotations

import atexit
import hashlib
import math
import os
import select
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Optional, Sequence

import numpy as np

from .pesq_server import HEADER

SERVER = Path(__file__).with_name("pesq_server.py")
TIMEOUT_S = 600.0  # P.862 takes ~1 s per 10 s of speech; 600 s is a hung child, not a slow one
CACHE_SIZE = 4096  # pairs remembered per guard (a 32-byte key and a float each)


def _signal_name(code: Optional[int]) -> str:
    if code is not None and code < 0:
        try:
            return f"signal {signal.Signals(-code).name}"
        except ValueError:
            return f"signal {-code}"
    return f"exit status {code}"


class PesqGuard:
    """One P.862 child process. `score` returns (MOS-LQO or NaN, note or
    None); the note is None also when P.862 found no utterance (NaN, as
    before: a reference without speech has no score)."""

    def __init__(self, command: Optional[Sequence[str]] = None, timeout_s: float = TIMEOUT_S):
        self.command = list(command) if command is not None else [sys.executable, str(SERVER)]
        self.timeout_s = timeout_s
        self.proc: Optional[subprocess.Popen] = None
        self.lock = threading.Lock()
        self.crashes = 0
        self.cache: dict[bytes, tuple[float, Optional[str]]] = {}
        self.hits = self.misses = 0

    def _start(self) -> subprocess.Popen:
        if self.proc is None or self.proc.poll() is not None:
            self.proc = subprocess.Popen(self.command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=subprocess.DEVNULL, close_fds=True, bufsize=0)
            assert self.proc.stdin is not None
            os.set_blocking(self.proc.stdin.fileno(), False)
        return self.proc

    @staticmethod
    def _send(fd: int, data: bytes, deadline: float) -> bool:
        """Write all of `data` before `deadline` (False: the child stopped
        reading); a pipe holds 64 KiB, a pair of 15 s segments 240 KiB."""
        view = memoryview(data)
        while view:
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            _, ready, _ = select.select([], [fd], [], left)
            if not ready:
                return False
            try:
                view = view[os.write(fd, view):]
            except BlockingIOError:
                continue
        return True

    def _lost(self, what: str) -> str:
        """The child is gone or useless: reap it, say why."""
        p, self.proc = self.proc, None
        self.crashes += 1
        if p is None:
            return what
        if p.poll() is None:
            p.kill()
        try:
            code = p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            code = None
        for f in (p.stdin, p.stdout):
            try:
                if f is not None:
                    f.close()
            except OSError:
                pass
        return f"{what} ({_signal_name(code)})" if what.startswith("PESQ crashed") else what

    def score(self, fs: int, ref: np.ndarray, deg: np.ndarray, mode: str) -> tuple[float, Optional[str]]:
        ref = np.ascontiguousarray(ref, dtype=np.float64)
        deg = np.ascontiguousarray(deg, dtype=np.float64)
        head = HEADER.pack(fs, 1 if mode == "wb" else 0, len(ref), len(deg))
        h = hashlib.blake2b(head, digest_size=32)
        h.update(ref.data)
        h.update(deg.data)
        key = h.digest()
        with self.lock:
            if key in self.cache:
                self.hits += 1
                return self.cache[key]
            self.misses += 1
            out = self._score(head, ref, deg)
            if out[1] is None:  # a score, or no utterance: P.862's own answer
                if len(self.cache) >= CACHE_SIZE:
                    self.cache.pop(next(iter(self.cache)))  # the oldest
                self.cache[key] = out
            return out

    def _score(self, head: bytes, ref: np.ndarray, deg: np.ndarray) -> tuple[float, Optional[str]]:
        """Ask the child (the caller holds the lock)."""
        try:
            p = self._start()
        except OSError as e:
            return math.nan, f"PESQ could not start: {e}"
        deadline = time.monotonic() + self.timeout_s
        hung = f"PESQ did not answer within {self.timeout_s:g} s; stopped"
        try:
            assert p.stdin is not None
            if not self._send(p.stdin.fileno(), head + ref.tobytes() + deg.tobytes(), deadline):
                return math.nan, self._lost(hung)
        except OSError:  # EPIPE: the child is gone
            return math.nan, self._lost("PESQ crashed")
        assert p.stdout is not None
        ready, _, _ = select.select([p.stdout], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            return math.nan, self._lost(hung)
        line = p.stdout.readline().decode("utf-8", "replace").strip()
        if not line:
            return math.nan, self._lost("PESQ crashed")
        kind, _, rest = line.partition(" ")
        if kind == "ok":
            return float(rest), None
        if kind == "none":
            return math.nan, None
        return math.nan, f"PESQ failed: {rest}"

    def close(self) -> None:
        p, self.proc = self.proc, None
        if p is not None and p.poll() is None:
            try:
                assert p.stdin is not None
                p.stdin.close()  # end of input ends the server
                p.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                p.kill()


_GUARD: Optional[PesqGuard] = None
_PID = -1


def guard() -> PesqGuard:
    """This process's guard (a forked process gets its own child)."""
    global _GUARD, _PID
    if _GUARD is None or _PID != os.getpid():
        _GUARD, _PID = PesqGuard(), os.getpid()
        atexit.register(_GUARD.close)
    return _GUARD
