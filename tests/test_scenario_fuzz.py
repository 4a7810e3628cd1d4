"""Property tests of scenario validation (hypothesis).

Generates valid scenarios (random subsets of keys with valid values, TCP
tables included) and mutated ones (wrong types, unknown keys, out-of-range
numbers, bad units, deleted keys, nulls, broken TOML), and checks through the
API and the CLI (`talkspurt validate`) that:

- nothing but `ScenarioError` is raised, the CLI never shows a traceback;
- a valid scenario is accepted, and its normalized form (every default
  filled in) is a fixed point of validation;
- a rejection exits with status 2 and names a key path: a well-formed path
  whose first key is one of the document's (or the document root, for
  syntax errors).

Examples scale with TALKSPURT_FUZZ_EXAMPLES (default 1000: a few thousand
cases in all, well under a minute).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import talkspurt
from talkspurt import cli
from talkspurt.notices import TIMESTAMPS_OPTION

N = int(os.environ.get("TALKSPURT_FUZZ_EXAMPLES", "1000"))


def fuzz(share: float):
    """Hypothesis settings for `share` × N examples."""
    return settings(
        max_examples=max(10, int(N * share)),
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )


# --------------------------------------------------------------------------
# Valid scenarios

def ms(lo: int, hi: int):
    return st.integers(lo, hi).map(lambda n: f"{n}ms")


def maybe(d: dict[str, Any], draw, key: str, strategy) -> None:
    """Sets `key` in `d` half the time: random subsets of keys."""
    if draw(st.booleans()):
        d[key] = draw(strategy)


CODECS = {  # codec → valid ptimes (ms): multiples of the frame in 10–80 ms
    "G.711": range(10, 81, 10),
    "G.729": range(10, 81, 10),
    "G.723.1-6.3": (30, 60),
    "GSM-FR": (20, 40, 60, 80),
    "AMR-NB-12.2": (20, 40, 60, 80),
    "Speex-NB-8": (20, 40, 60, 80),
}
CC = ["tahoe", "reno", "newreno", "sack", "vegas", "westwood", "westwood+", "real", "cubic"]
DEFAULT_RECOVERY = {"tahoe": "tahoe", "reno": "reno", "vegas": "reno", "sack": "sack", "cubic": "sack"}
unit_float = st.floats(0.001, 0.999)


@st.composite
def dist_table(draw) -> dict[str, Any]:
    d: dict[str, Any] = {}
    dist = draw(st.sampled_from(["exponential", "constant", "pareto", "weibull", None]))
    if dist:
        d["dist"] = dist
    maybe(d, draw, "mean", ms(1, 10_000))
    if dist == "pareto":
        maybe(d, draw, "shape", st.floats(1.01, 5))
    if dist == "weibull":
        maybe(d, draw, "shape", st.floats(0.1, 5))
    return d


@st.composite
def speech(draw) -> dict[str, Any]:
    model = draw(st.sampled_from(["continuous", "exponential", "constant", "pareto", "weibull", "onoff", None]))
    d: dict[str, Any] = {"model": model} if model else {}
    if model in (None, "exponential", "constant", "pareto", "weibull"):
        maybe(d, draw, "talk", ms(1, 5000))
        maybe(d, draw, "silence", ms(1, 5000))
    if model in ("pareto", "weibull"):
        lo = 1.01 if model == "pareto" else 0.1
        for k in ("shape", "talk_shape", "silence_shape"):
            maybe(d, draw, k, st.floats(lo, 4))
    if model == "onoff":
        maybe(d, draw, "talk", dist_table())
        maybe(d, draw, "silence", dist_table())
    return d


@st.composite
def playout(draw) -> dict[str, Any]:
    kind = draw(st.sampled_from(["fixed", "fixed-depth", "ramjee-1", "ramjee-2", "ramjee-3", "ramjee-4", "quantile"]))
    d: dict[str, Any] = {"kind": kind}
    if kind == "fixed":
        maybe(d, draw, "delay", ms(0, 1000))
    elif kind == "fixed-depth":
        maybe(d, draw, "depth", st.integers(1, 1000))
        maybe(d, draw, "ptime", ms(1, 100))
    elif kind.startswith("ramjee"):
        maybe(d, draw, "alpha", st.floats(0, 0.999))
        maybe(d, draw, "beta", st.floats(0.1, 10))
        maybe(d, draw, "initial_variation", ms(0, 100))
        if kind == "ramjee-2":
            maybe(d, draw, "alpha_increase", st.floats(0, 0.999))
        if kind == "ramjee-4":
            maybe(d, draw, "spike_threshold", ms(1, 500))
            maybe(d, draw, "spike_end", ms(1, 50))
    else:
        maybe(d, draw, "quantile", st.floats(0.01, 1))
        maybe(d, draw, "window", st.integers(1, 10_000))
        if draw(st.booleans()):
            lo = draw(st.integers(0, 1000))
            d["min_depth"] = f"{lo}ms"
            d["max_depth"] = f"{lo + draw(st.integers(0, 1000))}ms"
    return d


@st.composite
def tcp(draw) -> dict[str, Any]:
    d: dict[str, Any] = {"kind": "tcp"}
    cc = draw(st.sampled_from(CC + [None]))
    if cc:
        d["cc"] = cc
    recovery = draw(st.sampled_from(["tahoe", "reno", "newreno", "sack", None]))
    if recovery:
        d["recovery"] = recovery
    if (recovery or DEFAULT_RECOVERY.get(cc or "newreno", "newreno")) == "sack":
        maybe(d, draw, "sack", st.just(True))
    else:
        maybe(d, draw, "sack", st.booleans())
    mss = draw(st.integers(1, 65495))
    if draw(st.booleans()):
        d["mss"] = f"{mss}B"
    else:
        mss = 1460
    if draw(st.booleans()):
        d["rcv_window"] = f"{mss + draw(st.integers(0, 1 << 24))}B"
    maybe(d, draw, "initial_window", st.one_of(st.integers(1, 1000), st.sampled_from(["rfc2581", "rfc3390", "rfc6928"])))
    for k in ("nodelay", "delayed_ack", "ecn", "timestamps", "handshake"):
        maybe(d, draw, k, st.booleans())
    if d.get("timestamps") and mss <= TIMESTAMPS_OPTION:  # RFC 6691 §2: the option comes out of the mss
        d["mss"] = f"{TIMESTAMPS_OPTION + 1}B"
    maybe(d, draw, "delack_timeout", ms(1, 500))
    if draw(st.booleans()):  # rto: min ≤ initial ≤ max
        lo = draw(st.integers(0, 5000))
        init = lo + draw(st.integers(1, 10_000))
        d.update(min_rto=f"{lo}ms", initial_rto=f"{init}ms", max_rto=f"{init + draw(st.integers(0, 100_000))}ms")
    maybe(d, draw, "granularity", ms(0, 100))
    maybe(d, draw, "send_buffer", st.one_of(st.integers(1, 1000).map(lambda n: f"{n}p"),
                                            st.integers(1, 10**9).map(lambda n: f"{n}B")))
    maybe(d, draw, "idle_restart", st.sampled_from(["off", "rfc5681", "rfc7661"]))
    maybe(d, draw, "framing", st.integers(0, 8).map(lambda n: f"{n}B"))
    table: dict[str, Any] = {}
    if cc == "vegas":
        a, b = draw(st.floats(0, 5)), draw(st.floats(0, 10))
        if draw(st.booleans()):
            table["alpha"], table["beta"] = min(a, b), max(a, b)
        else:  # one of them, within the other's default (alpha 1 ≤ beta 3)
            table.update(draw(st.sampled_from([{}, {"alpha": min(a, 3.0)}, {"beta": max(b, 1.0)}])))
        maybe(table, draw, "gamma", st.floats(0, 5))
    elif cc == "cubic":
        maybe(table, draw, "c", st.floats(0.01, 10))
        maybe(table, draw, "beta", unit_float)
        maybe(table, draw, "fast_convergence", st.booleans())
        maybe(table, draw, "tcp_friendliness", st.booleans())
    elif cc in ("westwood", "westwood+"):
        maybe(table, draw, "gain", unit_float)
    elif cc == "real":
        maybe(table, draw, "wave", st.integers(1, 1000))
        maybe(table, draw, "congestion_threshold", unit_float)
    if cc in ("vegas", "cubic", "real", "westwood", "westwood+") and draw(st.booleans()):
        d["westwood" if cc.startswith("westwood") else cc] = table
    return d


def udp():
    return st.fixed_dictionaries({}, optional={"kind": st.just("udp"),
                                               "send_buffer": st.integers(1, 100).map(lambda n: f"{n}p")})


def start(duration_s: int):
    # A source must start before the run ends (issue 10: an error, not an
    # empty source), so a uniform start's upper end stays below it.
    end = duration_s * 1000 - 1
    fixed = st.integers(0, end).map(lambda n: f"{n}ms")
    uniform = st.integers(0, min(5000, end - 1)).flatmap(
        lambda lo: st.integers(lo + 1, min(lo + 5000, end)).map(lambda hi: {"kind": "uniform", "from": f"{lo}ms", "to": f"{hi}ms"}))
    return st.one_of(fixed, uniform) if end >= 1 else fixed


def latest_start_ms(start: Any) -> int:
    if start is None:
        return 0
    text = start["to"] if isinstance(start, dict) else start
    return int(float(text.removesuffix("ms").removesuffix("s")) * (1 if text.endswith("ms") else 1000))


def stagger_that_fits(draw, d: dict[str, Any], end_ms: int) -> None:
    """A stagger with which the last of `count` sources still starts before
    `end_ms` (the run's end or the group's stop)."""
    n = d.get("count", 1)
    room = end_ms - 1 - latest_start_ms(d.get("start"))
    limit = 1000 if n == 1 else min(1000, room // (n - 1))
    if limit >= 0:
        maybe(d, draw, "stagger", ms(0, limit))


@st.composite
def call(draw, nodes: list[str], duration_s: int, i: int) -> dict[str, Any]:
    a, b = draw(st.sampled_from([(nodes[0], nodes[-1]), (nodes[-1], nodes[0])]))
    codec = draw(st.sampled_from(sorted(CODECS)))
    c: dict[str, Any] = {"from": a, "to": b, "codec": codec}
    maybe(c, draw, "count", st.integers(1, 5))
    maybe(c, draw, "ptime", st.sampled_from(list(CODECS[codec])).map(lambda n: f"{n}ms"))
    maybe(c, draw, "overhead", st.integers(0, 100).map(lambda n: f"{n}B"))
    maybe(c, draw, "speech", speech())
    maybe(c, draw, "vad", st.booleans())
    maybe(c, draw, "transport", st.one_of(udp(), tcp(), st.just({"kind": "echo", "ack": "40B"})))
    maybe(c, draw, "playout", playout())
    maybe(c, draw, "advantage", st.floats(0, 40))
    maybe(c, draw, "start", start(duration_s))
    stagger_that_fits(draw, c, duration_s * 1000)
    maybe(c, draw, "length", ms(1, 60_000))
    maybe(c, draw, "label", st.just(f"voice {i}"))
    return c


@st.composite
def traffic(draw, nodes: list[str], duration_s: int) -> dict[str, Any]:
    kind = draw(st.sampled_from(["cbr", "poisson", "onoff", "bulk", "transfer"]))
    t: dict[str, Any] = {"from": nodes[-1], "to": nodes[0], "kind": kind}
    maybe(t, draw, "count", st.integers(1, 3))
    if kind in ("cbr", "poisson", "onoff"):
        t["rate"] = draw(st.integers(1, 10_000).map(lambda n: f"{n}kbps"))
        t["packet"] = draw(st.one_of(st.integers(1, 65535).map(lambda n: f"{n}B"),
                                     st.floats(1, 65535).map(lambda m: {"kind": "exponential", "mean": f"{m:.3f}B"})))
        maybe(t, draw, "transport", st.one_of(udp(), tcp()))
    else:
        t["transport"] = draw(tcp())
    if kind == "onoff":
        maybe(t, draw, "on", dist_table())
        maybe(t, draw, "off", dist_table())
    if kind == "bulk" and draw(st.booleans()):
        t["on"], t["off"] = draw(dist_table()), draw(dist_table())
    if kind == "transfer":
        t["size"] = draw(st.integers(1, 10**6).map(lambda n: f"{n}kB"))
    s = draw(st.integers(0, duration_s - 1))
    if draw(st.booleans()):
        t["start"] = f"{s}s"
        maybe(t, draw, "stop", st.integers(s + 1, duration_s + 10).map(lambda n: f"{n}s"))
    stop_ms = int(t["stop"].removesuffix("s")) * 1000 if "stop" in t else duration_s * 1000
    stagger_that_fits(draw, t, min(stop_ms, duration_s * 1000))
    return t


@st.composite
def link(draw, a: str, b: str) -> dict[str, Any]:
    l: dict[str, Any] = {"between": [a, b], "rate": draw(st.integers(1, 10**6).map(lambda n: f"{n}kbps"))}
    maybe(l, draw, "delay", ms(0, 500))
    maybe(l, draw, "queue", st.one_of(st.integers(0, 1000).map(lambda n: {"limit": f"{n}p"}),
                                      st.integers(0, 10**6).map(lambda n: {"kind": "droptail", "limit": f"{n}B"})))
    maybe(l, draw, "loss", st.one_of(st.just({"kind": "none"}),
                                     st.floats(0, 0.5).map(lambda p: {"kind": "bernoulli", "p": p})))
    maybe(l, draw, "cost", st.integers(1, 100))
    for side in ("forward", "reverse"):
        if draw(st.integers(0, 3)) == 0:
            l[side] = {"rate": draw(st.integers(1, 10**6).map(lambda n: f"{n}kbps")), "delay": draw(ms(0, 100))}
    return l


@st.composite
def scenarios(draw) -> dict[str, Any]:
    duration_s = draw(st.integers(1, 600))
    run: dict[str, Any] = {"duration": f"{duration_s}s"}
    maybe(run, draw, "seed", st.integers(0, 2**64 - 1))
    maybe(run, draw, "run_index", st.integers(0, 100))
    maybe(run, draw, "drain", ms(0, 20_000))
    maybe(run, draw, "trace", st.booleans())
    maybe(run, draw, "series", st.booleans())
    maybe(run, draw, "name", st.text(min_size=1, max_size=10).filter(str.strip))
    nodes = ["a"] + [f"r{i}" for i in range(draw(st.integers(0, 3)))] + ["b"]
    links = [draw(link(x, y)) for x, y in zip(nodes, nodes[1:])]
    calls = [draw(call(nodes, duration_s, i)) for i in range(draw(st.integers(0, 3)))]
    traffic_ = [draw(traffic(nodes, duration_s)) for _ in range(draw(st.integers(0 if calls else 1, 2)))]
    s: dict[str, Any] = {"run": run, "links": links}
    if calls or draw(st.booleans()):
        s["calls"] = calls
    if traffic_:
        s["traffic"] = traffic_
    analysis: dict[str, Any] = {}
    maybe(analysis, draw, "rtpi_threshold", ms(1, 1000))
    maybe(analysis, draw, "rtpi_missing", st.sampled_from(["timely", "delayed", "previous-arrival"]))
    maybe(analysis, draw, "window", st.integers(1, 1000))
    maybe(analysis, draw, "bounds", st.booleans())
    maybe(analysis, draw, "jitter_threshold", ms(1, 1000))
    maybe(analysis, draw, "run_cap", st.integers(1, 1000))
    if draw(st.booleans()):
        end = draw(st.integers(1, duration_s))
        analysis["interval"] = [f"{draw(st.integers(0, end - 1))}s", f"{end}s"]
    if analysis or draw(st.booleans()):
        s["analysis"] = analysis
    return s


# --------------------------------------------------------------------------
# Mutations

WRONG = [0, -1, 1.5, 2**70, -(2**40), 1e300, "", "x", "5", "5 parsecs", "-1ms", "0B", "0p", "1e3ms", "20MS",
         "9999999999999999999999s", True, False, [], [1, "a"], {}, {"kind": "nonesuch"}, {"zz": 1}]


def paths(v: Any, at: tuple = ()) -> list[tuple]:
    """Every key path in the document (dict keys and list indices)."""
    out = [at]
    if isinstance(v, dict):
        for k, x in v.items():
            out += paths(x, at + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            out += paths(x, at + (i,))
    return out


def get(doc: Any, path: tuple) -> Any:
    for p in path:
        doc = doc[p]
    return doc


def mangle_unit(s: str, draw) -> Any:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(\S+)", s)
    if not m:
        return s + "x"
    num, unit = m.groups()
    return draw(st.sampled_from([num, f"{num} parsecs", f"-{num}{unit}", f"{num}{unit.upper()}",
                                 f"{num}e3{unit}", f"0{unit}", f"{num}{unit}{unit}", f"{num}.{unit}",
                                 f"99999999999999999999{unit}", f"0.0000000001{unit}", float(num)]))


@st.composite
def mutated(draw) -> dict[str, Any]:
    doc = json.loads(json.dumps(draw(scenarios())))  # a private copy
    for _ in range(draw(st.integers(1, 3))):
        target = draw(st.sampled_from(paths(doc)))
        op = draw(st.sampled_from(["type", "unknown", "delete", "number", "unit", "null", "empty"]))
        parent, key = (get(doc, target[:-1]), target[-1]) if target else (None, None)
        value = get(doc, target)
        if op == "unknown" and isinstance(value, dict):
            name = draw(st.sampled_from(["zz", "colour", "rate_", "kindd", "cc", "sack", "vegas", "packet", "on"]))
            value[name] = wrong(draw, ["1s", "5p", "1000B"])
        elif parent is None:
            continue
        elif op == "delete":
            del parent[key]
        elif op == "null":
            parent[key] = None
        elif op == "empty":
            parent[key] = {} if isinstance(value, dict) else []
        elif op == "number" and isinstance(value, (int, float)) and not isinstance(value, bool):
            parent[key] = draw(st.sampled_from([-1, 0, 1.5, 2**64, 10**9, -0.5, 1.0, 1e-300, value * 1000 + 7]))
        elif op == "unit" and isinstance(value, str):
            parent[key] = mangle_unit(value, draw)
        else:
            parent[key] = wrong(draw)
    return doc


def wrong(draw, extra: list | None = None) -> Any:
    """A fresh copy of one of WRONG's values (or `extra`'s): a later
    mutation of the same document may write into a dict or list it drew,
    and a shared one would then change what later test cases generate
    (hypothesis reports that as a flaky strategy)."""
    return json.loads(json.dumps(draw(st.sampled_from(WRONG + (extra or [])))))


# --------------------------------------------------------------------------
# The contract

PATH = re.compile(r"^[^.\[\]]+(\[\d+\])*(\.[^.\[\]]+(\[\d+\])*)*$")
TOP = {"run", "links", "calls", "traffic", "analysis"}


def check_rejection(e: talkspurt.ScenarioError, doc: Any) -> None:
    """A rejection names a key path (or the root) and keeps the message form."""
    assert isinstance(e.path, str) and isinstance(e.value, str) and isinstance(e.allowed, str), repr(e)
    assert str(e) == f"{e.path or '(scenario)'}: got {e.value}; expected {e.allowed}", str(e)
    assert e.allowed, str(e)
    if e.path:
        assert PATH.match(e.path), str(e)
        first = re.split(r"[.\[]", e.path, maxsplit=1)[0]
        assert (isinstance(doc, dict) and first in doc) or first in TOP, f"{e} (document keys: {list(doc)})"


def validate(doc: Any) -> Any:
    """The API's verdict: the normalized scenario, or the ScenarioError."""
    try:
        return talkspurt.validate(doc)
    except talkspurt.ScenarioError as e:
        return e


@fuzz(0.8)
@given(scenarios())
def test_valid_scenarios_are_accepted_and_normalize_to_a_fixed_point(doc):
    out = validate(doc)
    assert not isinstance(out, Exception), f"{out}\n{json.dumps(doc, indent=1)}"
    assert validate(out) == out
    for c in out.get("calls", []):
        if c["transport"]["kind"] == "tcp":
            assert {"cc", "recovery", "sack", "mss", "initial_window", "rcv_window", "send_buffer"} <= set(c["transport"])


@fuzz(1.5)
@given(mutated())
def test_mutated_scenarios_are_rejected_with_a_key_path_or_accepted(doc):
    out = validate(doc)
    if isinstance(out, talkspurt.ScenarioError):
        check_rejection(out, doc)
    else:
        assert validate(out) == out


# --------------------------------------------------------------------------
# Through the CLI: TOML files

def toml_key(k: str) -> str:
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)


def toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        if isinstance(v, float) and math.isnan(v):
            return "nan"
        if isinstance(v, float) and math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v if x is not None) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{toml_key(k)} = {toml_value(x)}" for k, x in v.items() if x is not None) + " }"
    raise TypeError(v)


def to_toml(doc: dict[str, Any]) -> str:
    """The scenario as a TOML file ([table], [[array of tables]], inline tables below); None is omitted."""
    out = []
    for k, v in doc.items():
        if isinstance(v, dict):
            out.append(f"[{toml_key(k)}]")
            out += [f"{toml_key(kk)} = {toml_value(x)}" for kk, x in v.items() if x is not None]
        elif isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
            for t in v:
                out.append(f"[[{toml_key(k)}]]")
                out += [f"{toml_key(kk)} = {toml_value(x)}" for kk, x in t.items() if x is not None]
        elif v is not None:
            out.insert(0, f"{toml_key(k)} = {toml_value(v)}")
        out.append("")
    return "\n".join(out)


def cli_validate(path: Path) -> tuple[int, str, str]:
    """`talkspurt validate PATH` in-process: status, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli.main(["validate", str(path)])
        except SystemExit as e:  # argparse
            status = e.code
    return status, out.getvalue(), err.getvalue()


def check_cli(status: int, stdout: str, stderr: str, doc: Any) -> None:
    report = f"exit {status}\nstdout: {stdout[:500]!r}\nstderr: {stderr!r}"
    assert "Traceback" not in stderr, report
    if status == 0:
        json.loads(stdout)
        assert stderr == "", report
        return
    assert status == 2, report
    assert stdout == "", report
    assert stderr.startswith("talkspurt: error: ") and stderr.count("\n") == 1, report
    path = stderr[len("talkspurt: error: "):].split(": got ", 1)[0]
    assert path == "(scenario)" or PATH.match(path), report
    if path != "(scenario)" and isinstance(doc, dict):
        first = re.split(r"[.\[]", path, maxsplit=1)[0]
        assert first in doc or first in TOP, report


@st.composite
def toml_texts(draw) -> str:
    """Valid, mutated, or syntactically broken TOML."""
    text = to_toml(draw(st.one_of(scenarios(), mutated())))
    if draw(st.integers(0, 3)) == 0:  # break the syntax somewhere
        i = draw(st.integers(0, len(text)))
        text = text[:i] + draw(st.sampled_from(["=", "[", "\"", "}", "\n=\n", "x y", "[[", "\\"])) + text[i + 1:]
    return text


@fuzz(0.5)
@given(toml_texts())
def test_cli_validate_never_crashes(tmp_path_factory, text):
    f = tmp_path_factory.mktemp("fuzz") / "scenario.toml"
    f.write_text(text)
    try:
        import tomllib
        doc = tomllib.loads(text)
    except Exception:
        doc = None
    check_cli(*cli_validate(f), doc)


def test_cli_validate_prints_the_tcp_table_with_every_default(tmp_path):
    f = tmp_path / "tcp.toml"
    f.write_text('[run]\nduration = "10s"\n[[links]]\nbetween = ["a", "b"]\nrate = "1Mbps"\n'
                 '[[calls]]\nfrom = "a"\nto = "b"\ncodec = "G.711"\ntransport = { kind = "tcp", cc = "vegas" }\n'
                 '[[traffic]]\nfrom = "b"\nto = "a"\nkind = "bulk"\ntransport = { kind = "tcp" }\n')
    r = subprocess.run([sys.executable, "-m", "talkspurt", "validate", str(f)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    t = s["calls"][0]["transport"]
    assert t == {
        "kind": "tcp", "cc": "vegas", "recovery": "reno", "sack": False, "mss": "1460B",
        "initial_window": "rfc3390", "nodelay": False, "limited_transmit": True, "delayed_ack": True, "delack_timeout": "200ms",
        "initial_rto": "1s", "min_rto": "1s", "max_rto": "60s", "granularity": "1ms", "rcv_window": "1048576B",
        "send_buffer": "1048576B", "idle_restart": "rfc5681", "ecn": False, "timestamps": False,
        "handshake": True, "framing": "2B", "vegas": {"alpha": 1.0, "beta": 3.0, "gamma": 1.0},
    }
    assert s["traffic"][0]["kind"] == "bulk" and s["traffic"][0]["transport"]["cc"] == "newreno"


# A sample through a real process: no traceback, exit status 2, one line.
SUBPROCESS_CASES = [
    ('[run]\nduration = "1s"\n[[links]]\nbetween = ["a", "b"]\nrate = "1Mbps"\n[[calls]]\nfrom = "a"\nto = "b"\n'
     'codec = "G.711"\ntransport = { kind = "tcp", cc = "bbr" }\n', "calls[0].transport.cc"),
    ('[run]\nduration = "1s"\n[[links]]\nbetween = ["a", "b"]\nrate = "1Mbps"\n[[calls]]\nfrom = "a"\nto = "b"\n'
     'codec = "G.711"\ntransport = { kind = "tcp", mss = "0B" }\n', "calls[0].transport.mss"),
    ('[run]\nduration = "1s"\n[[links]]\nbetween = ["a", "b"]\nrate = "1Mbps"\n[[traffic]]\nfrom = "a"\nto = "b"\n'
     'kind = "bulk"\n', "traffic[0].transport"),
    ('[run]\nduration = "1s"\n[[links]]\nbetween = ["a", "b"]\nrate = "1Mbps"\n[[traffic]]\nfrom = "a"\nto = "b"\n'
     'kind = "transfer"\ntransport = { kind = "tcp" }\n', "traffic[0].size"),
    ('[run]\nduration = "10s"\n[[links]]\nbetween = ["a", "b"]\nrate = "1Mbps"\n[[calls]]\nfrom = "a"\nto = "b"\n'
     'codec = "G.711"\n[analysis]\ninterval = ["5s", "20s"]\n', "analysis.interval[1]"),
    ('[run]\nduration = "1s"\n[[links]]\nbetween = ["a", "b"]\nrate = "1Mbps"\n[[calls]]\nfrom = "a"\nto = "b"\n'
     'codec = "G.711"\ntransport = { kind = "tcp", vegas = { alpha = 1 } }\n', "calls[0].transport.vegas"),
]


@pytest.mark.parametrize("text, path", SUBPROCESS_CASES, ids=[p for _, p in SUBPROCESS_CASES])
def test_cli_validate_process_rejects_with_the_key_path(tmp_path, text, path):
    f = tmp_path / "scenario.toml"
    f.write_text(text)
    r = subprocess.run([sys.executable, "-m", "talkspurt", "validate", str(f)], capture_output=True, text=True,
                       timeout=120)
    assert "Traceback" not in r.stderr and r.returncode == 2, r.stderr
    assert r.stderr.startswith(f"talkspurt: error: {path}: got ") and r.stderr.count("\n") == 1, r.stderr
