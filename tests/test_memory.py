"""Memory at the Python boundary (issue 14, targets 3 and 6).

The headline run (bench/dumbbell.toml: 1000 G.711 calls x 60 s, 3 M
packets) in a child process, its peak RSS read from /proc/self/status (VmHWM): the
issue's targets are 100 MB with the trace off and 300 MB with it on,
interpreter included; the bounds here are those targets plus 25 % for
noise between builds and machines (before issue 14's memory work: 131 MB
and 429 MB, and 646 MB once the packets DataFrame was built; after: 81,
104 and 436 MB, bench/README.md "Memory"). And
the packets table reaches pandas without a copy: its columns are the core's
buffers, viewed in place and writable.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import talkspurt
from conftest import ROOT, small_scenario

HEADLINE = ROOT / "bench" / "dumbbell.toml"
MB = 1024.0  # VmHWM is in KiB

# The child's peak is VmHWM (KiB), its own address space's high-water mark:
# Linux carries `ru_maxrss` over from the forking parent across exec, so
# under a pytest process that has grown past the targets it would report
# the parent's size.
CHILD = """
import json, sys
import talkspurt
talkspurt.api.MEANWHILE_AFTER_S = float("inf")  # the run's own peak, not pandas' import beside it
def hwm():
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmHWM:"))
res = talkspurt.run(sys.argv[1], trace=sys.argv[2] == "on")
after_run = hwm()
rows = len(res.packets) if sys.argv[3] == "frame" and res.packets is not None else None
print(json.dumps({"after_run": after_run, "after_frame": hwm(),
                  "packets": res.manifest["voice_packets"], "rows": rows}))
"""


def _peak(trace: str, frame: str) -> dict:
    r = subprocess.run([sys.executable, "-c", CHILD, str(HEADLINE), trace, frame],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc/self/status (Linux)")
def test_headline_peak_rss_within_the_targets():
    off = _peak("off", "none")
    assert off["packets"] == 2_999_001
    assert off["after_run"] / MB <= 1.25 * 100, f"trace off: {off['after_run'] / MB:.1f} MB peak"
    on = _peak("on", "frame")
    assert on["rows"] == 2_999_001
    # run() alone keeps the compact trace (25 bytes a packet); the
    # DataFrame adds its 88-byte rows once, without a second copy.
    assert on["after_run"] / MB <= 1.25 * 300, f"trace on, run(): {on['after_run'] / MB:.1f} MB peak"
    # With the DataFrame: the interpreter with pandas and pyarrow (102 MB
    # measured), the compact trace (25 B a packet) and the 88-byte rows,
    # each held once.
    frame = on["after_frame"] / MB
    expect = 102 + (25 + 88) * on["rows"] / 2**20
    assert frame <= 1.25 * expect, f"trace on, packets DataFrame built: {frame:.1f} MB peak (expected about {expect:.0f})"


def test_packets_columns_reach_pandas_without_a_copy():
    res = talkspurt.run(small_scenario("5s"), trace=True)
    lazy = res._raw["packets"]
    kind, buf = lazy["t_generated"][:2]
    assert kind == "<f8" and not isinstance(buf, bytes)
    view = np.asarray(buf)
    assert view.flags.writeable and view.base is buf  # in place; the buffer lives as long as the view
    df = res.packets
    assert res._raw["packets"] is None  # the frame holds the columns; the core's compact copy is freed
    owners, a = [], df["t_arrived"].to_numpy()
    while a is not None:
        owners.append(type(a).__name__)
        a = getattr(a, "base", None)
    assert "ColumnBuffer" in owners, owners  # the frame views the core's buffer
    # The frame is the user's: writes work (copy on write or in place).
    df.loc[0, "t_arrived"] = 1.0
    assert df.loc[0, "t_arrived"] == 1.0
    # The same values as the core's table, column by column.
    fresh = talkspurt.run(small_scenario("5s"), trace=True)._raw["packets"]
    for name, col in fresh.items():
        if col[0] == "cat":
            assert list(df[name].cat.codes.astype("int64") % 2**32) == list(np.asarray(col[1]))
        elif name != "t_arrived":
            np.testing.assert_array_equal(df[name].to_numpy(), np.asarray(col[1]), err_msg=name)


# Issue 14, target 3: a 24-hour call with the trace off in flat memory.
# Streaming scoring ([analysis] scoring = "streaming") holds only the
# packets not yet settled; exact scoring grows ~17 B a packet while the call
# runs and ~112 B a packet while it is scored (442 MB for a continuous
# 24-hour G.711 call, bench/README.md "Memory").
LONG_CALL = """
[run]
duration = "{duration}"
seed = 11
trace = {trace}

[analysis]
scoring = "{scoring}"
bounds = {bounds}

[[links]]
between = ["a", "b"]
rate = "1Mbps"
delay = "40ms"
loss = {{ kind = "gilbert-elliott", p = 0.01, r = 0.3 }}

[[calls]]
count = 1
from = "a"
to = "b"
codec = "G.711"
speech = {{ model = "exponential", talk = "1s", silence = "1.5s" }}
playout = {{ kind = "ramjee-1" }}
"""

LONG_CHILD = """
import json, sys
import talkspurt
# The run's own peak: a run past api.MEANWHILE_AFTER_S imports pandas
# (~90 MB) beside the core, the day's call would and the hour's not.
talkspurt.api.MEANWHILE_AFTER_S = float("inf")
res = talkspurt.run(sys.argv[1])
with open("/proc/self/status") as f:
    hwm = next(int(l.split()[1]) for l in f if l.startswith("VmHWM:"))
c = res.calls.iloc[0]
print(json.dumps({"hwm": hwm, "packets": res.manifest["voice_packets"],
                  "generated": int(c["generated"]), "played": int(c["played"]),
                  "p95": float(c["delay_p95_ms"]), "p99": float(c["delay_p99_ms"]),
                  "bound_r": float(c["bound_r"]), "fixed_r": float(c["fixed_r"])}))
"""


# The CLI's `talkspurt run` as a process, its table printed (issue 26
# target 3: peak RSS at most 1.5x ns-2's 32.9 MB with the trace off, 2.5x
# with it on). The core packs a call's record blocks once their packets
# have settled (trace::pack): measured 31.5 MB and 56.2 MB (before: 75.9
# and 101.3 MB, the 17-byte rows of 3 M packets).
CLI_CHILD = """
import json, sys, io, contextlib
from talkspurt.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    rc = main(["run", sys.argv[1]] + sys.argv[2:])
with open("/proc/self/status") as f:
    hwm = next(int(l.split()[1]) for l in f if l.startswith("VmHWM:"))
print(json.dumps({"rc": rc, "hwm": hwm, "modules": sorted(m for m in sys.modules if m.split(".")[0] in ("pandas", "pyarrow", "numpy")), "lines": len(out.getvalue().splitlines())}))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc/self/status (Linux)")
def test_cli_peak_rss_within_target_3():
    ns2_mb = 32.9  # ns-2's peak on the same run (bench/README.md, Headline)
    for args, factor in ((["--no-trace"], 1.5), ([], 2.5)):
        r = subprocess.run([sys.executable, "-c", CLI_CHILD, str(HEADLINE), *args], capture_output=True, text=True,
                           timeout=600)
        assert r.returncode == 0, r.stderr[-2000:]
        got = json.loads(r.stdout.strip().splitlines()[-1])
        assert got["rc"] == 0 and got["lines"] > 2, got
        assert got["modules"] == [], f"the CLI's table imported {got['modules']}"
        mb = got["hwm"] / MB
        assert mb <= factor * ns2_mb, f"talkspurt run {' '.join(args)}: {mb:.1f} MB peak > {factor} x ns-2's {ns2_mb} MB"


TRIM_CHILD = """
import json, sys
import pandas  # talkspurt.run() imports it while the core runs: not the run's memory
import talkspurt
def status(key):
    with open("/proc/self/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith(key + ":"))
before = status("VmRSS")
res = talkspurt.run(sys.argv[1], trace=False)
print(json.dumps({"before": before, "hwm": status("VmHWM"), "after": status("VmRSS"), "calls": len(res.summary_columns()["call"])}))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc/self/status (Linux)")
def test_run_hands_its_heap_back():
    """After `run()` the memory the run freed is the system's again
    (malloc_trim in the binding): whatever the process does next adds to
    what the results hold, not to the run's peak. Measured on the headline
    (pandas not yet imported): 17 MB before, 31 MB peak, 20 MB after; on
    bench/tcp_mix_big.toml with res.calls the peak fell from 144 to 117 MB.
    Since 2026-11-29 `run()` imports pandas (~90 MB) while the core runs
    (`api._import_pandas`), so the child imports it first."""
    r = subprocess.run([sys.executable, "-c", TRIM_CHILD, str(HEADLINE)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["calls"] == 1000
    ran, kept = got["hwm"] - got["before"], got["after"] - got["before"]
    assert ran > 8 * 1024, got  # the run did grow the process
    assert kept <= 0.5 * ran, f"{kept / MB:.1f} of the run's {ran / MB:.1f} MB still resident: {got}"


def _long_call(tmp_path, duration: str, scoring: str, trace: bool = False, bounds: bool = True) -> dict:
    path = tmp_path / f"call_{duration}_{scoring}_{trace}_{bounds}.toml"
    path.write_text(LONG_CALL.format(duration=duration, scoring=scoring, trace=str(trace).lower(), bounds=str(bounds).lower()))
    r = subprocess.run([sys.executable, "-c", LONG_CHILD, str(path)], capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(sys.platform != "linux", reason="reads /proc/self/status (Linux)")
def test_day_long_call_streams_in_flat_memory(tmp_path):
    hour = _long_call(tmp_path, "60min", "streaming")
    day = _long_call(tmp_path, "1440min", "streaming")
    # On/off speech: about 40 % of 50 packets a second.
    assert day["packets"] > 20 * hour["packets"] > 20 * 50_000, (hour, day)
    assert day["generated"] == day["packets"] and 0 < day["played"] < day["generated"]
    # Exact scoring would grow by ~112 B a packet at its peak (~190 MB
    # more for the day); streaming must not grow by more than 8 MB, a
    # twentieth of that, over 23 more hours.
    grow = (day["hwm"] - hour["hwm"]) / MB
    per_packet = (day["hwm"] - hour["hwm"]) * 1024 / (day["packets"] - hour["packets"])
    assert grow <= 8, f"1 h: {hour['hwm'] / MB:.1f} MB, 24 h: {day['hwm'] / MB:.1f} MB ({per_packet:.2f} B a packet)"
    # Issue 26 target 4: exact scoring with the trace off folds a long call
    # as it runs (run::FOLD_FROM_S), exact percentiles from counts of the
    # distinct delays: without the offline bounds as flat as streaming
    # (measured natively: 4.1 MB for the hour, 4.2 MB for the day;
    # bench/long_call.py). With the bounds each talkspurt's distinct
    # delays are kept and solved at the end without per-packet arrays:
    # this on/off call grows with its talkspurts table (~180 B a
    # talkspurt: 5.4-6.3 MB a day natively, against 85 MB a day when the
    # solve expanded the delays, ~48 B a packet); asserted below 12 MB.
    fold_hour = _long_call(tmp_path, "60min", "exact", bounds=False)
    fold_day = _long_call(tmp_path, "1440min", "exact", bounds=False)
    grow = (fold_day["hwm"] - fold_hour["hwm"]) / MB
    assert grow <= 8, f"exact fold: 1 h {fold_hour['hwm'] / MB:.1f} MB, 24 h {fold_day['hwm'] / MB:.1f} MB"
    # The same values as scoring the recorded packets (trace on), bounds
    # included; and the measurement sees growth: the recorded day grows by
    # more than 100 MB.
    bounded = _long_call(tmp_path, "1440min", "exact")
    bounded_hour = _long_call(tmp_path, "60min", "exact")
    grow = (bounded["hwm"] - bounded_hour["hwm"]) / MB
    assert grow <= 12, f"exact fold with bounds: 1 h {bounded_hour['hwm'] / MB:.1f} MB, 24 h {bounded['hwm'] / MB:.1f} MB"
    recorded = _long_call(tmp_path, "1440min", "exact", trace=True)
    assert (recorded["hwm"] - fold_hour["hwm"]) / MB > 100, recorded
    keys = ("played", "p95", "p99")
    assert [fold_day[k] for k in keys] == [recorded[k] for k in keys], (fold_day, recorded)
    keys += ("bound_r", "fixed_r")
    assert [bounded[k] for k in keys] == [recorded[k] for k in keys], (bounded, recorded)
    assert recorded["played"] == day["played"]


def test_packets_parquet_is_written_a_slice_of_calls_at_a_time(tmp_path, monkeypatch):
    """Issue 14, target 6: the packets table goes to Parquet a row group at
    a time, each built from a slice of whole calls, and reads back as the
    table written whole."""
    import pyarrow.parquet as pq

    from talkspurt import store

    res = talkspurt.run(small_scenario("20s"), trace=True)
    whole = store._arrow("packets", res._raw["packets"])
    store.write_parquet(whole, tmp_path / "whole.parquet")
    monkeypatch.setattr(store, "PACKET_ROW_GROUP", 100)  # every call its own row group
    out = res.save(tmp_path / "out")
    f = pq.ParquetFile(out / "packets.parquet")
    calls = len(res.calls)
    assert f.metadata.num_row_groups == calls == 3
    assert [f.metadata.row_group(i).num_rows for i in range(calls)] == res._raw["packets"]._table.call_rows()
    sliced, ref = pq.read_table(out / "packets.parquet"), pq.read_table(tmp_path / "whole.parquet")
    assert sliced.schema.equals(ref.schema) and sliced.num_rows == ref.num_rows > 500
    # Arrow's equality has NaN unequal (not-arrived times): compare in pandas.
    import pandas as pd

    pd.testing.assert_frame_equal(sliced.to_pandas(), ref.to_pandas())
