"""Loading scenarios from a path, TOML text or a mapping.

Everything a user can get wrong becomes a `ScenarioError` naming the key
path, the value and what is allowed; the Rust core does the validation.
"""

from __future__ import annotations

import json
import math
import os
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Union

from ._core import ScenarioError

ScenarioLike = Union[str, os.PathLike, Mapping[str, Any]]


def _error(path: str, value: str, allowed: str) -> ScenarioError:
    e = ScenarioError(f"{path or '(scenario)'}: got {value}; expected {allowed}")
    e.path, e.value, e.allowed = path, value, allowed
    return e


def _looks_like_toml(text: str) -> bool:
    return "\n" in text or "=" in text or text.lstrip().startswith("[")


def _parse_toml(text: str, origin: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise _error("", f"invalid TOML in {origin} ({e})", "a TOML document (see docs/scenario.md)") from None


def load_scenario(scenario: ScenarioLike) -> dict[str, Any]:
    """Return the scenario as a plain mapping (not yet validated).

    `scenario` is a path to a TOML file, TOML text, or a mapping with the
    same structure as the file.
    """
    if isinstance(scenario, Mapping):
        return dict(scenario)
    if isinstance(scenario, (str, os.PathLike)):
        text = os.fspath(scenario)
        if isinstance(scenario, str) and _looks_like_toml(text):
            return _parse_toml(text, "the scenario text")
        p = Path(text)
        if not p.is_file():
            raise _error("", json.dumps(text), "a path to an existing scenario file (.toml) or TOML text")
        try:
            body = p.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            raise _error("", json.dumps(text), f"a readable UTF-8 text file ({e})") from None
        return _parse_toml(body, str(p))
    raise _error("", type(scenario).__name__, "a path, TOML text or a mapping")


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
        raise _error(path, repr(v), "a string, number, boolean, list or table (TOML dates and times are not used)")


def to_json(scenario: Mapping[str, Any]) -> str:
    """Serialize a scenario mapping for the core."""
    _check_values(scenario, "")
    return json.dumps(scenario, allow_nan=False)
