//! DCCP teardown end to end (RFC 4340 §8.3): when a call or a bulk flow
//! stops, its sender sends Close after its last data packet and the
//! receiver answers Reset (code 1, "Closed"). Read back from the pcap
//! capture of the access link: per DCCP flow exactly one Close of 44 bytes
//! on the wire (20 IP + 16 generic header with 48-bit sequence numbers +
//! 8 ack subheader, §5.1, §5.3) after the flow's last data packet, and one
//! Reset of 48 bytes (§5.6 adds Reset Code and three data bytes) after
//! it, on a loss-free path. tshark, when installed, decodes the capture
//! without malformed frames and agrees on the counts.

use std::collections::BTreeMap;
use std::process::Command;
use talkspurt_core::run::{run_with, RunOptions};
use talkspurt_core::scenario::from_toml_str;

const SCENARIO: &str = r#"
[run]
duration = "10s"
drain = "3s"
seed = 5

[[links]]
between = ["a", "b"]
rate = "2Mbps"
delay = "20ms"
queue = { kind = "droptail", limit = "50p" }

[[calls]]
from = "a"
to = "b"
codec = "G.711"
transport = { kind = "dccp", ccid = 3 }

[[traffic]]
from = "a"
to = "b"
kind = "bulk"
stop = "6s"
transport = { kind = "dccp", ccid = 2 }
"#;

/// (time s, source port, destination port, DCCP type, IP length) of each
/// DCCP packet in a raw-IPv4 libpcap file (docs/pcap.md: one port per
/// flow at both ends).
fn dccp_packets(pcap: &[u8]) -> Vec<(f64, u16, u16, u8, usize)> {
    let mut out = Vec::new();
    let mut i = 24;
    while i + 16 <= pcap.len() {
        let u32le = |o: usize| u32::from_le_bytes(pcap[o..o + 4].try_into().unwrap());
        let t = u32le(i) as f64 + u32le(i + 4) as f64 * 1e-9; // nanosecond libpcap
        let len = u32le(i + 8) as usize;
        let ip = &pcap[i + 16..i + 16 + len];
        i += 16 + len;
        if ip[9] != 33 {
            continue;
        }
        let d = &ip[(ip[0] & 0x0f) as usize * 4..];
        let port = |o: usize| u16::from_be_bytes([d[o], d[o + 1]]);
        out.push((t, port(0), port(2), (d[8] >> 1) & 0x0f, u16::from_be_bytes([ip[2], ip[3]]) as usize));
    }
    out
}

#[test]
fn close_then_reset_after_the_last_data_packet() {
    let s = from_toml_str(SCENARIO).unwrap();
    let opts = RunOptions { capture: vec!["link:0".into()], capture_key: "capture".into() };
    let out = run_with(&s, &opts, &mut |_| true).unwrap();
    let names: Vec<&str> = out.captures.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(names.len(), 2, "{names:?}: the link's two directions");
    // Per connection (its port pair): last data packet, Closes, Resets.
    type Conn = (f64, Vec<(f64, usize)>, Vec<(f64, usize)>);
    let mut conns: BTreeMap<(u16, u16), Conn> = BTreeMap::new();
    for (_, bytes) in &out.captures {
        for (t, sp, dp, ty, len) in dccp_packets(bytes) {
            let c = conns.entry((sp.min(dp), sp.max(dp))).or_default();
            match ty {
                2 | 4 => c.0 = c.0.max(t),
                6 => c.1.push((t, len)),
                7 => c.2.push((t, len)),
                _ => {}
            }
        }
    }
    assert_eq!(conns.len(), 2, "a CCID 3 call and a CCID 2 flow: {conns:?}");
    for (k, (last_data, closes, resets)) in &conns {
        assert_eq!(closes.len(), 1, "{k:?}: one Close {closes:?}");
        assert_eq!(resets.len(), 1, "{k:?}: one Reset {resets:?}");
        assert_eq!((closes[0].1, resets[0].1), (44, 48), "{k:?}: Close and Reset sizes");
        assert!(closes[0].0 >= *last_data && resets[0].0 > closes[0].0, "{k:?}: data {last_data}, Close {closes:?}, Reset {resets:?}");
    }
    // The bulk flow stops at 6 s: its Close joins the bottleneck queue
    // then (up to 50 packets of 1 kB at 2 Mb/s, 0.2 s, ahead of it), long
    // before the run ends; the call stops at 10 s (the drain runs on).
    let mut first: Vec<f64> = conns.values().map(|c| c.1[0].0).collect();
    first.sort_by(f64::total_cmp);
    assert!(first[0] > 6.0 && first[0] < 6.25 + 0.02 && first[1] > 10.0 && first[1] < 10.1, "Closes at {first:?}");
    let Ok(tshark) = which_tshark() else { return };
    let mut counts = [0; 2];
    for (name, bytes) in &out.captures {
        let path = std::env::temp_dir().join(format!("talkspurt-dccp-close-{}-{name}", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        let run = |filter: &str| {
            let o = Command::new(&tshark).args(["-r", path.to_str().unwrap(), "-Y", filter]).output().unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            String::from_utf8_lossy(&o.stdout).lines().count()
        };
        assert_eq!(run("_ws.malformed || _ws.expert.severity == error"), 0, "{name}: malformed frames");
        counts[0] += run("dccp.type == 6");
        counts[1] += run("dccp.type == 7 && dccp.reset_code == 1");
        let _ = std::fs::remove_file(&path);
    }
    assert_eq!(counts, [2, 2], "tshark's Close and Reset (Closed) counts");
}

fn which_tshark() -> Result<String, ()> {
    let ok = Command::new("tshark").arg("--version").output().is_ok_and(|o| o.status.success());
    if ok {
        Ok("tshark".into())
    } else {
        eprintln!("tshark not installed: the capture is checked without it");
        Err(())
    }
}
