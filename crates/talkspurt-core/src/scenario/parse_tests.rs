//! Tests of the scenario parser: valid files, defaults, round trips, and
//! the corpus of invalid scenarios with their exact key paths.
use super::*;
use crate::playout::FixedDelay;
use crate::scenario::model::*;
use crate::time::SimDuration;

pub(super) fn ms(n: u64) -> SimDuration {
    SimDuration::from_millis(n)
}
fn secs(n: u64) -> SimDuration {
    SimDuration::from_secs(n)
}

const FULL: &str = r#"
[run]
duration = "300s"
seed = 7
run_index = 3
drain = "5s"
trace = false
series = true
name = "dumbbell"

[[links]]
between = ["a", "r1"]
rate = "100Mbps"
delay = "1ms"

[[links]]
between = ["r1", "r2"]
rate = "300kbps"
delay = "30ms"
queue = { kind = "droptail", limit = "50p" }
loss = { kind = "bernoulli", p = 0.001 }
cost = 2
reverse = { rate = "64kb/s", queue = { limit = "64kB" }, loss = { kind = "none" } }

[[links]]
between = ["r2", "b"]
rate = "1Gbps"

[[calls]]
count = 4
from = "a"
to = "b"
codec = "G.729"
ptime = "40ms"
overhead = "12B"
speech = { model = "pareto", talk = "1.2s", silence = "1.8s", shape = 1.8, silence_shape = 1.3 }
vad = false
transport = { kind = "echo", send_buffer = "10p", ack = "60B" }
playout = { kind = "fixed", delay = "100ms" }
start = { kind = "uniform", from = "1s", to = "10s" }
stagger = "5s"
length = "2min"
label = "voice"
media_start = "call"

[[traffic]]
count = 2
from = "b"
to = "a"
kind = "onoff"
rate = "128kbps"
packet = "1kB"
on = { dist = "pareto", mean = "2s", shape = 1.4 }
off = { dist = "constant", mean = "3s" }
start = "1.5s"
stagger = "250ms"
stop = "200s"
label = "cross"

[[traffic]]
from = "r1"
to = "b"
kind = "poisson"
rate = "1.5Mbps"
packet = { kind = "exponential", mean = "500B" }
"#;

fn droptail(p: u32) -> QueueCfg {
    QueueCfg::DropTail { limit: QueueLimit::Packets(p), series: false }
}

fn sym(a: &str, b: &str, rate_bps: u64, delay: SimDuration) -> LinkCfg {
    let ch = ChannelCfg { rate_bps, delay, queue: droptail(50), loss: LossCfg::None, jitter: JitterCfg::None, schedule: None, background: BackgroundCfg::None };
    LinkCfg { a: a.into(), b: b.into(), forward: ch.clone(), reverse: ch, cost: 1 }
}

fn full_expected() -> Scenario {
    let bottleneck = ChannelCfg {
        rate_bps: 300_000,
        delay: ms(30),
        queue: droptail(50),
        loss: LossCfg::Bernoulli { p: 0.001, at: LossAt::Wire },
        jitter: JitterCfg::None,
        schedule: None,
        background: BackgroundCfg::None,
    };
    Scenario {
        run: RunCfg {
            duration: secs(300),
            seed: 7,
            run_index: 3,
            drain: secs(5),
            trace: false,
            series: true,
            name: Some("dumbbell".into()),
        },
        links: vec![
            sym("a", "r1", 100_000_000, ms(1)),
            LinkCfg {
                a: "r1".into(),
                b: "r2".into(),
                forward: bottleneck.clone(),
                reverse: ChannelCfg {
                    rate_bps: 64_000,
                    queue: QueueCfg::DropTail { limit: QueueLimit::Bytes(64_000), series: false },
                    loss: LossCfg::None,
                    ..bottleneck
                },
                cost: 2,
            },
            sym("r2", "b", 1_000_000_000, SimDuration::ZERO),
        ],
        calls: vec![CallGroupCfg {
            bitrate: None,
            count: 4,
            from: "a".into(),
            to: "b".into(),
            spread: false,
            codec: "G.729".into(),
            ptime: Some(ms(40)),
            overhead_bytes: 12,
            speech: SpeechCfg::OnOff {
                talk: DurationDist::Pareto { shape: 1.8, mean: ms(1200) },
                silence: DurationDist::Pareto { shape: 1.3, mean: ms(1800) },
            },
            vad: false,
            transport: TransportCfg::Echo { send_buffer: 10, ack_bytes: 60 },
            playout: PlayoutCfg::Fixed(FixedDelay { delay: ms(100).as_nanos() }),
            rtcp: None,
            feedback: None,
            adapt: Default::default(),
            trunk: None,
            advantage: 0.0,
            start: StartCfg::Uniform { from: secs(1), to: secs(10) },
            stagger: secs(5),
            length: Some(secs(120)),
            label: Some("voice".into()),
            media_start: MediaStart::Call,
        }],
        traffic: vec![
            TrafficCfg {
                active: vec![],
                random: false,
                idle_first: false,
                spread: false,
                count: 2,
                from: "b".into(),
                to: "a".into(),
                kind: TrafficKind::OnOff {
                    rate_bps: 128_000,
                    packet: SizeDist::Fixed { bytes: 1000 },
                    on: DurationDist::Pareto { shape: 1.4, mean: secs(2) },
                    off: DurationDist::Constant { mean: secs(3) },
                },
                transport: TransportCfg::Udp { send_buffer: 5 },
                start: StartCfg::Fixed(ms(1500)),
                stagger: ms(250),
                stop: Some(secs(200)),
                label: Some("cross".into()),
            },
            TrafficCfg {
                active: vec![],
                random: false,
                idle_first: false,
                spread: false,
                count: 1,
                from: "r1".into(),
                to: "b".into(),
                kind: TrafficKind::Poisson {
                    rate_bps: 1_500_000,
                    packet: SizeDist::Exponential { mean_bytes: 500.0 },
                },
                transport: TransportCfg::Udp { send_buffer: 5 },
                start: StartCfg::Fixed(SimDuration::ZERO),
                stagger: SimDuration::ZERO,
                stop: None,
                label: None,
            },
        ],
        analysis: AnalysisCfg::default(),
    }
}

#[test]
fn full_scenario_parses_to_the_expected_model() {
    assert_eq!(from_toml_str(FULL).unwrap(), full_expected());
}

const MINIMAL: &str = r#"
[run]
duration = "60s"

[[links]]
between = ["a", "b"]
rate = "1Mbps"

[[calls]]
from = "a"
to = "b"
codec = "G.711"
"#;

#[test]
fn defaults_are_the_documented_ones() {
    let s = from_toml_str(MINIMAL).unwrap();
    assert_eq!(
        s.run,
        RunCfg {
            duration: secs(60),
            seed: 1,
            run_index: 0,
            drain: secs(10),
            trace: true,
            series: false,
            name: None
        }
    );
    assert_eq!(s.links, vec![sym("a", "b", 1_000_000, SimDuration::ZERO)]);
    assert_eq!(
        s.calls,
        vec![CallGroupCfg {
            bitrate: None,
            count: 1,
            from: "a".into(),
            to: "b".into(),
            spread: false,
            codec: "G.711".into(),
            ptime: Some(ms(20)),
            overhead_bytes: 40,
            speech: SpeechCfg::OnOff {
                talk: DurationDist::Exponential { mean: secs(1) },
                silence: DurationDist::Exponential { mean: ms(1500) },
            },
            vad: true,
            transport: TransportCfg::Udp { send_buffer: 5 },
            playout: PlayoutCfg::Fixed(FixedDelay { delay: ms(150).as_nanos() }),
            rtcp: None,
            feedback: None,
            adapt: Default::default(),
            trunk: None,
            advantage: 0.0,
            start: StartCfg::Fixed(SimDuration::ZERO),
            stagger: SimDuration::ZERO,
            length: None,
            label: None,
            media_start: MediaStart::Connection,
        }]
    );
    assert!(s.traffic.is_empty());

    // Codec-dependent ptime, per-model defaults, traffic on/off defaults.
    let s = from_toml_str(&MINIMAL.replace(
        "\"G.711\"",
        "\"G.723.1-6.3\"\nspeech = { model = \"weibull\" }\ntransport = { kind = \"echo\" }",
    ))
    .unwrap();
    assert_eq!(s.calls[0].ptime, Some(ms(30)));
    assert_eq!(
        s.calls[0].speech,
        SpeechCfg::OnOff {
            talk: DurationDist::Weibull { shape: 1.0, mean: secs(1) },
            silence: DurationDist::Weibull { shape: 1.0, mean: ms(1500) },
        }
    );
    assert_eq!(s.calls[0].transport, TransportCfg::Echo { send_buffer: 5, ack_bytes: 40 });
    let t = from_toml_str(&format!(
        "{}\n[[traffic]]\nfrom = \"b\"\nto = \"a\"\nkind = \"onoff\"\nrate = \"128kbps\"\npacket = \"1000B\"\noff = {{ dist = \"pareto\" }}\n",
        MINIMAL
    ))
    .unwrap();
    assert_eq!(
        t.traffic[0].kind,
        TrafficKind::OnOff {
            rate_bps: 128_000,
            packet: SizeDist::Fixed { bytes: 1000 },
            on: DurationDist::Exponential { mean: secs(2) },
            off: DurationDist::Pareto { shape: 1.5, mean: secs(2) },
        }
    );
}

#[test]
fn per_direction_overrides() {
    let s = from_toml_str(
        r#"
[run]
duration = "10s"
[[links]]
between = ["ap", "host"]
delay = "5ms"
queue = { limit = "20p" }
forward = { rate = "2Mbps", loss = { kind = "bernoulli", p = 0.05 } }
reverse = { rate = "256kbps", delay = "40ms" }
[[traffic]]
from = "ap"
to = "host"
kind = "cbr"
rate = "1Mbps"
packet = "1500B"
"#,
    )
    .unwrap();
    let l = &s.links[0];
    assert_eq!(
        l.forward,
        ChannelCfg {
            rate_bps: 2_000_000,
            delay: ms(5),
            queue: droptail(20),
            loss: LossCfg::Bernoulli { p: 0.05, at: LossAt::Wire },
            jitter: JitterCfg::None,
            schedule: None,
            background: BackgroundCfg::None,
        }
    );
    assert_eq!(
        l.reverse,
        ChannelCfg { rate_bps: 256_000, delay: ms(40), queue: droptail(20), loss: LossCfg::None, jitter: JitterCfg::None, schedule: None, background: BackgroundCfg::None }
    );
}

#[test]
fn json_input_and_null_as_absent() {
    let v = serde_json::json!({
        "run": { "duration": "60s", "name": null },
        "links": [{ "between": ["a", "b"], "rate": "1Mbps" }],
        "calls": [{ "from": "a", "to": "b", "codec": "G.711", "label": null }],
    });
    assert_eq!(from_json_str(&v.to_string()).unwrap(), from_toml_str(MINIMAL).unwrap());
}

#[test]
fn to_json_round_trips() {
    for src in [FULL, MINIMAL] {
        let s = from_toml_str(src).unwrap();
        let j = to_json(&s);
        assert_eq!(from_value(&j).unwrap(), s, "{j:#}");
        // And through JSON text, as the manifest stores it.
        assert_eq!(from_json_str(&j.to_string()).unwrap(), s);
    }
    let j = to_json(&from_toml_str(FULL).unwrap());
    assert_eq!(j["links"][0]["rate"], "100Mbps");
    assert_eq!(j["links"][1]["reverse"]["queue"]["limit"], "64000B");
    assert_eq!(j["calls"][0]["length"], "120s");
    assert_eq!(j["calls"][0]["speech"]["talk_shape"], 1.8);
}

// ---------------------------------------------------------------------------
// Invalid scenarios: exact path, fragment of the allowed text.

const RUN: &str = "[run]\nduration = \"10s\"\n";
const LINK: &str = "[[links]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\n";
const CALL: &str = "[[calls]]\nfrom = \"a\"\nto = \"b\"\ncodec = \"G.711\"\n";
const TRAFFIC: &str =
    "[[traffic]]\nfrom = \"a\"\nto = \"b\"\nkind = \"cbr\"\nrate = \"1Mbps\"\npacket = \"1000B\"\n";

/// A scenario from RUN, LINK, CALL with `extra` lines appended to the
/// section named by `at` ("run", "link", "call", "traffic" or "top").
pub(super) fn with(at: &str, extra: &str) -> String {
    match at {
        "run" => format!("{RUN}{extra}\n{LINK}{CALL}"),
        "link" => format!("{RUN}{LINK}{extra}\n{CALL}"),
        "call" => format!("{RUN}{LINK}{CALL}{extra}\n"),
        "traffic" => format!("{RUN}{LINK}{TRAFFIC}{extra}\n"),
        _ => format!("{extra}\n{RUN}{LINK}{CALL}"),
    }
}

pub(super) fn check(src: &str, path: &str, fragment: &str) -> Result<(), String> {
    let e = match from_toml_str(src) {
        Ok(s) => return Err(format!("accepted, expected error at {path}:\n{src}\n→ {s:?}")),
        Err(e) => e,
    };
    if e.path != path {
        return Err(format!("path {:?}, expected {path:?}:\n{src}\n→ {e}", e.path));
    }
    if !e.allowed.contains(fragment) {
        return Err(format!("allowed lacks {fragment:?}:\n{src}\n→ {e}"));
    }
    Ok(())
}

#[test]
fn invalid_scenarios_name_path_and_allowed() {
    let cases: &[(String, &str, &str)] = &[
        // Negative, zero, missing and mis-united rates.
        (LINK.replace("1Mbps", "-1Mbps"), "links[0].rate", "positive"),
        (LINK.replace("1Mbps", "0bps"), "links[0].rate", "above 0"),
        (LINK.replace("1Mbps", "2Tbps"), "links[0].rate", "kbps"),
        (LINK.replace("1Mbps", "1001Gbps"), "links[0].rate", "at most 1 Tb/s"),
        (LINK.replace("\"1Mbps\"", "1000000"), "links[0].rate", "e.g. \"64kbps\""),
        (LINK.replace("rate = \"1Mbps\"", ""), "links[0].rate", "at the link level"),
        (
            LINK.replace("rate = \"1Mbps\"", "forward = { rate = \"1Mbps\" }"),
            "links[0].reverse.rate",
            "in both forward and reverse",
        ),
        // Codec and ptime.
        (with("call", "").replace("G.711", "G.712"), "calls[0].codec", "G.711, G.711-noPLC, G.729"),
        (with("call", "").replace("G.711", "g.729"), "calls[0].codec", "did you mean \"G.729\""),
        (with("call", "ptime = \"25ms\""), "calls[0].ptime", "multiple of the G.711 frame"),
        (with("call", "ptime = \"0ms\""), "calls[0].ptime", "between 10 ms and 1 s"),
        (with("call", "ptime = 20"), "calls[0].ptime", "a duration with a unit, e.g. \"20ms\""),
        (
            with("call", "codec2 = 1").replace("codec = \"G.711\"\n", ""),
            "calls[0].codec2",
            "did you mean \"codec\"",
        ),
        // Missing required keys.
        (format!("[run]\nseed = 1\n{LINK}{CALL}"), "run.duration", "positive duration"),
        (format!("\n{LINK}{CALL}"), "run", "[run] table"),
        (with("call", "").replace("codec = \"G.711\"\n", ""), "calls[0].codec", "one of the codecs"),
        (LINK.replace("between = [\"a\", \"b\"]", ""), "links[0].between", "two distinct node names"),
        (format!("{RUN}{CALL}"), "links", "at least one"),
        (format!("{RUN}{LINK}"), "calls", "at least one [[calls]] or [[traffic]]"),
        (TRAFFIC.replace("rate = \"1Mbps\"\n", ""), "traffic[0].rate", "a rate with a unit"),
        (TRAFFIC.replace("packet = \"1000B\"\n", ""), "traffic[0].packet", "\"1000B\""),
        (TRAFFIC.replace("kind = \"cbr\"\n", ""), "traffic[0].kind", "\"cbr\", \"poisson\", \"onoff\""),
        // Unknown keys at several depths.
        (with("top", "[runn]\nduration = \"1s\""), "runn", "run, links, calls, traffic"),
        (with("run", "durration = \"5s\""), "run.durration", "did you mean \"duration\""),
        (with("link", "bandwidth = \"1Mbps\""), "links[0].bandwidth", "between, cost, forward"),
        (
            with("link", "forward = { rate = \"1Mbps\", cost = 2 }"),
            "links[0].forward.cost",
            "rate, delay, queue, loss",
        ),
        (
            with("link", "queue = { kind = \"droptail\", size = \"5p\" }"),
            "links[0].queue.size",
            "kind, limit",
        ),
        (
            with("link", "reverse = { queue = { limt = \"5p\" } }"),
            "links[0].reverse.queue.limt",
            "did you mean \"limit\"",
        ),
        (
            with("call", "transport = { kind = \"udp\", ack = \"40B\" }"),
            "calls[0].transport.ack",
            "(for kind = \"udp\")",
        ),
        (
            with("call", "speech = { model = \"continuous\", talk = \"1s\" }"),
            "calls[0].speech.talk",
            "for model = \"continuous\"",
        ),
        (
            with("call", "speech = { model = \"exponential\", shape = 2.0 }"),
            "calls[0].speech.shape",
            "model, talk, silence",
        ),
        (with("traffic", "on = { mean = \"1s\" }"), "traffic[0].on", "for kind = \"cbr\""),
        (
            with("traffic", "").replace("kind = \"cbr\"", "kind = \"onoff\"")
                + "on = { dist = \"exponential\", shape = 2 }\n",
            "traffic[0].on.shape",
            "dist, mean (for dist = \"exponential\")",
        ),
        // Wrong and missing units, inexact values.
        (with("link", "delay = \"30 sec\""), "links[0].delay", "units: ns, us, ms, s, min"),
        (with("link", "delay = \"0.1ns\""), "links[0].delay", "whole number of nanoseconds"),
        (with("link", "queue = { limit = \"50\" }"), "links[0].queue.limit", "\"50p\" or \"64000B\""),
        (with("link", "queue = { limit = 50 }"), "links[0].queue.limit", "\"50p\""),
        (with("call", "transport = { send_buffer = 5 }"), "calls[0].transport.send_buffer", "\"5p\""),
        (with("call", "transport = { send_buffer = \"5B\" }"), "calls[0].transport.send_buffer", "unit p"),
        (with("call", "overhead = \"40b\""), "calls[0].overhead", "units: B, kB, KiB"),
        (TRAFFIC.replace("1000B", "1000"), "traffic[0].packet", "e.g. \"1500B\""),
        // Zero-length run, zero and absurd sizes.
        (format!("[run]\nduration = \"0s\"\n{LINK}{CALL}"), "run.duration", "positive duration"),
        (format!("[run]\nduration = \"31d\"\n{LINK}{CALL}"), "run.duration", "with a unit"),
        (format!("[run]\nduration = \"43201min\"\n{LINK}{CALL}"), "run.duration", "at most 30 days"),
        (TRAFFIC.replace("1000B", "70000B"), "traffic[0].packet", "between 1B and 65535B"),
        (TRAFFIC.replace("1000B", "0B"), "traffic[0].packet", "between 1B and 65535B"),
        (with("call", "count = 100001"), "calls[0].count", "between 1 and 100000"),
        (with("call", "count = 0"), "calls[0].count", "between 1 and 100000"),
        (with("link", "queue = { limit = \"20000000p\" }"), "links[0].queue.limit", "at most 10000000p"),
        (
            with("call", "transport = { send_buffer = \"0p\" }"),
            "calls[0].transport.send_buffer",
            "between 1p",
        ),
        (
            with("call", "speech = { model = \"exponential\", talk = \"0s\" }"),
            "calls[0].speech.talk",
            "positive duration",
        ),
        (with("call", "length = \"0s\""), "calls[0].length", "positive duration"),
        // Wrong types.
        (with("call", "count = 2.5"), "calls[0].count", "an integer"),
        (with("call", "count = \"2\""), "calls[0].count", "an integer"),
        (with("run", "seed = -1"), "run.seed", "non-negative integer"),
        (with("run", "trace = \"yes\""), "run.trace", "true or false"),
        (with("link", "loss = \"1%\""), "links[0].loss", "{ kind = \"bernoulli\", p = 0.01 }"),
        (with("link", "loss = { kind = \"bernoulli\" }"), "links[0].loss.p", "0 <= p < 1"),
        (with("link", "loss = { kind = \"bernoulli\", p = 1.0 }"), "links[0].loss.p", "0 <= p < 1"),
        (with("link", "loss = { kind = \"bernoulli\", p = -0.1 }"), "links[0].loss.p", "0 <= p < 1"),
        (with("link", "loss = { kind = \"bernoulli\", p = nan }"), "links[0].loss.p", "a finite number"),
        // Optional keys too: nan must not read as "not given".
        (with("call", "speech = { model = \"pareto\", shape = inf }"), "calls[0].speech.shape", "finite"),
        (format!("[run]\nduration = 1979-05-27\n{LINK}{CALL}"), "run.duration", "a duration with a unit"),
        (with("link", "loss = { kind = \"gilbert\" }"), "links[0].loss.kind", "\"none\", \"bernoulli\""),
        (with("link", "loss = { p = 0.1 }"), "links[0].loss.kind", "\"none\", \"bernoulli\""),
        (
            with("call", "transport = { kind = \"sctp\" }"),
            "calls[0].transport.kind",
            "\"udp\", \"echo\", \"tcp\", \"dccp\", \"tfrc\"",
        ),
        (with("call", "speech = { model = \"pareto\", shape = 0.9 }"), "calls[0].speech.shape", "shape > 1"),
        (
            with("call", "speech = { model = \"weibull\", talk_shape = 0 }"),
            "calls[0].speech.talk_shape",
            "shape > 0",
        ),
        (with("call", "speech = \"continuous\""), "calls[0].speech", "model = \"exponential\""),
        (with("call", "start = 5"), "calls[0].start", "\"0s\", or { kind = \"uniform\""),
        (
            with("call", "start = { kind = \"uniform\", from = \"5s\", to = \"5s\" }"),
            "calls[0].start.to",
            "after from (5s)",
        ),
        (format!("links = 3\n{RUN}{CALL}"), "links", "array of [[links]]"),
        (
            format!("{RUN}[links]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\n{CALL}"),
            "links",
            "array of [[links]]",
        ),
        (LINK.replace("[\"a\", \"b\"]", "[\"a\", \"b\", \"c\"]"), "links[0].between", "two distinct"),
        (LINK.replace("[\"a\", \"b\"]", "[\"a\", 2]"), "links[0].between[1]", "node name"),
        (with("call", "label = 3"), "calls[0].label", "non-empty string"),
        (with("link", "cost = 0"), "links[0].cost", "between 1 and 1000000"),
        // Unknown node, duplicate link, from == to, self-link.
        (
            with("call", "").replace("to = \"b\"", "to = \"c\""),
            "calls[0].to",
            "a node named in [[links]]: a, b",
        ),
        (
            TRAFFIC.replace("from = \"a\"", "from = \"x\""),
            "traffic[0].from",
            "a node named in [[links]]: a, b",
        ),
        (
            format!("{RUN}{LINK}{}{CALL}", LINK.replace("[\"a\", \"b\"]", "[\"b\", \"a\"]")),
            "links[1].between",
            "not already joined by links[0]",
        ),
        (
            with("call", "").replace("to = \"b\"", "to = \"a\""),
            "calls[0].to",
            "a node other than from (\"a\")",
        ),
        (LINK.replace("[\"a\", \"b\"]", "[\"a\", \"a\"]"), "links[0].between[1]", "two distinct nodes"),
        (
            with("traffic", "stop = \"1s\"").replace("kind = \"cbr\"", "kind = \"cbr\"\nstart = \"2s\""),
            "traffic[0].stop",
            "after start (2s)",
        ),
        // Syntax errors.
        (format!("{RUN}rate = 300kbps\n"), "", "valid TOML"),
    ];
    check_all(cases);
}

/// Runs `check` on every case and reports all failures at once.
pub(super) fn check_all(cases: &[(String, &str, &str)]) {
    let mut failures = Vec::new();
    for (src, path, fragment) in cases {
        // Cases written as a lone section get the rest of a valid scenario.
        let src = if src.starts_with("[[links]]") {
            format!("{RUN}{src}{CALL}")
        } else if src.starts_with("[[traffic]]") {
            format!("{RUN}{LINK}{src}")
        } else {
            src.clone()
        };
        if let Err(msg) = check(&src, path, fragment) {
            failures.push(msg);
        }
    }
    assert!(failures.is_empty(), "{} failing cases:\n\n{}", failures.len(), failures.join("\n\n"));
}

#[test]
fn error_display_and_syntax_errors() {
    let e = from_toml_str(&with("link", "queue = { limit = \"50\" }")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "links[0].queue.limit: got \"50\"; expected a queue limit in packets or bytes, e.g. \"50p\" or \"64000B\" (units: p, B, kB, KiB, MB, MiB)"
    );
    let e = from_toml_str("[run]\nduration = \"1s\"\nrate = 300kbps\n").unwrap_err();
    assert_eq!(e.path, "");
    assert!(e.value.contains("line 3, column 11 (`rate = 300kbps`)"), "{e}");
    assert!(e.to_string().starts_with("(scenario): got invalid TOML at line 3"), "{e}");
    let e = from_json_str("{\"run\": ").unwrap_err();
    assert!(e.value.starts_with("invalid JSON"), "{e}");
    let e = from_json_str("[1]").unwrap_err();
    assert_eq!(e.path, "");
    let e = from_toml_str(&with("run", "durration = \"5s\"")).unwrap_err();
    assert_eq!(e.value, "unknown key with value \"5s\"");
}
