//! `RunOutput::largest` (`World::largest_by_group`): per call group, the
//! largest IP packet its connections sent and the largest unit handed to
//! the transport, which the Python notices compare with a 1500 B MTU and a
//! TCP mss (docs/scenario.md, [[links]] "No MTU", TCP `mss`). Closed forms:
//! - G.711 at 20 ms over UDP: 160 B + 40 B (IP 20, UDP 8, RTP 12) = 200 B
//!   on the wire, a unit of 172 B (RTP packet), whether the call takes the
//!   direct way (`sim/voice.rs`) or not (a packet capture turns it off);
//! - over DCCP the 8 B UDP header becomes DCCP's 16 B generic header with
//!   48-bit sequence numbers (RFC 4340 §5.1): 172 + 20 + 16 = 208 B;
//! - over TCP with `mss = "160B"` the 174 B write (2 B of RFC 4571 framing)
//!   leaves in segments of at most 160 B of data: 160 + 40 = 200 B;
//! - an IAX2 trunk of 12 G.711 calls: 8 + 12 · (6 + 160) = 2000 B of trunk
//!   frame, 2028 B over UDP, 2036 B over DCCP (seed 003's 12-call rows).

use talkspurt_core::run::{run, run_with, RunOptions};
use talkspurt_core::scenario::from_toml_str;

fn largest(call: &str, count: u32, capture: bool) -> Vec<(u32, u32)> {
    let toml = format!(
        "[run]\nduration = \"3s\"\n[[links]]\nbetween = [\"a\", \"b\"]\nrate = \"10Mbps\"\ndelay = \"10ms\"\n\
         [[calls]]\ncount = {count}\nfrom = \"a\"\nto = \"b\"\ncodec = \"G.711\"\nspeech = {{ model = \"continuous\" }}\n\
         start = {{ kind = \"uniform\", from = \"0s\", to = \"20ms\" }}\n{call}\n"
    );
    let s = from_toml_str(&toml).expect("scenario");
    let out = if capture {
        let opts = RunOptions { capture: vec!["calls".into()], ..RunOptions::default() };
        run_with(&s, &opts, &mut |_| true).expect("run")
    } else {
        run(&s, &mut |_| true).expect("run")
    };
    out.largest.iter().map(|l| (l.packet, l.message)).collect()
}

#[test]
fn a_udp_call_direct_or_not() {
    assert_eq!(largest("", 1, false), vec![(200, 172)]);
    assert_eq!(largest("", 1, true), vec![(200, 172)]);
}

#[test]
fn dccp_and_tcp_headers() {
    assert_eq!(largest("transport = { kind = \"dccp\" }", 1, false), vec![(208, 172)]);
    assert_eq!(largest("transport = { kind = \"tcp\", mss = \"160B\", nodelay = true }", 1, false), vec![(200, 172)]);
}

#[test]
fn the_twelve_call_trunk() {
    assert_eq!(largest("trunk = {}", 12, false), vec![(2028, 2000)]);
    assert_eq!(largest("trunk = {}\ntransport = { kind = \"dccp\", ccid = 4 }", 12, false), vec![(2036, 2000)]);
    // Asterisk's trunkmtu splits the tick: no packet above it (+ IP, UDP).
    let split = largest("trunk = { mtu = \"1240B\" }", 12, false);
    assert!(split[0].0 <= 1240 + 28 && split[0].1 <= 1240, "{split:?}");
}
