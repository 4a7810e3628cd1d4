"""Results of a run: pandas DataFrames and a manifest, saved atomically.

pandas and pyarrow are imported on first use, so `import talkspurt` and the
CLI's `--help` stay fast.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping

TYPE_CHECKING = False  # typing's, without importing typing (scenario.py)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Optional

TABLES = ("calls", "packets", "links", "traffic", "series", "groups", "bursts", "talkspurts")

# Ordered categories, worst first, so `calls.band > "Low"`, sorting and
# plots follow quality: seed 000 Table 4.2 bands; seed 003 Table 2 (G.107
# Annex B) satisfaction. The same limits (docs/results.md, Bands).
BANDS = ("Not recommended", "Poor", "Low", "Medium", "High", "Best")
SATISFACTION = ("Not recommended", "Nearly all users dissatisfied", "Many users dissatisfied",
                "Some users dissatisfied", "Satisfied", "Very satisfied")
ORDERED = {"band": BANDS, "band_simple": BANDS, "satisfaction": SATISFACTION}


def _ordered(name: str, cat):
    order = ORDERED.get(name)
    if order is None or not set(cat.categories) <= set(order):
        return cat
    return cat.set_categories(list(order), ordered=True)


def _public_mode(path: Path) -> None:
    """`mkdtemp` makes 0700 folders; results are shared like any file the
    user writes, so give the folder the mode `mkdir` would (umask applied)."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(path, 0o777 & ~umask)


def _values(payload, kind: str, writable: bool = False):
    """A numeric column as a numpy array: `bytes` are read in place
    (read-only; copied when `writable`), the core's column buffers
    (`_core.ColumnBuffer`, the packets table) are viewed in place, writable,
    and stay alive as the array's base."""
    import numpy as np

    if isinstance(payload, (bytes, bytearray, memoryview)):
        a = np.frombuffer(payload, dtype=kind)
        return a.copy() if writable else a
    return np.asarray(payload)


class _LazyColumns(Mapping):
    """The core's packets table (`_core.PacketTable`) as a mapping of column
    tuples like the other tables': each column is built by the core when
    read and handed over without a copy, so the wide table is only built if
    asked for, and never held twice (issue 14)."""

    # Computed together by the core (one pass over each call's packets
    # instead of one per column): asked for one, the others are kept here
    # until asked for (a DataFrame takes them next).
    TOGETHER = ("id", "window_loss", "window_ie")

    def __init__(self, table):
        self._table = table
        self._names = tuple(table.names())
        self._ready: dict[str, tuple] = {}

    def __getitem__(self, name: str) -> tuple:
        if name not in self._names:
            raise KeyError(name)
        if name in self._ready:
            return self._ready.pop(name)
        if name in self.TOGETHER and hasattr(self._table, "columns_of_calls"):
            names = [n for n in self.TOGETHER if n in self._names]
            cols = dict(zip(names, self._table.columns_of_calls(names, 0, len(self._table.call_rows()))))
            col = cols.pop(name)
            self._ready.update(cols)
            return col
        return self._table.column(name)

    def __iter__(self):
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


def _columns(table):
    """A table from the core: a dict of column tuples, or the lazy packets table."""
    return _LazyColumns(table) if hasattr(table, "column") and hasattr(table, "names") else table


def _frame(columns: Optional[Mapping[str, tuple]]):
    import numpy as np
    import pandas as pd

    if columns is None:
        return None
    data = {}
    for name, col in columns.items():
        kind = col[0]
        if kind == "str":
            data[name] = pd.array(col[1], dtype="string") if col[1] else pd.array([], dtype="string")
        elif kind == "cat":
            codes = _values(col[1], "<u4").astype(np.int32)
            data[name] = _ordered(name, pd.Categorical.from_codes(codes, categories=col[2]))
        else:
            data[name] = _values(col[1], kind, writable=True)
    # Every array is the frame's own (copied from bytes, or a buffer handed
    # over by the core): no second copy of a large table.
    return pd.DataFrame(data, copy=False)


def _reordered(df):
    """Parquet keeps categories but not always their order: restore it."""
    for name in ORDERED:
        if name in df.columns and hasattr(df[name], "cat"):
            df[name] = _ordered(name, df[name].cat)
    return df


class _Table:
    """A table of `Results`, as a pandas DataFrame built on first access."""

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, obj, owner=None):
        return self if obj is None else obj._get(self.name)


class Results:
    """Tables of one run.

    - `calls`: one row per call (losses by cause, delay, jitter, RTPI,
      back-to-back runs, clips, goodput, R, MOS, bands, offline bounds;
      PESQ and the audio columns with `[analysis] audio`)
    - `packets`: one row per voice packet (None when the trace is off)
    - `groups`: one row per call group and `(all)` for the run (pooled
      losses, run statistics, Jain's index of goodput, mean R)
    - `bursts`: back-to-back lost/received run histograms per call
    - `talkspurts`: the bounds' playout point per talkspurt (None when
      `[analysis] bounds = false`)
    - `links`: one row per link direction (drops, utilization, waits)
    - `traffic`: one row per cross-traffic source (goodput)
    - `series`: endpoint time series (flow, side, t, name, value)
    - `manifest`: the scenario as run, seed, versions, wall time
    """

    calls = _Table()
    packets = _Table()
    links = _Table()
    traffic = _Table()
    series = _Table()
    groups = _Table()
    bursts = _Table()
    talkspurts = _Table()

    def __init__(self, raw: dict[str, Any], manifest: dict[str, Any], *, base: Optional["Results"] = None):
        self._raw = {k: _columns(v) for k, v in raw.items()}
        self._frames: dict[str, Any] = {}
        self._base = base  # tables not in `raw` come from here (rescored results)
        self.manifest = manifest

    def _get(self, name: str):
        if name not in self._frames:
            if name not in self._raw and self._base is not None:
                return self._base._get(name)
            self._frames[name] = _frame(self._raw.get(name))
            if name in self._raw:
                self._raw[name] = None  # the frame has it all; free the core's copy
        return self._frames[name]

    def summary_columns(self, names: Optional[list[str]] = None) -> dict[str, list[Any]]:
        """The calls table (or its columns `names`, those it has) as Python
        lists, read straight from the core's columns while no DataFrame has
        been built (no pandas import)."""
        from .summary import columns_from_frame, columns_from_raw

        if "calls" not in self._frames and self._raw.get("calls") is not None:
            raw = self._raw["calls"]
            return columns_from_raw(raw if names is None else {n: raw[n] for n in names if n in raw})
        df = self.calls
        return columns_from_frame(df if names is None else df[[n for n in names if n in df.columns]])

    @classmethod
    def load(cls, directory: str | os.PathLike) -> "Results":
        """Read results written by `save` (or `talkspurt run -o`)."""
        from pathlib import Path  # here, as pandas: a run never needs it

        import pandas as pd

        d = Path(directory)
        if (d / "sweep.json").is_file():
            raise FileNotFoundError(f"{d} is a sweep's results store; read it with talkspurt.load({str(d)!r})")
        manifest_path = d / "manifest.json"
        if not manifest_path.is_file():
            raise FileNotFoundError(f"{d} holds no manifest.json; expected a folder written by Results.save")
        res = cls({}, json.loads(manifest_path.read_text()))
        for name in TABLES:
            f = d / f"{name}.parquet"
            res._frames[name] = _reordered(pd.read_parquet(f)) if f.is_file() else None
        return res

    def __repr__(self) -> str:
        m = self.manifest
        return (f"<Results: {len(self.calls)} calls, {m['voice_packets']} voice packets, "
                f"seed {m['seed']}, {m['wall_time_s']:.3f} s wall>")

    def save(self, directory: str | os.PathLike, *, overwrite: bool = False) -> Path:
        """Write `<table>.parquet` for each table and `manifest.json`.

        Written into a temporary folder beside `directory` and renamed into
        place, so a reader never sees a partial result. An existing
        non-empty `directory` is an error unless `overwrite=True`.
        """
        import shutil  # here, not at the top: `talkspurt run` without -o never needs them
        import tempfile
        from pathlib import Path

        target = Path(directory)
        if target.exists() and not target.is_dir():
            raise FileExistsError(f"{target} exists and is not a directory")
        if target.is_dir() and any(target.iterdir()) and not overwrite:
            raise FileExistsError(f"{target} exists and is not empty; choose another directory or overwrite")
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
        try:
            _public_mode(tmp)
            from .store import write_table

            for name in TABLES:
                write_table(self, name, tmp / f"{name}.parquet")  # the core's buffers, no pandas round trip
            (tmp / "manifest.json").write_text(json.dumps(self.manifest, indent=2, default=str) + "\n")
            if target.exists():
                old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old.", dir=target.parent))
                os.rename(target, old / "previous")
                os.rename(tmp, target)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.rename(tmp, target)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return target
