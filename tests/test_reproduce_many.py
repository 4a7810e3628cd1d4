"""`talkspurt reproduce B1 B2 … -o DIR`: several bundles in one invocation
on one pool of workers, bundle NNN into DIR/NNN, each exactly what a
reproduction of that bundle alone writes (tests/data/reproduce: toy, a
Bernoulli loss closed form with an ns-2 twin; toy_delay, the one-way delay
of an uncongested link)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time

import pandas as pd
import pytest

from conftest import ROOT, assert_group_gone, ctrl_c_group

DATA = ROOT / "tests" / "data" / "reproduce"
TOY, DELAY = DATA / "toy", DATA / "toy_delay"


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "talkspurt", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=600)


def _md(path):
    # The one line that differs between two invocations: their wall time.
    return [line for line in path.read_text().splitlines() if "runs simulated in" not in line]


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    """The two bundles alone, then together in one invocation."""
    d = tmp_path_factory.mktemp("many")
    for b in (TOY, DELAY):
        p = cli("reproduce", b, "-o", d / "alone" / b.name, "--quick", "-j", "2", "-q")
        assert p.returncode == 0, p.stderr
    p = cli("reproduce", TOY, DELAY, "-o", d / "together", "--quick", "-j", "2", "--timings", d / "timings.json")
    assert p.returncode == 0, p.stderr
    return d, p.stdout


def test_each_bundle_writes_what_it_writes_alone(both):
    d, stdout = both
    assert sorted(p.name for p in (d / "together").iterdir()) == ["toy", "toy_delay"]
    for name in ("toy", "toy_delay"):
        one, many = d / "alone" / name, d / "together" / name
        assert (many / "comparison.csv").read_text() == (one / "comparison.csv").read_text()
        assert _md(many / "reproduction.md") == _md(one / "reproduction.md")
        assert json.loads((many / "reproduce.json").read_text())["bundle"] == name
        h1, h2 = (one / "report.html").read_text(), (many / "report.html").read_text()
        assert h1.count("<figure") == h2.count("<figure") > 0 and 'id="quick"' in h2
        assert sorted(p.name for p in many.iterdir()) == sorted(p.name for p in one.iterdir())
    # The closed forms: toy_delay's D + 0.16 ms (tolerance 0.01 ms, in the bundle), toy's p.
    df = pd.read_csv(d / "together" / "toy_delay" / "comparison.csv")
    assert list(df["verdict"]) == ["reproduced", "reproduced", "trend reproduced"]
    assert df["talkspurt"].iloc[0] == pytest.approx(10.16, abs=0.01)
    toy = pd.read_csv(d / "together" / "toy" / "comparison.csv")
    assert dict(zip(toy["row"], toy["verdict"]))["p = 0.05"] == "reproduced"
    # The terminal shows both bundles' tables and where they went.
    assert "Reproduction of seed toy:" in stdout and "Reproduction of seed toy_delay:" in stdout
    assert "2 bundles (toy, toy_delay)" in stdout


def test_one_pool_served_every_bundle(both):
    d, _ = both
    t = json.loads((d / "timings.json").read_text())
    # Runs: toy 3 points x 2 replications, toy_delay 2 points x 1; figures:
    # toy 3 (Fig. 1's values and trend, Fig. 2's trend), toy_delay 2; ns-2
    # twins: toy's p = 0.01 and 0.05, one seed at --quick.
    kinds = t["job_s_by_kind"]
    assert set(kinds) == {"run", "ns-2", "figure"} or shutil.which("ns") is None
    assert t["workers"] == 2 and t["jobs"] == (6 + 2) + (3 + 2) + (2 if shutil.which("ns") else 0)
    assert 0 < t["busy"] <= 1 and set(t["bundles"]) == {"toy", "toy_delay"}


def test_rerun_resumes_every_bundle(both):
    d, _ = both
    before = {n: (d / "together" / n / "comparison.csv").read_text() for n in ("toy", "toy_delay")}
    p = cli("reproduce", TOY, DELAY, "-o", d / "together", "--quick", "-j", "2", "-q")
    assert p.returncode == 0, p.stderr
    for n, text in before.items():
        assert (d / "together" / n / "comparison.csv").read_text() == text
    for sweep in (d / "together").glob("*/runs-quick/*/sweep.json"):
        assert json.loads(sweep.read_text())["sessions"][-1]["runs_executed"] == 0


def test_refuses_a_folder_holding_something_else(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    (out / "mine.txt").write_text("keep")
    p = cli("reproduce", TOY, DELAY, "-o", out, "--quick")
    assert p.returncode == 2 and p.stderr.count("\n") == 1, p.stderr
    assert "holds mine.txt, which is not a reproduction" in p.stderr and "--force" in p.stderr
    assert sorted(x.name for x in out.iterdir()) == ["mine.txt"]


def test_refuses_a_bundle_folder_holding_another_reproduction(tmp_path):
    out = tmp_path / "o"
    (out / "toy_delay").mkdir(parents=True)
    (out / "toy_delay" / "reproduce.json").write_text(json.dumps({"bundle": "toy"}))
    p = cli("reproduce", TOY, DELAY, "-o", out, "--quick")
    assert p.returncode == 2 and "holds the reproduction of bundle 'toy', not 'toy_delay'" in p.stderr, p.stderr
    assert not (out / "toy").exists()  # checked for every bundle before anything is written


@pytest.mark.parametrize("args,needle", [
    (["--item", "Fig. 1"], "--item: got 'Fig. 1' with several bundles"),
    (["--doc", "d.md"], "--doc"),  # quick: the doc is full scale only
])
def test_options_that_name_one_bundle(tmp_path, args, needle):
    p = cli("reproduce", TOY, DELAY, "-o", tmp_path / "o", "--quick", *args, cwd=tmp_path)
    assert p.returncode == 2 and needle in p.stderr and p.stderr.count("\n") == 1, p.stderr
    assert not (tmp_path / "o").exists()


def test_a_bad_bundle_among_several_writes_nothing(tmp_path):
    bad = tmp_path / "bad"
    shutil.copytree(DELAY, bad)
    text = (bad / "published.toml").read_text()
    (bad / "published.toml").write_text(text.replace('kind = "increasing"', 'kind = "rising"', 1))
    p = cli("reproduce", TOY, bad, "-o", tmp_path / "o", "--quick")
    assert p.returncode == 2 and "trend[0].kind: got 'rising'" in p.stderr and "Traceback" not in p.stderr, p.stderr
    assert not (tmp_path / "o").exists()
    p = cli("reproduce", TOY, TOY, "-o", tmp_path / "o", "--quick")
    assert p.returncode == 2 and "bundle: got 'toy'; expected each bundle once" in p.stderr, p.stderr


def test_ctrl_c_stops_every_bundle_and_leaves_no_worker(tmp_path):
    # toy with runs long enough to be interrupted (200 calls x 300 s, a few
    # seconds each), beside toy_delay: Ctrl-C to the whole group once the
    # first run is written. The pool defers it to between results
    # (executors.deferred_interrupts); every open session is recorded as
    # interrupted, no comparison is written, no process of the pool stays.
    slow = tmp_path / "toy"
    shutil.copytree(TOY, slow)
    (slow / "loss.toml").write_text((slow / "loss.toml").read_text().replace("count = 4", "count = 200"))
    pub = (slow / "published.toml").read_text().replace('"run.duration" = "10s"', '"run.duration" = "300s"')
    (slow / "published.toml").write_text(pub)
    out = tmp_path / "o"
    p = subprocess.Popen([sys.executable, "-m", "talkspurt", "reproduce", str(slow), str(DELAY), "-o", str(out),
                          "--quick", "-j", "2", "-q"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    deadline = time.time() + 300
    while not list(out.glob("toy/runs-quick/loss/runs/*")):
        assert p.poll() is None, p.communicate()
        assert time.time() < deadline, "no run written in 300 s"
        time.sleep(0.05)
    _, err = ctrl_c_group(p, 120, "the shared pool hung after Ctrl-C")
    assert p.returncode == 130 and err.strip() == "talkspurt: interrupted", (p.returncode, err)
    assert not (out / "toy" / "comparison.csv").exists()
    s = json.loads((out / "toy" / "runs-quick" / "loss" / "sweep.json").read_text())["sessions"][-1]
    assert s["interrupted"] == "KeyboardInterrupt" and s["runs_executed"] < 6, s
    assert_group_gone(p.pid, "reproduce after Ctrl-C")


WORKER_DIES_WHILE_STARTING = """
import os, signal, time
from talkspurt.executors import Job, LocalPool
out = []
def got(_arg, r):
    out.append(r)
if __name__ == "__main__":
    with LocalPool(2) as pool:
        pool.start()  # as reproduce does while it plans the runs
        deadline = time.time() + 60
        while len(pool._pool._processes) < 2 and time.time() < deadline:
            time.sleep(0.05)
        os.kill(next(iter(pool._pool._processes.values())).pid, signal.SIGKILL)
        time.sleep(1)
        pool.run([Job(abs, -i, got, f"job {i}") for i in range(10)])
    print(sorted(out))
"""


def test_a_worker_dead_before_the_first_batch_is_replaced(tmp_path):
    # The workers start before the batch is planned (LocalPool.start): one
    # killed then breaks the pool before its first job; the batch starts a
    # new one (before the fix: BrokenProcessPool raised from the submit).
    f = tmp_path / "dies.py"
    f.write_text(WORKER_DIES_WHILE_STARTING)
    r = subprocess.run([sys.executable, str(f)], capture_output=True, text=True, timeout=180)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == str(list(range(10)))
