//! The round-trip property test of the scenario model: random well-formed
//! models (every key, every variant) through `to_json` and back.
use super::*;
use crate::playout::{
    FixedDelay, FixedDepth, QuantileBuffer, RamjeeAsymmetric, RamjeeEwma, RamjeeMinDelay, RamjeeSpike,
};
use crate::scenario::model::*;
use crate::scenario::units;
use crate::time::SimDuration;
use crate::voice::codec;

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
            background: BackgroundCfg::None,
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
            rtpi_silence: [crate::metrics::RtpiSilence::Count, crate::metrics::RtpiSilence::Exclude][self.below(2) as usize],
            window: 1 + self.below(1_000_000) as u32,
            bounds: self.coin(),
            jitter_threshold: self.dur(1),
            run_cap: 1 + self.below(100_000) as u32,
            interval: None,
            delay: [DelayModel::Playout, DelayModel::Avella][self.below(2) as usize],
            scoring: [crate::score::Scoring::Exact, crate::score::Scoring::Streaming][self.below(2) as usize],
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
        t.rto = RtoRule::ALL[g.below(RtoRule::ALL.len() as u64) as usize];
        t.granularity = g.dur(0);
        (t.dynamic_feedback, t.discounting, t.oscillation_reduction) = (g.coin(), g.coin(), g.coin());
        if t.spec == TfrcSpec::Rfc3448 {
            t.erratum_1458 = g.coin();
        }
        t.nominal_rtt = SimDuration(1 + g.below(1_000_000_000));
        t.t_mbi = SimDuration(1 + g.below(100_000_000_000));
        if t.small_packets {
            t.min_interval = g.dur(0);
            t.short_intervals = g.coin();
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
        // RFC 6691 §2: the timestamps option comes out of the mss, which
        // must leave data (validate/transport.rs).
        t.mss = t.mss.max(t.data_segment_options() + 1);
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
            CcAlgorithm::Westwood | CcAlgorithm::WestwoodPlus => {
                t.params.westwood.gain = 1.0 - g.unit().max(1e-9);
                t.params.westwood.tau = g.dur(1);
            }
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
            spread: false,
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
                // A call's TFRC table has no `packet` (validate/call.rs).
                2 => TransportCfg::Dccp(crate::scenario::tfrc::RateDoc { packet: None, ..g.rate(true) }),
                3 => TransportCfg::Tfrc(crate::scenario::tfrc::RateDoc { packet: None, ..g.rate(false) }),
                _ => TransportCfg::Tcp(g.tcp()),
            },
            playout: g.playout(ptime),
            rtcp: None,
            feedback: None,
            adapt: Default::default(),
            trunk: None,
            advantage: match g.below(3) {
                0 => g.below(41) as f64,
                _ => 40.0 * g.unit(),
            },
            start: g.start(),
            stagger: g.dur(0),
            length: g.coin().then(|| g.dur(1)),
            label: g.coin().then(|| "g".into()),
            media_start: if g.coin() { MediaStart::Connection } else { MediaStart::Call },
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
            spread: false,
            count: 1 + g.below(100) as u32,
            from: "n0".into(),
            to: "n1".into(),
            kind,
            transport: if tcp_only || g.coin() {
                TransportCfg::Tcp(g.tcp())
            } else {
                TransportCfg::Udp { send_buffer: 1 + g.below(1000) as u32 }
            },
            start: StartCfg::Uniform { from: SimDuration::ZERO, to: SimDuration::from_secs(1) },
            stagger: g.dur(0),
            stop: g.coin().then(|| g.dur(1)),
            label: None,
        }];
        // Every source must start before it stops (validate/ rejects a
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
