"""Overrides: set a value at a key path of a scenario document.

A key path names a value the way errors do: table keys joined by dots, list
entries by index — `run.seed`, `links[1].delay`, `calls[0].transport.cc`.
Overrides edit the parsed document before the core sees it, so the core
validates the result and any error names the same path.

Reading (docs/sweeps.md): a missing table on the way is created (setting
`calls[0].playout.kind` on a call without `playout` adds the table); a list
index must exist (`links[5]` on two links is an error), as growing a list
would invent a link or call the user never described.

- `[*]` stands for every entry of a list: `calls[*].codec` sets the codec of
  every call group (an empty list is left as it is);
- the value `None` (`--set KEY=null` on the command line; TOML has no null)
  removes the key, so an optional table returns to its default:
  `--set 'calls[0].feedback=null'`. Removing a key that is not there is not
  an error; removing a list entry is (`links[1]=null`), as it would renumber
  the others.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, MutableMapping

from .scenario import _error

TYPE_CHECKING = False  # typing's, without importing typing (scenario.py)
if TYPE_CHECKING:
    from typing import Any, Iterable, Union

    Segment = Union[str, int]

_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_INDEX = re.compile(r"\[(\d+|\*)\]")

# `[*]` in a key path: every entry of the list.
EVERY = "*"


def parse_path(path: str) -> list[Segment]:
    """`links[1].delay` → `["links", 1, "delay"]`; `calls[*]` → `["calls", "[*]"]`
    (`EVERY` marks the wildcard); a malformed path is a `ScenarioError`."""
    segs: list[Segment] = []
    i = 0
    allowed = "a key path like run.seed or links[1].delay (keys joined by '.', list indices in [ ])"
    if not isinstance(path, str) or not path:
        raise _error(str(path), repr(path), allowed)
    while i < len(path):
        m = _KEY.match(path, i)
        if m is None:
            raise _error(path, repr(path), allowed)
        segs.append(m.group(0))
        i = m.end()
        while (m := _INDEX.match(path, i)) is not None:
            segs.append(EVERY if m.group(1) == EVERY else int(m.group(1)))
            i = m.end()
        if i < len(path):
            if path[i] != "." or i + 1 == len(path):
                raise _error(path, repr(path), allowed)
            i += 1
    return segs


def format_path(segs: Iterable[Segment]) -> str:
    out = ""
    for s in segs:
        out += f"[{s}]" if isinstance(s, int) or s == EVERY else (f".{s}" if out else s)
    return out


def expand(doc: Mapping[str, Any], path: str) -> list[str]:
    """The concrete key paths a path with `[*]` names in `doc` (the path
    itself when it has none). A `[*]` on something that is not a list is an
    error naming it."""
    segs = parse_path(path)
    if EVERY not in segs:
        return [path]
    out: list[list[Segment]] = [[]]
    for k, seg in enumerate(segs):
        nxt: list[list[Segment]] = []
        for pre in out:
            if seg != EVERY:
                nxt.append(pre + [seg])
                continue
            node = get_path(doc, format_path(pre)) if pre else doc
            if node is None:
                continue  # nothing there: nothing to set
            if not isinstance(node, list):
                raise _error(format_path(pre + [seg]), f"[*] on a {_kind(node)}",
                             f"[*] only where {format_path(pre)} is a list")
            nxt.extend(pre + [i] for i in range(len(node)))
        out = nxt
    return [format_path(p) for p in out]


def set_path(doc: MutableMapping[str, Any], path: str, value: Any) -> None:
    """Set `value` at `path` in `doc` (in place); `None` removes the key;
    `[*]` sets every entry of a list."""
    paths = expand(doc, path)
    if paths != [path]:
        for p in paths:
            set_path(doc, p, value)
        return
    segs = parse_path(path)
    if value is None:
        _remove(doc, segs, path)
        return
    node: Any = doc
    for k, (seg, nxt) in enumerate(zip(segs, segs[1:])):
        here = format_path(segs[: k + 1])
        if isinstance(seg, int):
            if not isinstance(node, list):
                raise _error(here, f"an index into a {_kind(node)}", f"an index only where {format_path(segs[:k])} is a list")
            if seg >= len(node):
                raise _error(here, f"index {seg}", f"an index below {len(node)} ({format_path(segs[:k])} has {len(node)} entries)")
            child = node[seg]
        else:
            if not isinstance(node, MutableMapping):
                raise _error(here, f"a key into a {_kind(node)}", f"a key only where {format_path(segs[:k])} is a table")
            child = node.get(seg)
            if child is None:
                child = [] if isinstance(nxt, int) else {}
                node[seg] = child
        node = child
    last = segs[-1]
    if isinstance(last, int):
        if not isinstance(node, list):
            raise _error(path, f"an index into a {_kind(node)}", f"an index only where {format_path(segs[:-1])} is a list")
        if last >= len(node):
            raise _error(path, f"index {last}", f"an index below {len(node)} ({format_path(segs[:-1])} has {len(node)} entries)")
        node[last] = value
    else:
        if not isinstance(node, MutableMapping):
            raise _error(path, f"a key into a {_kind(node)}", f"a key only where {format_path(segs[:-1])} is a table")
        node[last] = value


def _remove(doc: MutableMapping[str, Any], segs: list[Segment], path: str) -> None:
    """Remove the key at `segs` (nothing to do when it is absent)."""
    if isinstance(segs[-1], int):
        raise _error(path, "null", "a value: a list entry cannot be removed (it would renumber the others); "
                                   "set the group's count = 0 to leave a call or traffic group out")
    parent = get_path(doc, format_path(segs[:-1])) if len(segs) > 1 else doc
    if isinstance(parent, MutableMapping):
        parent.pop(segs[-1], None)
    elif parent is not None:
        raise _error(path, f"a key into a {_kind(parent)}", f"a key only where {format_path(segs[:-1])} is a table")


def get_path(doc: Mapping[str, Any], path: str, default: Any = None) -> Any:
    node: Any = doc
    for seg in parse_path(path):
        if isinstance(seg, int):
            if not isinstance(node, list) or seg >= len(node):
                return default
            node = node[seg]
        else:
            if not isinstance(node, Mapping) or seg not in node:
                return default
            node = node[seg]
    return node


def _kind(v: Any) -> str:
    if isinstance(v, Mapping):
        return "table"
    if isinstance(v, list):
        return "list"
    return type(v).__name__


def apply(doc: MutableMapping[str, Any], overrides: Mapping[str, Any]) -> MutableMapping[str, Any]:
    """Apply `{path: value}` overrides in order; returns `doc` (edited in place)."""
    if not isinstance(overrides, Mapping):
        raise _error("overrides", type(overrides).__name__, "a mapping from key path to value")
    for path, value in overrides.items():
        set_path(doc, path, value)
    return doc


def parse_assignment(text: str) -> tuple[str, Any]:
    """`KEY=VALUE` from the command line. VALUE is read as a TOML value
    (`3`, `0.01`, `true`, `"G.729"`, `["a", "b"]`, `{ kind = "udp" }`) and,
    when it is not one, as a bare string (`100ms`, `G.711`). `null` (not a
    TOML value) is `None`: remove the key; `"null"` is the string."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise _error("--set", repr(text), "KEY=VALUE with a key path, e.g. links[1].delay=100ms")
    parse_path(key)
    raw = raw.strip()
    if not raw:
        raise _error(key, "an empty value", "a value after '=' (a TOML value or a bare string)")
    if raw == "null":
        return key, None
    import tomllib  # here: a run without --set need not load it (scenario.py)

    try:
        value = tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        value = raw
    return key, value


GROUP_LISTS = ("calls", "traffic")


def drop_empty_groups(doc: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """Leave out the call and traffic groups whose `count` is 0 (in place).

    A sweep switches a group off with `count = 0` (`grid = { "traffic[0].count"
    = [0, 1, 2] }`): the group is removed before validation. The groups after
    it keep the label their index gave them (`calls[2]` stays "calls[2]" in
    the results' `group` column) unless they have their own.
    """
    for kind in GROUP_LISTS:
        groups = doc.get(kind)
        if not isinstance(groups, list) or not any(
                isinstance(g, Mapping) and g.get("count") == 0 and not isinstance(g.get("count"), bool)
                for g in groups):
            continue
        kept = []
        for i, g in enumerate(groups):
            if isinstance(g, Mapping) and g.get("count") == 0 and not isinstance(g.get("count"), bool):
                continue
            if isinstance(g, MutableMapping) and i != len(kept) and "label" not in g:
                g["label"] = f"{kind}[{i}]"
            kept.append(g)
        doc[kind] = kept
    return doc
