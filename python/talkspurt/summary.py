"""The per-call table `talkspurt run` prints, built without pandas.

A small run spends ~10 ms simulating and, with pandas, ~0.6 s importing it
just to print a table (issue 14, small runs). The core hands its columns
over as (dtype, little-endian bytes), which `memoryview.cast` reads as they
are; this module formats them in plain Python. The columns and headers are
the CLI's SUMMARY, explained in the README ("Reading the table").
"""

from __future__ import annotations

import math
import sys

TYPE_CHECKING = False  # typing's, without importing typing (scenario.py)
if TYPE_CHECKING:
    from typing import Any, Mapping, Sequence

# dtype of the core's columns → memoryview format (native = little-endian,
# checked below; a big-endian host goes through numpy instead).
_FORMATS = {"<u4": "I", "<i4": "i", "<u8": "Q", "<i8": "q", "<f8": "d", "<f4": "f", "?": "?", "|b1": "?"}


def columns_from_raw(raw: Mapping[str, tuple]) -> dict[str, list[Any]]:
    """The core's column tuples as Python lists (categories as strings)."""
    out: dict[str, list[Any]] = {}
    for name, col in raw.items():
        kind = col[0]
        if kind == "str":
            out[name] = list(col[1])
        elif kind == "cat":
            cats = col[2]
            out[name] = [cats[i] if i < len(cats) else None for i in _ints(col[1], "<u4")]
        else:
            out[name] = _ints(col[1], kind)
    return out


def _ints(buf: bytes, kind: str) -> list[Any]:
    fmt = _FORMATS.get(kind)
    if fmt is None or sys.byteorder != "little":
        import numpy as np

        return np.frombuffer(buf, dtype=kind).tolist()
    return memoryview(buf).cast(fmt).tolist()


def columns_from_frame(df) -> dict[str, list[Any]]:
    return {c: [None if _missing(v) else v for v in df[c].tolist()] for c in df.columns}


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v)) or type(v).__name__ in ("NAType", "NaTType")


def format_table(cols: Mapping[str, Sequence[Any]], summary: Sequence[tuple[str, str]], percent: set[str],
                 max_rows: int) -> str:
    names = [c for c, _ in summary if c in cols]
    n = len(cols[names[0]]) if names else 0
    rows = {c: [v * 100.0 if c in percent and isinstance(v, (int, float)) else v for v in cols[c]] for c in names}
    note = ""
    ext = [bool(v) for v in cols.get("emodel_extrapolated", [])]
    if n > max_rows:
        rows, names = _group_means(rows, names)
        note = f"({n} calls: means per group; every call is in calls.parquet with -o)\n"
    header = dict(summary)
    text = {header.get(c, c): [_cell(v) for v in rows[c]] for c in names}
    foot = ""
    if ext and n <= max_rows and any(ext) and "R" in text:
        # Mark, never hide, an R computed beyond G.107 Table 3's ranges.
        text["R"] = [f"{r}{'*' if e else ' '}" for r, e in zip(text["R"], ext)]
        foot = "\n* R and MOS extrapolated beyond G.107's parameter ranges (calls.emodel_extrapolated)"
    elif ext and any(ext):
        foot = (f"\n{sum(ext)} of {n} calls have R and MOS extrapolated beyond G.107's ranges "
                "(calls.emodel_extrapolated)")
    widths = {h: max([len(h)] + [len(v) for v in vs]) for h, vs in text.items()}
    lines = [" ".join(h.rjust(widths[h]) for h in text)]
    for i in range(len(next(iter(text.values()), []))):
        lines.append(" ".join(text[h][i].rjust(widths[h]) for h in text))
    return note + "\n".join(lines) + foot


def _cell(v: Any) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "NaN"
    if isinstance(v, float):
        return f"{v:.2f}"
    return str(v)


def _group_means(rows: dict[str, list[Any]], names: list[str]) -> tuple[dict[str, list[Any]], list[str]]:
    """Means per (group, codec, transport), in order of first appearance."""
    keys = [k for k in ("group", "codec", "transport") if k in rows]
    numeric = [c for c in names if c not in keys and c != "call"
               and all(isinstance(v, (int, float)) or v is None for v in rows[c])]
    order: dict[tuple, list[int]] = {}
    for i, key in enumerate(zip(*(rows[k] for k in keys))):
        order.setdefault(key, []).append(i)
    out: dict[str, list[Any]] = {k: [key[j] for key in order] for j, k in enumerate(keys)}
    out["calls"] = [len(ix) for ix in order.values()]
    for c in numeric:
        out[c] = [_mean([rows[c][i] for i in ix]) for ix in order.values()]
    return out, keys + ["calls"] + numeric


def _mean(vs: list[Any]) -> float:
    xs = [float(v) for v in vs if v is not None and not (isinstance(v, float) and math.isnan(v))]
    return sum(xs) / len(xs) if xs else math.nan
