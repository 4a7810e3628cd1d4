"""Figures of the seeds' kinds, drawn with matplotlib (docs/figures.md).

- `quality_vs_parameter`: median and quartiles of R and loss against a
  swept key path, one line per combination of the other axes (seed 000
  Figs 5.1–5.6);
- `call_panels`: one call over time — on/off pattern, packet send / arrival
  / playout delays with losses marked, sending and delivered rate, sender
  wait, windowed impairments (seed 000 Figs 5.7–5.8); with series, the
  transport's rate / window, and an `avoip` source's rate, reported delay
  and loss (seed 004 Figs 4, 6, 10);
- `ptime_rate_loss`: ptime, sending rate and loss per second over time,
  per call (seed 001);
- `delay_jitter_cdfs` and `burst_histograms`: CDFs of one-way delay and of
  |D(i−1, i)| (RFC 3550 §6.4.1), histograms of back-to-back lost and
  received run lengths (seed 004).

Every function returns a `matplotlib.figure.Figure`; `figures_for`
chooses the ones a results folder supports; `save_figures` writes PNG and
SVG. The Agg backend is used, so no display is needed.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np

WINDOW_S = 1.0  # time-series bins (seed 001 plots per-second values)
MAX_LINES = 8
MAX_ROWS = 4

_UNITS = {  # unit → (quantity, factor to the display unit)
    "ns": ("ms", 1e-6), "us": ("ms", 1e-3), "ms": ("ms", 1.0), "s": ("ms", 1e3), "min": ("ms", 6e4),
    "bps": ("kb/s", 1e-3), "kbps": ("kb/s", 1.0), "Mbps": ("kb/s", 1e3), "Gbps": ("kb/s", 1e6),
    "b/s": ("kb/s", 1e-3), "kb/s": ("kb/s", 1.0), "Mb/s": ("kb/s", 1e3), "Gb/s": ("kb/s", 1e6),
    "B": ("B", 1.0), "kB": ("B", 1e3), "KB": ("B", 1e3), "MB": ("B", 1e6), "p": ("packets", 1.0),
}
_NUM = re.compile(r"^\s*([-+]?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)\s*([A-Za-z/]+)\s*$")


def _plt():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def numeric_axis(values: Sequence[Any]) -> tuple[Optional[np.ndarray], str]:
    """Swept values as numbers for an x axis: plain numbers as they are,
    quantities with a unit ("25ms", "300kbps") in one display unit (ms,
    kb/s, B). (None, "") when the values are not all numeric."""
    out, unit = [], None
    for v in values:
        if isinstance(v, bool):
            return None, ""
        if isinstance(v, (int, float, np.integer, np.floating)):
            if unit not in (None, ""):
                return None, ""
            unit = ""
            out.append(float(v))
            continue
        m = _NUM.match(str(v))
        if not m or m.group(2) not in _UNITS:
            return None, ""
        q, f = _UNITS[m.group(2)]
        if unit not in (None, q):
            return None, ""
        unit = q
        out.append(float(m.group(1)) * f)
    return np.array(out), unit or ""


# Fraction columns (0–1) drawn and tabulated in percent everywhere (issue
# 25: the table and the plots used to disagree).
FRACTIONS = {"p_tp", "per", "p_j", "p_j_jitter", "rtpi", "dpr", "rtpi_pooled", "bound_loss", "bound_g107_loss",
             "fixed_loss", "fixed_g107_loss", "loss_event_rate_mean"}


def is_fraction(col: str) -> bool:
    return col.startswith("loss_") or col in FRACTIONS


# Series styles: a marker, a size and a line style each, so that series
# with identical values stay visible (the later ones are drawn smaller and
# hollow over the earlier ones).
_MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
_STYLES = ("-", "--", "-.", ":")


def _style(i: int) -> dict[str, Any]:
    return {"marker": _MARKERS[i % len(_MARKERS)], "markersize": max(3.5, 8.0 - 1.2 * i),
            "fillstyle": "full" if i % 2 == 0 else "none", "linestyle": _STYLES[i % len(_STYLES)]}


def quality_vs_parameter(calls, axis: str, others: Sequence[str] = (),
                         metrics: Sequence[tuple[str, str]] = (("r", "R (G.107)"), ("loss_total", "loss (%)")),
                         stat: str = "median"):
    """Median and quartiles (`stat="median"`) — or the mean over replications
    of each run's mean with its 95 % interval (`stat="mean"`, needs the
    `run` column) — at each value of `axis`; one line per combination of
    the `others` axes. With two `others` whose first has at most MAX_ROWS
    values, each of its values gets its own row of panels (seed 000 draws
    G.729 and G.711 apart), and the second names the lines.

    Fractions are drawn in percent. A categorical axis (codec, transport)
    is drawn as points without connecting lines, each series shifted a
    little so that none hides another; on a numeric axis each series has
    its own marker, size and line style. Points whose value is NaN are
    not drawn and are counted in a note on the panel."""
    from .stats import mean_ci

    plt = _plt()
    rows: list[tuple[str, Any]] = [("", calls)]
    lines = list(others)
    if len(others) == 2 and calls[others[0]].nunique(dropna=True) <= MAX_ROWS:
        rows = [(f"{others[0]}={k}", g) for k, g in calls.groupby(others[0], sort=False, observed=True)]
        lines = [others[1]]
    fig, axes = plt.subplots(len(rows), len(metrics), figsize=(5.2 * len(metrics), 3.8 * len(rows)),
                             squeeze=False)
    xs_all = list(dict.fromkeys(calls[axis].tolist()))
    num, unit = numeric_axis(xs_all)
    pos = dict(zip(xs_all, num)) if num is not None else {v: float(i) for i, v in enumerate(xs_all)}
    for (title, part), row in zip(rows, axes):
        groups = list(part.groupby(lines, sort=False, observed=True)) if lines else [((), part)]
        groups = groups[:MAX_LINES]
        for ax, (col, label) in zip(row, metrics):
            nan_points = 0
            for i, (key, g) in enumerate(groups):
                key = key if isinstance(key, tuple) else (key,)
                scale = 100.0 if is_fraction(col) else 1.0
                if stat == "mean":
                    per_run = g.groupby([axis, "run"], sort=False, observed=True)[col].mean().reset_index()
                    st = {v: mean_ci(h[col]) for v, h in per_run.groupby(axis, sort=False, observed=True)}
                    xs = [v for v in xs_all if v in st]
                    mid = np.array([st[v]["mean"] for v in xs])
                    lo = np.array([st[v]["ci_low"] for v in xs])
                    hi = np.array([st[v]["ci_high"] for v in xs])
                else:
                    stats = g.groupby(axis, sort=False, observed=True)[col].quantile([0.25, 0.5, 0.75]).unstack()
                    stats = stats.reindex([v for v in xs_all if v in stats.index])
                    xs = list(stats.index)
                    lo, mid, hi = (stats[q].to_numpy(dtype=float) if q in stats else np.full(len(xs), np.nan)
                                   for q in (0.25, 0.5, 0.75))
                x = np.array([pos[v] for v in xs], dtype=float)
                order = np.argsort(x, kind="stable")
                x, lo, mid, hi = x[order], lo[order] * scale, mid[order] * scale, hi[order] * scale
                ok = np.isfinite(mid)
                nan_points += int((~ok).sum())
                if num is None and len(groups) > 1:  # dodge: categorical positions are 0, 1, 2, …
                    x = x + (i - (len(groups) - 1) / 2) * min(0.3, 0.6 / len(groups))
                name = ", ".join(f"{o}={k}" for o, k in zip(lines, key)) or "all calls"
                style = _style(i)
                if num is None:
                    style["linestyle"] = "none"  # categories are not a continuum
                err = [np.where(np.isfinite(lo), mid - lo, 0.0)[ok], np.where(np.isfinite(hi), hi - mid, 0.0)[ok]]
                ax.errorbar(x[ok], mid[ok], yerr=err, capsize=3, label=name, **style)
            ax.set_xlabel(f"{axis} ({unit})" if unit else axis)
            ax.set_ylabel(label)
            if title:
                ax.set_title(title, fontsize=9)
            if num is None:
                ax.set_xticks(list(pos.values()), [str(v) for v in pos], rotation=30)
            if nan_points:
                ax.text(0.01, 0.01, f"{nan_points} point{'s' if nan_points > 1 else ''} NaN, not drawn",
                        transform=ax.transAxes, fontsize=7, color="firebrick", va="bottom", gid="nan-note")
            ax.grid(alpha=0.3)
        row[0].legend(fontsize=8)
    what = "Median and quartiles" if stat == "median" else "Mean over replications and 95 % CI"
    fig.suptitle(f"{what} vs {axis}")
    fig.tight_layout()
    return fig


def _call_packets(packets, call: int):
    p = packets[packets.call == call]
    t0 = float(p.t_generated.min())
    return p, t0


def call_panels(packets, call: int = 0, series=None):
    """One call over time (seed 000 Figs 5.7–5.8). With the run's `series`
    (`[run] series = true`) the call's transport adds panels: a rate-based
    sender's allowed rate X beside X_recv (seed 000 Fig. 5.7's rate plot),
    a window-based one's cwnd, and the send buffer's occupancy. An `avoip`
    call adds seed 004's Figs 4, 6 and 10 (§5): its codec rate, each
    receiver report's delay beside avg_delay, and each report's loss beside
    peer_SLR (§2.2, Fig. 2)."""
    plt = _plt()
    p, t0 = _call_packets(packets, call)
    t = p.t_generated.to_numpy() - t0
    extra = _transport_series(series, call, int(packets.call.max()) + 1)
    n = 5 + len(extra)
    fig, ax = plt.subplots(n, 1, figsize=(9, 2 * n), sharex=True)
    ax[0].eventplot([t], lineoffsets=0.5, linelengths=0.8, linewidths=0.5)
    ax[0].set_ylabel("speech on")
    ax[0].set_yticks([])
    ms = 1e3
    ax[1].plot(t, (p.t_sent - p.t_generated) * ms, ".", ms=2, label="sent")
    ax[1].plot(t, (p.t_arrived - p.t_generated) * ms, ".", ms=2, label="arrived")
    ax[1].plot(t, (p.t_played - p.t_generated) * ms, ".", ms=2, label="played")
    lost = p.fate.astype(str) != "played"
    if lost.any():
        ax[1].plot(t[lost.to_numpy()], np.zeros(int(lost.sum())), "x", ms=3, color="red", label="not played")
    ax[1].set_ylabel("time since\ngeneration (ms)")
    ax[1].legend(fontsize=7, ncol=4)
    bins = np.arange(0.0, max(t.max(), WINDOW_S) + WINDOW_S, WINDOW_S)
    sent = np.histogram(p.t_sent.dropna() - t0, bins, weights=p.payload_bytes[p.t_sent.notna()])[0] * 8e-3
    got = np.histogram(p.t_arrived.dropna() - t0, bins, weights=p.payload_bytes[p.t_arrived.notna()])[0] * 8e-3
    ax[2].step(bins[:-1], sent / WINDOW_S, where="post", label="sent")
    ax[2].step(bins[:-1], got / WINDOW_S, where="post", label="delivered")
    ax[2].set_ylabel("payload\nrate (kb/s)")
    ax[2].legend(fontsize=7)
    ax[3].plot(t, (p.t_sent - p.t_generated) * ms, lw=0.8)
    ax[3].set_ylabel("sender wait\n(ms)")
    ax[4].plot(t, p.window_loss * 100.0, lw=0.8, label="loss in window (%)")
    ax[4].plot(t, p.window_ie, lw=0.8, label="Ie,eff of window")
    ax[4].set_ylabel("impairments")
    ax[4].legend(fontsize=7)
    for a, (ylabel, lines) in zip(ax[5:], extra):
        for name, (ts, vs, how) in lines.items():
            if how == "points":
                a.plot(ts - t0, vs, ".-", ms=3, lw=0.6, label=name)
            else:
                if how == "held":  # the last state holds to the call's last packet
                    ts, vs = np.append(ts, t0 + t.max()), np.append(vs, vs[-1])
                a.step(ts - t0, vs, where="post", lw=0.8, label=name)
        a.set_ylabel(ylabel)
        a.legend(fontsize=7)
    ax[-1].set_xlabel("time since the call's first packet (s)")
    for a in ax:
        a.grid(alpha=0.3)
    fig.suptitle(f"Call {call} over time")
    fig.tight_layout()
    return fig


# Sender series drawn by call_panels: panel label → (series name, legend,
# scale to the panel's unit), drawn as steps.
_PANELS = [
    ("allowed rate\n(kb/s)", [("x_bps", "X (allowed)", 1e-3), ("x_recv_bps", "X_recv limit", 1e-3),
                               ("x_calc_bps", "X_calc", 1e-3)]),
    ("cwnd", [("cwnd", "cwnd", 1.0), ("ssthresh", "ssthresh", 1.0)]),
    ("send buffer\n(packets)", [("send_buffer", "occupancy", 1.0)]),
]

# An `avoip` call's panels (seed 004 Figs 4, 6, 10: "the source rate, the
# end-to-end delay and the loss percentage"), drawn when the call has
# `report_*` rows: the codec rate as a step held to the call's end, and per
# receiver report what Fig. 2 read and smoothed (docs/results.md, series).
_AVOIP_PANELS = [
    ("codec rate\n(kb/s)", [("bitrate_bps", "source rate", 1e-3, "held")]),
    ("delay\n(ms)", [("report_delay_ms", "report's delay", 1.0, "points"), ("avg_delay_ms", "avg_delay", 1.0, "points")]),
    ("loss\n(%)", [("report_loss", "report's loss", 100.0, "points"), ("report_slr", "peer_SLR", 100.0, "points")]),
]


def _voice_flow(series, call: int, n_calls: int) -> int:
    """The call's voice flow in `series`. Every call records `ptime_ms` at
    its start, calls in order, so the flows' order of first appearance in
    those rows lists the calls' voice flows (a call's RTCP flow follows its
    voice flow, so the flow is not the call index once calls have RTCP).
    Trunked calls share their trunk's flow: fewer flows than the `n_calls`
    calls seen, and the call index is taken, as for calls without RTCP."""
    r = series[(series.name.astype(str) == "ptime_ms") & (series.side.astype(str) == "sender")]
    flows = list(dict.fromkeys(r.flow.astype(int).tolist()))
    return flows[call] if call < len(flows) and len(flows) >= n_calls else call


def _transport_series(series, call: int, n_calls: int) -> list[tuple[str, dict[str, tuple[Any, Any, str]]]]:
    if series is None or not len(series):
        return []
    mine = series[(series.flow == _voice_flow(series, call, n_calls)) & (series.side.astype(str) == "sender")]
    names = mine.name.astype(str)
    panels = [(y, [(n, leg, k, "steps") for n, leg, k in lines]) for y, lines in _PANELS]
    if (names == "report_loss").any():
        panels += _AVOIP_PANELS
    out = []
    for ylabel, lines_of in panels:
        lines = {}
        for name, legend, scale, how in lines_of:
            r = mine[names == name]
            v = r.value.to_numpy(dtype=float) * scale
            if len(r) and np.isfinite(v).any():
                lines[legend] = (r.t.to_numpy(dtype=float), np.where(np.isfinite(v), v, np.nan), how)
        if lines:
            out.append((ylabel, lines))
    return out


def ptime_rate_loss(packets, calls, frame_ms: dict[str, float]):
    """ptime, sending rate and loss per second, per call (seed 001)."""
    plt = _plt()
    fig, ax = plt.subplots(3, 1, figsize=(9, 7), sharex=True)
    for c in calls.call.tolist()[:MAX_LINES]:
        p, t0 = _call_packets(packets, c)
        codec = str(calls.loc[calls.call == c, "codec"].iloc[0])
        t = p.t_generated.to_numpy() - t0
        # A talkspurt's last packet carries the frames left over (often one):
        # it is not a ptime decision, so the step leaves it out (issue 25:
        # 20 ms calls seemed to "drop" to 10 ms at every talkspurt end;
        # seed 001 plots the ptime the sender chose).
        full = ~_talkspurt_tail(p)
        ax[0].step(t[full], (p.frames * frame_ms.get(codec, np.nan)).to_numpy()[full], where="post", lw=0.8,
                   label=f"call {c}")
        bins = np.arange(0.0, max(t.max(), WINDOW_S) + WINDOW_S, WINDOW_S)
        sent = p.t_sent.notna().to_numpy()
        rate = np.histogram(t[sent], bins, weights=p.payload_bytes.to_numpy()[sent])[0] * 8e-3 / WINDOW_S
        n = np.histogram(t, bins)[0]
        lost = np.histogram(t[(p.fate.astype(str) != "played").to_numpy()], bins)[0]
        with np.errstate(invalid="ignore", divide="ignore"):
            ax[2].step(bins[:-1], np.where(n > 0, lost / n * 100.0, np.nan), where="post", lw=0.8)
        ax[1].step(bins[:-1], rate, where="post", lw=0.8)
    ax[0].set_ylabel("ptime (ms)")
    ax[1].set_ylabel("sending rate\n(kb/s payload)")
    ax[2].set_ylabel("loss per s (%)")
    ax[2].set_xlabel("time since the call's first packet (s)")
    ax[0].legend(fontsize=7, ncol=4)
    for a in ax:
        a.grid(alpha=0.3)
    fig.suptitle("ptime, rate and loss over time")
    fig.tight_layout()
    return fig


def _talkspurt_tail(p) -> np.ndarray:
    """True for the last packet of each talkspurt (rows in generation
    order), a one-packet talkspurt's only packet included: it carries what
    was left of the talkspurt, not a packet of the chosen ptime. All False
    when that would leave nothing."""
    ts = p.talkspurt.to_numpy()
    if len(ts) == 0:
        return np.zeros(0, dtype=bool)
    last = np.append(ts[1:] != ts[:-1], True)
    return last if not last.all() else np.zeros(len(ts), dtype=bool)


def delay_jitter_cdfs(packets, calls):
    """CDFs of one-way delay and of |D(i−1, i)| per call (seed 004)."""
    plt = _plt()
    fig, ax = plt.subplots(1, 2, figsize=(10, 3.8))
    for c in calls.call.tolist()[:MAX_LINES]:
        p = packets[(packets.call == c) & packets.t_arrived.notna()].sort_values("t_arrived")
        d = ((p.t_arrived - p.t_generated) * 1e3).to_numpy()
        if len(d) == 0:
            continue
        ys = np.arange(1, len(d) + 1) / len(d)
        ax[0].step(np.sort(d), ys, where="post", lw=0.9, label=f"call {c}")
        # RFC 3550 §6.4.1: D(i−1, i) = difference of transit times of
        # successive packets in arrival order.
        j = np.abs(np.diff(d))
        if len(j):
            ax[1].step(np.sort(j), np.arange(1, len(j) + 1) / len(j), where="post", lw=0.9)
    ax[0].set_xlabel("one-way delay (ms)")
    ax[1].set_xlabel("|D(i−1, i)| (ms)")
    ax[1].set_xscale("symlog", linthresh=1.0)
    for a in ax:
        a.set_ylabel("CDF")
        a.grid(alpha=0.3)
    ax[0].legend(fontsize=7)
    fig.suptitle("Delay and jitter distributions")
    fig.tight_layout()
    return fig


def burst_histograms(bursts):
    """Back-to-back lost and received run lengths over all calls (seed 004)."""
    plt = _plt()
    fig, ax = plt.subplots(1, 2, figsize=(10, 3.6))
    for a, kind in zip(ax, ("lost", "received")):
        b = bursts[bursts.kind.astype(str) == kind].groupby("length")["runs"].sum()
        if len(b):
            a.bar(b.index.to_numpy(), b.to_numpy(), width=0.9)
            a.set_yscale("log")
        a.set_xlabel(f"{kind} run length (packets)")
        a.set_ylabel("runs")
        a.grid(alpha=0.3)
    fig.suptitle("Back-to-back run lengths")
    fig.tight_layout()
    return fig


def distinct_axes(calls, axes: Sequence[str]) -> list[str]:
    """The swept axes that vary, one per partition of the runs: an axis whose
    values pair one-to-one with an earlier one's (`calls[1].codec` zipped
    with `calls[0].codec`, a transport table named by a list point's
    `label`) draws nothing new. A `label` stands for its point's axes."""
    order = sorted(axes, key=lambda a: a != "label")
    kept: list[str] = []
    for a in order:
        if calls[a].nunique(dropna=True) <= 1:
            continue
        if any(_same_partition(calls[a], calls[k]) for k in kept):
            continue
        kept.append(a)
    return sorted(kept, key=list(axes).index)


def _same_partition(a, b) -> bool:
    pairs = a.astype(str).str.cat(b.astype(str), sep="\x1f")
    return pairs.nunique() == a.astype(str).nunique() == b.astype(str).nunique()


# The seeds' figure kinds over a sweep (`talkspurt plot --metric KIND`):
# kind → (table, [(column, axis label)], seeds). A calls-table column name
# works too (`--metric jitter_ms`).
KINDS: dict[str, tuple[str, list[tuple[str, str]], str]] = {
    "quality": ("calls", [("r", "R (G.107)"), ("loss_total", "loss (%)")], "000 Figs 5.1–5.6"),
    "rtpi": ("calls", [("rtpi", "RTPI (%)"), ("dpr", "delayed-packet rate (%)")], "002"),
    "goodput": ("calls", [("goodput_bps", "voice goodput (kb/s)")], "002"),
    "ftp-goodput": ("traffic", [("goodput_bps", "cross-traffic goodput (kb/s)")], "002, 004"),
    "fairness": ("groups", [("jain_goodput", "Jain's index of goodput")], "002, 003 §8"),
    "loss-stages": ("calls", [("p_tp", "P_TP (%)"), ("per", "PER (%)"), ("p_j", "P_J (%)")], "000, 003"),
    "runs": ("calls", [("lost_run_mean", "mean lost run (packets)"),
                       ("received_run_mean", "mean received run (packets)")], "004 §5"),
}


def _metric_table(results, metric: str):
    """(table, metrics, title) of a kind or a calls column; a ScenarioError
    naming `--metric` for anything else."""
    from .scenario import _error

    if metric in KINDS:
        table, metrics, _ = KINDS[metric]
        df = results.table(table) if hasattr(results, "table") else getattr(results, table)
        if df is not None and table == "groups" and "group" in df.columns:
            df = df[df["group"].astype(str) == "(all)"]
        if df is not None:
            metrics = [(c, l) for c, l in metrics if c in df.columns]
        return df, metrics, metric
    calls = results.calls
    if calls is not None and metric in calls.columns:
        unit = " (%)" if is_fraction(metric) else ""
        return calls, [(metric, f"{metric}{unit}")], metric
    cols = sorted(calls.columns) if calls is not None else []
    raise _error("--metric", repr(metric), f"a figure kind ({', '.join(KINDS)}) or a calls-table column "
                                           f"({', '.join(c for c in cols if not c.startswith('bound'))[:300]}…)")


def _scaled(df, metrics):
    """kb/s for bit-rate columns (their labels say kb/s)."""
    cols = [c for c, _ in metrics if c.endswith("_bps")]
    if not cols:
        return df
    return df.assign(**{c: df[c] * 1e-3 for c in cols})


def pick_run(results, run: Any = None) -> tuple[Optional[str], str]:
    """The run whose per-run figures a sweep draws: `run` is a run key, a
    point index (its first complete replication), or None (the first
    complete run). Returns (key, caption suffix)."""
    from .scenario import _error

    runs = results.runs
    done = runs[runs.complete]
    if not len(done):
        return None, ""
    if run is None:
        row = done.iloc[0]
    elif isinstance(run, (int, np.integer)) or (isinstance(run, str) and run.isdigit()):
        sel = done[done.point == int(run)]
        if not len(sel):
            raise _error("--run", repr(run), f"a point with a complete run (points {sorted(set(done.point))})")
        row = sel.iloc[0]
    else:
        sel = done[done.run == run]
        if not len(sel):
            raise _error("--run", repr(run), "a run key of this store (talkspurt.load(DIR).runs) or a point index")
        row = sel.iloc[0]
    return str(row.run), f" (run {row.run}, point {int(row.point)}, replication {int(row.replication)})"


def figures_for(results, metrics: Sequence[str] = ("quality",), x: Optional[str] = None, run: Any = None,
                call: Optional[int] = None, stat: str = "median") -> list[tuple[str, str, Any]]:
    """(file stem, caption, figure) for everything `results` supports: a
    `Results` (one run) or a `SweepResults`.

    For a sweep: one figure per figure kind or column in `metrics` (KINDS)
    and per distinct varied axis (or only `x`); `stat` "median" (quartile
    bars) or "mean" (95 % interval over replications). The per-run figures
    are drawn for the run `run` picks (`pick_run`) and the call `call`
    (default the first)."""
    from . import codecs
    from .scenario import _error
    from .store import SweepResults

    out: list[tuple[str, str, Any]] = []
    if isinstance(results, SweepResults):
        calls = results.calls
        varied = distinct_axes(calls, results.axes) if calls is not None else []
        if x is not None:
            if x not in results.axes:
                raise _error("--x", repr(x), f"a swept key path ({', '.join(results.axes) or 'none'})")
            varied = [x] + [a for a in varied if a != x]
        for metric in metrics:
            table, mets, kind = _metric_table(results, metric)
            bound = ""
            if metric == "quality" and calls is not None and "bound_r" in calls.columns and calls["bound_r"].notna().any():
                # Seed 000 scores the per-talkspurt optimum (reduced E-model).
                mets = mets[:1] + [("bound_r", "R bound (optimal playout, reduced)")] + mets[1:]
                bound = ", R bound"
            if table is None or not len(table) or not mets:
                continue
            what = "median and quartiles over calls and replications" if stat == "median" else \
                "mean over replications and its 95 % interval"
            for a in (varied[:1] if x is not None else varied):
                others = [o for o in varied if o != a][:2]
                stem = f"quality_vs_{_stem(a)}" if metric == "quality" else f"{_stem(kind)}_vs_{_stem(a)}"
                names = ", ".join(l for _, l in mets) if metric != "quality" else f"R{bound} and loss"
                out.append((stem, f"{names} vs {a}: {what}; lines: {', '.join(others) or 'all calls'}",
                            quality_vs_parameter(_scaled(table, mets), a, others, mets, stat=stat)))
        key, label = pick_run(results, run)
        if key is None:
            return out
        from .store import load as _load

        single = _load(results.directory / "runs" / key)
    else:
        single, label = results, ""
    frame = {c["name"]: c["frame_ms"] for c in codecs()}
    if single.packets is not None and len(single.packets):
        calls = single.calls
        c0 = int(calls.call.iloc[0]) if call is None else int(call)
        if c0 not in set(calls.call.astype(int)):
            raise _error("--call", str(call), f"a call of the run (0 to {int(calls.call.max())})")
        out.append((f"call_{c0}_panels", f"Call {c0} over time{label}", call_panels(single.packets, c0, single.series)))
        out.append(("ptime_rate_loss", f"ptime, rate and loss per second{label}",
                    ptime_rate_loss(single.packets, calls, frame)))
        out.append(("delay_jitter_cdfs", f"Delay and |D(i−1,i)| CDFs{label}", delay_jitter_cdfs(single.packets, calls)))
    if single.bursts is not None and len(single.bursts):
        out.append(("burst_histograms", f"Back-to-back run lengths{label}", burst_histograms(single.bursts)))
    return out


def _stem(axis: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "_", axis).strip("_")


def save_figures(source, directory, formats: Sequence[str] = ("png", "svg"), overwrite: bool = False,
                 **select: Any) -> list[Path]:
    """Write every figure of a results folder (or results object) as files;
    `select` passes `metrics`, `x`, `run`, `call`, `stat` to `figures_for`."""
    from .store import load

    res = load(source) if isinstance(source, (str, Path)) else source
    figs = figures_for(res, **select)
    d = Path(directory)
    targets = [d / f"{stem}.{fmt}" for stem, _, _ in figs for fmt in formats]
    clash = [t for t in targets if t.exists()]
    if clash and not overwrite:
        raise FileExistsError(f"{clash[0]} exists; choose another folder or pass --force to replace figures")
    d.mkdir(parents=True, exist_ok=True)
    plt = _plt()
    written = []
    for stem, _, fig in figs:
        for fmt in formats:
            f = d / f"{stem}.{fmt}"
            tmp = d / f".{stem}.{fmt}.tmp"
            fig.savefig(tmp, format=fmt, dpi=110)
            tmp.replace(f)
            written.append(f)
        plt.close(fig)
    return written
