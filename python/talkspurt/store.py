"""The results store of a sweep: one Parquet dataset, partitioned by run.

```
OUT/sweep.json                 manifest: sweep, base scenario, axes, every run
OUT/runs/<run>/calls.parquet   one folder per run, named by its key
               groups.parquet, links.parquet, traffic.parquet, bursts.parquet,
               talkspurts.parquet, packets.parquet (trace on), series.parquet
               (series on), manifest.json (the run's, as `talkspurt run -o`)
OUT/.tmp/                      runs being written
```

Every table file carries the run's identity and swept parameters as
columns — `run`, `point`, `replication`, `seed` and one column per swept
key path (`links[1].delay`), plus, for a value with units, its number in
one unit beside it (`links[1].delay_ms`, `links[1].rate_bps`, `…_B`,
`…_packets`) — so `read_parquet("OUT/runs/*/calls.parquet")` in DuckDB or
polars gives the whole sweep as is. A sweep that grew (more points) may
renumber points: `SweepResults` takes `point`, `replication` and the axes
from sweep.json, a file keeps the values of when its run was written.

A run is written into `.tmp/` and renamed into `runs/<run>` when complete,
so `runs/` holds only complete runs: a sweep killed at any moment restarts
where it stopped (runs present are skipped), with nothing lost or
duplicated. The key is the hash of the run's normalized scenario, seed
included (`sweep.run_key`).
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any, Optional

FORMAT = "talkspurt-sweep/1"
RUN_TABLES = ("calls", "groups", "links", "traffic", "bursts", "talkspurts", "packets", "series")
IDENTITY = ("run", "point", "replication", "seed")


def axis_kind(values: list[Any]) -> str:
    """Column type of a swept key path: int, float, bool or str (values
    that are tables or lists are stored as their JSON text)."""
    if all(isinstance(v, bool) for v in values):
        return "bool"
    if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return "int"
    if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return "float"
    return "str"


# Swept values with units get a numeric sibling column (issue 25): the
# label column keeps the text as written ("25ms"; other code selects on
# it), and `<key path>_<unit>` holds its number in one unit, so sorting and
# groupby follow the value: `links[1].delay_ms` = 25.0.
_UNIT_VALUE = re.compile(r"^\s*([-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-zµ%]+)\s*$")
UNIT_SCALES = {
    "ms": {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1e3, "min": 6e4, "h": 3.6e6},
    "bps": {"bps": 1.0, "kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9},
    "B": {"B": 1.0, "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9},
    "packets": {"p": 1.0},
}


def number_with_unit(v: Any) -> Optional[tuple[float, str]]:
    """`"25ms"` → (25.0, "ms"), `"1.5s"` → (1500.0, "ms"), `"300kbps"` →
    (300000.0, "bps"); None for anything else."""
    if not isinstance(v, str):
        return None
    m = _UNIT_VALUE.match(v)
    if m is None:
        return None
    for unit, scales in UNIT_SCALES.items():
        if m.group(2) in scales:
            return float(m.group(1)) * scales[m.group(2)], unit
    return None


def numeric_axes(values: dict[str, list[Any]]) -> dict[str, list[str]]:
    """Axes whose values all carry units of one dimension → [column, unit]."""
    out = {}
    for a, vs in values.items():
        parsed = [number_with_unit(v) for v in vs]
        if parsed and all(p is not None for p in parsed) and len({p[1] for p in parsed}) == 1:  # type: ignore[index]
            unit = parsed[0][1]  # type: ignore[index]
            out[a] = [f"{a}_{unit}", unit]
    return out


def axis_value(v: Any, kind: str) -> Any:
    if kind == "float":
        return float(v)
    if kind == "str" and not isinstance(v, str):
        return json.dumps(v, sort_keys=True)
    return v


def _atomic_write_text(path: Path, text: str) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _umask() -> int:
    m = os.umask(0)
    os.umask(m)
    return m


_WIDTHS = {"<f8": 8, "<i8": 8, "<u8": 8, "<f4": 4, "<i4": 4, "<u4": 4}


@functools.lru_cache(maxsize=None)
def _arrow_type(kind: str):
    import pyarrow as pa

    return pa.from_numpy_dtype(kind)


def _arrow(name: str, columns: Optional[dict[str, tuple]]):
    """A table of the core's column buffers as Arrow, without pandas (the
    sweep's per-run overhead): numeric buffers are wrapped, not copied."""
    import numpy as np
    import pyarrow as pa

    from .results import ORDERED, _values

    if columns is None:
        return None
    arrays, names = [], []
    for col, c in columns.items():
        kind = c[0]
        if kind == "str":
            a = _strings(c[1])
        elif kind == "cat":
            raw = _values(c[1], "<u4").astype(np.int32)
            cats = list(c[2])
            order = ORDERED.get(col)
            if order is not None and set(cats) <= set(order):
                # The same categories, in quality order (as the DataFrame has them).
                remap = np.array([order.index(x) for x in cats] + [-1], dtype=np.int32)
                raw = remap[np.where((raw >= 0) & (raw < len(cats)), raw, len(cats))]
                cats = list(order)
            valid = raw >= 0  # u32::MAX: no category (NaN R has no band)
            codes = _wrap(pa.int32(), raw, None if valid.all() else valid)
            a = pa.DictionaryArray.from_arrays(codes, _strings(cats), ordered=col in ORDERED)
        elif kind in ("?", "|b1"):
            a = _wrap(pa.bool_(), _values(c[1], "?"))
        elif type(c[1]) is bytes and kind in _WIDTHS and sys.byteorder == "little":
            # The core's little-endian bytes, wrapped as they are (numpy's
            # view of them is the same memory, at ~10 µs a column).
            a = pa.Array.from_buffers(_arrow_type(kind), len(c[1]) // _WIDTHS[kind],
                                      [None, pa.py_buffer(c[1])], null_count=0)
        else:
            a = _wrap(pa.from_numpy_dtype(np.dtype(kind)), _values(c[1], kind))
        arrays.append(a)
        names.append(col)
    return pa.Table.from_arrays(arrays, names=names)


def _wrap(typ, values, valid=None):
    """An Arrow array over a numpy buffer, built from its buffers: no copy
    for numbers, and no pandas (`pa.array(ndarray)` imports it, 0.2-0.4 s
    of a small run's process)."""
    import numpy as np
    import pyarrow as pa

    def bits(b):  # Arrow bitmaps are LSB first
        return pa.py_buffer(np.packbits(b, bitorder="little"))

    data = bits(values) if typ == pa.bool_() else pa.py_buffer(np.ascontiguousarray(values))
    return pa.Array.from_buffers(typ, len(values), [None if valid is None else bits(valid), data],
                                 null_count=-1 if valid is not None else 0)


def _strings(values):
    """A UTF-8 Arrow array from its offsets and bytes (see `_wrap`)."""
    import array
    import itertools

    import pyarrow as pa

    enc = [v.encode() for v in values]
    offsets = array.array("i", itertools.accumulate((len(b) for b in enc), initial=0))
    return pa.Array.from_buffers(pa.string(), len(enc), [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(enc))],
                                 null_count=0)


def _table_of(res, name: str):
    import pyarrow as pa

    raw = getattr(res, "_raw", {})
    if name in raw and name not in getattr(res, "_frames", {}):
        return _arrow(name, raw[name])
    df = res._get(name)
    return None if df is None else pa.Table.from_pandas(df, preserve_index=False)


# Rows a row group of the packets table holds at most (about 23 MB of
# columns at 88 bytes a row), rounded to whole calls.
PACKET_ROW_GROUP = 1 << 18


def write_table(res, name: str, path: Path, ident=None) -> bool:
    """Write one of `res`'s tables as Parquet; False when it has none.
    `ident(n)` gives identity columns (name -> Arrow array of n rows) put
    first. The packets table, while still the core's, is written a row
    group at a time from slices of calls (issue 14): only one slice of its
    columns is ever built, where the whole table costs 88 bytes a row."""
    raw = getattr(res, "_raw", {})
    lazy = raw.get(name) if name not in getattr(res, "_frames", {}) else None
    core = getattr(lazy, "_table", None)
    if core is not None and hasattr(core, "column_of_calls"):
        _write_sliced(core, name, path, ident)
        return True
    t = _table_of(res, name)
    if t is None:
        return False
    write_parquet(_with_ident(t, ident), path)
    return True


def _with_ident(t, ident):
    import pyarrow as pa

    if ident is None:
        return t
    first = ident(t.num_rows)
    return pa.Table.from_arrays(list(first.values()) + t.columns, names=list(first) + t.column_names)


def _slices(rows: list[int], target: int) -> list[tuple[int, int]]:
    """Consecutive call ranges of about `target` rows (at least one call
    each, one range for an empty table)."""
    out, start, n = [], 0, 0
    for c, r in enumerate(rows):
        n += r
        if n >= target:
            out.append((start, c + 1))
            start, n = c + 1, 0
    if start < len(rows) or not out:
        out.append((start, len(rows)))
    return out


def _write_sliced(core, name: str, path: Path, ident) -> None:
    import pyarrow.parquet as pq

    import pyarrow as pa

    names = core.names()
    writer = None
    try:
        for a, b in _slices(core.call_rows(), PACKET_ROW_GROUP):
            t = _with_ident(_arrow(name, dict(zip(names, core.columns_of_calls(names, a, b)))), ident)
            if writer is None:
                cats = [f.name for f in t.schema if pa.types.is_dictionary(f.type)]
                writer = pq.ParquetWriter(path, t.schema, write_statistics=False, use_dictionary=cats or False)
            writer.write_table(t, row_group_size=max(t.num_rows, 1))
            del t
    finally:
        if writer is not None:
            writer.close()


def write_parquet(table, path: Path) -> None:
    """One table as Parquet, the way every result file is written: no column
    statistics and no dictionary pages. With ~90 columns they cost 3x the
    rest of the write (bench/sweep.py), and a result file is read whole.
    Categories survive through the Arrow schema stored in the file."""
    import pyarrow.parquet as pq

    import pyarrow as pa

    # Categorical columns keep dictionary encoding, which stores their whole
    # category list (unobserved bands included) for readers without our
    # ordering, such as a plain pandas.read_parquet.
    cats = [f.name for f in table.schema if pa.types.is_dictionary(f.type)]
    pq.write_table(table, path, write_statistics=False, use_dictionary=cats or False)


def write_run(out: Path, task: dict[str, Any], res) -> bool:
    """Write one run's tables into `out/runs/<run>` atomically. Returns False
    when the run was already there (written by another attempt)."""
    run_id = task["run"]
    final = out / "runs" / run_id
    if final.exists():
        return False
    tmp_root = out / ".tmp"
    tmp_root.mkdir(exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f"{run_id}.", dir=tmp_root))
    try:
        os.chmod(tmp, 0o777 & ~_umask())
        ident = _run_ident(task, run_id)
        for name in RUN_TABLES:
            write_table(res, name, tmp / f"{name}.parquet", ident)
        (tmp / "manifest.json").write_text(json.dumps(res.manifest, indent=1, default=str) + "\n")
        try:
            os.rename(tmp, final)
        except OSError:
            if final.exists():  # another attempt finished first: same key, same results
                shutil.rmtree(tmp, ignore_errors=True)
                return False
            raise
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return True


def _run_ident(task: dict[str, Any], run_id: str):
    """The identity columns of a sweep's run, for n rows: each a value
    repeated, built by Arrow from one scalar (`pa.repeat`; a Python list of
    n values cost 3-8x as much, once per table of every run)."""
    import pyarrow as pa

    scalars = {
        "run": pa.scalar(run_id, pa.string()),
        "point": pa.scalar(task["point"], pa.int64()),
        "replication": pa.scalar(task["replication"], pa.int64()),
        "seed": pa.scalar(task["seed"], pa.uint64()),
    }
    for path, kind in task["axes"].items():
        v = axis_value(task["params"].get(path), kind) if path in task["params"] else None
        typ = {"int": pa.int64(), "float": pa.float64(), "bool": pa.bool_(), "str": pa.string()}[kind]
        scalars[path] = pa.scalar(v, typ)
    for path, (col, _unit) in task.get("numbers", {}).items():
        nv = number_with_unit(task["params"].get(path))
        scalars[col] = pa.scalar(nv[0] if nv else None, pa.float64())

    def ident(n: int) -> dict:
        return {k: pa.repeat(v, n) for k, v in scalars.items()}

    return ident


def prepare(out: Path, manifest: dict[str, Any], force: bool) -> set[str]:
    """Create or reopen the store. Returns the keys of runs already complete.

    Runs are keyed by content, so a store of this sweep, of an earlier
    version of it with fewer points or replications, or of any sweep whose
    complete runs all belong to this one, is reopened as is: its runs are
    kept and only the new ones run (a sweep grows without --force). A store
    holding complete runs that are not part of this sweep is refused unless
    `force`; `force` then removes those runs only (the ones this sweep
    shares are kept). A folder holding something other than a store is
    refused unless `force` (its contents are then removed)."""
    runs_dir = out / "runs"
    if out.exists() and not out.is_dir():
        raise FileExistsError(f"{out} exists and is not a directory")
    existing = out / "sweep.json"
    old: Optional[dict[str, Any]] = None
    if out.is_dir() and any(out.iterdir()):
        if existing.is_file():
            try:
                old = json.loads(existing.read_text())
                if old.get("format") != FORMAT or not isinstance(old.get("runs"), list):
                    old = None
            except (ValueError, TypeError):
                old = None
        if old is None:
            if not force:
                what = "another sweep" if existing.is_file() else "other files"
                raise FileExistsError(f"output {out} holds {what}; choose a new directory or pass --force to replace it")
            for child in out.iterdir():
                shutil.rmtree(child) if child.is_dir() else child.unlink()
        else:
            wanted = {r["run"] for r in manifest["runs"]}
            on_disk = {p.name for p in runs_dir.iterdir() if p.is_dir()} if runs_dir.is_dir() else set()
            stale = sorted(on_disk - wanted)
            if stale and not force:
                raise FileExistsError(
                    f"output {out} holds another sweep: {len(stale)} of its {len(on_disk)} complete runs are not "
                    f"part of this one; choose a new directory or pass --force to remove those {len(stale)} runs "
                    f"(the {len(on_disk) - len(stale)} runs this sweep shares are kept)")
            for run in stale:
                shutil.rmtree(runs_dir / run)
            manifest["sessions"] = list(old.get("sessions", []))
    out.mkdir(parents=True, exist_ok=True)
    runs_dir.mkdir(exist_ok=True)
    shutil.rmtree(out / ".tmp", ignore_errors=True)  # partial runs of a killed sweep
    if old is None or old.get("sweep") != manifest.get("sweep") or old.get("base") != manifest.get("base") \
            or [r["run"] for r in old["runs"]] != [r["run"] for r in manifest["runs"]] or not existing.is_file():
        _atomic_write_text(existing, json.dumps(manifest, indent=1, default=str) + "\n")
    return {p.name for p in runs_dir.iterdir() if p.is_dir()}


def finish(out: Path, extra: dict[str, Any]) -> None:
    """Record the end of a sweep's session (wall time, executor; an
    interrupted session says so) in the manifest, and remove `.tmp/`."""
    try:
        m = json.loads((out / "sweep.json").read_text())
        m.setdefault("sessions", []).append(extra)
        _atomic_write_text(out / "sweep.json", json.dumps(m, indent=1, default=str) + "\n")
    finally:
        shutil.rmtree(out / ".tmp", ignore_errors=True)


class SweepResults:
    """A sweep read back: one DataFrame per table over every complete run,
    with `run`, `point`, `replication`, `seed` and the swept key paths as
    columns; `runs` lists every planned run and whether it is complete."""

    def __init__(self, directory: Path, manifest: dict[str, Any]):
        self.directory = directory
        self.manifest = manifest
        self._frames: dict[str, Any] = {}

    @property
    def axes(self) -> list[str]:
        return list(self.manifest["axes"])

    @property
    def runs(self):
        import pandas as pd

        done = {p.name for p in (self.directory / "runs").iterdir()} if (self.directory / "runs").is_dir() else set()
        rows = []
        for r in self.manifest["runs"]:
            row = {k: r[k] for k in IDENTITY}
            nums = self.numbers()
            for a, kind in self.manifest["axes"].items():
                row[a] = axis_value(r["params"][a], kind) if a in r["params"] else None
                if a in nums:
                    row[nums[a][0]] = (number_with_unit(r["params"].get(a)) or (None,))[0]
            row["complete"] = r["run"] in done
            rows.append(row)
        return pd.DataFrame(rows)

    def table(self, name: str, columns: Optional[list[str]] = None):
        """The table over every complete run; `columns` reads only those
        (with the identity and axis columns; the result is not kept), and
        the frame's `attrs["columns"]` lists every column the files have."""
        if name not in RUN_TABLES:
            raise KeyError(f"{name!r}: expected one of {', '.join(RUN_TABLES)}")
        if columns is not None:
            keep = [*IDENTITY, *self.axes, *(c for nums in self.numbers().values() for c in nums[:1]), *columns]
            df = _read_table(self.directory, name, [r["run"] for r in self.manifest["runs"]], keep)
            if df is None:
                return None
            every = df.attrs["columns"]
            df = self._identity(df)
            df.attrs["columns"] = list(df.columns) + [c for c in every if c not in df.columns]
            return df
        if name not in self._frames:
            df = _read_table(self.directory, name, [r["run"] for r in self.manifest["runs"]])
            self._frames[name] = None if df is None else self._identity(df)
        return self._frames[name]

    def identity(self) -> "Any":
        """One row per complete run: `run`, `point`, `replication`, `seed`
        and the axes (with their numeric siblings)."""
        r = self.runs
        return r[r["complete"]].drop(columns="complete").drop_duplicates("run").reset_index(drop=True)

    def each_run(self):
        """(identity row as a dict, `Results` of the run) for every complete
        run, in manifest order: what a function of one run needs to work
        per run on a store (`fairness`, `rescore`)."""
        from .results import Results

        for row in self.identity().to_dict("records"):
            yield row, Results.load(self.directory / "runs" / row["run"])

    def numbers(self) -> dict[str, list[str]]:
        """Swept axes with units → [numeric column, unit] (`links[1].delay`
        → `["links[1].delay_ms", "ms"]`)."""
        if "axis_numbers" in self.manifest:
            return dict(self.manifest["axis_numbers"])
        values: dict[str, list[Any]] = {}
        for r in self.manifest["runs"]:
            for k, v in r["params"].items():
                values.setdefault(k, []).append(v)
        return numeric_axes({a: values.get(a, []) for a in self.axes})

    def _identity(self, df):
        """Identity and axis columns from the manifest, not the files: a
        run written by an earlier, smaller version of the sweep carries
        the point index it had then (a grown grid renumbers points), and
        no column for an axis added since."""
        import pandas as pd

        if "run" not in df.columns:
            return df
        first: dict[str, dict[str, Any]] = {}
        for r in self.manifest["runs"]:
            first.setdefault(r["run"], r)
        import numpy as np

        runs = df["run"].astype(str)
        # Each mapping is applied to the distinct runs (a row of each, so the
        # same dtype) and spread to the rows by their run's code: the same
        # column as `runs.map(...)`, without mapping every row of a series
        # or packets table (millions) once per axis.
        codes, _ = pd.factorize(runs)
        distinct = runs.iloc[np.unique(codes, return_index=True)[1]].reset_index(drop=True)

        def spread(mapping: dict[str, Any]):
            return pd.Series(distinct.map(mapping).array.take(codes), index=df.index)

        cols: dict[str, Any] = {}
        for k in ("point", "replication"):
            cols[k] = spread({rid: r[k] for rid, r in first.items()}).astype("int64").to_numpy()
        nums = self.numbers()
        for a, kind in self.manifest["axes"].items():
            vals = {rid: (axis_value(r["params"][a], kind) if a in r["params"] else None) for rid, r in first.items()}
            col = spread(vals)
            if a in df.columns:
                try:
                    col = col.astype(df[a].dtype)
                except (TypeError, ValueError):
                    pass
            cols[a] = col.to_numpy() if col.dtype == object else col
            if a in nums:
                numbers = {rid: (number_with_unit(r["params"].get(a)) or (None,))[0] for rid, r in first.items()}
                cols[nums[a][0]] = spread(numbers).astype("float64").to_numpy()
        lead = ["run", "point", "replication", "seed"]
        ident = [c for c in lead if c in df.columns]
        rest = [c for c in df.columns if c not in ident and c not in cols]
        out = pd.concat([df[ident].drop(columns=[c for c in ("point", "replication") if c in ident]),
                         pd.DataFrame(cols, index=df.index), df[rest]], axis=1)
        order = [c for c in lead if c in out.columns] + [c for c in out.columns if c not in lead]
        return out[order]

    def __getattr__(self, name: str):
        if name in RUN_TABLES:
            return self.table(name)
        raise AttributeError(name)

    def __repr__(self) -> str:
        done = sum(1 for _ in (self.directory / "runs").iterdir())
        return f"<SweepResults {self.directory}: {done}/{len(self.manifest['runs'])} runs, axes {self.axes}>"


def _read_table(d: Path, name: str, order: list[str], columns: Optional[list[str]] = None):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from .results import _reordered

    seen: set[str] = set()
    files = []
    for run in order:  # manifest order: points, then replications
        f = d / "runs" / run / f"{name}.parquet"
        if run not in seen and f.is_file():
            files.append(f)
        seen.add(run)
    if not files:
        return None
    if columns is None:
        t = pa.concat_tables([pq.read_table(f) for f in files], promote_options="permissive")
        return _reordered(t.unify_dictionaries().to_pandas())
    parts, every = [], {}
    for f in files:
        pf = pq.ParquetFile(f)
        names = pf.schema_arrow.names
        every.update(dict.fromkeys(names))
        parts.append(pf.read(columns=[c for c in names if c in set(columns)]))
    df = _reordered(pa.concat_tables(parts, promote_options="permissive").unify_dictionaries().to_pandas())
    df.attrs["columns"] = list(every)
    return df


def load(directory: str | os.PathLike) -> Any:
    """Read results: a sweep's store (`talkspurt sweep -o DIR`) as
    `SweepResults`, or one run's folder (`talkspurt run -o DIR`) as `Results`."""
    d = Path(directory)
    if (d / "sweep.json").is_file():
        m = json.loads((d / "sweep.json").read_text())
        if m.get("format") != FORMAT:
            raise ValueError(f"{d}/sweep.json: format {m.get('format')!r}; expected {FORMAT!r}")
        return SweepResults(d, m)
    from .results import Results

    if (d / "manifest.json").is_file():
        return Results.load(d)
    raise FileNotFoundError(f"{d} holds neither sweep.json nor manifest.json; expected a folder written by "
                            "talkspurt sweep or talkspurt run -o")


def manifest_for(sweep, runs, versions: dict[str, Any]) -> dict[str, Any]:

    axes = {}
    values: dict[str, list[Any]] = {}
    for r in runs:
        for k, v in r.params.items():
            values.setdefault(k, []).append(v)
    for a in sweep.axes:
        axes[a] = axis_kind(values.get(a, []))
    return {
        "format": FORMAT,
        "sweep": sweep.spec(),
        "base": sweep.base,
        "source": sweep.origin,
        "axes": axes,
        "axis_numbers": numeric_axes({a: values.get(a, []) for a in sweep.axes}),
        "runs": [{"run": r.run_id, "point": r.point, "replication": r.replication, "seed": r.seed,
                  "params": r.params} for r in runs],
        "versions": versions,
    }


def task_for(r, out: Path, axes: dict[str, str], trace: Optional[bool],
             numbers: Optional[dict[str, list[str]]] = None) -> dict[str, Any]:
    return {"run": r.run_id, "point": r.point, "replication": r.replication, "seed": r.seed,
            "params": r.params, "scenario_json": r.scenario_json, "source_json": r.source_json,
            "out": str(out), "axes": axes, "numbers": numbers or {},
            "trace": trace}
