"""Small runs stay small (issue 14, target 5): `talkspurt run` prints its
table without importing pandas, and the table it prints from the core's raw
columns is the one the DataFrame gives."""

from __future__ import annotations

import subprocess
import sys
import time

import talkspurt
from talkspurt.cli import MAX_ROWS, PERCENT, SUMMARY
from talkspurt.summary import columns_from_frame, columns_from_raw, format_table
from conftest import ROOT, small_scenario


def test_cli_run_prints_without_pandas_or_numpy():
    code = ("import sys; from talkspurt.cli import main; "
            f"rc = main(['run', {str(ROOT / 'scenarios' / 'quickstart.toml')!r}]); "
            "print('IMPORTED', sorted(m for m in ('pandas', 'numpy', 'pyarrow') if m in sys.modules), rc)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "IMPORTED [] 0" in r.stdout, r.stdout[-500:]
    assert "R_cr_opt" in r.stdout


def test_cli_run_writes_results_without_pandas(tmp_path):
    # Parquet needs pyarrow, not pandas: the core's buffers become Arrow
    # arrays directly, and a plain pandas reader gets every category back.
    import pandas as pd

    out = tmp_path / "out"
    code = ("import sys; from talkspurt.cli import main; "
            f"rc = main(['run', {str(ROOT / 'scenarios' / 'quickstart.toml')!r}, '-q', '-o', {str(out)!r}]); "
            "print('IMPORTED', 'pandas' in sys.modules, rc)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "IMPORTED False 0" in r.stdout, (r.stdout[-500:], r.stderr[-2000:])
    back = pd.read_parquet(out / "calls.parquet")
    res = talkspurt.run(ROOT / "scenarios" / "quickstart.toml")
    pd.testing.assert_frame_equal(back, res.calls, check_dtype=False)
    assert back.band.cat.ordered and list(back.band.cat.categories)[0] == "Not recommended"
    packets = pd.read_parquet(out / "packets.parquet")
    pd.testing.assert_frame_equal(packets, res.packets, check_dtype=False)


def test_run_imports_pandas_while_a_long_core_runs(monkeypatch):
    # The core holds no GIL, so once a run has lasted MEANWHILE_AFTER_S
    # `talkspurt.run()` imports pandas (0.3-0.7 s, what a table read after
    # the run would pay) on the main thread while the core thread runs. A
    # stand-in core that waits for the import shows the two overlap: called
    # after the core returned, the import would find it timed out.
    import threading

    from talkspurt import api

    imported = threading.Event()

    def core_run(*args):
        assert threading.current_thread().name == "talkspurt-run"
        return {"overlapped": imported.wait(30)}

    monkeypatch.setattr(api._core, "run", core_run)
    t0 = time.perf_counter()
    raw = api._run_core("{}", None, False, None, None, "capture", False, imported.set)
    assert raw == {"overlapped": True}
    assert time.perf_counter() - t0 >= api.MEANWHILE_AFTER_S  # not before


def test_a_short_core_run_calls_nothing_meanwhile(monkeypatch):
    # A core that returns at once: `meanwhile` (pandas' import) is never
    # called, so a caller that reads no table never pays it.
    from talkspurt import api

    called = []
    monkeypatch.setattr(api._core, "run", lambda *args: {"done": True})
    assert api._run_core("{}", None, False, None, None, "capture", False, lambda: called.append(1)) == {"done": True}
    assert called == []


def test_a_short_run_imports_nothing_for_its_tables():
    # quickstart.toml runs in milliseconds: `talkspurt.run()` leaves pandas
    # to the first table read. (On a machine so loaded that the run itself
    # takes MEANWHILE_AFTER_S, importing it is right: the line says which.)
    from talkspurt.api import MEANWHILE_AFTER_S

    code = ("import sys, talkspurt; "
            f"res = talkspurt.run({str(ROOT / 'scenarios' / 'quickstart.toml')!r}); "
            "print('IMPORTED', 'pandas' in sys.modules, res.manifest['wall_time_s'])")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    line = next(l for l in r.stdout.splitlines() if l.startswith("IMPORTED"))
    _, imported, wall = line.split()
    assert imported == "False" or float(wall) >= MEANWHILE_AFTER_S, (line, r.stderr[-2000:])


def _both(res):
    raw = columns_from_raw(res._raw["calls"])
    framed = columns_from_frame(res.calls)
    return (format_table(raw, SUMMARY, PERCENT, MAX_ROWS), format_table(framed, SUMMARY, PERCENT, MAX_ROWS))


def test_raw_and_frame_tables_agree_per_call_and_per_group():
    res = talkspurt.run(small_scenario(duration="4s"))
    a, b = _both(res)
    assert a == b and len(a.splitlines()) == 1 + len(res.calls)
    # above MAX_ROWS calls: means per group, with the group's call count
    many = talkspurt.run(small_scenario(duration="2s").replace("count = 3", "count = 25", 1))
    a, b = _both(many)
    assert a == b and a.startswith("(25 calls: means per group")
    body = a.splitlines()
    header = body[1].split()
    assert header[:4] == ["group", "codec", "transport", "calls"]
    row = dict(zip(header, body[2].split()))
    assert row["calls"] == "25"
    assert float(row["loss%"]) == round(100 * many.calls.loss_total.mean(), 2)


def test_records_written_beside_the_loop_give_the_same_results():
    # `defer_records` (the core's RecordLog): the calls' records written on
    # a second thread while the loop runs, or by the loop itself; a pool's
    # workers ask for the latter. Every table is the same either way.
    from talkspurt.api import _run

    doc = small_scenario(duration="3s")
    a, b = (_run(doc, trace=True, defer_records=d) for d in (True, False))
    for name in ("calls", "packets", "groups", "links", "bursts"):
        x, y = getattr(a, name), getattr(b, name)
        assert x is not None and len(x) > 0, name
        assert x.equals(y), name


def test_pool_workers_record_in_the_loop(monkeypatch, tmp_path):
    # A sweep's worker runs beside the others on every core: its records
    # are written by its loop (`executors.execute` passes False).
    from talkspurt import api, executors

    seen = []
    real = api._run_core

    def spy(*args):
        seen.append(args[-1])
        return real(*args)

    monkeypatch.setattr(api, "_run_core", spy)
    import json
    import tomllib

    from talkspurt import store

    monkeypatch.setattr(store, "write_run", lambda out, task, res: True)
    doc = tomllib.loads(small_scenario(duration="1s"))
    executors.execute({"out": str(tmp_path), "run": "r0", "trace": False, "scenario_json": json.dumps(doc)})
    assert seen == [False]


def test_a_run_imports_no_typing_tomllib_datetime_or_copy():
    # Issue 26: `import talkspurt` and a run from a TOML file load neither
    # typing nor tomllib (the core reads TOML: scenario/toml_doc.rs), nor
    # datetime, copy or (at import) pathlib: ~16 ms of each process's
    # ~180 ms on the headline. pathlib may come with the run in a checkout,
    # where `versions` reads git's files. (A base interpreter's .pth hooks
    # may load some of them before talkspurt: only what talkspurt adds counts.)
    code = ("import sys; WATCH = ('typing', 'tomllib', 'datetime', 'copy', 'pathlib'); "
            "before = set(sys.modules); added = lambda: sorted(m for m in WATCH if m in sys.modules and m not in before); "
            "import talkspurt; at_import = added(); "
            f"res = talkspurt.run({str(ROOT / 'scenarios' / 'quickstart.toml')!r}); "
            "print('IMPORTED', at_import, [m for m in added() if m != 'pathlib'])")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "IMPORTED [] []" in r.stdout, (r.stdout[-500:], r.stderr[-2000:])
