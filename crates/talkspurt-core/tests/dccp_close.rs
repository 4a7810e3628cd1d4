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

/// (time s, source port, destination port, DCCP type, IP length, Reset
/// Code) of each DCCP packet in a raw-IPv4 libpcap file (docs/pcap.md: one
/// port per flow at both ends). The Reset Code follows the 16-byte generic
/// header (X = 1) and the 8-byte ack subheader (RFC 4340 §5.6); 0 for
/// other types.
fn dccp_packets(pcap: &[u8]) -> Vec<(f64, u16, u16, u8, usize, u8)> {
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
        let ty = (d[8] >> 1) & 0x0f;
        let code = if ty == 7 { d[24] } else { 0 };
        out.push((t, port(0), port(2), ty, u16::from_be_bytes([ip[2], ip[3]]) as usize, code));
    }
    out
}

#[test]
fn close_then_reset_after_the_last_data_packet() {
    let s = from_toml_str(SCENARIO).unwrap();
    let opts = RunOptions { capture: vec!["link:0".into()], capture_key: "capture".into(), ..Default::default() };
    let out = run_with(&s, &opts, &mut |_| true).unwrap();
    let names: Vec<&str> = out.captures.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(names.len(), 2, "{names:?}: the link's two directions");
    // Per connection (its port pair): last data packet, Closes, Resets.
    type Conn = (f64, Vec<(f64, usize)>, Vec<(f64, usize)>);
    let mut conns: BTreeMap<(u16, u16), Conn> = BTreeMap::new();
    for (_, bytes) in &out.captures {
        for (t, sp, dp, ty, len, _) in dccp_packets(bytes) {
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
    if let Some(n) = tshark_counts(&out.captures, &["dccp.type == 6", "dccp.type == 7 && dccp.reset_code == 1"]) {
        assert_eq!(n, [2, 2], "tshark's Close and Reset (Closed) counts");
    }
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

/// One DCCP connection read back from the capture: when its sender's last
/// data packet arrived, and its teardown packets (arrival time, type, IP
/// length, Reset Code, sent by the data sender, i.e. found in the forward
/// direction's file).
#[derive(Debug, Default)]
struct Teardown {
    last_data: f64,
    packets: Vec<(f64, u8, usize, u8, bool)>,
}

fn teardowns(captures: &[(String, Vec<u8>)]) -> BTreeMap<(u16, u16), Teardown> {
    let all = captures.iter().flat_map(|(name, b)| dccp_packets(b).into_iter().map(move |p| (name.contains("forward"), p)));
    let mut conns: BTreeMap<(u16, u16), Teardown> = BTreeMap::new();
    for (fwd, (t, sp, dp, ty, len, code)) in all {
        let c = conns.entry((sp.min(dp), sp.max(dp))).or_default();
        match ty {
            2 | 4 => c.last_data = c.last_data.max(t),
            5..=7 => c.packets.push((t, ty, len, code, fwd)),
            _ => {}
        }
    }
    for c in conns.values_mut() {
        c.packets.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    conns
}

/// Counts of tshark's frames matching each filter over every capture,
/// after checking that it finds no malformed or error-level frames; None
/// without tshark.
fn tshark_counts(captures: &[(String, Vec<u8>)], filters: &[&str]) -> Option<Vec<usize>> {
    let tshark = which_tshark().ok()?;
    let mut counts = vec![0; filters.len()];
    for (name, bytes) in captures {
        // Tests run on parallel threads of one process: one file each.
        static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let k = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("talkspurt-dccp-close-{}-{k}-{name}", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        let run = |filter: &str| {
            let o = Command::new(&tshark).args(["-r", path.to_str().unwrap(), "-Y", filter]).output().unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            String::from_utf8_lossy(&o.stdout).lines().count()
        };
        assert_eq!(run("_ws.malformed || _ws.expert.severity == error"), 0, "{name}: malformed frames");
        for (n, f) in counts.iter_mut().zip(filters) {
            *n += run(f);
        }
        let _ = std::fs::remove_file(&path);
    }
    Some(counts)
}

/// `closer = "server"` (RFC 4340 §8.3): when the call or flow stops, the
/// receiver sends CloseReq (44 B: 20 IP + 16 generic + 8 ack subheader,
/// §5.5); the sender answers Close once its buffer has drained (after its
/// last data packet); the receiver answers Reset "Closed" (48 B). Exactly
/// one of each per connection on a loss-free path, in that order, with
/// the CloseReq leaving when the application stops (the bulk flow at
/// 6 s, the call's last frame just before 10 s) and the results counting
/// the same packets.
#[test]
fn server_closes_with_closereq() {
    let toml = SCENARIO.replace("ccid = 3 }", "ccid = 3, closer = \"server\" }").replace("ccid = 2 }", "ccid = 2, closer = \"server\" }");
    let mut s = from_toml_str(&toml).unwrap();
    s.run.trace = true;
    let opts = RunOptions { capture: vec!["link:0".into()], capture_key: "capture".into(), ..Default::default() };
    let out = run_with(&s, &opts, &mut |_| true).unwrap();
    // The call's last frame: its frame clock started when its connection
    // opened (media_start = "connection"), so the last packet complete by
    // the 10 s end is up to one ptime before it.
    let last_frame = match out.report.packets.as_ref().unwrap().column("t_generated").unwrap() {
        talkspurt_core::trace::Column::F64(v) => v.iter().cloned().fold(0.0, f64::max),
        c => panic!("t_generated: {c:?}"),
    };
    assert!((9.98..=10.0).contains(&last_frame), "last frame at {last_frame} s");
    let conns = teardowns(&out.captures);
    assert_eq!(conns.len(), 2, "{conns:?}");
    let mut closereq_at = vec![];
    for (k, c) in &conns {
        let kinds: Vec<(u8, usize, u8, bool)> = c.packets.iter().map(|p| (p.1, p.2, p.3, p.4)).collect();
        // (type, IP bytes, Reset Code, sent by the data sender)
        assert_eq!(kinds, vec![(5, 44, 0, false), (6, 44, 0, true), (7, 48, 1, false)], "{k:?}: {c:?}");
        assert!(c.packets[1].0 >= c.last_data, "{k:?}: Close after the last data packet: {c:?}");
        closereq_at.push(c.packets[0].0);
    }
    closereq_at.sort_by(f64::total_cmp);
    // The CloseReq leaves the receiver at the stop (the bulk flow's 6 s,
    // the call's last frame) and arrives 20 ms + 176 µs (44 B at 2 Mb/s)
    // later, plus at most one feedback packet's transmission ahead of it
    // on the otherwise idle reverse direction.
    let arrive = |t0: f64| t0 + 0.020_176 - 1e-9..t0 + 0.0215;
    assert!(arrive(6.0).contains(&closereq_at[0]) && arrive(last_frame).contains(&closereq_at[1]), "CloseReqs at {closereq_at:?}, last frame {last_frame}");
    let calls = &out.report.calls;
    let traffic = &out.report.traffic;
    for (t, what) in [(calls, "calls"), (traffic, "traffic")] {
        assert_eq!(
            (t.i64("dccp_close_sent")[0], t.i64("dccp_closereq_sent")[0], t.i64("dccp_reset_sent")[0]),
            (1, 1, 1),
            "{what} table counts"
        );
    }
    if let Some(n) = tshark_counts(&out.captures, &["dccp.type == 5", "dccp.type == 6", "dccp.type == 7 && dccp.reset_code == 1"]) {
        assert_eq!(n, vec![2, 2, 2], "tshark's CloseReq, Close and Reset (Closed) counts");
    }
}

/// A bulk flow that stops while its Request is still on the way (200 ms
/// one way, stop at 0.1 s) abandons the handshake with Reset "Aborted"
/// (RFC 4340 §8.1.1), sends no Close and no data; the server, which
/// answered the Request, is torn down by the Reset (§8.5 step 9) and sends
/// nothing more; the client ignores the late Response.
#[test]
fn stop_during_handshake_aborts() {
    let toml = r#"
[run]
duration = "3s"
seed = 1

[[links]]
between = ["a", "b"]
rate = "2Mbps"
delay = "200ms"

[[traffic]]
from = "a"
to = "b"
kind = "bulk"
stop = "0.1s"
transport = { kind = "dccp", ccid = 3 }
"#;
    let s = from_toml_str(toml).unwrap();
    let opts = RunOptions { capture: vec!["link:0".into()], capture_key: "capture".into(), ..Default::default() };
    let out = run_with(&s, &opts, &mut |_| true).unwrap();
    let all: Vec<_> = out.captures.iter().flat_map(|(_, b)| dccp_packets(b)).collect();
    let mut seen: Vec<(u8, u8)> = all.iter().map(|p| (p.3, p.5)).collect();
    seen.sort();
    // Request (0), Response (1), Reset "Aborted" (7, code 2), nothing else
    assert_eq!(seen, vec![(0, 0), (1, 0), (7, 2)], "{all:?}");
    let reset = all.iter().find(|p| p.3 == 7).unwrap();
    // sent at the stop, arriving 200 ms + 192 µs (48 B at 2 Mb/s) later
    assert!((reset.0 - 0.300_192).abs() < 1e-6 && reset.4 == 48, "Reset at the stop, 48 B: {reset:?}");
    let t = &out.report.traffic;
    assert_eq!((t.i64("dccp_close_sent")[0], t.i64("dccp_closereq_sent")[0], t.i64("dccp_reset_sent")[0]), (0, 0, 1));
    if let Some(n) = tshark_counts(&out.captures, &["dccp.type == 7 && dccp.reset_code == 2", "dccp.type == 6"]) {
        assert_eq!(n, vec![1, 0], "tshark's Reset (Aborted) and Close counts");
    }
}
