"""`talkspurt reproduce`: the engine on a toy bundle whose "paper" is a
closed form (tests/data/reproduce/toy: Bernoulli link loss p, so the
calls' link loss must come out at p), its verdicts, errors, resumption,
outputs and report. The seeds' own bundles are run in
tests/test_reproduce_bundles.py."""

from __future__ import annotations

import math
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import talkspurt
from conftest import IN_CI, ROOT
from talkspurt.reproductions.compare import Stat, t95
from talkspurt.reproductions.metrics import run_length_var, run_length_mean

TOY = ROOT / "tests" / "data" / "reproduce" / "toy"


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "talkspurt", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=600)


def need_ns():
    if shutil.which("ns") is None:
        if IN_CI:
            pytest.fail("ns-2 missing: .ci/run installs the Debian package ns2")
        pytest.skip("ns-2 not installed")


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    out = tmp_path_factory.mktemp("toy") / "r"
    p = cli("reproduce", TOY, "-o", out, "--quick", "-j", "2")
    assert p.returncode == 0, p.stderr
    return out, p.stdout


def test_verdicts_are_computed_from_the_runs(quick):
    out, stdout = quick
    df = pd.read_csv(out / "comparison.csv")
    v = dict(zip(df["row"], df["verdict"]))
    # Closed form: a Bernoulli link loses p (1 % and 5 %); the tolerance is
    # 3 binomial standard deviations of the quick run's packets.
    assert v["p = 0.01"] == "reproduced"
    assert v["p = 0.05"] == "reproduced"
    assert v["p = 0.2"] == "no published value"
    assert v["loss rises with p"] == "trend reproduced"
    row = df[df.row == "p = 0.2"].iloc[0]
    assert abs(row.talkspurt - 20.0) < 3.0, row.talkspurt  # 3 sd of 2 x 2000 packets is 1.9 points
    assert set(df["scale"]) == {"quick"}
    assert (df[df.kind == "value"]["n"] == 2).all()  # quick.replications = 2
    assert "QUICK SCALE" in stdout and "reproduced 2" in stdout


def test_every_output_says_quick(quick):
    out, _ = quick
    assert "Quick scale" in (out / "reproduction.md").read_text()
    assert 'id="quick"' in (out / "report.html").read_text()


def test_ns2_twin_column(quick):
    need_ns()
    out, _ = quick
    df = pd.read_csv(out / "comparison.csv")
    ns2 = dict(zip(df["row"], df["ns2"]))
    # ns-2's ErrorModel drops with the same p: within 2 points of it at 2000 packets.
    assert abs(ns2["p = 0.05"] - 5.0) < 2.0
    assert math.isnan(ns2["p = 0.2"])  # no twin declared
    assert list((out / "ns2-quick").glob("loss-*.out"))


def test_rerun_resumes_and_gives_the_same_table(quick):
    out, _ = quick
    before = (out / "comparison.csv").read_text()
    p = cli("reproduce", TOY, "-o", out, "--quick", "-j", "2", "-q")
    assert p.returncode == 0, p.stderr
    assert (out / "comparison.csv").read_text() == before
    import json

    m = json.loads((out / "runs-quick" / "loss" / "sweep.json").read_text())
    assert m["sessions"][-1]["runs_executed"] == 0


def test_one_pool_for_runs_and_twins_survives_a_dead_worker(quick, tmp_path, monkeypatch):
    # The bundle's runs and ns-2 twins share one worker pool (and its
    # figures are drawn there): a worker killed on its first job is
    # replaced, its job resubmitted, and the comparison is the same table
    # as the module's reproduction (same runs, same twins).
    import json

    ref, _ = quick
    marker = tmp_path / "kill-once"
    marker.write_text("")
    monkeypatch.setenv("TALKSPURT_FAULT_KILL_ONCE", str(marker))
    out = tmp_path / "r"
    df = talkspurt.reproduce(TOY, out, quick=True, workers=2)
    assert not marker.exists(), "a worker died"
    assert (out / "comparison.csv").read_text() == (ref / "comparison.csv").read_text()
    m = json.loads((out / "runs-quick" / "loss" / "sweep.json").read_text())
    s = m["sessions"][-1]
    assert s["runs_executed"] == len(m["runs"]) and "interrupted" not in s
    assert s["resubmitted"] >= 1  # the killed run, charged to its experiment
    assert len(df) == 5 and (out / "report.html").is_file()


def test_a_wrong_published_value_is_not_reproduced(tmp_path):
    b = tmp_path / "bundle"
    shutil.copytree(TOY, b)
    text = (b / "published.toml").read_text().replace("value = 1.0\n", "value = 3.0\n", 1)
    text = text.replace('stated = "closed form: a Bernoulli', 'diagnosis = "typed wrong on purpose"\nstated = "closed form: a Bernoulli', 1)
    (b / "published.toml").write_text(text)
    df = talkspurt.reproduce(b, tmp_path / "out", quick=True, items=["Fig. 1"], workers=2, report=False)
    row = df[df.row == "p = 0.01"].iloc[0]
    assert row.verdict == "not reproduced" and row.paper == 3.0
    md = (tmp_path / "out" / "reproduction.md").read_text()
    assert "typed wrong on purpose" in md and "| not reproduced | 1 |" in md
    assert "Fig. 2" not in set(df["item"])  # --item restricts


@pytest.mark.parametrize("edit,needle", [
    (("tolerance = { abs = 0.5,", "tolerance = { absolute = 0.5,"), "value[0].tolerance.absolute: got unknown key"),
    (('where = { "links[0].loss.p" = 0.01, group = "voice" }', 'where = { "links[0].loss.p" = 0.01, grp = "voice" }'),
     "value[0].where.grp: got a column this table does not have"),
    (('kind = "increasing"', 'kind = "rising"'), "trend[0].kind: got 'rising'; expected one of less, greater"),
    (('experiment = "loss"\nwhere = { "links[0].loss.p" = 0.05', 'experiment = "lossy"\nwhere = { "links[0].loss.p" = 0.05'),
     "value[1].experiment: got 'lossy'; expected one of the experiments loss"),
    (('reading = "headers"', 'reading = "bytes"'), "trend[0].reading: got 'bytes'"),
])
def test_bad_bundles_fail_with_the_key_path(tmp_path, edit, needle):
    b = tmp_path / "bundle"
    shutil.copytree(TOY, b)
    text = (b / "published.toml").read_text()
    assert edit[0] in text
    (b / "published.toml").write_text(text.replace(edit[0], edit[1], 1))
    out = tmp_path / "out"
    p = cli("reproduce", b, "-o", out, "--quick", "-j", "1")
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert needle in p.stderr and "Traceback" not in p.stderr, p.stderr
    # nothing written (a bad selection is found after the runs, so runs may exist, but no comparison)
    assert not (out / "comparison.csv").exists()


def test_unknown_bundle_lists_the_known_ones(tmp_path):
    p = cli("reproduce", "999", "-o", tmp_path / "o", cwd=ROOT)
    assert p.returncode == 2 and "bundle: got '999'" in p.stderr and "Traceback" not in p.stderr, p.stderr


def test_refuses_a_folder_holding_something_else(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    (out / "mine.txt").write_text("keep")
    p = cli("reproduce", TOY, "-o", out, "--quick")
    assert p.returncode == 2 and "not empty and holds no reproduction" in p.stderr
    assert (out / "mine.txt").read_text() == "keep" and len(list(out.iterdir())) == 1


def test_an_edited_bundle_keeps_its_old_runs_until_force(quick, tmp_path):
    # Editing a bundle's sweep (here 4 -> 5 calls) makes the finished runs in
    # the output another sweep's: refused with exit status 2 and nothing
    # removed; --force (which the error names) then removes only those runs
    # and reproduces the edited bundle.
    bundle = tmp_path / "toy"
    shutil.copytree(TOY, bundle)
    out = tmp_path / "o"
    shutil.copytree(quick[0], out)
    sweep = bundle / "loss.toml"
    assert "count = 4" in sweep.read_text()
    sweep.write_text(sweep.read_text().replace("count = 4", "count = 5"))
    runs = out / "runs-quick" / "loss" / "runs"
    before = sorted(p.name for p in runs.iterdir())
    p = cli("reproduce", bundle, "-o", out, "--quick", "-j", "2")
    assert p.returncode == 2 and "holds another sweep" in p.stderr and "--force" in p.stderr, p.stderr
    assert sorted(p.name for p in runs.iterdir()) == before
    p = cli("reproduce", bundle, "-o", out, "--quick", "-j", "2", "--force")
    assert p.returncode == 0, p.stderr
    after = sorted(p.name for p in runs.iterdir())
    assert len(after) == len(before) and not set(after) & set(before)
    assert "reproduced" in (out / "comparison.csv").read_text()


def test_doc_is_full_scale_only_and_never_overwrites_a_hand_written_file(tmp_path):
    p = cli("reproduce", TOY, "-o", tmp_path / "o", "--quick", "--doc", tmp_path / "d.md")
    assert p.returncode == 2 and "--doc" in p.stderr and "full-scale" in p.stderr
    doc = tmp_path / "mine.md"
    doc.write_text("# my notes\n")
    p = cli("reproduce", TOY, "-o", tmp_path / "o2", "--doc", doc, "--item", "Fig. 2", "-j", "2")
    assert p.returncode == 2 and "not generated by talkspurt reproduce" in p.stderr
    assert doc.read_text() == "# my notes\n"
    # A folder receives NNN.md, as with several bundles; a hand-written
    # toy.md in it is refused the same way.
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "toy.md").write_text("# mine\n")
    p = cli("reproduce", TOY, "-o", tmp_path / "o3", "--doc", docs, "--item", "Fig. 2", "-j", "2")
    assert p.returncode == 2 and "toy.md exists and was not generated" in p.stderr, p.stderr
    (docs / "toy.md").unlink()
    p = cli("reproduce", TOY, "-o", tmp_path / "o3", "--doc", docs, "--item", "Fig. 2", "-j", "2")
    assert p.returncode == 0, p.stderr
    assert sorted(x.name for x in docs.iterdir()) == ["toy.md"] and f"{docs / 'toy.md'} updated" in p.stdout
    assert (docs / "toy.md").read_text().startswith("<!-- generated by `talkspurt reproduce`")


def test_report_renders_in_a_browser(quick):
    from test_report import rendered

    out, _ = quick
    body = rendered(out / "report.html")
    assert int(body["figures-total"]) >= 3  # Fig. 1 values, two trends
    assert body["figures-ok"] == body["figures-total"], body


def test_student_t_interval():
    # t(0.975, 2) = 4.303 (standard table): [1, 2, 3] has mean 2, sd 1,
    # half-width 4.303 / sqrt(3) = 2.484.
    s = Stat.of([1.0, 2.0, 3.0])
    assert s.mean == 2.0 and s.n == 3
    assert s.high - s.mean == pytest.approx(4.303 / math.sqrt(3), rel=1e-9)
    assert t95(1000) == 1.96 and t95(1) == 12.706
    one = Stat.of([5.0, float("nan")])
    assert one.n == 1 and math.isnan(one.low)


class _Tables:
    def __init__(self, calls):
        self.calls = calls

    def get(self, name):
        return self.calls if name == "calls" else None


def test_pooled_run_moments_equal_the_moments_of_all_runs():
    # Two calls' lost runs: [1, 2, 3] and [4, 4]. Pooled over the five
    # runs: mean 2.8, population variance 1.36.
    a, b = np.array([1, 2, 3.0]), np.array([4, 4.0])
    calls = pd.DataFrame({"call": [0, 1], "group": ["g", "g"], "lost_runs": [3, 2],
                          "lost_run_mean": [a.mean(), b.mean()], "lost_run_var": [a.var(), b.var()]})
    allruns = np.concatenate([a, b])
    assert run_length_mean(_Tables(calls), {"group": "g"}, {"kind": "lost"}) == pytest.approx(allruns.mean())
    assert run_length_var(_Tables(calls), {"group": "g"}, {"kind": "lost"}) == pytest.approx(allruns.var())


def test_without_a_bundle_lists_the_bundles(tmp_path):
    import os

    env = {**os.environ, "TALKSPURT_SEEDS": str(TOY.parent)}
    p = subprocess.run([sys.executable, "-m", "talkspurt", "reproduce"], capture_output=True, text=True,
                       cwd=tmp_path, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "toy" in p.stdout and "5 entries" in p.stdout and "Bernoulli link loss" in p.stdout


def test_every_seeds_derived_metrics_register_under_distinct_names():
    # Each seed registers its derived metrics in metrics_NNN.py; two seeds
    # giving one name to different definitions must fail loudly, not let
    # whichever file loads last decide (seeds 002 and 003 both had "plr").
    from talkspurt.reproductions.metrics import known_derived

    names = known_derived()
    assert {"run_length_mean", "plr_per_flow", "plr_pooled"} <= set(names)


def test_seed002_rates_over_sent_packets():
    # Reading rt-denominator: a backlogged TCP call (100 generated, 40 never
    # left its send buffer, 60 arrived, 3 delayed) counts 3/60 = 5 % over
    # sent packets (3 % over generated); a UDP call (100 sent, 80 arrived,
    # 8 delayed) 8/100 = 8 % either way. Means over the two calls: delayed
    # 6.5 %, RTPI (57/60 + 72/100)/2 = 0.835.
    import pandas as pd
    from talkspurt.reproductions.metrics import _DERIVED, known_derived

    known_derived()
    calls = pd.DataFrame({"group": ["voip", "voip"], "generated": [100, 100], "sender_drop": [0, 0],
                          "in_flight": [40, 0], "arrived": [60, 80], "delayed": [3, 8]})

    class T:
        def get(self, name):
            return calls

    assert _DERIVED["dpr_over_sent"](T(), {"group": "voip"}, {}) == pytest.approx(0.065, abs=1e-12)
    assert _DERIVED["rtpi_over_sent"](T(), {"group": "voip"}, {}) == pytest.approx(0.835, abs=1e-12)
