"""pcap export read back by a real client: tshark decodes every packet of
the capture files (IPv4/UDP/RTP, RTCP SR/RR, TCP, DCCP) without malformed
packets or error-level expert info, and its RTP stream analysis
(`-z rtp,streams`) agrees with talkspurt's per-call records."""

from __future__ import annotations

import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import talkspurt
from conftest import IN_CI

TSHARK = shutil.which("tshark")
if TSHARK is None:
    if IN_CI:
        raise RuntimeError("tshark is required in CI (Debian package `tshark`, see .ci/run)")
    pytest.skip("tshark not installed (Debian package `tshark`)", allow_module_level=True)

# RTP and RTCP on arbitrary UDP ports: Wireshark finds them by heuristics.
FRAME_S = next(c["frame_ms"] for c in talkspurt.codecs() if c["name"] == "G.711") / 1e3

HEUR = ["-o", "rtp.heuristic_rtp:TRUE", "-o", "rtcp.heuristic_rtcp:TRUE"]


def tshark(*args: str) -> str:
    r = subprocess.run([TSHARK, *HEUR, *args], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def fields(path: Path, *names: str, filt: str = "") -> list[list[str]]:
    args = ["-r", str(path), "-T", "fields", "-E", "separator=\t"]
    for n in names:
        args += ["-e", n]
    if filt:
        args += ["-Y", filt]
    return [line.split("\t") for line in tshark(*args).splitlines()]


def bad_frames(path: Path) -> list[list[str]]:
    """Frames tshark calls malformed or flags with error-level expert info."""
    return fields(path, "frame.number", "frame.protocols", "_ws.expert.message",
                  filt="_ws.malformed || _ws.expert.severity == error")


UDP_CALLS = """
[run]
duration = "20s"
drain = "2s"
seed = 11
trace = true

[[links]]
between = ["a", "r"]
rate = "10Mbps"
delay = "2ms"

[[links]]
between = ["r", "b"]
rate = "400kbps"
delay = "30ms"
queue = { kind = "droptail", limit = "30p" }
loss = { kind = "bernoulli", p = 0.02 }

[[calls]]
count = 2
from = "a"
to = "b"
codec = "G.711"
rtcp = {}

[[traffic]]
from = "a"
to = "b"
kind = "poisson"
rate = "200kbps"
packet = "600B"
"""


def rtp_streams(path: Path) -> dict[int, dict[str, float]]:
    """`-z rtp,streams` rows by source port: packets, lost, max jitter (ms)."""
    out = tshark("-r", str(path), "-q", "-z", "rtp,streams")
    rows = {}
    for line in out.splitlines():
        m = re.search(r"(\d+\.\d+\.\d+\.\d+)\s+(\d+)\s+(\d+\.\d+\.\d+\.\d+)\s+(\d+)\s+(0x[0-9A-Fa-f]+)\s+(.+?)\s+"
                      r"(\d+)\s+(-?\d+)\s+\(\s*-?[\d.]+%\)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)",
                      line)
        if m:
            rows[int(m.group(2))] = {"pkts": int(m.group(7)), "lost": int(m.group(8)), "max_jitter_ms": float(m.group(14)),
                                     "payload": m.group(6)}
    return rows


def rfc3550_max_jitter_ms(t_gen: np.ndarray, t_arr: np.ndarray) -> tuple[float, float]:
    """RFC 3550 A.8 over arrived packets in arrival order (ties in sequence
    order): (max J, final J) in ms, with `t_gen` as the timestamps'
    instants."""
    ok = ~np.isnan(t_arr)
    order = np.lexsort((np.arange(ok.sum()), t_arr[ok]))
    s, r = t_gen[ok][order], t_arr[ok][order]
    j, jmax = 0.0, 0.0
    for i in range(1, len(r)):
        d = (r[i] - r[i - 1]) - (s[i] - s[i - 1])
        j += (abs(d) - j) / 16
        jmax = max(jmax, j)
    return jmax * 1e3, j * 1e3


@pytest.fixture(scope="module")
def udp_run(tmp_path_factory):
    d = tmp_path_factory.mktemp("pcap")
    res = talkspurt.run(UDP_CALLS, pcap=d / "cap", capture=["calls", "r>b", "link:1:reverse"])
    return res, d / "cap"


def test_files_and_manifest(udp_run):
    res, d = udp_run
    names = sorted(p.name for p in d.iterdir())
    assert names == ["call0_receiver.pcap", "call1_receiver.pcap", "link1_forward.pcap", "link1_reverse.pcap"]
    assert sorted(res.manifest["pcap"]["files"]) == names


def test_every_packet_decodes(udp_run):
    _, d = udp_run
    for f in d.glob("call*_receiver.pcap"):
        assert bad_frames(f) == [], f
        protos = [p[0] for p in fields(f, "frame.protocols")]
        assert protos and all(p in ("raw:ip:udp:rtp", "raw:ip:udp:rtcp") for p in protos), set(protos)
        types = [int(x) for row in fields(f, "rtcp.pt", filt="rtcp") for x in row[0].split(",")]
        # Both directions at the receiver: the sender's SRs arrive, its RRs leave.
        assert 200 in types and 201 in types and 202 in types, sorted(set(types))
    for f in d.glob("link*.pcap"):
        assert bad_frames(f) == [], f


def test_checksums_verify(udp_run):
    _, d = udp_run
    f = d / "call0_receiver.pcap"
    out = tshark("-r", str(f), "-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE",
                 "-T", "fields", "-e", "ip.checksum.status", "-e", "udp.checksum.status")
    rows = [line.split("\t") for line in out.splitlines()]
    # Wireshark's checksum status: 0 bad, 1 good, 2 unverified.
    assert rows and all(r == ["1", "1"] for r in rows), set(map(tuple, rows))


def test_rtp_streams_agree_with_records(udp_run):
    """Per call: tshark's packet count = arrivals; its lost (expected from
    the highest and first sequence number, minus received) = talkspurt's
    losses between the first and the last arrival; its max jitter = RFC
    3550 A.8's J maximum over talkspurt's records, within 0.002 ms (tshark
    prints 3 decimals: 0.0005 ms rounding, and its clock-unit arithmetic).
    The RTP timestamp is the instant of the packet's first sample (RFC 3550
    §5.1): `t_generated` − frames × frame length, which differs from
    `t_generated` − ptime for the short last packet of a talkspurt.
    `jitter_ms` runs the same recursion on the same timestamps
    (docs/results.md): its final J is checked here too."""
    res, d = udp_run
    p = res.packets
    for c in range(2):
        rows = rtp_streams(d / f"call{c}_receiver.pcap")
        port = 16384 + 2 * c
        assert port in rows, rows
        ts = rows[port]
        assert ts["payload"].lower().startswith("g711u"), ts
        pc = p[p["call"] == c]
        t_arr = pc["t_arrived"].to_numpy()
        arrived = np.flatnonzero(~np.isnan(t_arr))
        assert ts["pkts"] == len(arrived) == int(res.calls["arrived"][c])
        lost = (arrived[-1] - arrived[0] + 1) - len(arrived)
        assert lost > 0, "the scenario must lose packets for the test to mean something"
        assert ts["lost"] == lost
        t_gen = pc["t_generated"].to_numpy()
        first_sample = t_gen - pc["frames"].to_numpy() * FRAME_S
        jmax, jfinal = rfc3550_max_jitter_ms(first_sample, t_arr)
        assert math.isclose(jfinal, res.calls["jitter_ms"][c], rel_tol=1e-9, abs_tol=1e-9)
        assert jmax > 1.0, "queueing must make jitter"
        assert abs(ts["max_jitter_ms"] - jmax) <= 0.002, (ts["max_jitter_ms"], jmax)


def test_link_capture_counts(udp_run):
    """A link direction's file holds every packet that reached its far end:
    the links table's `delivered` for that direction."""
    res, d = udp_run
    links = res.links
    for name, label in (("link1_forward.pcap", "r->b"), ("link1_reverse.pcap", "b->r")):
        n = len(fields(d / name, "frame.number"))
        row = links[links["link"] == label]
        assert n == int(row["delivered"].iloc[0]) and n > 0, (name, n)


TRANSPORT_CALLS = """
[run]
duration = "10s"
drain = "3s"
seed = 5

[[links]]
between = ["a", "b"]
rate = "300kbps"
delay = "20ms"
queue = {{ kind = "droptail", limit = "10p" }}
loss = {{ kind = "bernoulli", p = 0.02 }}

[[calls]]
from = "a"
to = "b"
codec = "G.711"
transport = {transport}

[[traffic]]
from = "a"
to = "b"
kind = "bulk"
transport = {transport}
"""


@pytest.mark.parametrize("transport,proto", [
    ('{ kind = "tcp", sack = true, timestamps = true }', "tcp"),
    ('{ kind = "dccp", ccid = 3 }', "dccp"),
    ('{ kind = "dccp", ccid = 2 }', "dccp"),
])
def test_tcp_and_dccp_decode(tmp_path, transport, proto):
    d = tmp_path / "cap"
    talkspurt.run(TRANSPORT_CALLS.format(transport=transport), pcap=d, capture=["link:0"])
    for f in sorted(d.iterdir()):
        assert bad_frames(f) == [], f
        protos = {p[0] for p in fields(f, "frame.protocols")}
        assert protos and all(p.startswith(f"raw:ip:{proto}") for p in protos), protos


@pytest.mark.parametrize("ccid", [2, 3])
def test_dccp_closereq_decodes(tmp_path, ccid):
    """closer = "server" (RFC 4340 §8.3): the receiver's CloseReq, the
    sender's Close and the Reset decode without malformed frames on a lossy
    path; tshark sees no more CloseReqs, Closes and Resets than the tables
    say were sent (some may be lost), and at least one of each."""
    d = tmp_path / "cap"
    transport = f'{{ kind = "dccp", ccid = {ccid}, closer = "server" }}'
    res = talkspurt.run(TRANSPORT_CALLS.format(transport=transport), pcap=d, capture=["link:0"])
    seen = {5: 0, 6: 0, 7: 0}
    for f in sorted(d.iterdir()):
        assert bad_frames(f) == [], f
        for (t,) in fields(f, "dccp.type", filt="dccp.type >= 5"):
            seen[int(t)] += 1
    sent = {
        k: int(res.calls[col].sum() + res.traffic[col].sum())
        for k, col in [(5, "dccp_closereq_sent"), (6, "dccp_close_sent"), (7, "dccp_reset_sent")]
    }
    assert all(1 <= seen[k] <= sent[k] for k in seen), (seen, sent)


def test_errors_name_the_option(tmp_path):
    with pytest.raises(talkspurt.ScenarioError, match=r"capture\[1\]: got \"link:7\"; expected a link index from 0 to 1"):
        talkspurt.run(UDP_CALLS, pcap=tmp_path / "x", capture=["calls", "link:7"])
    with pytest.raises(talkspurt.ScenarioError, match=r"capture\[0\]: got \"a>b\"; expected two nodes joined by a link"):
        talkspurt.run(UDP_CALLS, pcap=tmp_path / "x", capture=["a>b"])
    with pytest.raises(talkspurt.ScenarioError, match=r"capture: .* expected pcap set too"):
        talkspurt.run(UDP_CALLS, capture=["calls"])
    d = tmp_path / "y"
    d.mkdir()
    (d / "old.pcap").write_bytes(b"")
    with pytest.raises(FileExistsError, match="pcap: .* already holds old.pcap"):
        talkspurt.run(UDP_CALLS, pcap=d)


def test_cli(tmp_path):
    scn = tmp_path / "s.toml"
    scn.write_text(UDP_CALLS.replace('"20s"', '"2s"'))
    cmd = [sys.executable, "-m", "talkspurt", "run", str(scn), "-q", "--pcap", str(tmp_path / "cap"), "--capture", "call:1"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert [p.name for p in (tmp_path / "cap").iterdir()] == ["call1_receiver.pcap"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 2 and "--pcap:" in r.stderr and "--force" in r.stderr, r.stderr
    r = subprocess.run(cmd + ["--force"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    cmd[cmd.index("--pcap") + 1] = str(tmp_path / "cap2")
    r = subprocess.run(cmd[:-1] + ["call:5"], capture_output=True, text=True)
    assert r.returncode == 2 and "--capture[0]: got \"call:5\"" in r.stderr, r.stderr


def test_rtcp_xr_voip_metrics(tmp_path):
    """`rtcp.xr = "voip-metrics"`: every regular RR carries an RFC 3611
    §4.7 block that tshark decodes (no malformed frames, Gmin 16), whose
    loss rate — the RFC's loss since reception began, /256 — ends within
    0.02 of the calls' network loss (RFC 3550's expected count starts at
    the second packet and the last report precedes the end of the run)."""
    d = tmp_path / "cap"
    res = talkspurt.run(UDP_CALLS.replace("rtcp = {}", 'rtcp = { xr = "voip-metrics" }'), pcap=d,
                        capture=["link:1:reverse"])
    f = next(d.iterdir())
    assert bad_frames(f) == []
    rows = fields(f, "rtcp.senderssrc", "rtcp.ssrc.fraction", "rtcp.xr.voipmetrics.gmin",
                  "rtcp.xr.voipmetrics.burstdensity", "rtcp.xr.voipmetrics.gapdensity", filt="rtcp.xr.bt == 7")
    assert len(rows) >= 4, rows
    last = {}
    for ssrc, fractions, gmin, burst, gap in rows:
        assert gmin == "16" and 0 <= int(burst) <= 255 and 0 <= int(gap) <= 255
        last[ssrc] = int(fractions.split(",")[-1]) / 256  # the XR block's loss rate follows the RR's
    assert len(last) == 2
    got = sorted(last.values())
    want = sorted(res.calls.loss_network)
    print(got, want)
    assert all(abs(g - w) <= 0.02 for g, w in zip(got, want)), (got, want)
