"""Signals on the main thread: Ctrl-C (and SIGTERM, which the CLI raises
as `Terminated`) held back where an exception raised at an arbitrary
bytecode would leave something behind, and raised where unwinding is safe."""

from __future__ import annotations

import signal
from contextlib import contextmanager

TYPE_CHECKING = False  # typing's, without importing typing (scenario.py)
if TYPE_CHECKING:
    from typing import Iterator


@contextmanager
def deferred_interrupts() -> Iterator["Held"]:
    """Hold Ctrl-C (and SIGTERM, which the CLI raises as `Terminated`) back
    while the block runs, and give a `check()` that raises it
    where that is safe. Two places need it: an exception raised inside
    `concurrent.futures.wait` can leave some futures' locks held (it
    acquires them all, one by one), and the pool's shutdown then waits for
    ever on the first it cancels (seen: Python 3.11.7, a pool of 20 000
    short jobs, 1 Ctrl-C in 3); and one raised just after a thread that runs
    the core has started (`api._run_core`) leaves that thread running in
    Rust while the process exits, which aborts it. On
    the main thread the handlers only note the signal; `check()` then calls
    the handler that was installed for it (Python's SIGINT handler raises
    KeyboardInterrupt), as does leaving the block when nothing did before.
    Elsewhere (a thread cannot set handlers), and for a signal ignored or
    left to the system, nothing changes."""
    import threading

    prev = {}
    if threading.current_thread() is threading.main_thread():
        prev = {s: h for s in (signal.SIGINT, signal.SIGTERM) if callable(h := signal.getsignal(s))}
    held = Held(prev)
    for s in prev:
        signal.signal(s, lambda signum, _frame: held.pressed.append(signum))
    try:
        yield held
    finally:
        for s, h in prev.items():
            signal.signal(s, h)
    held()


class Held:
    """The signals noted in a `deferred_interrupts` block. Calling it
    raises the first (by calling the handler that was installed for it)
    and forgets the rest; `forget()` drops them unraised (a second Ctrl-C
    while the first is being honoured)."""

    def __init__(self, handlers: dict) -> None:
        self.handlers = handlers
        self.pressed: list[int] = []

    def __call__(self) -> None:
        if self.pressed:
            s = self.pressed[0]
            self.pressed.clear()
            self.handlers[s](s, None)

    def forget(self) -> None:
        self.pressed.clear()
