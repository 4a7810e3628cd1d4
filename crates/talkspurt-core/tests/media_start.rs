//! When a call's media starts (`calls[].media_start`, issue 23), and the
//! sender jitter of the two boundaries a packet crosses on its way out
//! (`jitter_app_*` at the application→transport hand-over, `t_generated`;
//! `jitter_sender_*` where it leaves the host, `t_sent`).

use talkspurt_core::run::run;
use talkspurt_core::scenario::from_toml_str;
use talkspurt_core::trace::Column;

/// One continuous G.711 call (20 ms packets) from 1 s on, over a 10 Mb/s
/// link of 250 ms each way with no loss; a 400 ms `fixed-depth` buffer
/// (20 × 20 ms over the first arrival, seed 003's).
fn call(transport: &str, media_start: Option<&str>, secs: u64) -> talkspurt_core::run::RunOutput {
    let media = media_start.map_or(String::new(), |m| format!("media_start = \"{m}\"\n"));
    let src = format!(
        "[run]\nduration = \"{secs}s\"\nseed = 1\ntrace = true\nseries = true\n\n[analysis]\nbounds = false\n\n\
         [[links]]\nbetween = [\"s\", \"d\"]\nrate = \"10Mbps\"\ndelay = \"250ms\"\n\n\
         [[calls]]\nfrom = \"s\"\nto = \"d\"\ncodec = \"G.711\"\nptime = \"20ms\"\nspeech = {{ model = \"continuous\" }}\n\
         start = \"1s\"\ntransport = {transport}\nplayout = {{ kind = \"fixed-depth\", depth = 20, ptime = \"20ms\" }}\n{media}"
    );
    run(&from_toml_str(&src).unwrap(), &mut |_| true).unwrap()
}

fn first_packet(out: &talkspurt_core::run::RunOutput) -> (f64, f64, f64) {
    let p = out.report.packets.as_ref().expect("trace on");
    let col = |n: &str| match p.column(n).unwrap() {
        Column::F64(v) => v[0],
        c => panic!("{n}: {c:?}"),
    };
    (col("t_generated"), col("t_sent"), col("t_arrived"))
}

/// The instant the DCCP client's handshake completed: its first `x_bps`
/// sample, taken when the Response arrives (tests/tfrc.rs).
fn response_at(out: &talkspurt_core::run::RunOutput) -> f64 {
    let ser = &out.report.series;
    let i = ser.str("name").iter().position(|n| n == "x_bps").expect("an x_bps sample");
    ser.f64("t")[i]
}

const CCID4: &str = "{ kind = \"dccp\", ccid = 4, tfrc = \"linux2008\", send_buffer = \"5p\" }";

/// `media_start = "connection"` (the default): the call opens its DCCP
/// connection at its start (1 s) and its frame clock starts when the
/// Response arrives, one RTT later (2 × 250 ms plus the Request's and
/// Response's transmission at 10 Mb/s, well under 1 ms): the first packet
/// is complete one ptime after that instant (to 1 ns, the f64 seconds of
/// the tables), leaves at once and arrives one propagation delay later
/// (250 ms plus its 0.2 ms transmission, within 1 ms). With `"call"` the
/// first packet is complete at 1.02 s and waits the handshake's RTT in
/// the send buffer: its delay is at least 750 ms.
#[test]
fn media_starts_when_the_connection_opens() {
    let out = call(CCID4, None, 20);
    let open = response_at(&out);
    assert!((1.5..1.501).contains(&open), "Response at {open} s");
    let (gen, sent, arr) = first_packet(&out);
    assert!((gen - 0.020 - open).abs() < 1e-9, "first packet complete at {gen} s, connection open at {open} s");
    assert_eq!(sent, gen, "the first packet leaves when it is complete");
    assert!((0.250..0.251).contains(&(arr - gen)), "first delay {} s", arr - gen);

    let old = call(CCID4, Some("call"), 20);
    let (gen, _, arr) = first_packet(&old);
    assert!((gen - 1.020).abs() < 1e-9, "media_start = call: first packet at {gen} s");
    assert!(arr - gen >= 0.750, "media_start = call: first delay {} s", arr - gen);
}

/// The same over TCP with its three-way handshake (RFC 9293 §3.5): the
/// SYN leaves at the call's start with no data written yet, and the first
/// packet is complete one ptime after the SYN-ACK, at 1.52 s (within 1 ms:
/// the SYN's and SYN-ACK's transmission); it arrives one propagation
/// delay later (within 1 ms).
#[test]
fn media_waits_for_the_tcp_handshake() {
    let out = call("{ kind = \"tcp\", nodelay = true }", None, 10);
    let (gen, _, arr) = first_packet(&out);
    assert!((1.520..1.521).contains(&gen), "first packet complete at {gen} s");
    assert!((0.250..0.251).contains(&(arr - gen)), "first delay {} s", arr - gen);
}

/// A buffer anchored on the first arrival no longer carries the
/// handshake: on this loss-free path the call's mouth-to-ear delay over
/// CCID 4 with the media started at the connection equals UDP's to within
/// 1 ms (both: 250 ms + 400 ms of buffer + 20 ms of packetization), while
/// with `media_start = "call"` it is at least 500 ms (the RTT) longer.
/// Over UDP both settings give the same run.
#[test]
fn fixed_depth_delay_no_longer_carries_the_handshake() {
    let m2e = |o: &talkspurt_core::run::RunOutput| o.report.calls.f64("mouth_to_ear_ms")[0];
    let udp = call("{ kind = \"udp\" }", None, 30);
    let udp_call = call("{ kind = \"udp\" }", Some("call"), 30);
    assert_eq!(udp.report.digest(), udp_call.report.digest(), "UDP: media_start changes nothing");
    let (u, c, old) = (m2e(&udp), m2e(&call(CCID4, None, 30)), m2e(&call(CCID4, Some("call"), 30)));
    eprintln!("mouth-to-ear: UDP {u:.1} ms, CCID4 media at connection {c:.1} ms, at call start {old:.1} ms");
    assert!((669.0..672.0).contains(&u), "UDP mouth-to-ear {u} ms");
    assert!((c - u).abs() < 1.0, "CCID4 {c} ms against UDP {u} ms");
    assert!(old - u >= 500.0, "media_start = call: {old} ms against UDP {u} ms");
}

/// Gap jitter at the two boundaries (seed 003 §5's definition,
/// |g_{i+1} − g_i|): a CBR UDP call hands its packets to the transport
/// exactly every 20 ms and UDP sends each at once, so both are exactly 0.
/// Over CCID 4 the frames still reach the transport every 20 ms (app
/// jitter exactly 0) while the pacer moves their departures (sender
/// jitter > 0: the rate starts below 50 packets/s).
#[test]
fn app_boundary_jitter_is_the_sources_own() {
    let udp = call("{ kind = \"udp\" }", None, 10);
    let c = &udp.report.calls;
    for col in ["jitter_app_mean_ms", "jitter_app_max_ms", "jitter_sender_mean_ms", "jitter_sender_max_ms"] {
        assert_eq!(c.f64(col)[0], 0.0, "UDP {col}");
    }
    let dccp = call(CCID4, None, 30);
    let c = &dccp.report.calls;
    assert_eq!((c.f64("jitter_app_mean_ms")[0], c.f64("jitter_app_max_ms")[0]), (0.0, 0.0));
    assert!(c.f64("jitter_sender_max_ms")[0] > 0.0, "CCID4 sender jitter {}", c.f64("jitter_sender_max_ms")[0]);
}

/// A value that is not one of the two names is an error naming the key and
/// both names.
#[test]
fn media_start_names_its_values() {
    let src = "[run]\nduration = \"1s\"\n[[links]]\nbetween = [\"s\", \"d\"]\nrate = \"1Mbps\"\ndelay = \"1ms\"\n[[calls]]\nfrom = \"s\"\nto = \"d\"\ncodec = \"G.711\"\nmedia_start = \"later\"\n";
    let e = from_toml_str(src).unwrap_err();
    eprintln!("{e}");
    assert_eq!(e.path, "calls[0].media_start", "{e}");
    let msg = e.to_string();
    assert!(msg.contains("connection") && msg.contains("call"), "{msg}");
}
