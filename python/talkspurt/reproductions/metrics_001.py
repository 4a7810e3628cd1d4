"""Seed 001's derived metrics (Avella & Kakani, Table 4 and §4.5.4).

- `clip_pooled_ms`: Table 4's "Average Clip (ms)", "obtained by dividing
  the average packet loss by the number of clips" (§7.55.3): the lost
  speech of the selected calls over their clips, pooled (Σ lost / Σ clips),
  0 when there is no clip (the paper prints 0 for those cells).
- `delay_paper_ms`: §4.5.4's end-to-end delay D = T_f + T_n + T_j with the
  network delay fixed at T_n = 30 ms and the jitter buffer at T_j = 2·T_f
  (no look-ahead and no queueing: "Queuing delay is left for future
  study", §3), T_f the call's time-weighted mean ptime; the mean over the
  selected calls. `params.t_n_ms` changes T_n. It gives the paper's
  60 ms (10 ms), 90 ms (20 ms), 120 ms (30 ms) and 270 ms (80 ms).
"""

from __future__ import annotations

import math
from typing import Any, Mapping

from .metrics import RunTables, derived, selected_calls


@derived("clip_pooled_ms")
def clip_pooled_ms(t: RunTables, where: Mapping[str, Any], params: Mapping[str, Any]) -> float:
    c = selected_calls(t, where)
    if c.empty:
        return math.nan
    clips = float(c["clips"].sum())
    return 1000.0 * float(c["lost_speech_s"].sum()) / clips if clips else 0.0


@derived("delay_paper_ms")
def delay_paper_ms(t: RunTables, where: Mapping[str, Any], params: Mapping[str, Any]) -> float:
    c = selected_calls(t, where)
    if c.empty:
        return math.nan
    t_n = float(params.get("t_n_ms", 30.0))
    return float((3.0 * c["ptime_mean_ms"].astype(float) + t_n).mean())
