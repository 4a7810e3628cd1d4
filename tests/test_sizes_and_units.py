"""Silent acceptances found by the reviews of 2026-11-29 (docs/scenario.md):

1. a written time that is not a whole number of nanoseconds: refused with
   one message at every key, the Python-read ones (`[analysis] audio`
   `segment`, the VAD's `hangover`) included; computed times (a `bitrate`
   call's interval) are rounded up, as documented;
2. a TCP `mss` smaller than a call's voice packet: legal, but said aloud
   (`SegmentedPacketWarning`, a CLI line) with the call, the write and the mss;
3. packets above a 1500 B Ethernet MTU (seed 003's 12-call trunk): said
   aloud (`OversizePacketWarning`), with what a real stack would do;
4. (review of 2026-11-29, TCP) the timestamps option was added on top of a
   full mss (1512 B packets): it now comes out of the mss (RFC 6691 §2),
   and the warnings count a segment's data as mss - 12 B with timestamps.

The sizes in the texts are closed forms: G.711 at 20 ms is 160 B of
payload + 12 B RTP = a 172 B unit, + 2 B framing = a 174 B write; the
12-call trunk is 8 + 12 · (6 + 160) = 2000 B, + 20 IP + 8 UDP = 2028 B,
+ 20 IP + 16 DCCP (RFC 4340 §5.1) = 2036 B.
"""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
import wave

import pytest

import talkspurt
from talkspurt import ScenarioError

BASE = """
[run]
duration = "3s"
[[links]]
between = ["a", "b"]
rate = "10Mbps"
delay = "10ms"
[[calls]]
from = "a"
to = "b"
codec = "G.711"
speech = { model = "continuous" }
"""

WHOLE_NS = 'a whole number of nanoseconds, e.g. "1.5us" (not "0.1ns")'


def _cli(*args: str, cwd=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "talkspurt", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd)


def _scenario(tmp_path, extra: str = "", name: str = "s.toml"):
    f = tmp_path / name
    f.write_text(BASE + extra)
    return f


# --- 1. whole nanoseconds --------------------------------------------------

SUB_NS = [
    ("calls[0].start", {"kind": "uniform", "from": "0s", "to": "1.0000000005s"}, "calls[0].start.to",
     "1.0000000005s"),
    ("calls[0].bitrate", {"rate": "8kbps", "interval": "125.0000000001ms"}, "calls[0].bitrate.interval",
     "125.0000000001ms"),
    ("links[0].delay", "0.1ns", "links[0].delay", "0.1ns"),
    ("analysis.audio", {"segment": "10.0000000005s"}, "analysis.audio.segment", "10.0000000005s"),
]


@pytest.mark.parametrize("key,value,path,written", SUB_NS, ids=[x[2] for x in SUB_NS])
def test_a_time_off_the_nanosecond_is_refused_with_one_message(tmp_path, key, value, path, written):
    f = _scenario(tmp_path)
    want = f'{path}: got "{written}"; expected {WHOLE_NS}'
    with pytest.raises(ScenarioError) as e:
        talkspurt.validate(f, overrides={key: value})
    assert str(e.value) == want
    out = tmp_path / "out"
    r = _cli("run", str(f), "--set", f"{key}={json.dumps(value) if isinstance(value, str) else _toml(value)}",
             "-o", str(out))
    assert r.returncode == 2, r
    assert r.stderr == f"talkspurt: error: {want}\n" and r.stdout == ""
    assert not out.exists()  # no partial results


def _toml(d: dict) -> str:
    return "{" + ", ".join(f"{k} = {json.dumps(v)}" for k, v in d.items()) + "}"


def test_the_vad_hangover_reads_durations_as_the_core_does(tmp_path):
    from talkspurt.audio.talkspurts import parse

    wav = tmp_path / "silence.wav"
    with wave.open(str(wav), "wb") as w:
        w.setnchannels(1), w.setsampwidth(2), w.setframerate(8000), w.writeframes(b"\0\0" * 8000)
    table = {"model": "vad", "speech": str(wav)}
    with pytest.raises(ScenarioError) as e:
        parse({**table, "hangover": "0.5ns"}, "calls[0].speech")
    assert str(e.value) == f'calls[0].speech.hangover: got "0.5ns"; expected {WHOLE_NS}'
    with pytest.raises(ScenarioError, match=r"hangover: got \"1.5ms\"; expected a duration in whole milliseconds"):
        parse({**table, "hangover": "1.5ms"}, "calls[0].speech")
    assert parse({**table, "hangover": "0.04s"}, "calls[0].speech")["hangover"] == "40ms"


def test_the_audio_segment_is_kept_exactly():
    from talkspurt.audio.config import parse

    # Written back with `:g` before 2026-11-29: "10.000000001s" became "10s".
    assert parse({"segment": "10.000000001s"}).to_table()["segment"] == "10.000000001s"
    assert parse({"segment": "8000ms"}).to_table()["segment"] == "8s"
    with pytest.raises(ScenarioError, match=r"segment: got \"0.5s\"; expected a duration from 1s to 19.5s"):
        parse({"segment": "0.5s"})


def test_a_bitrate_interval_is_computed_and_rounded_up(tmp_path):
    # 512 B at 24 kb/s: 4096 / 24000 s = 170 666 666.67 ns, rounded up to
    # the nanosecond (the source stays below its rate): docs/scenario.md, Units.
    doc = talkspurt.validate(_scenario(tmp_path), overrides={"calls[0].bitrate": {"rate": "24kbps", "packet": "512B"}})
    assert doc["calls"][0]["ptime"] == "170.666667ms"


# --- 2. an mss smaller than a voice packet -----------------------------------

SPLIT = ('calls[0] (call 0): each voice packet is a 174 B write into the TCP stream (172 B + 2 B framing), larger '
         'than transport.mss = "160B": it is split over at least 2 segments')


def test_an_mss_below_the_voice_packet_is_said_aloud(tmp_path):
    f = _scenario(tmp_path, 'transport = { kind = "tcp", mss = "160B", nodelay = true }\n')
    with pytest.warns(talkspurt.SegmentedPacketWarning) as w:
        res = talkspurt.run(f, trace=False)
    assert [str(x.message) for x in w if x.category is talkspurt.SegmentedPacketWarning][0].startswith(SPLIT)
    assert res.manifest["largest_bytes"] == [[200, 172]]  # 160 B of data + 40 B of IP and TCP headers
    r = _cli("run", str(f), "--no-trace")
    assert r.returncode == 0 and r.stderr.startswith(f"talkspurt: warning: {SPLIT}"), r
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        talkspurt.run(f, trace=False, overrides={"calls[0].transport.mss": "174B"})  # fits: no word


# --- 3. packets above a 1500 B MTU -------------------------------------------

TRUNK = 'count = 12\ntrunk = {}\nstart = { kind = "uniform", from = "0s", to = "20ms" }\n'


def test_the_twelve_call_trunk_over_dccp_is_said_aloud(tmp_path):
    f = _scenario(tmp_path, TRUNK + 'transport = { kind = "dccp", ccid = 4 }\n')
    with pytest.warns(talkspurt.OversizePacketWarning) as w:
        res = talkspurt.run(f, trace=False)
    text = [str(x.message) for x in w if x.category is talkspurt.OversizePacketWarning]
    assert len(text) == 1 and text[0].startswith(
        "calls[0] (calls 0–11): packets of up to 2036 B on the wire over dccp (the group's IAX2 trunk; trunk.mtu "
        "splits a tick's frames over several packets), above the 1500 B Ethernet MTU. talkspurt checks no MTU and "
        "models no fragmentation"), text
    assert "RFC 4340 §14" in text[0] and "would not be sent at all" in text[0]
    assert res.manifest["largest_bytes"] == [[2036, 2000]]
    out = tmp_path / "out"
    r = _cli("run", str(f), "--no-trace", "-o", str(out))
    assert r.returncode == 0 and "talkspurt: warning: calls[0] (calls 0–11): packets of up to 2036 B" in r.stderr, r
    assert json.loads((out / "manifest.json").read_text())["largest_bytes"] == [[2036, 2000]]


def test_oversize_udp_packets_and_the_limits(tmp_path):
    f = _scenario(tmp_path, TRUNK)
    with pytest.warns(talkspurt.OversizePacketWarning, match=r"up to 2028 B on the wire over udp .* fragment"):
        talkspurt.run(f, trace=False)
    g = _scenario(tmp_path, "", "one.toml")
    with pytest.warns(talkspurt.OversizePacketWarning, match=r"calls\[0\] \(call 0\): packets of up to 1501 B"):
        talkspurt.run(g, trace=False, overrides={"calls[0].bitrate": {"rate": "400kbps", "packet": "1501B"}})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # Exactly 1500 B, and the trunk split at Asterisk's trunkmtu: no word.
        talkspurt.run(g, trace=False, overrides={"calls[0].bitrate": {"rate": "400kbps", "packet": "1500B"}})
        talkspurt.run(f, trace=False, overrides={"calls[0].trunk": {"mtu": "1240B"}})


# --- 4. the timestamps option comes out of the mss ---------------------------

def test_timestamps_come_out_of_the_mss(tmp_path):
    """RFC 6691 §2: the mss counts no options, and a sender including the
    timestamps option (RFC 7323 §3, 12 B padded) carries mss - 12 B of data.
    The 12-call trunk over TCP writes 2000 + 2 B of framing per tick: with
    the default mss its full segments are 1448 B of data + 20 IP + 20 TCP +
    12 = 1500 B, so no packet exceeds the MTU (before 2026-11-29: 1460 B of
    data in 1512 B packets, and an OversizePacketWarning)."""
    f = _scenario(tmp_path, TRUNK + 'transport = { kind = "tcp", timestamps = true }\n')
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        res = talkspurt.run(f, trace=False)
    assert not [x for x in w if x.category is talkspurt.OversizePacketWarning]
    assert res.manifest["largest_bytes"] == [[1500, 2000]]
    split = [str(x.message) for x in w if x.category is talkspurt.SegmentedPacketWarning]
    assert len(split) == 1 and (
        "each trunk packet is a 2002 B write into the TCP stream (2000 B + 2 B framing), larger than the 1448 B of "
        "data a segment carries (transport.mss = \"1460B\" less 12 B of timestamps, RFC 6691 §2): it is split over "
        "at least 2 segments, each with its own 52 B of IP and TCP headers") in split[0], split
    # An mss above 1460 B is still too large for a 1500 B path, timestamps or not.
    with pytest.warns(talkspurt.OversizePacketWarning, match=r"up to 1540 B on the wire over tcp .* set "
                      r"transport.mss to 1460B, with or without timestamps"):
        talkspurt.run(f, trace=False, overrides={"calls[0].transport.mss": "1500B"})


def test_a_voice_packet_fits_a_segment_less_its_timestamps(tmp_path):
    # G.711 at 20 ms is a 174 B write: with timestamps an mss of 186 B holds
    # it (174 + 12), one of 185 B does not (173 B of data a segment).
    f = _scenario(tmp_path, 'transport = { kind = "tcp", timestamps = true, nodelay = true }\n')
    with pytest.warns(talkspurt.SegmentedPacketWarning, match=r"larger than the 173 B of data a segment carries "
                      r"\(transport.mss = \"185B\" less 12 B of timestamps"):
        talkspurt.run(f, trace=False, overrides={"calls[0].transport.mss": "185B"})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = talkspurt.run(f, trace=False, overrides={"calls[0].transport.mss": "186B"})
    assert res.manifest["largest_bytes"] == [[226, 172]]  # 174 + 20 IP + 20 TCP + 12 options
    with pytest.raises(ScenarioError, match=r"calls\[0\].transport.mss: got \"12B\"; expected an mss above 12B with "
                       r"timestamps = true"):
        talkspurt.validate(f, overrides={"calls[0].transport.mss": "12B"})
