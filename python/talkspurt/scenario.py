"""Loading scenarios from a path, TOML text or a mapping.

Everything a user can get wrong becomes a `ScenarioError` naming the key
path, the value and what is allowed; the Rust core does the validation.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping

from . import _core
from ._core import ScenarioError

# typing.TYPE_CHECKING without importing typing: a run never needs typing,
# pathlib, copy or tomllib, ~16 ms of every process's imports (issue 26).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Union

    ScenarioLike = Union[str, os.PathLike, Mapping[str, Any]]


def _error(path: str, value: str, allowed: str) -> ScenarioError:
    e = ScenarioError(f"{path or '(scenario)'}: got {value}; expected {allowed}")
    e.path, e.value, e.allowed = path, value, allowed
    return e


def duration_ns(v: Any, path: str) -> int:
    """A duration key that Python reads (`[analysis] audio`'s `segment`,
    the VAD's `hangover`), in integer nanoseconds, by the core's own parser
    (`scenario/units.rs`): the same rule and the same messages as every
    other duration. Time is integer nanoseconds in the simulator, so a
    value that is not a whole number of them (`"0.1ns"`,
    `"1.0000000005s"`) is an error, never rounded (docs/scenario.md, Units)."""
    from ._core import parse_duration

    if not isinstance(v, str):
        raise _error(path, json.dumps(v, default=str), 'a duration with a unit, e.g. "20ms" (units: ns, us, ms, s, min)')
    try:
        return parse_duration(v)
    except ValueError as e:
        raise _error(path, json.dumps(v), str(e)) from None


def _looks_like_toml(text: str) -> bool:
    # Called only when `text` names no existing file, so a path holding
    # `=` (out/delay=50ms/s.toml) is still read as a path.
    return "\n" in text or "=" in text or text.lstrip().startswith("[")


def _parse_json(text: str, origin: str) -> dict[str, Any]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise _error("", f"invalid JSON in {origin} ({e})", "a JSON object (see docs/scenario.md)") from None
    if not isinstance(doc, dict):
        raise _error("", f"a JSON {type(doc).__name__} in {origin}", "a JSON object with the scenario's tables")
    return doc


def read_scenario_file(p: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a scenario file: JSON when named `*.json`, TOML otherwise."""
    p = os.fspath(p)
    if not os.path.isfile(p):
        raise _error("", json.dumps(p), "a path to an existing scenario file (.toml or .json)")
    try:
        with open(p, encoding="utf-8") as f:
            body = f.read()
    except (OSError, UnicodeDecodeError) as e:
        raise _error("", json.dumps(p), f"a readable UTF-8 text file ({e})") from None
    doc = _parse_json(body, p) if os.path.splitext(p)[1].lower() == ".json" else _parse_toml(body, p)
    _resolve_files(doc, os.path.dirname(p))
    return doc


# Tables whose `file` names a trace: a link's (or a topology link table's)
# `loss` and `schedule`, at the link level or under forward/reverse.
_FILE_TABLES = ("loss", "schedule")


def _resolve_files(doc: dict[str, Any], folder: str) -> None:
    """Make relative trace paths in a scenario file start at the file's
    folder (absolute, so the scenario runs from any working directory).
    Scenarios given as text or mappings, and `--set` values, keep theirs:
    those start at the working directory."""

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                if k in _FILE_TABLES and isinstance(x, dict):
                    f = x.get("file")
                    if isinstance(f, str) and f and not os.path.isabs(f):
                        x["file"] = os.path.abspath(os.path.join(folder, f))
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    for key in ("links", "topology"):
        if key in doc:
            walk(doc[key])


def _parse_toml(text: str, origin: str) -> dict[str, Any]:
    """A TOML document (TOML 1.0, read by the core: scenario/toml_doc.rs, the
    `toml` crate the native runner reads files with) as a dict, keys in the
    order written. A date or time, `nan` or `inf` is refused at its key
    path, as `_check_values` refuses them in a mapping."""
    try:
        return json.loads(_core.toml_to_json(text))
    except ScenarioError as e:
        if e.path:
            raise  # a value at its key path, worded as every scenario error
        where = e.value.removeprefix("invalid TOML")
        raise _error("", f"invalid TOML in {origin}{where}", "a TOML document (see docs/scenario.md)") from None


def load_scenario(scenario: ScenarioLike) -> dict[str, Any]:
    """Return the scenario as a plain mapping (not yet validated).

    `scenario` is a path to a TOML or JSON (`*.json`) file, TOML text, or a
    mapping with the same structure as the file. A string naming an existing
    file is always read as a path, whatever characters it holds.
    """
    if isinstance(scenario, Mapping):
        return _copied(scenario)
    if isinstance(scenario, os.PathLike):
        return read_scenario_file(scenario)
    if isinstance(scenario, str):
        if "\n" not in scenario and len(scenario) < 4096 and os.path.isfile(scenario):
            return read_scenario_file(scenario)
        if _looks_like_toml(scenario):
            return _parse_toml(scenario, "the scenario text")
        raise _error("", json.dumps(scenario), "a path to an existing scenario file (.toml or .json) or TOML text")
    raise _error("", type(scenario).__name__, "a path, TOML text or a mapping")


# What a date or time in a scenario gets told (the core's toml_doc::NO_DATES
# says it of a file's).
NO_DATES = "a string, number, boolean, list or table (TOML dates and times are not used)"


def _copied(v: Any) -> Any:
    """A copy of a scenario mapping that shares nothing mutable with it: its
    tables and lists copied at every level, as `copy.deepcopy` would (a
    scenario holds only those and plain values; anything else is shared,
    and to_json refuses what it cannot write). Without importing copy."""
    if isinstance(v, Mapping):
        return {k: _copied(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_copied(x) for x in v]
    if isinstance(v, tuple):
        return tuple(_copied(x) for x in v)
    return v


def _check_values(v: Any, path: str) -> None:
    """Reject values JSON cannot carry (TOML dates, NaN, infinity) at their key path."""
    if isinstance(v, Mapping):
        for k, x in v.items():
            _check_values(x, f"{path}.{k}" if path else str(k))
    elif isinstance(v, (list, tuple)):
        for i, x in enumerate(v):
            _check_values(x, f"{path}[{i}]")
    elif isinstance(v, bool) or v is None or isinstance(v, (str, int)):
        return
    elif isinstance(v, float):
        if math.isnan(v) or math.isinf(v):
            raise _error(path, repr(v), "a finite number")
    else:
        raise _error(path, repr(v), NO_DATES)


def to_json(scenario: Mapping[str, Any]) -> str:
    """Serialize a scenario mapping for the core.

    `[analysis] audio` is validated here and left out: the audio pipeline
    is Python's (`talkspurt.audio`), and the core knows nothing of it.
    Speech `model = "vad"` is resolved here into `model = "schedule"`
    (audio/talkspurts.py): the VAD is Python's too.
    """
    from .audio import split

    from .audio.talkspurts import resolve

    _check_values(scenario, "")
    core, _ = split(scenario)
    # `speech = { model = "vad" }` becomes the talkspurts its VAD found.
    return json.dumps(resolve(core), allow_nan=False)
