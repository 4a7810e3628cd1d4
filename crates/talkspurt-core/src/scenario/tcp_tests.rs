//! Tests of the TCP transport table, the TCP traffic kinds (`bulk`,
//! `transfer`), the traffic `transport` key and `[analysis] interval`:
//! defaults, every key given, the scenario as run, and the bad-input
//! corpus with exact key paths.
use super::tests::{check_all, ms, with};
use super::*;
use crate::cc::{CcAlgorithm, CubicParams, RealParams, Recovery, VegasParams, WestwoodParams};
use crate::scenario::build;
use crate::scenario::model::*;
use crate::transport::tcp::{IdleRestart, InitialWindow, SendLimit};

/// The first call group's transport, parsed from `transport = <table>`.
fn tcp(table: &str) -> TcpConfig {
    let src = with("call", &format!("transport = {table}"));
    match from_toml_str(&src).unwrap_or_else(|e| panic!("{table}: {e}")).calls[0].transport.clone() {
        TransportCfg::Tcp(t) => t,
        other => panic!("{table}: {other:?}"),
    }
}

#[test]
fn tcp_defaults_are_the_configs_with_recovery_and_sack_filled_in() {
    let t = tcp("{ kind = \"tcp\" }");
    assert_eq!(t, TcpConfig { recovery: Some(Recovery::NewReno), sack: Some(false), ..TcpConfig::default() });
    // The documented values, written out: a changed default must show here.
    assert_eq!((t.cc, t.mss, t.initial_window), (CcAlgorithm::NewReno, 1460, InitialWindow::Rfc3390));
    assert_eq!((t.nodelay, t.delayed_ack, t.delack_timeout), (false, true, ms(200)));
    assert_eq!((t.initial_rto, t.min_rto, t.max_rto), (ms(1000), ms(1000), ms(60_000)));
    assert_eq!((t.granularity, t.rcv_window, t.send_buffer), (ms(1), 1 << 20, SendLimit::Bytes(1 << 20)));
    assert_eq!(
        (t.idle_restart, t.ecn, t.timestamps, t.handshake, t.framing),
        (IdleRestart::Rfc5681, false, false, true, 2)
    );
    // Recovery and SACK follow the controller unless given.
    let cubic = tcp("{ kind = \"tcp\", cc = \"cubic\" }");
    assert_eq!((cubic.recovery, cubic.sack), (Some(Recovery::Sack), Some(true)));
    let vegas = tcp("{ kind = \"tcp\", cc = \"vegas\" }");
    assert_eq!(
        (vegas.recovery, vegas.sack, vegas.params.vegas),
        (Some(Recovery::Reno), Some(false), VegasParams::default())
    );
    assert_eq!(tcp("{ kind = \"tcp\", cc = \"westwood+\" }").cc, CcAlgorithm::WestwoodPlus);
    assert_eq!(tcp("{ kind = \"tcp\", cc = \"westwood\" }").cc, CcAlgorithm::Westwood);
    assert_eq!(
        tcp("{ kind = \"tcp\", cc = \"westwood\", westwood = { tau = \"1s\" } }").params.westwood.tau,
        crate::time::SimDuration::from_secs(1)
    );
    assert_eq!(tcp("{ kind = \"tcp\", cc = \"reno\", sack = true }").sack, Some(true));
}

/// QA 004: ns-2 papers state windows in packets ("window 20"); `"20p"` is
/// 20 full segments of mss bytes (less the timestamps option's 12 B when
/// on), written back in bytes.
#[test]
fn rcv_window_in_segments() {
    assert_eq!(tcp("{ kind = \"tcp\", mss = \"1000B\", rcv_window = \"20p\" }").rcv_window, 20_000);
    assert_eq!(tcp("{ kind = \"tcp\", rcv_window = \"20p\" }").rcv_window, 20 * 1460);
    // With timestamps a full segment holds mss − 12 B (RFC 6691 §2).
    assert_eq!(tcp("{ kind = \"tcp\", timestamps = true, rcv_window = \"20p\" }").rcv_window, 20 * 1448);
    // One full segment is enough of a window.
    assert_eq!(tcp("{ kind = \"tcp\", timestamps = true, rcv_window = \"1p\" }").rcv_window, 1448);
    let s = from_toml_str(&with("call", "transport = { kind = \"tcp\", mss = \"1000B\", rcv_window = \"20p\" }")).unwrap();
    assert_eq!(to_json(&s)["calls"][0]["transport"]["rcv_window"], "20000B");
}

#[test]
fn tcp_every_key_given() {
    let t = tcp(
        "{ kind = \"tcp\", cc = \"vegas\", recovery = \"sack\", sack = true, mss = \"536B\", \
         initial_window = 4, nodelay = true, limited_transmit = true, delayed_ack = false, delack_timeout = \"100ms\", \
         initial_rto = \"3s\", min_rto = \"200ms\", max_rto = \"120s\", granularity = \"10ms\", \
         rcv_window = \"64KiB\", send_buffer = \"5p\", idle_restart = \"rfc7661\", ecn = true, \
         timestamps = true, handshake = false, framing = \"0B\", vegas = { alpha = 2, beta = 4, gamma = 0.5 } }",
    );
    let expected = TcpConfig {
        cc: CcAlgorithm::Vegas,
        recovery: Some(Recovery::Sack),
        sack: Some(true),
        mss: 536,
        initial_window: InitialWindow::Segments(4),
        nodelay: true,
        limited_transmit: true,
        delayed_ack: false,
        delack_timeout: ms(100),
        initial_rto: ms(3000),
        min_rto: ms(200),
        max_rto: ms(120_000),
        granularity: ms(10),
        rcv_window: 65_536,
        send_buffer: SendLimit::Writes(5),
        idle_restart: IdleRestart::Rfc7661,
        ecn: true,
        timestamps: true,
        handshake: false,
        framing: 0,
        params: crate::cc::CcParams {
            vegas: VegasParams { alpha: 2.0, beta: 4.0, gamma: 0.5 },
            ..Default::default()
        },
    };
    assert_eq!(t, expected);
    let cubic =
        tcp("{ kind = \"tcp\", cc = \"cubic\", cubic = { c = 0.5, beta = 0.8, fast_convergence = false } }");
    assert_eq!(
        cubic.params.cubic,
        CubicParams { c: 0.5, beta: 0.8, fast_convergence: false, tcp_friendliness: true }
    );
    let ww =
        tcp("{ kind = \"tcp\", cc = \"westwood\", westwood = { gain = 0.8 }, initial_window = \"rfc6928\" }");
    assert_eq!(
        (ww.params.westwood, ww.initial_window),
        (WestwoodParams { gain: 0.8, ..WestwoodParams::default() }, InitialWindow::Rfc6928)
    );
    let real = tcp("{ kind = \"tcp\", cc = \"real\", real = { wave = 8 }, send_buffer = \"64kB\" }");
    assert_eq!(
        (real.params.real, real.send_buffer),
        (RealParams { wave: 8, ..RealParams::default() }, SendLimit::Bytes(64_000))
    );
}

/// The TCP table's option keys (all but `kind` and the controller tables).
const OPTION_KEYS: &[&str] = &[
        "cc",
        "recovery",
        "sack",
        "mss",
        "initial_window",
        "nodelay",
        "limited_transmit",
        "delayed_ack",
        "delack_timeout",
        "initial_rto",
        "min_rto",
        "max_rto",
        "granularity",
        "rcv_window",
        "send_buffer",
        "idle_restart",
        "ecn",
        "timestamps",
        "handshake",
        "framing",
];

#[test]
fn tcp_to_json_writes_every_key_and_only_the_chosen_controller_table() {
    let s = from_toml_str(&with("call", "transport = { kind = \"tcp\", cc = \"cubic\" }")).unwrap();
    let j = to_json(&s);
    let t = &j["calls"][0]["transport"];
    let keys: Vec<&str> = t.as_object().unwrap().keys().map(String::as_str).collect();
    for &k in ["kind"].iter().chain(OPTION_KEYS).chain(&["cubic"]) {
        assert!(keys.contains(&k), "{k} missing from {t}");
    }
    assert_eq!(keys.len(), 22, "{t}");
    assert_eq!(t["kind"], "tcp");
    assert_eq!(t["recovery"], "sack");
    assert_eq!(t["mss"], "1460B");
    assert_eq!(t["initial_window"], "rfc3390");
    assert_eq!(t["send_buffer"], "1048576B");
    assert_eq!(
        t["cubic"],
        serde_json::json!({ "c": 0.4, "beta": 0.7, "fast_convergence": true, "tcp_friendliness": true })
    );
    assert_eq!(from_value(&j).unwrap(), s);
    let s = from_toml_str(&with(
        "call",
        "transport = { kind = \"tcp\", initial_window = 10, send_buffer = \"5p\" }",
    ))
    .unwrap();
    let j = to_json(&s);
    assert_eq!(
        (&j["calls"][0]["transport"]["initial_window"], &j["calls"][0]["transport"]["send_buffer"]),
        (&serde_json::json!(10), &serde_json::json!("5p"))
    );
    assert_eq!(from_value(&j).unwrap(), s);
}

const TRAFFIC_HEAD: &str = "[[traffic]]\nfrom = \"a\"\nto = \"b\"\n";

/// A scenario whose only group is a traffic source with `lines`.
fn traffic(lines: &str) -> String {
    with("top", "").replace(
        "[[calls]]\nfrom = \"a\"\nto = \"b\"\ncodec = \"G.711\"\n",
        &format!("{TRAFFIC_HEAD}{lines}\n"),
    )
}

#[test]
fn tcp_traffic_kinds_and_transport() {
    let t = |lines: &str| {
        from_toml_str(&traffic(lines)).unwrap_or_else(|e| panic!("{lines}: {e}")).traffic[0].clone()
    };
    let bulk = t("kind = \"bulk\"\ntransport = { kind = \"tcp\", cc = \"reno\" }");
    assert_eq!(bulk.kind, TrafficKind::Bulk { on_off: None });
    assert!(matches!(&bulk.transport, TransportCfg::Tcp(c) if c.cc == CcAlgorithm::Reno));
    let onoff = t("kind = \"bulk\"\ntransport = { kind = \"tcp\" }\non = { mean = \"1s\" }\noff = { dist = \"pareto\" }");
    assert_eq!(
        onoff.kind,
        TrafficKind::Bulk {
            on_off: Some((
                DurationDist::Exponential { mean: ms(1000) },
                DurationDist::Pareto { shape: 1.5, mean: ms(2000) }
            ))
        }
    );
    let transfer = t("kind = \"transfer\"\nsize = \"10MB\"\ntransport = { kind = \"tcp\" }\nstart = \"5s\"");
    assert_eq!(
        (transfer.kind, transfer.start),
        (TrafficKind::Transfer { size_bytes: 10_000_000 }, StartCfg::Fixed(ms(5_000)))
    );
    // An application writing at a rate into a TCP socket.
    let cbr = t("kind = \"cbr\"\nrate = \"64kbps\"\npacket = \"200B\"\ntransport = { kind = \"tcp\", nodelay = true }");
    assert!(matches!(&cbr.transport, TransportCfg::Tcp(c) if c.nodelay));
    // UDP is the default, and may be given.
    let udp =
        t("kind = \"poisson\"\nrate = \"64kbps\"\npacket = \"200B\"\ntransport = { send_buffer = \"3p\" }");
    assert_eq!(udp.transport, TransportCfg::Udp { send_buffer: 3 });
    for lines in ["kind = \"bulk\"\ntransport = { kind = \"tcp\" }\non = { mean = \"1s\" }\noff = { mean = \"3s\" }", "kind = \"transfer\"\nsize = \"1.5MB\"\ntransport = { kind = \"tcp\", cc = \"vegas\" }\nstop = \"9s\""] {
        let s = from_toml_str(&traffic(lines)).unwrap();
        assert_eq!(from_value(&to_json(&s)).unwrap(), s, "{lines}");
    }
}

#[test]
fn analysis_interval() {
    let s = from_toml_str(&with("top", "[analysis]\ninterval = [\"2s\", \"8s\"]")).unwrap();
    assert_eq!(s.analysis.interval, Some((ms(2000), ms(8000))));
    assert_eq!(to_json(&s)["analysis"]["interval"], serde_json::json!(["2s", "8s"]));
    assert_eq!(from_value(&to_json(&s)).unwrap(), s);
    let s = from_toml_str(&with("top", "")).unwrap();
    assert!(to_json(&s)["analysis"].get("interval").is_none(), "the whole run: no key");
}

#[test]
fn tcp_transports_build() {
    let s = from_toml_str(&with("call", "transport = { kind = \"tcp\" }")).unwrap();
    let w = build(&s).unwrap();
    assert!(w.flows[0].sender.tcp().is_some());
    assert!(w.calls[0].framer.is_some(), "voice over a byte stream is framed");
    let s = from_toml_str(&traffic("kind = \"bulk\"\ntransport = { kind = \"tcp\" }")).unwrap();
    let w = build(&s).unwrap();
    assert!(w.flows.iter().any(|f| f.sender.tcp().is_some()));
}

#[test]
fn invalid_tcp_traffic_interval_name_path_and_allowed() {
    let c = |table: &str| with("call", &format!("transport = {{ kind = \"tcp\", {table} }}"));
    let p = "calls[0].transport";
    let at = |k: &str| format!("{p}.{k}");
    let cases: Vec<(String, String, &str)> = vec![
        (c("cc = \"bbr\""), at("cc"), "\"tahoe\", \"reno\", \"newreno\", \"sack\", \"vegas\", \"westwood\", \"westwood+\", \"real\", \"cubic\""),
        (c("cc = 3"), at("cc"), "one of \"tahoe\""),
        (c("recovery = \"vegas\""), at("recovery"), "\"tahoe\", \"reno\", \"newreno\", \"sack\""),
        (c("recovery = \"sack\", sack = false"), at("sack"), "recovery is \"sack\", which needs SACK blocks"),
        (c("cc = \"cubic\", sack = false"), at("sack"), "the default for cc = \"cubic\""),
        (c("sack = \"yes\""), at("sack"), "true or false"),
        (c("mss = \"0B\""), at("mss"), "between 1B and 65495B"),
        (c("mss = \"65496B\""), at("mss"), "between 1B and 65495B"),
        (c("mss = 1460"), at("mss"), "a size with a unit"),
        (c("initial_window = 0"), at("initial_window"), "between 1 and 1000, or one of \"rfc2581\""),
        (c("initial_window = 1001"), at("initial_window"), "between 1 and 1000"),
        (c("initial_window = 2.5"), at("initial_window"), "between 1 and 1000"),
        (c("initial_window = \"rfc9999\""), at("initial_window"), "\"rfc3390\", \"rfc6928\""),
        (c("initial_window = -1"), at("initial_window"), "between 1 and 1000"),
        (c("delack_timeout = \"0ms\""), at("delack_timeout"), "at most 500ms (RFC 5681 §4.2)"),
        (c("delack_timeout = \"501ms\""), at("delack_timeout"), "at most 500ms"),
        (c("initial_rto = \"0s\""), at("initial_rto"), "positive duration"),
        (c("max_rto = \"0s\""), at("max_rto"), "positive duration"),
        (c("min_rto = \"2s\", max_rto = \"1s\""), at("max_rto"), "at least min_rto (2s)"),
        (c("min_rto = \"90s\""), at("min_rto"), "at most max_rto (60s, the default)"),
        (c("min_rto = \"2s\""), at("min_rto"), "at most initial_rto (1s, the default)"),
        (c("min_rto = \"2s\", initial_rto = \"1.5s\""), at("initial_rto"), "at least min_rto (2s)"),
        (c("initial_rto = \"61s\""), at("initial_rto"), "at most max_rto (60s, the default)"),
        (c("max_rto = \"500ms\""), at("max_rto"), "at least min_rto (1s, the default)"),
        (c("granularity = \"-1ms\""), at("granularity"), "non-negative"),
        (c("rcv_window = \"1000B\""), at("rcv_window"), "a window below one segment"),
        (c("rcv_window = \"0B\""), at("rcv_window"), "a window in bytes (\"64KiB\", 1B–1073741824B) or in segments of mss bytes"),
        (c("rcv_window = \"0p\""), at("rcv_window"), "(\"20p\" = 20 × mss, as ns-2 states windows; 20 × (mss − 12B) with timestamps"),
        (c("mss = \"1460B\", rcv_window = \"1000000p\""), at("rcv_window"), "a window of at most 1073741824B (2^30, RFC 7323 §2.3); that many segments of mss = 1460B is 1460000000B"),
        (c("mss = \"9000B\", rcv_window = \"8KiB\""), at("rcv_window"), "at least one segment (mss = 9000B)"),
        // RFC 6691 §2: the timestamps option comes out of the mss.
        (c("mss = \"12B\", timestamps = true"), at("mss"), "an mss above 12B with timestamps = true"),
        (c("mss = \"9000B\", timestamps = true, rcv_window = \"8KiB\""), at("rcv_window"), "at least one segment (mss = 9000B less 12 B of timestamps = 8988B)"),
        (c("send_buffer = \"0p\""), at("send_buffer"), "application writes (\"5p\""),
        (c("send_buffer = \"0B\""), at("send_buffer"), "or bytes (\"64kB\""),
        (c("send_buffer = 5"), at("send_buffer"), "a send buffer in application writes"),
        (c("idle_restart = \"rfc2861\""), at("idle_restart"), "\"off\", \"rfc5681\", \"rfc7661\""),
        (c("framing = \"9B\""), at("framing"), "between 0B and 8B"),
        (c("framing = 2"), at("framing"), "a size with a unit"),
        (c("nodelay = 1"), at("nodelay"), "true or false"),
        (c("vegas = { alpha = 1 }"), at("vegas"), "no vegas table: it configures cc = \"vegas\", and cc is \"newreno\""),
        (c("cc = \"reno\", cubic = {}"), at("cubic"), "it configures cc = \"cubic\""),
        (c("cc = \"vegas\", westwood = { gain = 0.5 }"), at("westwood"), "cc = \"westwood\" or cc = \"westwood+\", and cc is \"vegas\""),
        (c("cc = \"westwood\", westwood = { tau = \"0s\" }"), at("westwood.tau"), "a positive duration"),
        (c("cc = \"cubic\", real = {}"), at("real"), "configures cc = \"real\""),
        (c("cc = \"vegas\", vegas = { alpha = 4 }"), at("vegas.alpha"), "at most beta (3, the default)"),
        (c("cc = \"vegas\", vegas = { alpha = 2, beta = 1 }"), at("vegas.beta"), "at least alpha (2)"),
        (c("cc = \"vegas\", vegas = { gamma = -1 }"), at("vegas.gamma"), ">= 0"),
        (c("cc = \"vegas\", vegas = { delta = 1 }"), at("vegas.delta"), "alpha, beta, gamma"),
        (c("cc = \"cubic\", cubic = { beta = 1 }"), at("cubic.beta"), "strictly between 0 and 1"),
        (c("cc = \"cubic\", cubic = { c = 0 }"), at("cubic.c"), "> 0"),
        (c("cc = \"cubic\", cubic = 3"), at("cubic"), "a cubic table"),
        (c("cc = \"westwood\", westwood = { gain = 1.0 }"), at("westwood.gain"), "strictly between 0 and 1"),
        (c("cc = \"real\", real = { wave = 0 }"), at("real.wave"), "between 1 and 1000"),
        (c("cc = \"real\", real = { congestion_threshold = 0 }"), at("real.congestion_threshold"), "strictly between"),
        (c("window = 3"), at("window"), "(for kind = \"tcp\")"),
        (c("rcv_windw = \"1MB\""), at("rcv_windw"), "did you mean \"rcv_window\""),
        (c("ack = \"40B\""), at("ack"), "cc, recovery, sack, mss"),
        // Traffic over TCP and the TCP kinds.
        (traffic("kind = \"bulk\""), "traffic[0].transport".into(), "a tcp, dccp or tfrc transport, e.g. { kind = \"tcp\" } (kind = \"bulk\" needs congestion control)"),
        (traffic("kind = \"transfer\"\nsize = \"1MB\"\ntransport = { kind = \"udp\" }"), "traffic[0].transport".into(), "kind = \"transfer\" is a TCP source"),
        (traffic("kind = \"transfer\"\ntransport = { kind = \"tcp\" }"), "traffic[0].size".into(), "a transfer size with a unit"),
        (traffic("kind = \"transfer\"\nsize = \"0B\"\ntransport = { kind = \"tcp\" }"), "traffic[0].size".into(), "between 1B and"),
        (traffic("kind = \"transfer\"\nsize = 1000\ntransport = { kind = \"tcp\" }"), "traffic[0].size".into(), "a size with a unit"),
        (traffic("kind = \"bulk\"\npacket = \"1000B\"\ntransport = { kind = \"tcp\" }"), "traffic[0].packet".into(), "(for kind = \"bulk\")"),
        (traffic("kind = \"bulk\"\nrate = \"1Mbps\"\ntransport = { kind = \"tcp\" }"), "traffic[0].rate".into(), "(for kind = \"bulk\")"),
        (traffic("kind = \"transfer\"\nsize = \"1MB\"\non = {}\ntransport = { kind = \"tcp\" }"), "traffic[0].on".into(), "(for kind = \"transfer\")"),
        (traffic("kind = \"bulk\"\non = { mean = \"1s\" }\ntransport = { kind = \"tcp\" }"), "traffic[0].off".into(), "both or neither"),
        (traffic("kind = \"bulk\"\noff = { mean = \"1s\" }\ntransport = { kind = \"tcp\" }"), "traffic[0].on".into(), "both or neither"),
        (traffic("kind = \"cbr\"\nrate = \"1Mbps\"\npacket = \"1kB\"\ntransport = { kind = \"echo\" }"), "traffic[0].transport.kind".into(), "\"udp\", \"tcp\", \"dccp\" or \"tfrc\""),
        (traffic("kind = \"cbr\"\nrate = \"1Mbps\"\npacket = \"1kB\"\ntransport = { kind = \"tcp\", mss = \"0B\" }"), "traffic[0].transport.mss".into(), "between 1B"),
        (traffic("kind = \"cbr\"\nrate = \"1Mbps\"\ntransport = { kind = \"tcp\" }"), "traffic[0].packet".into(), "a packet size such as"),
        (traffic("kind = \"ftp\""), "traffic[0].kind".into(), "\"bulk\", \"transfer\""),
        // [analysis] interval.
        (with("top", "[analysis]\ninterval = [\"8s\", \"2s\"]"), "analysis.interval[1]".into(), "an end after the start (8s)"),
        (with("top", "[analysis]\ninterval = [\"2s\", \"2s\"]"), "analysis.interval[1]".into(), "after the start"),
        (with("top", "[analysis]\ninterval = [\"2s\", \"11s\"]"), "analysis.interval[1]".into(), "at most the run's duration (10s)"),
        (with("top", "[analysis]\ninterval = \"2s\""), "analysis.interval".into(), "[start, end] of two durations"),
        (with("top", "[analysis]\ninterval = [\"2s\"]"), "analysis.interval".into(), "[start, end]"),
        (with("top", "[analysis]\ninterval = [\"2s\", \"3s\", \"4s\"]"), "analysis.interval".into(), "[start, end]"),
        (with("top", "[analysis]\ninterval = [\"2s\", 3]"), "analysis.interval[1]".into(), "a duration with a unit"),
    ];
    let cases: Vec<(String, &str, &str)> =
        cases.iter().map(|(s, p, f)| (s.clone(), p.as_str(), *f)).collect();
    check_all(&cases);
}

#[test]
fn tcp_keys_take_any_value_without_panicking() {
    let keys: Vec<&str> = OPTION_KEYS.iter().copied().chain(["vegas", "cubic", "westwood", "real"]).collect();
    const VALUES: &[&str] = &[
        "0",
        "1",
        "-1",
        "0.5",
        "1e308",
        "nan",
        "inf",
        "9223372036854775807",
        "\"0s\"",
        "\"5p\"",
        "\"0B\"",
        "\"65495B\"",
        "\"1TB\"",
        "\"x\"",
        "true",
        "[1]",
        "{}",
        "{ alpha = 5 }",
        "{ beta = 0.5, c = 1 }",
        "\"rfc3390\"",
        "\"cubic\"",
        "\"westwood+\"",
    ];
    let mut parsed = 0;
    for cc in ["newreno", "vegas", "cubic", "westwood", "real"] {
        for k in &keys {
            for v in VALUES {
                let cc = if *k == "cc" { String::new() } else { format!("cc = \"{cc}\", ") };
                let src = with("call", &format!("transport = {{ kind = \"tcp\", {cc}{k} = {v} }}"));
                match from_toml_str(&src) {
                    Ok(s) => {
                        parsed += 1;
                        assert_eq!(from_value(&to_json(&s)).as_ref(), Ok(&s), "{src}");
                    }
                    Err(e) => assert!(e.path.starts_with("calls[0].transport"), "{src}\n→ {e}"),
                }
            }
        }
    }
    assert!(parsed > 50, "{parsed}");
}
