"""Sensitivity of seed 002's verdicts to neighbouring readings.

Copies the bundle, changes one reading (a key of the base scenario or the
[analysis] table), runs it with one 60-s replication per point (no ns-2
twin) and prints how many trends hold and which verdicts differ from the
chosen reading's. The numbers are recorded in published.toml's
[[reading]] alternatives.

    python scenarios/seeds/002/sensitivity.py OUT_DIR [VARIANT ...]
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

import talkspurt

HERE = Path(__file__).resolve().parent

# variant -> (text replaced in voip.toml, replacement)
VARIANTS: dict[str, list[tuple[str, str]]] = {
    "chosen": [],
    "queue-25p": [('queue = { limit = "50p" }', 'queue = { limit = "25p" }')],
    "queue-100p": [('queue = { limit = "50p" }', 'queue = { limit = "100p" }')],
    "loss-forward-only": [('right = { loss = { kind = "bernoulli", p = 0.01 } }',
                           'right = { forward = { loss = { kind = "bernoulli", p = 0.01 } } }')],
    "rtpi-timely": [('rtpi_threshold = "300ms"', 'rtpi_threshold = "300ms"\nrtpi_missing = "timely"')],
    "rtpi-exclude-silence": [('rtpi_threshold = "300ms"', 'rtpi_threshold = "300ms"\nrtpi_silence = "exclude"')],
    "westwood-plus": [('cc = "westwood"', 'cc = "westwood+"')],
}


def variant_bundle(name: str, root: Path) -> Path:
    d = root / name
    if d.exists():
        shutil.rmtree(d)
    shutil.copytree(HERE, d, ignore=shutil.ignore_patterns("ns2", "*.py", "__pycache__"))
    for f in d.glob("*.toml"):
        text = f.read_text()
        if f.name == "published.toml":
            text = re.sub(r'^ns2 = .*$', "", text, flags=re.M)
            text = text.replace('quick = { set = { "run.duration" = "15s" }, replications = 1 }',
                                'quick = { set = { "run.duration" = "60s" }, replications = 1 }')
        for old, new in VARIANTS[name]:
            text = text.replace(old, new)
        f.write_text(text)
    return d


def main() -> None:
    out = Path(sys.argv[1])
    names = sys.argv[2:] or list(VARIANTS)
    base = None
    for name in names:
        d = variant_bundle(name, out / "bundles")
        df = talkspurt.reproduce(str(d), out / "runs" / name, quick=True, workers=2, report=False)
        trends = df[df["verdict"].isin(["trend reproduced", "not reproduced"])]
        held = (trends["verdict"] == "trend reproduced").sum()
        verdicts = dict(zip(trends["item"] + " | " + trends["row"].astype(str), trends["verdict"]))
        line = f"{name}: {held}/{len(trends)} trends hold"
        if base is not None:
            flips = [k for k in verdicts if verdicts[k] != base.get(k)]
            line += f"; {len(flips)} differ from chosen: " + "; ".join(flips)
        else:
            base = verdicts
        print(line, flush=True)


if __name__ == "__main__":
    main()
