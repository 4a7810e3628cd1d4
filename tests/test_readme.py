"""Every code block of the README runs (issue 25).

Blocks are taken in order. A block whose first line is a comment holding
`fragment` is not run as is (it says what it is part of); every other
`toml`, `bash` and `python` block runs:

- `toml`: a whole scenario, validated and run (trace off);
- `bash`: each command line, in a scratch folder where `scenarios/` is the
  repository's; `talkspurt` is `python -m talkspurt`;
- `python`: the blocks run in one namespace, in the same scratch folder,
  `$TALKSPURT_SPEECH` pointing at the speech the audio path reads.

A `[sweep]` fragment must equal the table of the file it names.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from conftest import ROOT, SPEECH

FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.S | re.M)


def blocks(text: str) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in FENCE.finditer(text)]


def is_fragment(body: str) -> bool:
    first = body.lstrip("\n").splitlines()[0] if body.strip() else ""
    return first.lstrip().startswith("#") and "fragment" in first


README = (ROOT / "README.md").read_text()
CODE = [(lang, body) for lang, body in blocks(README) if lang in ("toml", "bash", "python")]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("readme")
    (d / "scenarios").symlink_to(ROOT / "scenarios")
    return d


def test_the_readme_has_code_and_every_fragment_says_so():
    assert len(CODE) >= 6
    for lang, body in CODE:
        first = body.lstrip("\n").splitlines()[0]
        if "fragment" in first:
            assert first.lstrip().startswith("#"), first


@pytest.mark.parametrize("i", [i for i, (lang, b) in enumerate(CODE) if lang == "toml" and not is_fragment(b)])
def test_toml_blocks_are_scenarios_that_run(i):
    import talkspurt

    doc = tomllib.loads(CODE[i][1])
    talkspurt.validate(doc)
    talkspurt.run(doc, trace=False)


def test_sweep_fragments_match_their_files():
    for lang, body in CODE:
        if lang == "toml" and is_fragment(body) and "[sweep]" in body:
            m = re.search(r"(scenarios/[\w./-]+\.toml)", body.splitlines()[0])
            assert m, f"a [sweep] fragment names its file on its first line: {body.splitlines()[0]}"
            table = tomllib.loads(body)["sweep"]
            assert tomllib.loads((ROOT / m.group(1)).read_text())["sweep"] == table


def _commands(body: str) -> list[str]:
    out = []
    for line in body.splitlines():
        line = line.split("  #")[0].strip()
        if line and not line.startswith("#"):
            out.append(line)
    return out


def test_bash_and_python_blocks_run_in_order(scratch):
    env = {**os.environ, "TALKSPURT_SPEECH": str(SPEECH)}
    namespace: dict = {}
    cwd = os.getcwd()
    os.chdir(scratch)
    try:
        for lang, body in CODE:
            if is_fragment(body):
                continue
            if lang == "bash":
                for cmd in _commands(body):
                    argv = shlex.split(cmd)
                    assert argv[0] == "talkspurt", f"README bash lines run talkspurt: {cmd}"
                    r = subprocess.run([sys.executable, "-m", "talkspurt", *argv[1:]], cwd=scratch, env=env,
                                       capture_output=True, text=True, timeout=600)
                    assert r.returncode == 0, f"{cmd}\n{r.stderr[-2000:]}"
            elif lang == "python":
                old = os.environ.get("TALKSPURT_SPEECH")
                os.environ["TALKSPURT_SPEECH"] = str(SPEECH)
                try:
                    exec(compile(body, "README.md", "exec"), namespace)
                finally:
                    if old is None:
                        os.environ.pop("TALKSPURT_SPEECH", None)
                    else:
                        os.environ["TALKSPURT_SPEECH"] = old
    finally:
        os.chdir(cwd)
