"""Figures and the HTML report, opened in a real headless browser
(Chromium from Debian's packages: `chromium-headless-shell` or `chromium`)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import talkspurt
from conftest import IN_CI, small_scenario

BROWSERS = ("chromium-headless-shell", "chromium")


def browser() -> str:
    for b in BROWSERS:
        path = shutil.which(b)
        if path:
            return path
    if IN_CI:
        pytest.fail("no Chromium: .ci/run installs the Debian package chromium-headless-shell")
    pytest.skip("Chromium not installed (apt-get install chromium-headless-shell)")


def rendered(html: Path) -> dict[str, str]:
    """Load `html` in headless Chromium and return the <body> data the
    report's script sets once every image has loaded or failed."""
    r = subprocess.run([browser(), "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=10000",
                        "--dump-dom", html.resolve().as_uri()], capture_output=True, text=True, timeout=120)
    body = re.search(r"<body([^>]*)>", r.stdout)
    assert body, r.stderr[-2000:]
    return dict(re.findall(r'data-([a-z-]+)="([^"]*)"', body.group(1)))


@pytest.fixture(scope="module")
def one_run(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("run") / "out"
    talkspurt.run(small_scenario(duration="20s")).save(d)
    return d


@pytest.fixture(scope="module")
def a_sweep(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("sweep")
    f = d / "s.toml"
    f.write_text(small_scenario(duration="10s") + """
[sweep]
replications = 2
grid = { "links[1].delay" = ["10ms", "80ms"], "calls[0].codec" = ["G.711", "G.729"] }
""")
    out = d / "out"
    talkspurt.sweep(f, out, workers=2)
    return out


def test_run_report_renders_every_figure(one_run, tmp_path):
    out = tmp_path / "report.html"
    r = subprocess.run([sys.executable, "-m", "talkspurt", "report", str(one_run), "-o", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    text = out.read_text()
    # self-contained: every image is inline, nothing is fetched
    srcs = re.findall(r'src="([^"]*)"', text)
    assert srcs and all(s.startswith("data:image/png;base64,") for s in srcs)
    assert "http://" not in text and "https://" not in text
    for stem in ("call_0_panels", "ptime_rate_loss", "delay_jitter_cdfs", "burst_histograms"):
        assert f'id="{stem}"' in text, stem
    seen = rendered(out)
    assert seen["figures-total"] == "4" and seen["figures-ok"] == "4", seen
    # The check can fail: a corrupted image is reported as broken.
    broken = tmp_path / "broken.html"
    broken.write_text(text.replace("data:image/png;base64,", "data:image/png;base64,AAAA", 1))
    seen = rendered(broken)
    assert seen["figures-ok"] == "3" and seen["figures-broken"] == "call_0_panels", seen
    # an existing report is not overwritten without --force
    r = subprocess.run([sys.executable, "-m", "talkspurt", "report", str(one_run), "-o", str(out)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "--force" in r.stderr


def test_sweep_report_renders_every_figure(a_sweep, tmp_path):
    from talkspurt.report import write_report

    out = write_report(a_sweep, tmp_path / "sweep.html")
    text = out.read_text()
    assert 'id="quality_vs_links_1_delay"' in text and 'id="quality_vs_calls_0_codec"' in text
    seen = rendered(out)
    assert int(seen["figures-total"]) == 6 and seen["figures-ok"] == seen["figures-total"], seen


def test_quality_vs_parameter_plots_medians_and_quartiles(a_sweep):
    from talkspurt.figures import quality_vs_parameter

    calls = talkspurt.load(a_sweep).calls
    fig = quality_vs_parameter(calls, "links[1].delay", ["calls[0].codec"])
    ax = fig.axes[0]
    from talkspurt.figures import _MARKERS

    lines = [l for l in ax.get_lines() if len(l.get_xdata()) == 2 and l.get_marker() in _MARKERS]
    assert len(lines) == 2  # one per codec
    for line, (codec, g) in zip(lines, calls.groupby("calls[0].codec", sort=False, observed=True)):
        x, y = line.get_xdata(), line.get_ydata()
        assert list(x) == [10.0, 80.0]  # "10ms", "80ms" in ms
        want = [g[g["links[1].delay"] == d].r.median() for d in ("10ms", "80ms")]
        np.testing.assert_allclose(y, want)
    # the error bars span the quartiles: each bar's segment is [q1, q3]
    bars = [c for c in ax.collections if len(c.get_segments()) == 2]
    assert len(bars) == 2
    for bar, (codec, g) in zip(bars, calls.groupby("calls[0].codec", sort=False, observed=True)):
        for seg, d in zip(bar.get_segments(), ("10ms", "80ms")):
            r = g[g["links[1].delay"] == d].r
            np.testing.assert_allclose(sorted(seg[:, 1]), [r.quantile(0.25), r.quantile(0.75)])


def test_plot_writes_png_and_svg(one_run, tmp_path):
    from matplotlib.image import imread

    d = tmp_path / "figs"
    r = subprocess.run([sys.executable, "-m", "talkspurt", "plot", str(one_run), "-o", str(d)],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    pngs, svgs = sorted(d.glob("*.png")), sorted(d.glob("*.svg"))
    assert len(pngs) == len(svgs) == 4
    for p in pngs:
        img = imread(p)
        assert img.shape[0] > 100 and img.shape[1] > 100 and img.std() > 0, p
    for s in svgs:
        assert ET.parse(s).getroot().tag.endswith("svg"), s


def test_numeric_axis_reads_units():
    from talkspurt.figures import numeric_axis

    x, unit = numeric_axis(["25ms", "0.1s", "300ms"])
    assert unit == "ms" and list(x) == [25.0, 100.0, 300.0]
    x, unit = numeric_axis(["300kbps", "1Mbps"])
    assert unit == "kb/s" and list(x) == [300.0, 1000.0]
    assert numeric_axis(["G.711", "G.729"]) == (None, "")
    assert numeric_axis(["1ms", "300kbps"]) == (None, "")


def test_call_panels_draw_a_dccp_senders_rate_and_send_buffer():
    # seed 000 Figs 5.7–5.8: X, X_recv and the send buffer beside the packets.
    from talkspurt.figures import call_panels

    sc = small_scenario(duration="10s", transport='{ kind = "dccp", ccid = 4, send_buffer = "5p" }')
    res = talkspurt.run(sc.replace("seed = 3", "seed = 3\nseries = true"))
    fig = call_panels(res.packets, 1, res.series)
    labels = [a.get_ylabel() for a in fig.axes]
    assert "allowed rate\n(kb/s)" in labels and "send buffer\n(packets)" in labels
    ax = fig.axes[labels.index("allowed rate\n(kb/s)")]
    x = next(l for l in ax.get_lines() if l.get_label() == "X (allowed)")
    s = res.series
    want = s[(s.flow == 1) & (s.side == "sender") & (s.name == "x_bps")].value.to_numpy() * 1e-3
    np.testing.assert_allclose(x.get_ydata(), want)
    # UDP records no series: the five packet panels only
    plain = talkspurt.run(small_scenario(duration="5s"))
    assert len(call_panels(plain.packets, 0, plain.series).axes) == 5


AVOIP_PANELS = ["codec rate\n(kb/s)", "delay\n(ms)", "loss\n(%)"]


def test_call_panels_draw_an_avoip_sources_rate_delay_and_loss():
    # seed 004 Figs 4, 6, 10: the source rate, each report's delay beside
    # avg_delay and its loss beside peer_SLR (docs/results.md, series).
    from talkspurt.figures import call_panels

    sc = small_scenario(duration="10s", adapt='{ kind = "avoip" }',
                        rtcp='{ interval = "fixed", min_interval = "1s" }').replace("seed = 3", "seed = 3\nseries = true")
    res = talkspurt.run(sc)
    fig = call_panels(res.packets, 1, res.series)
    labels = [a.get_ylabel() for a in fig.axes]
    assert labels[5:] == AVOIP_PANELS
    # Each call has a voice flow then its RTCP flow: call 1's voice is flow 2.
    s = res.series
    mine = s[(s.flow == 2) & (s.side == "sender")]
    loss_ax = fig.axes[labels.index("loss\n(%)")]
    slr = next(l for l in loss_ax.get_lines() if l.get_label() == "peer_SLR")
    want = mine[mine.name == "report_slr"].value.to_numpy() * 100.0
    assert len(want) > 0
    np.testing.assert_allclose(slr.get_ydata(), want)
    delay_ax = fig.axes[labels.index("delay\n(ms)")]
    assert {l.get_label() for l in delay_ax.get_lines()} == {"report's delay", "avg_delay"}
    # A UDP call with series on (its ptime_ms / bitrate_bps rows, no
    # reports): the five packet panels only.
    plain = talkspurt.run(small_scenario(duration="5s").replace("seed = 3", "seed = 3\nseries = true"))
    assert plain.series is not None and len(plain.series)
    assert not set(AVOIP_PANELS) & {a.get_ylabel() for a in call_panels(plain.packets, 0, plain.series).axes}
