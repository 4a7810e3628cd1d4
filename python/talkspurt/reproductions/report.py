"""`report.html` of a reproduction: per item of the paper, its kind of
figure with the published points as markers over our values (95 %
confidence intervals) and ns-2's, then the comparison table and the
readings. Self-contained like `talkspurt report` (figures as PNG data
URIs, the same decode check that tests/test_report.py reads back)."""

from __future__ import annotations

import html
import math
from collections import OrderedDict
from typing import Any, Callable, Optional

import pandas as pd

from ..report import CHECK, CSS, _png
from .bundle import Bundle
from .compare import NOT_REPRODUCED, REPRODUCED, TREND_REPRODUCED, Row, sort_key
from .tables import _runs_text, counts

COLOURS = {REPRODUCED: "#1a7f37", TREND_REPRODUCED: "#1a7f37", NOT_REPRODUCED: "#b42318"}
EXTRA_CSS = """
td.v-ok { color: #1a7f37; font-weight: 600; } td.v-miss { color: #b42318; font-weight: 600; }
td.l, th.l { text-align: left; } .banner { background: #fff4ce; border: 1px solid #e0c060; padding: 0.5em 1em; }
.wide { overflow-x: auto; }
"""


def _value_figure(item: str, rows: list[Row]):
    """One panel per column of the item; x = the value's `x` (numeric: lines
    per series) or its row (categorical: markers side by side)."""
    from ..figures import _plt

    plt = _plt()
    cols = list(OrderedDict.fromkeys(r.entry.column or r.entry.metric for r in rows))
    fig, axes = plt.subplots(1, len(cols), figsize=(max(5.0, 4.2 * len(cols)), 3.6), squeeze=False)
    for ax, col in zip(axes[0], cols):
        sub = [r for r in rows if (r.entry.column or r.entry.metric) == col]
        numeric = all(isinstance(r.entry.x, (int, float)) and not isinstance(r.entry.x, bool) for r in sub)
        series = list(OrderedDict.fromkeys(r.entry.series or (r.entry.row if numeric else "") for r in sub))
        cats = list(OrderedDict.fromkeys(str(r.entry.x if r.entry.x is not None else r.entry.row) for r in sub))
        for si, s in enumerate(series):
            pts = [r for r in sub if (r.entry.series or (r.entry.row if numeric else "")) == s]
            if numeric:
                pts.sort(key=lambda r: float(r.entry.x))
                xs = [float(r.entry.x) for r in pts]
            else:
                off = (si - (len(series) - 1) / 2) * 0.15
                xs = [cats.index(str(r.entry.x if r.entry.x is not None else r.entry.row)) + off for r in pts]
            ys = [r.stat.mean for r in pts]
            err = [[0 if math.isnan(r.stat.low) else r.stat.mean - r.stat.low for r in pts],
                   [0 if math.isnan(r.stat.high) else r.stat.high - r.stat.mean for r in pts]]
            lab = f" {s}" if s else ""
            line = ax.errorbar(xs, ys, yerr=err, fmt="o-" if numeric else "o", capsize=3, label=f"talkspurt{lab}")
            colour = line[0].get_color()
            paper = [(x, r.entry.value) for x, r in zip(xs, pts) if r.entry.value is not None]
            if paper:
                ax.plot([p[0] for p in paper], [p[1] for p in paper], "s", mfc="none", mec=colour, ms=9,
                        label=f"paper{lab}")
            ns2 = [(x, r.ns2) for x, r in zip(xs, pts) if r.ns2 is not None and not math.isnan(r.ns2)]
            if ns2:
                ax.plot([p[0] for p in ns2], [p[1] for p in ns2], "x", color=colour, ms=8, label=f"ns-2{lab}")
        if not numeric:
            ax.set_xticks(range(len(cats)))
            ax.set_xticklabels(cats, rotation=30, ha="right", fontsize=8)
        unit = sub[0].entry.unit
        ax.set_title(col, fontsize=10)
        ax.set_ylabel(f"{sub[0].entry.metric}" + (f" ({unit})" if unit else ""), fontsize=8)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(item, fontsize=11)
    _fit(fig, list(axes[0]), suptitle=11)
    return fig


def _trend_figure(r: Row):
    """The means a trend compares, with their intervals, coloured by its
    verdict."""
    from ..figures import _plt

    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.0, 3.2))
    e = r.entry
    pts = r.points
    if e.kind in ("increasing", "decreasing"):
        pts = sorted(pts, key=lambda p: sort_key(p[0]))
    labels = [str(p[0]) for p in pts]
    if e.kind in ("less", "greater", "approx"):
        labels = [_where_label(e.a), _where_label(e.b)]
    elif e.kind == "order":
        labels = [_where_label(w) for w in e.seq]
    xs = list(range(len(pts)))
    ys = [p[1].mean for p in pts]
    err = [[0 if math.isnan(p[1].low) else p[1].mean - p[1].low for p in pts],
           [0 if math.isnan(p[1].high) else p[1].high - p[1].mean for p in pts]]
    ax.errorbar(xs, ys, yerr=err, fmt="o-" if e.kind in ("increasing", "decreasing") else "o", capsize=3,
                color=COLOURS.get(r.verdict, "#444"))
    ax.set_xticks(xs)
    ax.set_xticklabels(labels, rotation=20, ha="right", fontsize=7)
    ax.set_ylabel(e.metric + (f" ({e.unit})" if e.unit else ""), fontsize=8)
    if e.kind in ("increasing", "decreasing"):
        ax.set_xlabel(e.along, fontsize=8)
    ax.set_title(f"{e.item}: {e.kind}", fontsize=9)
    ax.grid(alpha=0.3)
    _fit(fig, [ax])
    return fig


# Points to inches, and the space matplotlib puts between an axis and its
# tick labels (tick length 3.5 + pad 3.5), a tick label and the axis label
# (4), an axes and its title (6), plus a margin all round (rcParams defaults).
PT = 1.0 / 72.0
TICK_PT, LABEL_PT, TITLE_PT, EDGE_IN = 7.0, 4.0, 6.0, 0.08


def _fit(fig, axes: list, suptitle: float = 0.0) -> None:
    """Margins that hold each panel's tick labels, axis labels and titles,
    measured from their text (what `tight_layout` finds, without its pass
    over every artist's extent, which cost as much as drawing the figure:
    a quarter of the report's time). Panels of a row share the widest
    left margin, and the space between two is the next one's left margin
    and the half label the previous one's last tick may reach out."""
    from matplotlib.font_manager import FontProperties

    r = fig.canvas.get_renderer()
    w_in, h_in = fig.get_size_inches()

    def size(text: str, fontsize: float) -> tuple[float, float]:
        if not text:
            return 0.0, 0.0
        w, h, _ = r.get_text_width_height_descent(text, FontProperties(size=fontsize), ismath=False)
        return w / fig.dpi, h / fig.dpi

    sup = size("Ag", suptitle)[1] + 2 * TITLE_PT * PT if suptitle else 0.0
    left = bottom = top = widest = 0.0
    right = EDGE_IN
    n = len(axes)
    panel = (w_in - 1.0) / n  # a panel's width, roughly (for how far left a rotated label reaches)
    for ax in axes:
        ytick = max((size(t.get_text(), t.get_fontsize())[0] for t in ax.get_yticklabels()), default=0.0)
        ylab = size(ax.get_ylabel(), ax.yaxis.label.get_fontsize())[1]
        need = ytick + TICK_PT * PT + (ylab + LABEL_PT * PT if ylab else 0.0)
        # x tick labels: a rotated one (right-aligned at its tick) reaches
        # down by w·sinθ + h·cosθ and left of its tick by w·cosθ + h·sinθ;
        # an upright one half its width either side.
        down = 0.0
        x0, x1 = ax.get_xlim()
        span = (x1 - x0) or 1.0
        for tick, t in zip(ax.get_xticks(), ax.get_xticklabels()):
            if not x0 <= tick <= x1:
                continue
            w, h = size(t.get_text(), t.get_fontsize())
            rot = math.radians(t.get_rotation())
            down = max(down, w * math.sin(rot) + h * math.cos(rot))
            need = max(need, (w * math.cos(rot) + h * math.sin(rot) if rot else w / 2) - (tick - x0) / span * panel)
            if not rot:
                right = max(right, w / 2 - (x1 - tick) / span * panel + EDGE_IN)
        xlab = size(ax.get_xlabel(), ax.xaxis.label.get_fontsize())[1]
        bottom = max(bottom, down + TICK_PT * PT + (xlab + LABEL_PT * PT if xlab else 0.0))
        left = max(left, need)
        tw, title = size(ax.get_title(), ax.title.get_fontsize())
        widest = max(widest, tw)
        fmt = ax.yaxis.get_major_formatter()
        off = size(fmt.get_offset() if hasattr(fmt, "get_offset") else "", ax.yaxis.get_offset_text().get_fontsize())[1]
        top = max(top, max(title + TITLE_PT * PT, off + TICK_PT * PT) + sup)
    left, bottom, top = left + EDGE_IN, bottom + EDGE_IN, top + EDGE_IN
    gap = left - EDGE_IN + right
    width = (w_in - left - right - (n - 1) * gap) / n
    for _ in range(3):  # a centred title wider than its panel reaches past it by half the excess
        spill = (widest - width) / 2
        if spill <= 0:
            break
        left, right = max(left, spill + EDGE_IN), max(right, spill + EDGE_IN)
        gap = max(gap, 2 * spill + EDGE_IN)
        width = (w_in - left - right - (n - 1) * gap) / n
    fig.subplots_adjust(left=left / w_in, right=1.0 - right / w_in, bottom=bottom / h_in, top=1.0 - top / h_in,
                        wspace=gap / width if n > 1 else 0.2)


def _where_label(w: dict[str, Any]) -> str:
    return ", ".join(f"{v}" for v in w.values()) or "all"


def render(job: tuple[int, tuple[str, Any]]) -> str:
    """One figure of the report as a base64 PNG: `job` is (index, (kind,
    what)), kind "value" with what = (item, rows) or "trend" with what =
    the row. Runs in a worker of the reproduction's pool."""
    from ..figures import _plt

    kind, what = job[1]
    fig = _value_figure(*what) if kind == "value" else _trend_figure(what)
    try:
        return _png(fig)
    finally:
        _plt().close(fig)


def _render_here(specs: list[tuple[str, Any]]) -> list[str]:
    return [render((i, s)) for i, s in enumerate(specs)]


def figure_specs(rows: list[Row]) -> list[tuple[str, Any, str, str]]:
    """The report's figures, in order: (kind, what, stem, caption); each
    `(kind, what)` is what `render` draws."""
    by_item: "OrderedDict[str, list[Row]]" = OrderedDict()
    for r in rows:
        by_item.setdefault(r.entry.item, []).append(r)
    specs: list[tuple[str, Any, str, str]] = []
    for item, rs in by_item.items():
        vals = [r for r in rs if r.entry.section == "value"]
        figs = [("value", (item, vals), f"{item}: paper (open squares), talkspurt (dots, 95 % CI), ns-2 (crosses)")] if vals else []
        figs += [("trend", r, f"{item}: {r.entry.claim} — {r.verdict} ({r.detail})")
                 for r in rs if r.entry.section == "trend"]
        specs += [(kind, what, f"{item}-{k}", cap) for k, (kind, what, cap) in enumerate(figs)]
    return specs


def build_html(rows: list[Row], df: pd.DataFrame, bundle: Bundle, scale: str, meta: dict[str, Any],
               draw: Optional[Callable[[list[tuple[str, Any]]], list[str]]] = None,
               pngs: Optional[list[str]] = None) -> str:
    """The report; `pngs` are its figures already drawn (`render` of each
    of `figure_specs(rows)`, in order), or `draw(specs)` draws them (a list
    of base64 PNGs, in order; default: here, one after another)."""
    s = bundle.study
    parts = ["<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
             f"<title>talkspurt reproduction {html.escape(bundle.id)}</title><style>{CSS}{EXTRA_CSS}</style></head><body>",
             f"<h1>Reproduction of seed {html.escape(bundle.id)}</h1>",
             f"<p><b>{html.escape(s['title'])}</b>{', ' + html.escape(s['venue']) if s.get('venue') else ''}.</p>"]
    if scale == "quick":
        parts.append("<p class=\"banner\" id=\"quick\"><b>Quick scale</b> (<code>--quick</code>): shorter runs and "
                     "fewer replications. These are not the study's verdicts.</p>")
    if meta.get("ns2_note"):
        parts.append(f"<p class=\"banner\">{html.escape(meta['ns2_note'])}</p>")
    c = counts(df)
    parts.append("<p>Verdicts: " + ", ".join(f"<b>{html.escape(k)}</b> {v}" for k, v in c.items() if v)
                 + f". talkspurt {html.escape(str(meta.get('version', '?')))}; {html.escape(_runs_text(meta))}.</p>")
    parts.append("<h2>Figures</h2>")
    specs = figure_specs(rows)
    if pngs is None:
        pngs = (draw or _render_here)([(kind, what) for kind, what, _, _ in specs])
    for (_, _, stem, cap), png in zip(specs, pngs):
        parts.append(f"<figure id=\"{html.escape(stem)}\"><img alt=\"{html.escape(stem)}\" "
                     f"src=\"data:image/png;base64,{png}\"><figcaption>{html.escape(cap)}</figcaption></figure>")
    parts.append("<h2>Comparison</h2><div class=\"wide\">" + _comparison(df) + "</div>")
    parts.append("<h2>Readings</h2>")
    for rd in bundle.readings:
        parts.append(f"<h3><code>{html.escape(rd.id)}</code>: {html.escape(rd.topic)}</h3>"
                     f"<p><b>Chosen:</b> {html.escape(rd.chosen)}</p>"
                     + (f"<p><b>Why:</b> {html.escape(rd.why)}</p>" if rd.why else ""))
        if rd.alternatives:
            parts.append("<table><tr><th class=l>alternative</th><th class=l>what it gives</th></tr>"
                         + "".join(f"<tr><td class=l>{html.escape(a['reading'])}</td><td class=l>{html.escape(a['gives'])}</td></tr>"
                                   for a in rd.alternatives) + "</table>")
    if not bundle.readings:
        parts.append("<p>None.</p>")
    parts.append(f"<script>{CHECK}</script></body></html>")
    return "".join(parts)


def _comparison(df: pd.DataFrame) -> str:
    cols = ["item", "row", "column", "unit", "paper", "talkspurt", "ci_low", "ci_high", "n", "ns2", "tolerance",
            "verdict", "detail", "stated"]
    head = "".join(f"<th class=l>{c}</th>" if c in ("item", "row", "column", "detail", "stated") else f"<th>{c}</th>"
                   for c in cols)
    body = []
    for _, r in df.iterrows():
        cells = []
        for c in cols:
            v = r[c]
            if c == "verdict":
                cls = "v-ok" if v in (REPRODUCED, TREND_REPRODUCED) else "v-miss" if v == NOT_REPRODUCED else ""
                cells.append(f"<td class=\"l {cls}\">{html.escape(str(v))}</td>")
            elif isinstance(v, float):
                cells.append("<td>–</td>" if math.isnan(v) else f"<td>{v:.4g}</td>")
            else:
                cells.append(f"<td class=l>{html.escape(str(v))}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table id=\"comparison\"><tr>{head}</tr>{''.join(body)}</table>"
