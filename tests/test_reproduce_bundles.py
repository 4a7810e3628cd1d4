"""Every seed's reproduction bundle, run with `--quick` as CI can afford.

A quick run is a smaller experiment, so its verdicts are not the study's:
this test asserts the verdicts that hold at that scale (QUICK below, each
established by running the bundle), that every entry gets a computed
verdict, and that the committed full-scale doc exists for each bundle. The
full-scale verdicts are in docs/reproductions/NNN.md."""

from __future__ import annotations

import tomllib

import pytest

import talkspurt
from conftest import ROOT
from talkspurt.reproductions import VERDICTS
from talkspurt.reproductions.tables import GENERATED

SEEDS = ROOT / "scenarios" / "seeds"
BUNDLES = sorted(p.parent.name for p in SEEDS.glob("*/published.toml"))

# (item, row, column) -> the verdict at --quick scale. Only entries whose
# quick verdict is stable (not within a replication's spread of the
# tolerance) are listed.
QUICK: dict[str, dict[tuple[str, str, str], str]] = {
    # Seed 002: entries whose means are far apart at both scales (full-scale
    # values in docs/reproductions/002.md).
    "002": {
        ("Fig. 3", "UDP (80) < UDP (10)", "Average real-time performance"): "trend reproduced",
        ("Fig. 5", "Vegas (80) < UDP (80)", "Delayed packets rate"): "trend reproduced",
        ("Fig. 6", "UDP (40) < Vegas (40)", "Packet loss rate"): "not reproduced",
        ("Fig. 7", "UDP (80) < UDP (10)", "Aggregate FTP goodput (20 flows)"): "trend reproduced",
        ("Fig. 8", "UDP (80) < UDP (10)", "Aggregate FTP goodput (60 flows)"): "trend reproduced",
        ("Fig. 8", "UDP (80) < Westwood (80)", "Aggregate FTP goodput (60 flows)"): "trend reproduced",
        ("Fig. 10", "Vegas (40): 200ms vs 100ms", "Delayed packets rate (40 flows)"): "trend reproduced",
        ("Fig. 12", "Real (80): 200ms vs 100ms", "Delayed packets rate (80 flows)"): "trend reproduced",
    },
}


def test_every_seed_has_a_bundle():
    assert BUNDLES == ["000", "001", "002", "003", "004"], BUNDLES


@pytest.mark.parametrize("bundle", BUNDLES)
def test_bundle_runs_quick(bundle, tmp_path):
    doc = tomllib.loads((SEEDS / bundle / "published.toml").read_text())
    n_entries = len(doc.get("value", [])) + len(doc.get("trend", []))
    df = talkspurt.reproduce(bundle, tmp_path / "r", quick=True, workers=2, report=False)
    assert len(df) == n_entries
    assert df["verdict"].isin(VERDICTS).all()
    assert set(df["scale"]) == {"quick"}
    got = {(r.item, r.row, r.column if isinstance(r.column, str) else ""): r.verdict for r in df.itertuples()}
    for key, verdict in QUICK.get(bundle, {}).items():
        assert key in got, f"bundle {bundle}: no entry {key}"
        assert got[key] == verdict, f"bundle {bundle} {key}: {got[key]} at quick scale, expected {verdict}"


@pytest.mark.parametrize("bundle", BUNDLES)
def test_full_scale_doc_is_committed(bundle):
    d = ROOT / "docs" / "reproductions" / f"{bundle}.md"
    assert d.is_file(), f"{d} missing: talkspurt reproduce {bundle} --doc {d.relative_to(ROOT)}"
    text = d.read_text()
    assert text.splitlines()[0] == GENERATED
    assert "Quick scale" not in text
