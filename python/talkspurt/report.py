"""`talkspurt report`: one self-contained HTML file for a results folder.

Figures are embedded as PNG data URIs, tables as HTML, so the file can be
mailed or archived alone. A small inline script checks, once the page has
loaded, that every figure decoded (`naturalWidth > 0`) and writes the count
into `<body data-figures-ok=… data-figures-total=…>`; the tests read it
back from headless Chromium (tests/test_report.py).
"""

from __future__ import annotations

import base64
import html
import io
import json
import os
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 72em; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; font-size: 0.8em; margin: 1em 0; }
.wide { overflow-x: auto; max-width: 100%; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.5em; text-align: right; }
th { background: #f4f4f4; } figure { margin: 1.5em 0; } img { max-width: 100%; }
figcaption { font-size: 0.9em; color: #555; } code { background: #f4f4f4; padding: 0 0.2em; }
"""

CHECK = """
window.addEventListener("load", function () {
  var imgs = document.querySelectorAll("figure img"), ok = 0, bad = [];
  imgs.forEach(function (i) { if (i.complete && i.naturalWidth > 0) { ok++; } else { bad.push(i.alt); } });
  document.body.dataset.figuresOk = ok;
  document.body.dataset.figuresTotal = imgs.length;
  document.body.dataset.figuresBroken = bad.join("|");
  // Header cells of the calls table a reader cannot see without scrolling
  // (right of the window).
  var hidden = [];
  document.querySelectorAll("#calls th").forEach(function (h) {
    var r = h.getBoundingClientRect();
    if (r.right > window.innerWidth + 0.5) { hidden.push(h.textContent.trim()); }
  });
  document.body.dataset.headersOffscreen = hidden.join("|");
});
"""

# R and MOS lead, so the columns a reader came for are on screen whatever
# the width (issue 25: at 1280 px they were cut off at the right).
CALL_COLUMNS = ["call", "group", "r", "mos", "band", "codec", "ptime_ms", "transport", "playout", "generated",
                "loss_total", "loss_late", "delay_mean_ms", "delay_p95_ms", "jitter_ms", "mouth_to_ear_ms",
                "r_random", "bound_g107_r", "emodel_extrapolated"]
# Short headers (docs/results.md names every column).
HEADERS = {"ptime_ms": "ptime ms", "generated": "pkts", "delay_mean_ms": "delay ms", "delay_p95_ms": "p95 ms",
           "jitter_ms": "jitter ms", "mouth_to_ear_ms": "m2e ms", "bound_g107_r": "R opt",
           "emodel_extrapolated": "extrap.", "r": "R", "mos": "MOS", "r_random": "R random"}


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    return base64.b64encode(buf.getvalue()).decode()


def _table(df, floatfmt: str = "{:.2f}") -> str:
    """An HTML table, fractions in percent (`loss_total` → `loss_total %`, as
    the figures draw them), in a box that scrolls rather than overflows."""
    from .figures import is_fraction

    pct = [c for c in df.columns if isinstance(c, str) and is_fraction(c) and df[c].dtype.kind == "f"]
    if pct:
        df = df.assign(**{c: df[c] * 100.0 for c in pct}).rename(columns={c: f"{c} %" for c in pct})
    df = df.rename(columns={k: v for k, v in HEADERS.items() if k in df.columns})
    return '<div class="wide">' + df.to_html(index=False, float_format=lambda x: floatfmt.format(x), na_rep="–",
                                              border=0) + "</div>"


def _sweep_summary(res) -> str:
    """Per point: median and quartiles of R over calls, and the mean of R
    over replications (each run's mean over its calls) with its 95 %
    interval and the number of replications."""
    import pandas as pd

    from .stats import summarize

    calls = res.calls
    if calls is None:
        return "<p>No run is complete yet.</p>"
    keys = ["point", *res.axes]
    agg = calls.groupby(keys, dropna=False, observed=True).agg(
        runs=("run", "nunique"), calls=("call", "size"), r_median=("r", "median"),
        r_q1=("r", lambda s: s.quantile(0.25)), r_q3=("r", lambda s: s.quantile(0.75)),
        mos_median=("mos", "median"), loss_total_median=("loss_total", "median"),
        extrapolated=("emodel_extrapolated", "sum")).reset_index()
    ci = summarize(res, "r", keys).drop(columns=["n", "r_ci_half"])
    agg = pd.merge(agg, ci, on=keys, how="left")
    return _table(agg, "{:.3f}")


def build_html(res, **select: Any) -> str:
    """The report's HTML; `select` chooses the figures (`figures.figures_for`)."""
    from .figures import _plt, figures_for
    from .store import SweepResults

    plt = _plt()
    sweep = isinstance(res, SweepResults)
    m = res.manifest
    parts = [f"<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>talkspurt report</title>"
             f"<style>{CSS}</style></head><body>"]
    title = "Sweep" if sweep else "Run"
    parts.append(f"<h1>talkspurt — {title} report</h1>")
    when = datetime.now(timezone.utc).isoformat(timespec="seconds")
    if sweep:
        runs = res.runs
        parts.append(f"<p>{len(runs)} runs ({int(runs.complete.sum())} complete); swept: "
                     f"{', '.join(f'<code>{html.escape(a)}</code>' for a in res.axes) or 'nothing'}; "
                     f"replications {m['sweep']['replications']}. Generated {when} by talkspurt "
                     f"{html.escape(str(m['versions']['talkspurt']))}.</p>")
        parts.append("<h2>Quality per point</h2>" + _sweep_summary(res))
    else:
        parts.append(f"<p>Seed {m['seed']}, {m['voice_packets']} voice packets, {m['events']} events, "
                     f"{m['wall_time_s']:.2f} s wall. Generated {when} by talkspurt "
                     f"{html.escape(str(m['versions']['talkspurt']))}.</p>")
        cols = [c for c in CALL_COLUMNS if c in res.calls.columns]
        parts.append("<h2>Calls</h2><div id=\"calls\">" + _table(res.calls[cols]) + "</div>")
        if res.groups is not None:
            parts.append("<h2>Groups</h2>" + _table(res.groups))
        if res.links is not None:
            parts.append("<h2>Links</h2>" + _table(res.links))
    parts.append("<h2>Figures</h2>")
    for stem, caption, fig in figures_for(res, **select):
        parts.append(f"<figure id=\"{html.escape(stem)}\"><img alt=\"{html.escape(stem)}\" "
                     f"src=\"data:image/png;base64,{_png(fig)}\"><figcaption>{html.escape(caption)}</figcaption></figure>")
        plt.close(fig)
    scenario = m["base"] if sweep else m["scenario"]
    parts.append("<h2>Scenario</h2><pre>" + html.escape(json.dumps(scenario, indent=1)) + "</pre>")
    parts.append(f"<script>{CHECK}</script></body></html>")
    return "".join(parts)


def write_report(source: Any, output: str | os.PathLike, **select: Any) -> Path:
    """Write the report of a results folder (or a results object) to
    `output`, atomically; `select` chooses the figures (`figures_for`)."""
    from .store import load

    res = load(source) if isinstance(source, (str, os.PathLike)) else source
    text = build_html(res, **select)
    out = Path(output)
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{out.name}.", dir=out.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        um = os.umask(0)
        os.umask(um)
        os.chmod(tmp, 0o666 & ~um)
        os.replace(tmp, out)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return out
