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
table { border-collapse: collapse; font-size: 0.85em; margin: 1em 0; }
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
});
"""

CALL_COLUMNS = ["call", "group", "codec", "ptime_ms", "transport", "playout", "generated", "loss_total",
                "loss_late", "delay_mean_ms", "delay_p95_ms", "jitter_ms", "mouth_to_ear_ms", "r", "mos", "band",
                "r_random", "bound_g107_r", "emodel_extrapolated"]


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100)
    return base64.b64encode(buf.getvalue()).decode()


def _table(df, floatfmt: str = "{:.2f}") -> str:
    return df.to_html(index=False, float_format=lambda x: floatfmt.format(x), na_rep="–", border=0)


def _sweep_summary(res) -> str:
    calls = res.calls
    if calls is None:
        return "<p>No run is complete yet.</p>"
    keys = ["point", *res.axes]
    agg = calls.groupby(keys, dropna=False, observed=True).agg(
        runs=("run", "nunique"), calls=("call", "size"), r_median=("r", "median"),
        r_q1=("r", lambda s: s.quantile(0.25)), r_q3=("r", lambda s: s.quantile(0.75)),
        mos_median=("mos", "median"), loss_median=("loss_total", "median"),
        extrapolated=("emodel_extrapolated", "sum")).reset_index()
    return _table(agg, "{:.3f}")


def build_html(res) -> str:
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
        parts.append("<h2>Calls</h2>" + _table(res.calls[cols]))
        if res.groups is not None:
            parts.append("<h2>Groups</h2>" + _table(res.groups))
        if res.links is not None:
            parts.append("<h2>Links</h2>" + _table(res.links))
    parts.append("<h2>Figures</h2>")
    for stem, caption, fig in figures_for(res):
        parts.append(f"<figure id=\"{html.escape(stem)}\"><img alt=\"{html.escape(stem)}\" "
                     f"src=\"data:image/png;base64,{_png(fig)}\"><figcaption>{html.escape(caption)}</figcaption></figure>")
        plt.close(fig)
    scenario = m["base"] if sweep else m["scenario"]
    parts.append("<h2>Scenario</h2><pre>" + html.escape(json.dumps(scenario, indent=1)) + "</pre>")
    parts.append(f"<script>{CHECK}</script></body></html>")
    return "".join(parts)


def write_report(source: Any, output: str | os.PathLike) -> Path:
    """Write the report of a results folder (or a results object) to
    `output`, atomically."""
    from .store import load

    res = load(source) if isinstance(source, (str, os.PathLike)) else source
    text = build_html(res)
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
