"""The PESQ child process: scores pairs sent on stdin, answers on stdout.

Run as a script (`python pesq_server.py`), not as part of the package: it
imports only numpy and `pesq`, so it starts fast and a crash of P.862's C
code (a segmentation fault) ends this process, not the caller's
(`pesq_guard.py`).

Protocol, per request (native byte order): a 24-byte header of int32 fs,
int32 mode (0 nb, 1 wb), int64 n_ref, int64 n_deg, then n_ref and n_deg
float64 samples. The answer is one line: `ok <MOS-LQO>`, `none <reason>`
(P.862 found no utterance), or `err <exception class> <message>`. End of
input ends the process.
"""

import struct
import sys

HEADER = struct.Struct("=iiqq")


def _read(stream, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = stream.read(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return bytes(buf)


def main() -> None:
    import numpy as np
    from pesq import NoUtterancesError, pesq

    inp, out = sys.stdin.buffer, sys.stdout
    while True:
        try:
            fs, mode, n_ref, n_deg = HEADER.unpack(_read(inp, HEADER.size))
            ref = np.frombuffer(_read(inp, 8 * n_ref), dtype=np.float64)
            deg = np.frombuffer(_read(inp, 8 * n_deg), dtype=np.float64)
        except EOFError:
            return
        try:
            v = float(pesq(fs, ref, deg, "wb" if mode else "nb"))
            line = f"ok {v!r}"
        except NoUtterancesError as e:
            line = f"none {' '.join(str(e).split())}"
        except Exception as e:  # noqa: BLE001 — reported to the caller, one line
            line = f"err {type(e).__name__} {' '.join(str(e).split())}"
        out.write(line + "\n")
        out.flush()


if __name__ == "__main__":
    main()
