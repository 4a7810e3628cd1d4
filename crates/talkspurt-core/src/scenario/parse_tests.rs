//! Tests of the scenario parser: valid files, defaults, round trips, and
//! the corpus of invalid scenarios with their exact key paths.
use super::*;
use crate::playout::{
    FixedDelay, FixedDepth, QuantileBuffer, RamjeeAsymmetric, RamjeeEwma, RamjeeMinDelay, RamjeeSpike,
};
use crate::scenario::model::*;
use crate::scenario::units;
use crate::time::SimDuration;
use crate::voice::codec;

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
    let ch = ChannelCfg { rate_bps, delay, queue: droptail(50), loss: LossCfg::None, jitter: JitterCfg::None, schedule: None };
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
            advantage: 0.0,
            start: StartCfg::Uniform { from: secs(1), to: secs(10) },
            stagger: secs(5),
            length: Some(secs(120)),
            label: Some("voice".into()),
        }],
        traffic: vec![
            TrafficCfg {
                active: vec![],
                random: false,
                idle_first: false,
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
            advantage: 0.0,
            start: StartCfg::Fixed(SimDuration::ZERO),
            stagger: SimDuration::ZERO,
            length: None,
            label: None,
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
        }
    );
    assert_eq!(
        l.reverse,
        ChannelCfg { rate_bps: 256_000, delay: ms(40), queue: droptail(20), loss: LossCfg::None, jitter: JitterCfg::None, schedule: None }
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

/// Xorshift64 for the round-trip property test (one fixed seed per case,
/// printed on failure: `Gen(seed).scenario(case)` reproduces it).
struct Gen(u64);

impl Gen {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
    fn coin(&mut self) -> bool {
        self.below(2) == 0
    }
    /// Uniform in [0, 1) with all 53 mantissa bits: up to 17 significant
    /// digits, the hard case for a text round trip.
    fn unit(&mut self) -> f64 {
        self.below(1 << 53) as f64 / (1u64 << 53) as f64
    }
    /// A positive finite number from about 1e-3 to 1e6.
    fn positive(&mut self) -> f64 {
        (1.0 - self.unit()) * 10f64.powi(self.below(10) as i32 - 3)
    }
    /// A duration of any magnitude from ns to 30 days, at least `min`.
    fn dur(&mut self, min: u64) -> SimDuration {
        let v = min + self.below(1000) * 10u64.pow(self.below(13) as u32);
        SimDuration(v.min(units::MAX_DURATION.0))
    }
    fn dist(&mut self, k: u64, shape: f64) -> DurationDist {
        let mean = self.dur(1);
        match k {
            0 => DurationDist::Constant { mean },
            1 => DurationDist::Exponential { mean },
            2 => DurationDist::Weibull { shape, mean },
            _ => DurationDist::Pareto { shape: shape + 1.0, mean },
        }
    }
    fn queue(&mut self) -> QueueCfg {
        use crate::scenario::queue::*;
        let limit = if self.coin() {
            QueueLimit::Packets(self.below(10_000_001) as u32)
        } else {
            QueueLimit::Bytes(self.below(10_000_000_001))
        };
        let series = self.coin();
        match self.below(5) {
            0 => QueueCfg::DropTail { limit, series },
            1 => {
                let min_th = self.coin().then(|| self.positive());
                QueueCfg::Red(RedCfg {
                    limit,
                    min_th,
                    max_th: min_th.map(|m| m + self.positive()),
                    max_p: 1.0 - self.unit(),
                    weight: self.coin().then(|| 0.5 - self.unit() / 4.0),
                    gentle: self.coin(),
                    wait: self.coin(),
                    mode: if self.coin() { RedMode::Bytes } else { RedMode::Packets },
                    mean_packet: 1 + self.below(65535) as u32,
                    ecn: self.coin(),
                    series,
                })
            }
            2 => QueueCfg::CoDel(CoDelCfg {
                limit,
                target: self.dur(1),
                interval: self.dur(1),
                mtu: 1 + self.below(65535) as u32,
                ecn: self.coin(),
                series,
            }),
            3 => QueueCfg::FqCoDel(FqCoDelCfg {
                limit,
                target: self.dur(1),
                interval: self.dur(1),
                quantum: 1 + self.below(65535) as u32,
                flows: 1 + self.below(65536) as u32,
                ecn: self.coin(),
                series,
            }),
            _ => QueueCfg::Pie(PieCfg {
                limit,
                target: self.dur(1),
                t_update: self.dur(1),
                alpha: self.positive(),
                beta: self.positive(),
                max_burst: self.dur(0),
                ecn: self.coin(),
                mark_ecnth: self.unit() * 0.999,
                series,
            }),
        }
    }

    fn channel(&mut self) -> ChannelCfg {
        ChannelCfg {
            rate_bps: 1 + self.below(units::MAX_RATE_BPS),
            delay: self.dur(0),
            queue: self.queue(),
            loss: if self.coin() {
                LossCfg::None
            } else {
                LossCfg::Bernoulli { p: self.below(1000) as f64 / 3000.0, at: LossAt::Wire }
            },
            jitter: JitterCfg::None,
            schedule: None,
        }
    }
    fn playout(&mut self, ptime: SimDuration) -> PlayoutCfg {
        let g = self;
        match g.below(PlayoutCfg::NAMES.len() as u64) {
            0 => PlayoutCfg::Fixed(FixedDelay { delay: g.dur(0).0 }),
            1 => PlayoutCfg::FixedDepth(FixedDepth {
                depth_packets: 1 + g.below(1_000_000) as u32,
                ptime: Some(if g.coin() { ptime.0 } else { g.dur(1).0 }),
            }),
            2 => PlayoutCfg::RamjeeEwma(RamjeeEwma {
                alpha: g.unit(),
                beta: g.positive(),
                initial_variation: Some(g.dur(0).0),
            }),
            3 => PlayoutCfg::RamjeeAsymmetric(RamjeeAsymmetric {
                alpha: g.unit(),
                alpha_increase: g.unit(),
                beta: g.positive(),
                initial_variation: Some(g.dur(0).0),
            }),
            4 => PlayoutCfg::RamjeeMinDelay(RamjeeMinDelay {
                alpha: g.unit(),
                beta: g.positive(),
                initial_variation: Some(g.dur(0).0),
            }),
            5 => PlayoutCfg::RamjeeSpike(RamjeeSpike {
                alpha: g.unit(),
                beta: g.positive(),
                spike_threshold: g.dur(1).0,
                spike_end: g.dur(1).0,
                initial_variation: Some(g.dur(0).0),
            }),
            _ => {
                let min_depth = g.dur(0).0;
                PlayoutCfg::Quantile(QuantileBuffer {
                    quantile: 1.0 - g.unit(),
                    window: 1 + g.below(1_000_000) as usize,
                    min_depth,
                    max_depth: (min_depth + g.dur(0).0).min(units::MAX_DURATION.0),
                    min_packets: g.below(1_000_001) as u32,
                    ptime: Some(if g.coin() { ptime.0 } else { g.dur(1).0 }),
                })
            }
        }
    }
    fn analysis(&mut self) -> AnalysisCfg {
        use crate::metrics::rtpi::MissingPredecessor::*;
        use crate::score::DelayModel;
        AnalysisCfg {
            rtpi_threshold: self.dur(1),
            rtpi_missing: [Timely, Delayed, PreviousArrival][self.below(3) as usize],
            window: 1 + self.below(1_000_000) as u32,
            bounds: self.coin(),
            jitter_threshold: self.dur(1),
            run_cap: 1 + self.below(100_000) as u32,
            interval: None,
            delay: [DelayModel::Playout, DelayModel::Avella][self.below(2) as usize],
        }
    }
    /// A valid TCP configuration, `recovery` and `sack` filled in as the
    /// parser does.
    /// A resolved DCCP or TFRC table whose options are consistent (a
    /// variant that applies, FR-MD with Faster Restart).
    fn rate(&mut self, dccp: bool) -> crate::scenario::tfrc::RateDoc {
        use crate::cc::tfrc::{FasterRestart, RtoRule, TfrcSpec, Variant};
        use crate::transport::tfrc::{RateConfig, Wire};
        let g = self;
        let mut c = if dccp { RateConfig::dccp(3 + g.below(2) as u8) } else { RateConfig::plain() };
        if !dccp && g.coin() {
            c.tfrc = c.tfrc.small_packets(1 + g.below(100) as u32);
        }
        let t = &mut c.tfrc;
        t.spec = TfrcSpec::ALL[g.below(2) as usize];
        t.faster_restart = FasterRestart::ALL[g.below(3) as usize];
        t.variant = match (t.small_packets, t.faster_restart, g.below(4)) {
            (true, _, 2) => Variant::N,
            (true, _, 3) => Variant::N100,
            (_, FasterRestart::Draft | FasterRestart::Emulated, 1) => Variant::FrMd,
            _ => Variant::Standard,
        };
        t.rto = RtoRule::ALL[g.below(3) as usize];
        t.granularity = g.dur(0);
        (t.dynamic_feedback, t.discounting, t.oscillation_reduction) = (g.coin(), g.coin(), g.coin());
        t.nominal_rtt = SimDuration(1 + g.below(1_000_000_000));
        t.t_mbi = SimDuration(1 + g.below(100_000_000_000));
        if t.small_packets {
            t.min_interval = g.dur(0);
        }
        c.send_buffer = 1 + g.below(1000) as u32;
        c.ecn = g.coin();
        c.packet = 1 + g.below(65_535) as u32;
        if dccp {
            (c.handshake, c.loss_intervals) = (g.coin(), g.coin());
        } else {
            c.wire = Wire::Plain { header: g.below(65_536) as u32, ack: 1 + g.below(65_535) as u32 };
        }
        crate::scenario::tfrc::RateDoc::from_config(&c)
    }

    fn ccid2(&mut self) -> crate::scenario::tfrc::RateDoc {
        let g = self;
        let c = crate::transport::ccid2::Ccid2Config {
            send_buffer: 1 + g.below(1000) as u32,
            handshake: g.coin(),
            packet: 1 + g.below(65_535) as u32,
            ack_ratio: 1 + g.below(1000) as u16,
            ack_delay: g.dur(0),
            ecn: g.coin(),
            ..Default::default()
        };
        crate::scenario::tfrc::RateDoc::from_ccid2(&c)
    }

    fn tcp(&mut self) -> TcpConfig {
        use crate::cc::{CcAlgorithm, Recovery};
        use crate::transport::tcp::{IdleRestart, InitialWindow, SendLimit};
        let g = self;
        let cc = CcAlgorithm::ALL[g.below(8) as usize];
        let mut t = TcpConfig { cc, ..TcpConfig::default() };
        t.recovery = Some(match g.below(5) {
            0 => Recovery::ALL[g.below(4) as usize],
            _ => cc.default_recovery(),
        });
        t.sack = Some(t.recovery == Some(Recovery::Sack) || g.coin());
        t.mss = 1 + g.below(65_495) as u32;
        t.initial_window = match g.below(4) {
            0 => InitialWindow::Segments(1 + g.below(1000) as u32),
            1 => InitialWindow::Rfc2581,
            2 => InitialWindow::Rfc3390,
            _ => InitialWindow::Rfc6928,
        };
        t.nodelay = g.coin();
        t.limited_transmit = g.coin();
        t.delayed_ack = g.coin();
        t.delack_timeout = SimDuration(1 + g.below(500_000_000));
        t.min_rto = g.dur(0);
        t.initial_rto = SimDuration(t.min_rto.0.max(1) + g.below(1_000_000_000)).min(units::MAX_DURATION);
        t.max_rto = SimDuration(t.initial_rto.0 + g.below(100_000_000_000)).min(units::MAX_DURATION);
        t.granularity = g.dur(0);
        t.rcv_window = t.mss as u64 + g.below(1 << 29);
        t.send_buffer = if g.coin() {
            SendLimit::Writes(1 + g.below(10_000_000) as u32)
        } else {
            SendLimit::Bytes(1 + g.below(10_000_000_000))
        };
        t.idle_restart = IdleRestart::ALL[g.below(3) as usize];
        (t.ecn, t.timestamps, t.handshake) = (g.coin(), g.coin(), g.coin());
        t.framing = g.below(9) as u32;
        match cc {
            CcAlgorithm::Vegas => {
                let alpha = 10.0 * g.unit();
                t.params.vegas = crate::cc::VegasParams { alpha, beta: alpha + g.unit(), gamma: g.unit() };
            }
            CcAlgorithm::Cubic => {
                t.params.cubic = crate::cc::CubicParams {
                    c: g.positive(),
                    beta: 1.0 - g.unit().max(1e-9),
                    fast_convergence: g.coin(),
                    tcp_friendliness: g.coin(),
                }
            }
            CcAlgorithm::Westwood => t.params.westwood.gain = 1.0 - g.unit().max(1e-9),
            CcAlgorithm::Real => {
                t.params.real = crate::cc::RealParams {
                    wave: 1 + g.below(1000) as u32,
                    congestion_threshold: 1.0 - g.unit().max(1e-9),
                    max_gap: g.dur(1),
                }
            }
            _ => {}
        }
        t
    }
    fn start(&mut self) -> StartCfg {
        if self.coin() {
            StartCfg::Fixed(self.dur(0))
        } else {
            let from = self.dur(0);
            StartCfg::Uniform { from, to: SimDuration(from.0 + 1 + self.below(1_000_000)) }
        }
    }
    fn scenario(&mut self, case: u32) -> Scenario {
        let g = self;
        let run = RunCfg {
            duration: g.dur(1),
            seed: g.below(u64::MAX),
            run_index: g.below(10),
            drain: g.dur(0),
            trace: g.coin(),
            series: g.coin(),
            name: g.coin().then(|| format!("run {case}")),
        };
        let forward = g.channel();
        let reverse = if g.coin() { forward.clone() } else { g.channel() };
        let cost = 1 + g.below(1_000_000) as u32;
        let links = vec![LinkCfg { a: "n0".into(), b: "n1".into(), forward, reverse, cost }];
        let codec = &codec::CODECS[g.below(codec::CODECS.len() as u64) as usize];
        let ptime = codec::default_ptime(codec);
        let speech = if g.below(4) == 0 {
            SpeechCfg::Continuous
        } else {
            let kt = g.below(4);
            let ks = if g.coin() { kt } else { g.below(4) };
            let shape = 0.1 + g.below(50) as f64 / 7.0;
            let talk = g.dist(kt, shape);
            let silence_shape = if g.coin() { shape } else { shape * 2.0 };
            let silence = g.dist(ks, silence_shape);
            SpeechCfg::OnOff { talk, silence }
        };
        let calls = vec![CallGroupCfg {
            bitrate: None,
            count: 1 + g.below(MAX_GROUP_COUNT) as u32,
            from: "n1".into(),
            to: "n0".into(),
            codec: codec.name.into(),
            ptime: Some(ptime),
            overhead_bytes: g.below(65_536) as u32,
            speech,
            vad: g.coin(),
            transport: match g.below(5) {
                0 => TransportCfg::Udp { send_buffer: 1 + g.below(1000) as u32 },
                1 => TransportCfg::Echo {
                    send_buffer: 1 + g.below(1000) as u32,
                    ack_bytes: 1 + g.below(65_535) as u32,
                },
                2 if g.coin() => TransportCfg::Dccp(g.ccid2()),
                2 => TransportCfg::Dccp(g.rate(true)),
                3 => TransportCfg::Tfrc(g.rate(false)),
                _ => TransportCfg::Tcp(g.tcp()),
            },
            playout: g.playout(ptime),
            rtcp: None,
            feedback: None,
            adapt: Default::default(),
            advantage: match g.below(3) {
                0 => g.below(41) as f64,
                _ => 40.0 * g.unit(),
            },
            start: g.start(),
            stagger: g.dur(0),
            length: g.coin().then(|| g.dur(1)),
            label: g.coin().then(|| "g".into()),
        }];
        let rate_bps = 1 + g.below(1_000_000_000);
        let packet = if g.coin() {
            SizeDist::Fixed { bytes: 1 + g.below(65_535) as u32 }
        } else {
            SizeDist::Exponential { mean_bytes: 1.0 + g.below(1_000_000) as f64 / 17.0 }
        };
        let kind = match g.below(5) {
            0 => TrafficKind::Cbr { rate_bps, packet },
            1 => TrafficKind::Poisson { rate_bps, packet },
            2 => {
                let (ko, kf) = (g.below(4), g.below(4));
                TrafficKind::OnOff { rate_bps, packet, on: g.dist(ko, 0.7), off: g.dist(kf, 2.5) }
            }
            3 => TrafficKind::Bulk {
                on_off: g.coin().then(|| {
                    let (ko, kf) = (g.below(4), g.below(4));
                    (g.dist(ko, 0.7), g.dist(kf, 2.5))
                }),
            },
            _ => TrafficKind::Transfer { size_bytes: 1 + g.below(1_000_000_000_000) },
        };
        let tcp_only = matches!(kind, TrafficKind::Bulk { .. } | TrafficKind::Transfer { .. });
        let traffic = vec![TrafficCfg {
            active: vec![],
            random: false,
            idle_first: false,
            count: 1 + g.below(100) as u32,
            from: "n0".into(),
            to: "n1".into(),
            kind,
            transport: if tcp_only || g.coin() {
                TransportCfg::Tcp(g.tcp())
            } else {
                TransportCfg::Udp { send_buffer: 1 + g.below(1000) as u32 }
            },
            start: StartCfg::Uniform { from: SimDuration::ZERO, to: secs(1) },
            stagger: g.dur(0),
            stop: g.coin().then(|| g.dur(1)),
            label: None,
        }];
        // Every source must start before it stops (validate.rs rejects a
        // silently empty group): pull starts and staggers into range.
        let mut calls = calls;
        let mut traffic = traffic;
        for c in &mut calls {
            fit(&mut c.start, &mut c.stagger, c.count, run.duration);
        }
        for t in &mut traffic {
            let stop = t.stop.map_or(run.duration, |s| s.min(run.duration));
            fit(&mut t.start, &mut t.stagger, t.count, stop);
        }
        let mut analysis = g.analysis();
        if g.coin() && run.duration.0 > 1 {
            let end = 1 + g.below(run.duration.0);
            analysis.interval = Some((SimDuration(g.below(end)), SimDuration(end)));
        }
        Scenario { run, links, calls, traffic, analysis }
    }
}

fn fit(start: &mut StartCfg, stagger: &mut SimDuration, count: u32, stop: SimDuration) {
    let latest = match *start {
        StartCfg::Fixed(at) => at.0,
        StartCfg::Uniform { to, .. } => to.0 - 1,
    };
    if latest >= stop.0 {
        *start = StartCfg::Fixed(SimDuration::ZERO);
    }
    let first = match *start {
        StartCfg::Fixed(at) => at.0,
        StartCfg::Uniform { to, .. } => to.0 - 1,
    };
    if count > 1 {
        stagger.0 = stagger.0.min((stop.0 - 1 - first) / (count as u64 - 1));
    }
}

/// Random well-formed models: `from_value(&to_json(s)) == s`, also through
/// JSON text (the manifest), which checks that floats print and parse exactly.
#[test]
fn to_json_round_trips_random_models() {
    for case in 0..1000 {
        let seed = 0x9E37_79B9_7F4A_7C15 ^ (case as u64 + 1).wrapping_mul(0xD1B5_4A32_D192_ED03);
        let s = Gen(seed).scenario(case);
        let j = to_json(&s);
        assert_eq!(from_value(&j).as_ref(), Ok(&s), "case {case}, seed {seed:#x}: {j:#}");
        let text = j.to_string();
        assert_eq!(from_json_str(&text).as_ref(), Ok(&s), "case {case}, seed {seed:#x}: {text}");
    }
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
        "links[0].queue.limit: got \"50\"; expected a queue limit in packets or bytes, e.g. \"50p\" or \"64000B\""
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
