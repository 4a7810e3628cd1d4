"""The manifest's host string: the same as platform.platform(), cheaper."""

import platform

from talkspurt.versions import platform_name, versions


def test_platform_name_equals_the_standard_string():
    # On Linux platform_name() skips `uname -p`; the string must not change.
    assert platform_name() == platform.platform()


def test_the_formatter_agrees_with_the_standard_one_on_awkward_fields():
    # The standard formatter is private: compare while it exists.
    from talkspurt.versions import _filename_safe

    std = getattr(platform, "_platform", None)
    if std is None:
        import pytest

        pytest.skip("platform._platform is gone; platform_name() is still checked above")
    cases = [
        ["Linux", "6.1.0-18-amd64", "x86_64", "with", "glibc2.36"],
        ["Linux", " 5.15 (custom) ", "aarch64", "unknown", "with", "glibc2.31"],
        ["Linux", "4.4.0/mod;x:y", "", "with", "glibc2.17"],
        ["Linux", 'r"q"\\w', "x86_64", "with", "unknown"],
        ["Linux", "a--b", "x86_64", "with", "glibc2.36-"],
    ]
    for fields in cases:
        assert _filename_safe(fields) == std(*fields), fields


def test_the_host_string_does_not_import_platform_on_linux():
    # Importing `platform` compiles ten regular expressions: 5-9 ms of every
    # run's process (bench/README.md, headline), skipped on Linux.
    import subprocess
    import sys

    if sys.platform != "linux":
        import pytest

        pytest.skip("Linux only")
    code = "import sys; from talkspurt.versions import platform_name; platform_name(); print('platform' in sys.modules)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "False"


def test_versions_table():
    import sys

    import talkspurt

    v = versions()
    assert v == {"talkspurt": talkspurt.__version__, "git_commit": v["git_commit"],
                 "python": sys.version.split()[0], "platform": platform.platform()}


def _git(cwd, *args):
    import subprocess

    r = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


def test_versions_name_the_commit_talkspurt_was_built_from():
    # Issue 25: every manifest names the commit it ran. From a checkout
    # (maturin develop) that is the checkout's HEAD; an installed package
    # names the commit baked in at build time (crates/talkspurt-py/build.rs).
    import os
    from pathlib import Path

    import talkspurt
    from talkspurt import _core
    from talkspurt.versions import _checkout_root, git_commit

    pkg = Path(talkspurt.__file__).resolve().parent
    root = _checkout_root(pkg)
    if root is not None:
        assert git_commit() == _git(root, "rev-parse", "HEAD")
        return
    assert git_commit() == (_core.__git_commit__ or None)
    if os.environ.get("CI") == "true":
        # CI installs the clone the tests run from: the baked commit is its HEAD.
        here = Path(__file__).resolve().parent
        assert _core.__git_commit__ == _git(here, "rev-parse", "HEAD"), "the extension was not built from this clone"


def test_an_installed_copy_inside_another_repository_does_not_take_its_commit(tmp_path):
    # pyenv's own clone holds site-packages on this machine: its HEAD was
    # reported as talkspurt's commit until 2026-11-28.
    import shutil

    import pytest
    from talkspurt.versions import _checkout_commit

    if shutil.which("git") is None:
        pytest.skip("git not installed")
    env = ["-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]

    def repo(d):
        d.mkdir(parents=True, exist_ok=True)
        assert _git(d, "init", "-q") is not None
        (d / "f").write_text("x")
        _git(d, "add", "f")
        assert _git(d, *env, "commit", "-q", "-m", "c") is not None
        return _git(d, "rev-parse", "HEAD")

    other = tmp_path / "project"
    repo(other)
    installed = other / "venv" / "lib" / "site-packages" / "talkspurt"
    installed.mkdir(parents=True)
    assert _checkout_commit(installed) is None
    # The same layout as this repository's: the checkout's own HEAD.
    co = tmp_path / "checkout"
    (co / "crates" / "talkspurt-core").mkdir(parents=True)
    (co / "python" / "talkspurt").mkdir(parents=True)
    head = repo(co)
    assert _checkout_commit(co / "python" / "talkspurt") == head
