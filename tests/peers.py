"""Helpers for tests that compare talkspurt with its peers (ns-2) and with
closed-form TCP models. A plain module: ``from peers import run_ns2``.

The ns-2 scripts live in bench/ns2/ (tcp_loss.tcl, tcp_compete.tcl,
tcp_mix.tcl, dumbbell.tcl); each prints one JSON object as its last line of
output. Reference figures from them are in bench/results/tcp_peers.json.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NS2_DIR = ROOT / "bench" / "ns2"
TCP_PEERS_JSON = ROOT / "bench" / "results" / "tcp_peers.json"


class Ns2Error(RuntimeError):
    """ns-2 failed, or printed no JSON line."""


def ns2_available() -> bool:
    """True if the ns-2 interpreter ``ns`` is on PATH (bench/setup.sh installs it)."""
    return shutil.which("ns") is not None


def _script_path(script: str | Path) -> Path:
    p = Path(script)
    if p.is_absolute() or p.exists():
        return p.resolve()
    q = NS2_DIR / p
    if q.exists():
        return q
    raise FileNotFoundError(f"ns-2 script {script!s} not found (looked in . and {NS2_DIR})")


def run_ns2(script: str | Path, *args, timeout: float = 600.0) -> dict:
    """Run ``ns SCRIPT ARGS...`` and return its last line of output parsed as JSON.

    ``script`` is a path, or a bare name looked up in bench/ns2/
    (``run_ns2("tcp_loss.tcl", "Newreno", 0.01, 100, 1)``). Arguments are
    passed through ``str()``. Raises Ns2Error -- with the exit status and the
    tail of stderr and stdout -- if ``ns`` is missing, fails, times out, or
    prints no JSON object on its last non-empty line.
    """
    ns = shutil.which("ns")
    if ns is None:
        raise Ns2Error("ns-2 not found: `ns` is not on PATH (install with `apt-get install ns2`, "
                       "or run bench/setup.sh)")
    path = _script_path(script)
    cmd = [ns, str(path), *map(str, args)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired as e:
        raise Ns2Error(f"{' '.join(cmd)}: timed out after {timeout:g} s") from e

    def tails() -> str:
        err = proc.stderr.strip()[-2000:] or "(empty)"
        out = proc.stdout.strip()[-1000:] or "(empty)"
        return f"\n--- stderr ---\n{err}\n--- stdout (tail) ---\n{out}"

    if proc.returncode != 0:
        raise Ns2Error(f"{' '.join(cmd)}: exited with status {proc.returncode}{tails()}")
    lines = [ln.strip() for ln in proc.stdout.splitlines() if ln.strip()]
    if not lines or not (lines[-1].startswith("{") and lines[-1].endswith("}")):
        raise Ns2Error(f"{' '.join(cmd)}: last line of output is not a JSON object{tails()}")
    try:
        return json.loads(lines[-1])
    except json.JSONDecodeError as e:
        raise Ns2Error(f"{' '.join(cmd)}: bad JSON on the last line ({e}){tails()}") from e


def padhye_throughput(mss_bytes: float, rtt_s: float, p: float, t0_s: float,
                      b: int = 1, wmax_pkts: float | None = None) -> float:
    """Steady-state throughput of a bulk TCP Reno flow, in bytes/s, from the
    approximate model of Padhye, Firoiu, Towsley and Kurose:

        B(p) = min( Wmax / RTT,
                    1 / ( RTT sqrt(2bp/3)
                          + T0 min(1, 3 sqrt(3bp/8)) p (1 + 32 p^2) ) )   packets/s

    times ``mss_bytes``. This is the "full" model's closed-form
    approximation, equation (31) of J. Padhye, V. Firoiu, D. Towsley,
    J. Kurose, "Modeling TCP Throughput: A Simple Model and its Empirical
    Validation", Proc. ACM SIGCOMM '98; the journal version, "Modeling TCP
    Reno Performance: A Simple Model and Its Empirical Validation",
    IEEE/ACM Trans. Networking 8(2):133-145, 2000, states the same formula.

    mss_bytes  payload bytes per packet (the result counts payload only)
    rtt_s      round-trip time, s
    p          probability that a packet is lost (the paper's p: the first
               loss in a round; with independent losses, the loss rate)
    t0_s       the first retransmission timeout T0, s (doubled on repeats,
               up to 64 T0, inside the model)
    b          packets acknowledged per ACK (1: an ACK per packet, as ns-2's
               TCPSink; 2: delayed ACKs)
    wmax_pkts  receiver window cap in packets, or None for no cap

    p = 0 gives Wmax/RTT (infinity without a cap).

    Note on seed 000 (Balan 2006, §2.2.1): it prints
    X(p) = s / (RTT sqrt(2bp/3) + T0 (3 sqrt(3bp/8)) p (1 + 32 p^2)), citing
    the ToN 2000 paper. That is the form RFC 3448 (TFRC) uses: it has no
    min(1, .) on the timeout term, and the Wmax/RTT cap is only in the text.
    The two agree whenever 3 sqrt(3bp/8) <= 1, i.e. p <= 8/(27 b) (0.296 for
    b = 1, 0.148 for b = 2); above that the seed's form predicts less.
    """
    if not (mss_bytes > 0 and rtt_s > 0 and t0_s >= 0):
        raise ValueError("need mss_bytes > 0, rtt_s > 0, t0_s >= 0")
    if not 0 <= p <= 1:
        raise ValueError("p must be in [0, 1]")
    if b < 1:
        raise ValueError("b must be >= 1")
    if wmax_pkts is not None and wmax_pkts <= 0:
        raise ValueError("wmax_pkts must be > 0")
    cap = math.inf if wmax_pkts is None else wmax_pkts / rtt_s
    if p == 0:
        return cap * mss_bytes
    denom = (rtt_s * math.sqrt(2 * b * p / 3)
             + t0_s * min(1.0, 3 * math.sqrt(3 * b * p / 8)) * p * (1 + 32 * p * p))
    return min(cap, 1.0 / denom) * mss_bytes


def jain_index(xs) -> float:
    """Jain's fairness index (sum x)^2 / (n sum x^2); 1 = equal shares."""
    xs = [float(x) for x in xs]
    if not xs:
        raise ValueError("need at least one value")
    sq = sum(x * x for x in xs)
    return 1.0 if sq == 0 else sum(xs) ** 2 / (len(xs) * sq)
