"""Scenario files are read by the core's TOML reader (scenario/toml_doc.rs,
the `toml` crate the native runner uses), not `tomllib`: the same document
as `tomllib` gives, keys in the order written, and one-line errors that
name the line and column, or the key path of a value JSON cannot carry."""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib

import pytest

import talkspurt
from talkspurt import ScenarioError
from talkspurt.scenario import NO_DATES
from conftest import ROOT

# Every TOML file the repository ships (scenarios, bundles, benchmarks, test data).
FILES = sorted(p for d in ("scenarios", "bench", "tests/data") for p in (ROOT / d).rglob("*.toml"))


def test_every_shipped_toml_file_reads_as_tomllib_reads_it():
    assert len(FILES) > 50
    for f in FILES:
        text = f.read_text(encoding="utf-8")
        want = tomllib.loads(text)
        got = talkspurt.load_scenario(f) if "file" not in text else json.loads(talkspurt._core.toml_to_json(text))
        assert got == want, f
        # The order written, at every level (tomllib keeps it too).
        assert json.dumps(got) == json.dumps(want), f


def test_values_keep_their_types_and_bits(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text('z = 1\na = 0.1\nb = -0.0\nc = 1e-300\nd = 9007199254740993\ne = "x\\"y\\u00e9"\n'
                 'f = [1, 2.5, true, "s"]\n[g]\nh = { y = 1, x = [[1], []] }\n')
    got, want = talkspurt.load_scenario(f), tomllib.loads(f.read_text())
    assert json.dumps(got) == json.dumps(want)
    assert [type(v) for v in got.values()] == [type(v) for v in want.values()]
    assert str(got["b"]) == "-0.0" and got["d"] == 9007199254740993


@pytest.mark.parametrize("text, path, value, allowed", [
    ("[run]\nstart = 1979-05-27T07:32:00Z\n", "run.start", "1979-05-27T07:32:00Z", NO_DATES),
    ("[[links]]\nat = [07:32:00]\n", "links[0].at[0]", "07:32:00", NO_DATES),
    ("[run]\nx = nan\n", "run.x", "nan", "a finite number"),
    ("[[calls]]\n[[calls]]\nx = -inf\n", "calls[1].x", "-inf", "a finite number"),
])
def test_what_json_cannot_carry_is_refused_at_its_key_path(tmp_path, text, path, value, allowed):
    f = tmp_path / "s.toml"
    f.write_text(text)
    with pytest.raises(ScenarioError) as e:
        talkspurt.load_scenario(f)
    assert (e.value.path, e.value.value, e.value.allowed) == (path, value, allowed)


def test_a_syntax_error_names_the_file_line_and_column_in_one_line(tmp_path):
    f = tmp_path / "broken.toml"
    f.write_text('[run]\nduration = "60s"\nseed = \n')
    with pytest.raises(ScenarioError) as e:
        talkspurt.load_scenario(f)
    assert e.value.path == ""
    assert e.value.value.startswith(f"invalid TOML in {f} at line 3, column "), e.value.value
    assert "\n" not in str(e.value)
    r = subprocess.run([sys.executable, "-m", "talkspurt", "run", str(f)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert r.stderr.startswith(f"talkspurt: error: (scenario): got invalid TOML in {f} at line 3"), r.stderr


def test_toml_text_reads_the_same_way():
    doc = talkspurt.load_scenario('[run]\nduration = "1s"\nseed = 7\n[[links]]\nbetween = ["a", "b"]\n')
    assert list(doc) == ["run", "links"] and doc["run"] == {"duration": "1s", "seed": 7}
