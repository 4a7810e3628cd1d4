"""The bad-input contract of the CLI and the API.

Contract (python/talkspurt/cli.py, docs/scenario.md):
- bad input (scenario, arguments, output folder) → exit status 2, a single
  line on stderr starting with "talkspurt: error:" that names the key path,
  no traceback, and no output files (not even a partial or temporary folder);
- the API raises `talkspurt.ScenarioError` whose `.path` is that key path
  ("" for the document itself, shown as "(scenario)").
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pandas as pd
import pytest

import talkspurt

ROOT = Path(__file__).resolve().parent.parent
QUICKSTART = ROOT / "scenarios" / "quickstart.toml"
from talkspurt.results import TABLES  # noqa: E402
# series.parquet only with `[run] series = true` (off in these scenarios).
OUTPUT_FILES = {f"{t}.parquet" for t in TABLES if t != "series"} | {"manifest.json"}

# --------------------------------------------------------------------------
# A valid, short base scenario, assembled from parts so that each bad case
# changes exactly one thing.

BASE = {
    "run": 'duration = "2s"\nseed = 3\n',
    "link0": 'between = ["a", "r"]\nrate = "10Mbps"\ndelay = "1ms"\n',
    "link1": ('between = ["r", "b"]\nrate = "250kbps"\ndelay = "20ms"\n'
              'queue = { kind = "droptail", limit = "20p" }\n'
              'loss = { kind = "bernoulli", p = 0.01 }\n'),
    "call0": ('count = 2\nfrom = "a"\nto = "b"\ncodec = "G.711"\nptime = "20ms"\n'
              'speech = { model = "exponential", talk = "1s", silence = "1.5s" }\n'),
    "traffic0": 'from = "a"\nto = "b"\nkind = "poisson"\nrate = "50kbps"\npacket = "500B"\n',
}


def scenario(top: str = "", **parts: str) -> str:
    p = {**BASE, **parts}
    return (f"{top}[run]\n{p['run']}\n"
            f"[[links]]\n{p['link0']}\n"
            f"[[links]]\n{p['link1']}\n"
            f"[[calls]]\n{p['call0']}\n"
            f"[[traffic]]\n{p['traffic0']}")


def edit(part: str, old: str, new: str, top: str = "") -> str:
    """The base scenario with `old` replaced by `new` in one part (which must contain it)."""
    assert old in BASE[part], (part, old)
    return scenario(top, **{part: BASE[part].replace(old, new)})


# (id, TOML text, expected ScenarioError.path); the path is also what the
# CLI must name ("" is shown as "(scenario)").
CORPUS = [
    ("negative_rate", edit("link0", '"10Mbps"', '"-10Mbps"'), "links[0].rate"),
    ("unknown_codec", edit("call0", '"G.711"', '"G.999"'), "calls[0].codec"),
    ("ptime_not_frame_multiple", edit("call0", '"G.711"', '"G.723.1-6.3"'), "calls[0].ptime"),
    ("ptime_above_1s", edit("call0", '"20ms"', '"1200ms"'), "calls[0].ptime"),  # up to 1 s (seed 004's 512 ms packets)
    ("ptime_below_10ms", edit("call0", '"20ms"', '"5ms"'), "calls[0].ptime"),
    ("unreachable_endpoint", edit("link1", '["r", "b"]', '["x", "b"]'), "calls[0].to"),
    ("missing_run_duration", edit("run", 'duration = "2s"\n', ""), "run.duration"),
    ("missing_link_rate", edit("link0", 'rate = "10Mbps"\n', ""), "links[0].rate"),
    ("missing_call_codec", edit("call0", 'codec = "G.711"\n', ""), "calls[0].codec"),
    ("missing_between", edit("link0", 'between = ["a", "r"]\n', ""), "links[0].between"),
    ("missing_run_table", scenario().replace('[run]\nduration = "2s"\nseed = 3\n', ""), "run"),
    ("unknown_key_top_level", scenario(top='colour = "red"\n'), "colour"),
    ("unknown_key_in_calls", edit("call0", "count = 2\n", 'count = 2\ncolour = "red"\n'), "calls[0].colour"),
    ("unknown_key_in_queue", edit("link1", 'limit = "20p"', 'limt = "20p"'), "links[1].queue.limt"),
    ("unknown_key_in_speech", edit("call0", 'talk = "1s"', 'tlak = "1s"'), "calls[0].speech.tlak"),
    ("wrong_unit", edit("link0", '"1ms"', '"20 parsecs"'), "links[0].delay"),
    ("missing_unit", edit("link0", 'delay = "1ms"', "delay = 20"), "links[0].delay"),
    ("zero_length_run", edit("run", '"2s"', '"0s"'), "run.duration"),
    ("run_over_30_days", edit("run", '"2s"', '"43201min"'), "run.duration"),
    ("absurd_count", edit("call0", "count = 2", "count = 10000000"), "calls[0].count"),
    ("negative_count", edit("call0", "count = 2", "count = -1"), "calls[0].count"),
    ("absurd_packet", edit("traffic0", '"500B"', '"100000B"'), "traffic[0].packet"),
    ("absurd_rate_5Tbps", edit("link0", '"10Mbps"', '"5Tbps"'), "links[0].rate"),
    ("rate_over_1Tbps", edit("link0", '"10Mbps"', '"1001Gbps"'), "links[0].rate"),
    ("count_is_string", edit("call0", "count = 2", 'count = "four"'), "calls[0].count"),
    ("between_is_string", edit("link0", '["a", "r"]', '"a"'), "links[0].between"),
    ("link_to_itself", edit("link0", '["a", "r"]', '["a", "a"]'), "links[0].between[1]"),
    ("toml_syntax_error", edit("link1", 'rate = "250kbps"', "rate = 250kbps"), ""),
    ("loss_p_above_1", edit("link1", "p = 0.01", "p = 1.5"), "links[1].loss.p"),
    ("from_equals_to", edit("call0", 'to = "b"', 'to = "a"'), "calls[0].to"),
    # TOML has types JSON lacks: the error must still name the key.
    ("toml_date_as_duration", edit("run", 'duration = "2s"', "duration = 1979-05-27"), "run.duration"),
    ("nan_loss_p", edit("link1", "p = 0.01", "p = nan"), "links[1].loss.p"),
    ("inf_count", edit("call0", "count = 2", "count = inf"), "calls[0].count"),
    # Playout buffers, advantage factor, [analysis].
    ("unknown_playout_kind",
     edit("call0", "count = 2\n", 'count = 2\nplayout = { kind = "adaptive" }\n'), "calls[0].playout.kind"),
    ("ramjee_alpha_is_1",
     edit("call0", "count = 2\n", 'count = 2\nplayout = { kind = "ramjee-1", alpha = 1.0 }\n'),
     "calls[0].playout.alpha"),
    ("key_of_another_playout_kind",
     edit("call0", "count = 2\n", 'count = 2\nplayout = { kind = "ramjee-1", delay = "100ms" }\n'),
     "calls[0].playout.delay"),
    ("zero_fixed_depth",
     edit("call0", "count = 2\n", 'count = 2\nplayout = { kind = "fixed-depth", depth = 0 }\n'),
     "calls[0].playout.depth"),
    ("quantile_max_below_min",
     edit("call0", "count = 2\n",
          'count = 2\nplayout = { kind = "quantile", min_depth = "50ms", max_depth = "20ms" }\n'),
     "calls[0].playout.max_depth"),
    ("advantage_above_40", edit("call0", "count = 2\n", "count = 2\nadvantage = 41\n"), "calls[0].advantage"),
    ("trunk_timer_above_1s", edit("call0", "count = 2\n", 'count = 2\ntrunk = { interval = "2s" }\n'),
     "calls[0].trunk.interval"),
    ("unknown_key_in_trunk", edit("call0", "count = 2\n", 'count = 2\ntrunk = { timer = "20ms" }\n'),
     "calls[0].trunk.timer"),
    ("zero_rtpi_threshold", scenario(top='[analysis]\nrtpi_threshold = "0s"\n'), "analysis.rtpi_threshold"),
    ("unknown_rtpi_missing", scenario(top='[analysis]\nrtpi_missing = "late"\n'), "analysis.rtpi_missing"),
    ("unknown_key_in_analysis", scenario(top='[analysis]\nthreshold = "1s"\n'), "analysis.threshold"),
    # Held-out QA (session 18): each named another key, or was accepted.
    ("dccp_packet_on_a_call",  # accepted and inert (seed 000 reviewer)
     edit("call0", "count = 2\n", 'count = 2\ntransport = { kind = "dccp", ccid = 4, packet = "1500B" }\n'),
     "calls[0].transport.packet"),
    ("queue_limit_wrong_case", edit("link1", 'limit = "20p"', 'limit = "16KB"'), "links[1].queue.limit"),
    ("avoip_ptime_off_the_frame",  # was blamed on G.711's frame
     edit("call0", 'ptime = "20ms"\n', 'ptime = "125ms"\nadapt = { kind = "avoip" }\n'
          'rtcp = { interval = "fixed", min_interval = "1s" }\n'), "calls[0].ptime"),
    ("avoip_start_rate_off_the_ladder",  # accepted, the source then ran at 12.03/20.03 kb/s
     edit("call0", 'ptime = "20ms"\n', 'adapt = { kind = "avoip", start_rate = "12kbps" }\n'
          'rtcp = { interval = "fixed", min_interval = "1s" }\n'), "calls[0].adapt.start_rate"),
    ("fr_md_without_faster_restart",
     edit("call0", "count = 2\n", 'count = 2\ntransport = { kind = "dccp", ccid = 4, variant = "fr-md" }\n'),
     "calls[0].transport.variant"),
]

# Files the CLI reads. An empty file parses as an empty TOML document: no [run].
FILE_CASES = CORPUS + [("empty_file", "", "run")]


def shown(path: str) -> str:
    return path or "(scenario)"


def talkspurt_cli(*args: str, cwd: Optional[Path] = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "talkspurt", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=120)


def assert_one_line_error(r: subprocess.CompletedProcess, path: Optional[str] = None) -> None:
    """Exit 2; stderr is one line "talkspurt: error: <path>: got ..."; no traceback."""
    report = f"exit {r.returncode}\nstdout: {r.stdout!r}\nstderr: {r.stderr!r}"
    assert "Traceback" not in r.stderr, report
    assert r.returncode == 2, report
    assert r.stderr.startswith("talkspurt: error:"), report
    assert r.stderr.endswith("\n") and r.stderr.count("\n") == 1, report
    if path is not None:
        assert r.stderr.startswith(f"talkspurt: error: {shown(path)}: got "), report


def short_quickstart(tmp_path: Path) -> Path:
    """scenarios/quickstart.toml with a 20 s run (its 4 calls start 5 s
    apart, and a source must start before the run ends)."""
    text = QUICKSTART.read_text()
    assert 'duration = "120s"' in text
    f = tmp_path / "quickstart-20s.toml"
    f.write_text(text.replace('duration = "120s"', 'duration = "20s"'))
    return f


# --------------------------------------------------------------------------
# The corpus through the CLI.

@pytest.mark.parametrize("text, path", [c[1:] for c in FILE_CASES], ids=[c[0] for c in FILE_CASES])
def test_cli_run_rejects_bad_scenario(tmp_path, text, path):
    f = tmp_path / "scenario.toml"
    f.write_text(text)
    out = tmp_path / "out"
    r = talkspurt_cli("run", str(f), "-o", str(out))
    assert_one_line_error(r, path)
    assert r.stdout == ""
    assert not out.exists(), f"output folder created: {sorted(os.listdir(out))}"
    assert sorted(os.listdir(tmp_path)) == ["scenario.toml"], "stray files beside the output folder"


@pytest.mark.parametrize("text, path", [c[1:] for c in FILE_CASES], ids=[c[0] for c in FILE_CASES])
def test_cli_validate_rejects_bad_scenario(tmp_path, text, path):
    f = tmp_path / "scenario.toml"
    f.write_text(text)
    r = talkspurt_cli("validate", str(f))
    assert_one_line_error(r, path)
    assert r.stdout == ""
    assert sorted(os.listdir(tmp_path)) == ["scenario.toml"]


def test_cli_toml_syntax_error_names_file_and_line(tmp_path):
    f = tmp_path / "scenario.toml"
    f.write_text(edit("link1", 'rate = "250kbps"', "rate = 250kbps"))
    r = talkspurt_cli("validate", str(f))
    assert_one_line_error(r, "")
    assert str(f) in r.stderr and "line 12" in r.stderr, r.stderr


@pytest.mark.parametrize("command", [["run", "-o", "OUT"], ["validate"]], ids=["run", "validate"])
def test_cli_scenario_file_not_found(tmp_path, command):
    missing = tmp_path / "nothere.toml"
    args = [command[0], str(missing), *[str(tmp_path / "out") if a == "OUT" else a for a in command[1:]]]
    r = talkspurt_cli(*args)
    assert_one_line_error(r, "")
    assert str(missing) in r.stderr
    assert os.listdir(tmp_path) == []


def test_cli_scenario_is_a_directory(tmp_path):
    (tmp_path / "adir").mkdir()
    r = talkspurt_cli("run", str(tmp_path / "adir"), "-o", str(tmp_path / "out"))
    assert_one_line_error(r, "")
    assert sorted(os.listdir(tmp_path)) == ["adir"]


def test_cli_scenario_not_utf8(tmp_path):
    f = tmp_path / "scenario.toml"
    f.write_bytes(b"\xff\xfe[run]\n")
    r = talkspurt_cli("run", str(f), "-o", str(tmp_path / "out"))
    assert_one_line_error(r, "")
    assert "UTF-8" in r.stderr
    assert sorted(os.listdir(tmp_path)) == ["scenario.toml"]


# --------------------------------------------------------------------------
# The corpus through the API.

@pytest.mark.parametrize("text, path", [c[1:] for c in CORPUS], ids=[c[0] for c in CORPUS])
def test_api_validate_text_raises_with_path(text, path):
    with pytest.raises(talkspurt.ScenarioError) as ei:
        talkspurt.validate(text)
    e = ei.value
    assert isinstance(e, ValueError)
    assert e.path == path, str(e)
    # The message is "<path>: got <value>; expected <allowed>".
    assert str(e) == f"{shown(path)}: got {e.value}; expected {e.allowed}"


@pytest.mark.parametrize("text, path", [c[1:] for c in FILE_CASES], ids=[c[0] for c in FILE_CASES])
def test_api_validate_file_raises_with_path(tmp_path, text, path):
    f = tmp_path / "scenario.toml"
    f.write_text(text)
    for arg in (f, str(f)):
        with pytest.raises(talkspurt.ScenarioError) as ei:
            talkspurt.validate(arg)
        assert ei.value.path == path, str(ei.value)


@pytest.mark.parametrize("text, path", [c[1:] for c in CORPUS], ids=[c[0] for c in CORPUS])
def test_api_run_raises_with_same_path(tmp_path, text, path):
    with pytest.raises(talkspurt.ScenarioError) as ei:
        talkspurt.run(text)
    assert ei.value.path == path, str(ei.value)


@pytest.mark.parametrize("arg", ["", "/nonexistent/dir/scenario.toml", "nothere.toml"],
                         ids=["empty_string", "absolute_missing", "relative_missing"])
def test_api_validate_missing_file(arg):
    with pytest.raises(talkspurt.ScenarioError) as ei:
        talkspurt.validate(arg)
    assert ei.value.path == ""
    assert json.dumps(arg) in str(ei.value)


def test_api_validate_missing_pathlike(tmp_path):
    with pytest.raises(talkspurt.ScenarioError) as ei:
        talkspurt.validate(tmp_path / "nothere.toml")
    assert ei.value.path == ""


def test_api_validate_wrong_argument_type():
    with pytest.raises(talkspurt.ScenarioError) as ei:
        talkspurt.validate(42)  # type: ignore[arg-type]
    assert ei.value.path == ""


@pytest.mark.parametrize("seed", [-1, "x", True, 1.5, 2**64], ids=["negative", "string", "bool", "float", "2^64"])
def test_api_run_rejects_bad_seed(seed):
    with pytest.raises(talkspurt.ScenarioError, match=r"^seed: got "):
        talkspurt.run(scenario(), seed=seed)


@pytest.mark.parametrize("seed", [-1, "x"], ids=["negative", "string"])
def test_api_seed_error_carries_path(seed):
    # Every ScenarioError carries path/value/allowed (see _core.pyi).
    with pytest.raises(talkspurt.ScenarioError) as ei:
        talkspurt.run(scenario(), seed=seed)
    e = ei.value
    assert getattr(e, "path", None) == "seed", f"{e!r}: path={getattr(e, 'path', '(no attribute)')!r}"
    assert getattr(e, "value", None) == repr(seed)
    assert isinstance(getattr(e, "allowed", None), str)


def test_api_good_scenario_validates():
    # The base of the corpus is itself valid, so each case fails for its one change.
    v = talkspurt.validate(scenario())
    assert v["run"]["duration"] == "2s"


# --------------------------------------------------------------------------
# CLI seed handling.

@pytest.mark.parametrize("seed", ["-1", str(2**64)], ids=["negative", "2^64"])
def test_cli_bad_seed(tmp_path, seed):
    f = tmp_path / "scenario.toml"
    f.write_text(scenario())
    out = tmp_path / "out"
    r = talkspurt_cli("run", str(f), "--seed", seed, "-o", str(out))
    assert_one_line_error(r, "seed")
    assert sorted(os.listdir(tmp_path)) == ["scenario.toml"]


def test_cli_seed_not_an_integer(tmp_path):
    f = tmp_path / "scenario.toml"
    f.write_text(scenario())
    r = talkspurt_cli("run", str(f), "--seed", "x", "-o", str(tmp_path / "out"))
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "--seed" in r.stderr
    assert sorted(os.listdir(tmp_path)) == ["scenario.toml"]


# --------------------------------------------------------------------------
# Output-folder safety.

def test_output_dir_not_empty_is_refused(tmp_path):
    out = tmp_path / "results"
    out.mkdir()
    keep = out / "notes.txt"
    keep.write_text("my notes\n")
    mtime = keep.stat().st_mtime_ns
    r = talkspurt_cli("run", str(QUICKSTART), "-o", str(out))
    assert_one_line_error(r)
    assert str(out) in r.stderr and "--force" in r.stderr
    assert os.listdir(out) == ["notes.txt"]
    assert keep.read_text() == "my notes\n" and keep.stat().st_mtime_ns == mtime
    assert os.listdir(tmp_path) == ["results"]


def read_results(out: Path) -> dict:
    assert {p.name for p in out.iterdir()} == OUTPUT_FILES
    frames = {t: pd.read_parquet(out / f"{t}.parquet") for t in TABLES if t != "series"}
    manifest = json.loads((out / "manifest.json").read_text())
    return {**frames, "manifest": manifest}


def check_quickstart_results(res: dict) -> None:
    assert len(res["calls"]) == 4 and set(res["calls"]["codec"]) == {"G.711"}
    assert len(res["packets"]) > 0
    assert len(res["links"]) == 4  # two links, two directions
    assert len(res["traffic"]) == 1
    assert "series" not in res  # `[run] series` is off: no table written
    m = res["manifest"]
    for key in ("seed", "scenario", "versions", "wall_time_s"):
        assert key in m, key
    assert m["seed"] == 7
    assert m["scenario"]["run"]["duration"] == "20s"
    assert m["scenario"]["calls"][0]["codec"] == "G.711"
    assert m["versions"]["talkspurt"] == talkspurt.__version__
    assert isinstance(m["wall_time_s"], float) and m["wall_time_s"] >= 0


def test_output_dir_force_replaces_contents(tmp_path):
    f = short_quickstart(tmp_path)
    out = tmp_path / "results"
    out.mkdir()
    (out / "notes.txt").write_text("my notes\n")
    r = talkspurt_cli("run", str(f), "-o", str(out), "--force", "-q")
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    check_quickstart_results(read_results(out))
    assert sorted(os.listdir(tmp_path)) == sorted([f.name, "results"]), "temporary folders left behind"


def test_output_dir_new(tmp_path):
    f = short_quickstart(tmp_path)
    out = tmp_path / "deeper" / "results"
    r = talkspurt_cli("run", str(f), "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert "results written to" in r.stdout
    check_quickstart_results(read_results(out))
    assert os.listdir(out.parent) == ["results"]


def test_output_dir_existing_empty_is_used(tmp_path):
    f = short_quickstart(tmp_path)
    out = tmp_path / "results"
    out.mkdir()
    r = talkspurt_cli("run", str(f), "-o", str(out), "-q")
    assert r.returncode == 0, r.stderr
    check_quickstart_results(read_results(out))
    assert sorted(os.listdir(tmp_path)) == sorted([f.name, "results"])


@pytest.mark.parametrize("force", [False, True], ids=["plain", "force"])
def test_output_is_a_regular_file(tmp_path, force):
    target = tmp_path / "results"
    target.write_text("not a folder\n")
    r = talkspurt_cli("run", str(QUICKSTART), "-o", str(target), *(["--force"] if force else []))
    assert_one_line_error(r)
    assert str(target) in r.stderr
    assert target.is_file() and target.read_text() == "not a folder\n"
    assert os.listdir(tmp_path) == ["results"]


def test_output_below_a_regular_file(tmp_path):
    f = short_quickstart(tmp_path)
    blocker = tmp_path / "afile"
    blocker.write_text("x\n")
    r = talkspurt_cli("run", str(f), "-o", str(blocker / "results"), "-q")
    assert_one_line_error(r)
    assert blocker.read_text() == "x\n"
    assert sorted(os.listdir(tmp_path)) == sorted([f.name, "afile"])


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs Linux /proc (unwritable even for root)")
def test_output_in_unwritable_location(tmp_path):
    f = short_quickstart(tmp_path)
    out = Path("/proc/talkspurt-test-results")
    r = talkspurt_cli("run", str(f), "-o", str(out), "-q")
    assert_one_line_error(r)
    assert not out.exists()


# --------------------------------------------------------------------------
# Help and argument errors.

def test_help_top_level():
    r = talkspurt_cli("--help")
    assert r.returncode == 0, r.stderr
    for word in ("run", "validate", "codecs"):
        assert word in r.stdout, word


def test_help_run():
    r = talkspurt_cli("run", "--help")
    assert r.returncode == 0, r.stderr
    for opt in ("-o", "--output", "--seed", "--no-trace", "--force", "-q", "--quiet", "scenario"):
        assert opt in r.stdout, opt


def test_help_validate():
    r = talkspurt_cli("validate", "--help")
    assert r.returncode == 0, r.stderr
    assert "scenario" in r.stdout and "-h" in r.stdout


def test_unknown_subcommand():
    r = talkspurt_cli("frobnicate")
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    assert "frobnicate" in r.stderr


def test_no_subcommand():
    r = talkspurt_cli()
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr


def test_unknown_option(tmp_path):
    r = talkspurt_cli("run", str(QUICKSTART), "--frobnicate", "-o", str(tmp_path / "out"))
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "--frobnicate" in r.stderr
    assert os.listdir(tmp_path) == []


def test_run_missing_scenario_argument():
    r = talkspurt_cli("run")
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    assert "scenario" in r.stderr


def test_spread_count_above_the_topologys_hosts_names_the_count(tmp_path):
    # QA 002: --set calls[0].count=80 with pairs = 40 blamed calls[0].from.
    r = talkspurt_cli("validate", str(ROOT / "scenarios" / "seeds" / "002" / "voip.toml"), "--set", "calls[0].count=81")
    assert_one_line_error(r, "calls[0].count")
    assert r.stderr.rstrip().endswith("and the links have a1…a80; lower the count, or raise topology.pairs"), r.stderr
