"""A reproduction bundle: `scenarios/seeds/NNN/published.toml` read and
checked (docs/reproductions/README.md is the format's reference).

Every error names the entry's key path in the file (`value[3].tolerance`),
what was found and what is allowed, like the scenario reader's.
"""

from __future__ import annotations

import math
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from ..scenario import _error

FILE = "published.toml"
AGGS = ("mean", "median", "sum", "min", "max", "count")
TREND_KINDS = ("less", "greater", "approx", "increasing", "decreasing", "order")
TOP_KEYS = ("study", "experiments", "value", "trend", "reading")
STUDY_KEYS = ("id", "title", "venue", "paper", "note")
EXPERIMENT_KEYS = ("sweep", "trace", "quick", "ns2_replications", "note")
QUICK_KEYS = ("set", "replications")
COMMON_KEYS = ("item", "row", "column", "metric", "params", "unit", "scale", "stated", "experiment",
               "agg", "reading", "diagnosis", "x", "series", "note")
VALUE_KEYS = COMMON_KEYS + ("value", "where", "tolerance", "ns2")
TREND_KEYS = COMMON_KEYS + ("claim", "kind", "where", "a", "b", "seq", "along", "margin", "rel_margin",
                            "a_experiment", "b_experiment")
READING_KEYS = ("id", "topic", "chosen", "why", "alternatives")
NS2_KEYS = ("script", "args", "key")
TOL_KEYS = ("abs", "rel", "reason")


@dataclass
class Experiment:
    name: str
    sweep: Path
    trace: bool = False
    quick_set: dict[str, Any] = field(default_factory=dict)
    quick_replications: Optional[int] = None
    ns2_replications: Optional[int] = None


@dataclass
class Entry:
    """A published value (`kind == "value"`) or a stated trend (any
    `TREND_KINDS`): what the comparison table has one row for."""

    index: int           # position among values or among trends
    section: str         # "value" or "trend"
    item: str
    row: str
    column: str
    metric: str
    unit: str
    scale: float
    stated: str
    experiment: str
    agg: str
    params: dict[str, Any]
    reading: str = ""
    diagnosis: str = ""
    x: Any = None
    series: str = ""
    # values
    value: Optional[float] = None
    where: dict[str, Any] = field(default_factory=dict)
    tol_abs: float = 0.0
    tol_rel: float = 0.0
    tol_reason: str = ""
    ns2: Optional[dict[str, Any]] = None
    # trends
    kind: str = "value"
    claim: str = ""
    a: dict[str, Any] = field(default_factory=dict)
    b: dict[str, Any] = field(default_factory=dict)
    seq: list[dict[str, Any]] = field(default_factory=list)
    along: str = ""
    margin: float = 0.0
    rel_margin: float = 0.0
    a_experiment: str = ""
    b_experiment: str = ""

    @property
    def path(self) -> str:
        return f"{self.section}[{self.index}]"

    def tolerance(self) -> Optional[float]:
        if self.value is None:
            return None
        return max(self.tol_abs, self.tol_rel * abs(self.value))

    def experiments(self) -> list[str]:
        return sorted({self.experiment, self.a_experiment or self.experiment, self.b_experiment or self.experiment})


@dataclass
class Reading:
    id: str
    topic: str
    chosen: str
    why: str
    alternatives: list[dict[str, str]]


@dataclass
class Bundle:
    directory: Path
    study: dict[str, str]
    experiments: dict[str, Experiment]
    entries: list[Entry]
    readings: list[Reading]

    @property
    def id(self) -> str:
        return self.study["id"]

    def select(self, items: Optional[list[str]]) -> list[Entry]:
        if not items:
            return list(self.entries)
        known = {e.item for e in self.entries}
        for it in items:
            if it not in known:
                raise _error("--item", repr(it), f"an item of bundle {self.id}: {', '.join(sorted(known))}")
        return [e for e in self.entries if e.item in items]


def _places() -> list[Path]:
    places = [Path.cwd() / "scenarios" / "seeds"]
    if os.environ.get("TALKSPURT_SEEDS"):
        places.append(Path(os.environ["TALKSPURT_SEEDS"]))
    places.append(Path(__file__).resolve().parents[3] / "scenarios" / "seeds")
    return places


def available() -> list[Bundle]:
    """Every bundle found where `locate` looks, first place first."""
    seen: dict[str, Bundle] = {}
    for d in _places():
        for f in sorted(d.glob(f"*/{FILE}")) if d.is_dir() else []:
            if f.parent.name not in seen:
                seen[f.parent.name] = load(str(f.parent))
    return list(seen.values())


def locate(spec: str) -> Path:
    """The bundle folder for `spec`: a path to a folder holding
    published.toml, or a bundle id looked up in ./scenarios/seeds,
    $TALKSPURT_SEEDS and the source tree this package was installed from."""
    p = Path(spec)
    if (p / FILE).is_file():
        return p
    places = _places()
    for d in places:
        if (d / spec / FILE).is_file():
            return d / spec
    found = sorted({q.parent.name for d in places if d.is_dir() for q in d.glob(f"*/{FILE}")})
    return _fail_locate(spec, found)


def _fail_locate(spec: str, found: list[str]) -> Path:
    have = f"one of {', '.join(found)}" if found else "none found: run from the talkspurt source tree or set TALKSPURT_SEEDS"
    raise _error("bundle", repr(spec), f"a bundle id ({have}) or a folder holding {FILE}")


def load(spec: str) -> Bundle:
    d = locate(spec)
    path = d / FILE
    try:
        doc = tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as e:
        raise _error(str(path), f"invalid TOML ({e})", "a TOML file (docs/reproductions/README.md)") from None
    return parse(doc, d)


def _keys(where: str, t: Any, allowed: tuple[str, ...]) -> dict[str, Any]:
    if not isinstance(t, dict):
        raise _error(where, repr(t), "a table")
    for k in t:
        if k not in allowed:
            raise _error(f"{where}.{k}", "unknown key", f"one of {', '.join(allowed)}")
    return t


def _str(where: str, v: Any, required: bool = True) -> str:
    if v is None and not required:
        return ""
    if not isinstance(v, str) or (required and not v.strip()):
        raise _error(where, repr(v), "a non-empty string")
    return v


def _num(where: str, v: Any, lo: float = -math.inf) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or v < lo:
        raise _error(where, repr(v), f"a finite number{f' ≥ {lo:g}' if lo > -math.inf else ''}")
    return float(v)


def _where(where: str, v: Any) -> dict[str, Any]:
    if not isinstance(v, dict):
        raise _error(where, repr(v), "a table of column = value (the rows to select)")
    for k, x in v.items():
        if isinstance(x, (dict, list)):
            raise _error(f"{where}.{k}", repr(x), "a number, string or boolean")
    return dict(v)


def parse(doc: dict[str, Any], directory: Path) -> Bundle:
    _keys(FILE, doc, TOP_KEYS)
    study = _keys("study", doc.get("study"), STUDY_KEYS)
    _str("study.id", study.get("id"))
    _str("study.title", study.get("title"))
    exps: dict[str, Experiment] = {}
    raw_exps = doc.get("experiments", {})
    if not isinstance(raw_exps, dict) or not raw_exps:
        raise _error("experiments", repr(raw_exps), "a table of [experiments.NAME] tables")
    for name, t in raw_exps.items():
        w = f"experiments.{name}"
        _keys(w, t, EXPERIMENT_KEYS)
        sweep = directory / _str(f"{w}.sweep", t.get("sweep"))
        if not sweep.is_file():
            raise _error(f"{w}.sweep", repr(t.get("sweep")), "a sweep file in the bundle folder")
        q = _keys(f"{w}.quick", t.get("quick", {}), QUICK_KEYS)
        qs = q.get("set", {})
        if not isinstance(qs, dict):
            raise _error(f"{w}.quick.set", repr(qs), "a table of key path = value")
        qr = q.get("replications")
        if qr is not None and (isinstance(qr, bool) or not isinstance(qr, int) or qr < 1):
            raise _error(f"{w}.quick.replications", repr(qr), "an integer ≥ 1")
        nr = t.get("ns2_replications")
        if nr is not None and (isinstance(nr, bool) or not isinstance(nr, int) or nr < 1):
            raise _error(f"{w}.ns2_replications", repr(nr), "an integer ≥ 1")
        tr = t.get("trace", False)
        if not isinstance(tr, bool):
            raise _error(f"{w}.trace", repr(tr), "true or false")
        exps[name] = Experiment(name, sweep, tr, dict(qs), qr, nr)
    readings = [_reading(i, r) for i, r in enumerate(_list("reading", doc.get("reading", [])))]
    ids = [r.id for r in readings]
    entries = [_value(i, v, exps, directory) for i, v in enumerate(_list("value", doc.get("value", [])))]
    entries += [_trend(i, t, exps) for i, t in enumerate(_list("trend", doc.get("trend", [])))]
    if not entries:
        raise _error(FILE, "no [[value]] or [[trend]] entries", "at least one published value or stated trend")
    for e in entries:
        if e.reading and e.reading not in ids:
            raise _error(f"{e.path}.reading", repr(e.reading), f"the id of a [[reading]]: {', '.join(ids) or 'none defined'}")
    return Bundle(directory, {k: str(v) for k, v in study.items()}, exps, entries, readings)


def _list(where: str, v: Any) -> list[dict[str, Any]]:
    if not isinstance(v, list) or not all(isinstance(x, dict) for x in v):
        raise _error(where, repr(v), f"an array of tables ([[{where}]])")
    return v


def _common(w: str, t: dict[str, Any], exps: dict[str, Experiment], section: str, index: int) -> Entry:
    exp = _str(f"{w}.experiment", t.get("experiment"))
    if exp not in exps:
        raise _error(f"{w}.experiment", repr(exp), f"one of the experiments {', '.join(exps)}")
    agg = t.get("agg", "mean")
    if not isinstance(agg, str) or not (agg in AGGS or (agg.startswith("weighted:") and len(agg) > 9)):
        raise _error(f"{w}.agg", repr(agg), f"one of {', '.join(AGGS)} or weighted:COLUMN")
    params = t.get("params", {})
    if not isinstance(params, dict):
        raise _error(f"{w}.params", repr(params), "a table of the derived metric's parameters")
    return Entry(
        index=index, section=section, item=_str(f"{w}.item", t.get("item")),
        row=_str(f"{w}.row", t.get("row"), required=False), column=_str(f"{w}.column", t.get("column"), False),
        metric=_str(f"{w}.metric", t.get("metric")), unit=_str(f"{w}.unit", t.get("unit"), False),
        scale=_num(f"{w}.scale", t.get("scale", 1.0)), stated=_str(f"{w}.stated", t.get("stated")),
        experiment=exp, agg=agg, params=params, reading=_str(f"{w}.reading", t.get("reading"), False),
        diagnosis=_str(f"{w}.diagnosis", t.get("diagnosis"), False), x=t.get("x"),
        series=_str(f"{w}.series", t.get("series"), False),
    )


def _value(i: int, t: dict[str, Any], exps: dict[str, Experiment], directory: Path) -> Entry:
    w = f"value[{i}]"
    _keys(w, t, VALUE_KEYS)
    e = _common(w, t, exps, "value", i)
    e.where = _where(f"{w}.where", t.get("where", {}))
    if "value" in t:
        e.value = _num(f"{w}.value", t["value"])
        tol = _keys(f"{w}.tolerance", t.get("tolerance"), TOL_KEYS)
        e.tol_abs = _num(f"{w}.tolerance.abs", tol.get("abs", 0.0), 0.0)
        e.tol_rel = _num(f"{w}.tolerance.rel", tol.get("rel", 0.0), 0.0)
        e.tol_reason = _str(f"{w}.tolerance.reason", tol.get("reason"))
        if e.tol_abs == 0.0 and e.tol_rel == 0.0:
            raise _error(f"{w}.tolerance", repr(tol), "abs and/or rel > 0 with its reason")
    elif "tolerance" in t:
        raise _error(f"{w}.tolerance", "a tolerance without a value", "a tolerance only beside a published value")
    if "ns2" in t:
        n = _keys(f"{w}.ns2", t["ns2"], NS2_KEYS)
        script = _str(f"{w}.ns2.script", n.get("script"))
        if not (directory / script).is_file():
            raise _error(f"{w}.ns2.script", repr(script), "a Tcl file in the bundle folder")
        args = n.get("args", [])
        if not isinstance(args, list):
            raise _error(f"{w}.ns2.args", repr(args), "an array of arguments")
        e.ns2 = {"script": script, "args": [str(a) for a in args], "key": _str(f"{w}.ns2.key", n.get("key"))}
    return e


def _trend(i: int, t: dict[str, Any], exps: dict[str, Experiment]) -> Entry:
    w = f"trend[{i}]"
    _keys(w, t, TREND_KEYS)
    e = _common(w, t, exps, "trend", i)
    e.claim = _str(f"{w}.claim", t.get("claim"))
    kind = t.get("kind")
    if kind not in TREND_KINDS:
        raise _error(f"{w}.kind", repr(kind), f"one of {', '.join(TREND_KINDS)}")
    e.kind = kind
    e.margin = _num(f"{w}.margin", t.get("margin", 0.0), 0.0)
    e.rel_margin = _num(f"{w}.rel_margin", t.get("rel_margin", 0.0), 0.0)
    for side in ("a_experiment", "b_experiment"):
        if side in t:
            v = _str(f"{w}.{side}", t[side])
            if v not in exps:
                raise _error(f"{w}.{side}", repr(v), f"one of the experiments {', '.join(exps)}")
            setattr(e, side, v)
    if kind in ("less", "greater", "approx"):
        e.a = _where(f"{w}.a", t.get("a"))
        e.b = _where(f"{w}.b", t.get("b"))
    elif kind in ("increasing", "decreasing"):
        e.along = _str(f"{w}.along", t.get("along"))
        e.where = _where(f"{w}.where", t.get("where", {}))
    else:
        seq = t.get("seq")
        if not isinstance(seq, list) or len(seq) < 2:
            raise _error(f"{w}.seq", repr(seq), "an array of at least two selections, largest first")
        e.seq = [_where(f"{w}.seq[{j}]", s) for j, s in enumerate(seq)]
    return e


def _reading(i: int, t: dict[str, Any]) -> Reading:
    w = f"reading[{i}]"
    _keys(w, t, READING_KEYS)
    alts = t.get("alternatives", [])
    if not isinstance(alts, list):
        raise _error(f"{w}.alternatives", repr(alts), "an array of { reading, gives } tables")
    out = []
    for j, a in enumerate(alts):
        a = _keys(f"{w}.alternatives[{j}]", a, ("reading", "gives"))
        out.append({"reading": _str(f"{w}.alternatives[{j}].reading", a.get("reading")),
                    "gives": _str(f"{w}.alternatives[{j}].gives", a.get("gives"))})
    return Reading(_str(f"{w}.id", t.get("id")), _str(f"{w}.topic", t.get("topic")),
                   _str(f"{w}.chosen", t.get("chosen")), _str(f"{w}.why", t.get("why"), False), out)
