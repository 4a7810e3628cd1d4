"""Figures that tell the truth and a report that fits (issue 25)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import talkspurt
from conftest import small_scenario
from test_report import browser
from talkspurt.figures import _MARKERS


def _calls(rows):
    return pd.DataFrame(rows)


def test_categorical_axes_are_points_not_lines_and_dodged():
    from talkspurt.figures import quality_vs_parameter

    calls = _calls([{"codec": c, "t": t, "r": r, "loss_total": 0.01, "run": f"{c}{t}{i}"}
                    for c, r in (("G.711", 90.0), ("G.729", 80.0)) for t in ("udp", "tcp") for i in range(3)])
    fig = quality_vs_parameter(calls, "codec", ["t"])
    ax = fig.axes[0]
    lines = [l for l in ax.get_lines() if len(l.get_xdata()) == 2 and l.get_marker() in _MARKERS]
    assert len(lines) == 2
    for l in lines:
        assert l.get_linestyle() in ("None", "none", "")  # no line joins G.711 to G.729
    # identical values (udp and tcp give the same R) stay visible: shifted x
    xs = [tuple(l.get_xdata()) for l in lines]
    assert xs[0] != xs[1]
    assert [tuple(l.get_ydata()) for l in lines] == [(90.0, 80.0)] * 2


def test_identical_numeric_series_differ_in_marker_and_nan_points_are_noted():
    from talkspurt.figures import quality_vs_parameter

    rows = []
    for d in ("10ms", "50ms", "200ms"):
        for t in ("a", "b"):
            rows.append({"delay": d, "t": t, "r": np.nan if d == "200ms" else 80.0, "loss_total": 0.5})
    fig = quality_vs_parameter(_calls(rows), "delay", ["t"])
    ax = fig.axes[0]
    lines = [l for l in ax.get_lines() if len(l.get_xdata()) == 2 and l.get_marker() in _MARKERS]
    assert len(lines) == 2 and lines[0].get_marker() != lines[1].get_marker()
    assert list(lines[0].get_xdata()) == [10.0, 50.0]  # numeric axes are not shifted
    notes = [t.get_text() for t in ax.texts]
    assert "2 points NaN, not drawn" in notes
    # loss is drawn in percent
    loss = [l for l in fig.axes[1].get_lines() if len(l.get_xdata()) == 3 and l.get_marker() in _MARKERS][0]
    assert list(loss.get_ydata()) == [50.0, 50.0, 50.0]


def test_ptime_panel_ignores_the_short_last_packet_of_a_talkspurt():
    from talkspurt import codecs
    from talkspurt.figures import ptime_rate_loss

    res = talkspurt.run(small_scenario(duration="20s", ptime='"20ms"'))
    frames = {c["name"]: c["frame_ms"] for c in codecs()}
    p = res.packets
    assert (p[p.call == 0].frames == 1).any()  # talkspurt ends carry one 10 ms frame
    fig = ptime_rate_loss(p, res.calls, frames)
    for line in fig.axes[0].get_lines():
        assert set(np.asarray(line.get_ydata(), dtype=float)) == {20.0}


def test_metric_kinds_and_run_picker(tmp_path):
    f = tmp_path / "s.toml"
    f.write_text(small_scenario(duration="3s") + '[sweep]\ngrid = { "links[1].delay" = ["10ms", "60ms"] }\n')
    out = tmp_path / "out"
    talkspurt.sweep(f, out, workers=1)
    figs = tmp_path / "figs"
    r = subprocess.run([sys.executable, "-m", "talkspurt", "plot", str(out), "-o", str(figs), "--format", "png",
                        "--metric", "rtpi", "--metric", "loss-stages", "--metric", "ftp-goodput",
                        "--metric", "fairness", "--metric", "jitter_ms", "--stat", "mean", "--run", "1",
                        "--call", "2"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    names = {p.stem for p in figs.glob("*.png")}
    assert {"rtpi_vs_links_1_delay", "loss_stages_vs_links_1_delay", "ftp_goodput_vs_links_1_delay",
            "fairness_vs_links_1_delay", "jitter_ms_vs_links_1_delay", "call_2_panels"} <= names, names
    from talkspurt.figures import figures_for

    res = talkspurt.load(out)
    caps = [c for s, c, _ in figures_for(res, metrics=(), run=1) if s == "burst_histograms"]
    assert "point 1" in caps[0]
    bad = subprocess.run([sys.executable, "-m", "talkspurt", "plot", str(out), "-o", str(tmp_path / "x"),
                          "--metric", "nonsense"], capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2 and "--metric" in bad.stderr


def test_run_report_shows_r_and_mos_at_1280_px(tmp_path):
    d = tmp_path / "run"
    talkspurt.run(small_scenario(duration="5s")).save(d)
    html = tmp_path / "report.html"
    from talkspurt.report import write_report

    write_report(d, html)
    r = subprocess.run([browser(), "--headless", "--no-sandbox", "--disable-gpu", "--window-size=1280,900",
                        "--virtual-time-budget=10000", "--dump-dom", html.resolve().as_uri()],
                       capture_output=True, text=True, timeout=120)
    body = re.search(r"<body([^>]*)>", r.stdout)
    assert body, r.stderr[-2000:]
    data = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', body.group(1)))
    hidden = set(filter(None, data["headers-offscreen"].split("|")))
    assert not hidden & {"R", "MOS"}, hidden
    # Fractions are percent in the tables, as in the figures.
    assert "loss_total %" in html.read_text()


def test_the_cli_names_every_figure_kind():
    from talkspurt.cli import FIGURE_KINDS
    from talkspurt.figures import KINDS

    assert FIGURE_KINDS == tuple(KINDS)
