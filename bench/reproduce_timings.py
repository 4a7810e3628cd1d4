"""Summarize the --timings JSON of `talkspurt reproduce` (bench/reproduce.sh):
how busy the pool's workers were, the wall and CPU seconds of their jobs
by kind, and the parent's own CPU (planning, judging, report assembly)."""

import json
import sys

t = json.load(open(sys.argv[1]))
wall = ", ".join(f"{k} {s:.1f}" for k, s in t["job_s_by_kind"].items())
cpu = ", ".join(f"{k} {s:.1f}" for k, s in t.get("job_cpu_s_by_kind", {}).items())
print(f"pool: {t['workers']} workers busy {100 * t['busy']:.1f} % of {t['span_s']:.1f} s; {t['jobs']} jobs, "
      f"wall {t['jobs_s']:.1f} s ({wall}), CPU {sum(t.get('job_cpu_s_by_kind', {}).values()):.1f} s ({cpu})")
judge = sum(b.get("judge_s", 0) for b in t["bundles"].values())
html = sum(b.get("html_s", 0) for b in t["bundles"].values())
print(f"parent: plan {t['plan_s']:.1f} s, judging {judge:.1f} s, report assembly {html:.1f} s (wall); "
      f"CPU {t.get('parent_cpu_s', float('nan')):.1f} s")
