"""A scenario document as TOML text (`talkspurt validate --format toml`).

The standard library reads TOML but does not write it; this writer covers
what scenario documents hold: tables, arrays of tables, strings, numbers,
booleans, arrays and nested tables (written inline inside arrays of
tables). `None` has no TOML form and is left out. `tomllib.loads` of the
output gives the document back (tests/test_ux.py).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")


def key(k: str) -> str:
    return k if _BARE.match(k) else json.dumps(k)


def value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)  # JSON string escapes are TOML basic-string escapes
    if isinstance(v, Mapping):
        items = [f"{key(k)} = {value(x)}" for k, x in v.items() if x is not None]
        return "{ " + ", ".join(items) + " }" if items else "{}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(value(x) for x in v if x is not None) + "]"
    raise TypeError(f"no TOML form for {type(v).__name__}")


def _is_table_array(v: Any) -> bool:
    return isinstance(v, list) and bool(v) and all(isinstance(x, Mapping) for x in v)


def _body(t: Mapping[str, Any], prefix: str, out: list[str]) -> None:
    subs = []
    for k, v in t.items():
        if v is None:
            continue
        if isinstance(v, Mapping) or _is_table_array(v):
            subs.append((k, v))
        else:
            out.append(f"{key(k)} = {value(v)}")
    for k, v in subs:
        name = f"{prefix}.{key(k)}" if prefix else key(k)
        if isinstance(v, Mapping):
            out.append("")
            out.append(f"[{name}]")
            _body(v, name, out)
        else:
            for entry in v:
                out.append("")
                out.append(f"[[{name}]]")
                # Nested tables of an array entry are inline: `[name.sub]`
                # after several entries would be ambiguous to a reader.
                for kk, vv in entry.items():
                    if vv is not None:
                        out.append(f"{key(kk)} = {value(vv)}")


def dumps(doc: Mapping[str, Any]) -> str:
    out: list[str] = []
    _body(doc, "", out)
    return "\n".join(out).lstrip("\n") + "\n"
