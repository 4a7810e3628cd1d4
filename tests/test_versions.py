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
    assert v == {"talkspurt": talkspurt.__version__, "python": sys.version.split()[0],
                 "platform": platform.platform()}
