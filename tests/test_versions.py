"""The manifest's host string: the same as platform.platform(), cheaper."""

import platform

from talkspurt.versions import platform_name, versions


def test_platform_name_equals_the_standard_string():
    # On Linux platform_name() skips `uname -p`; the string must not change.
    assert platform_name() == platform.platform()


def test_versions_table():
    import sys

    import talkspurt

    v = versions()
    assert v == {"talkspurt": talkspurt.__version__, "git_commit": v["git_commit"],
                 "python": sys.version.split()[0], "platform": platform.platform()}


def test_versions_name_the_git_commit_of_the_checkout():
    # Issue 25: every manifest names the commit it ran (tests run from a checkout).
    import subprocess
    from pathlib import Path

    import talkspurt

    src = Path(talkspurt.__file__).resolve().parent
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=src, capture_output=True, text=True)
    if head.returncode != 0:
        import pytest

        pytest.skip("not a git checkout")
    assert versions()["git_commit"] == head.stdout.strip()
