//! Scenario → World: nodes and channels, routes, flows with their endpoints,
//! voice calls and traffic sources, each random component on its own stream.

use crate::sim::world::{Call, Flow, Owner, RtpCall, TrafficApp, TrafficCounters, TrafficFeed, World};
use crate::sim::TrunkApp;
use crate::voice::trunk::Trunk;
use crate::rtp::{AvpfConfig, FbLimit, FbMode, RtcpConfig, RtpReceiver, RtpSender, Schedule};
use crate::scenario::rtp::{AdaptCfg, AvoipDelay, FbLimitName, FbModeName, IntervalKind, XrBlock};
use crate::voice::adapt::{rate_bytes, AdaptPoint, Adapter, Avoip, AvoipCfg, DelaySignal, Busse1996, BusseCfg, CodecMode, ModeCfg, Patent, PatentCfg, TfrcCodec, TfrcCodecCfg};
use crate::voice::Codec;
use crate::net::wire::{IPV4_HEADER, UDP_HEADER};
use crate::scenario::group_codec;
use crate::net::channel::Channel;
use crate::net::capacity::{Capacity, Deliveries, Propagation, Steps};
use crate::net::background::{OnOff, OnOffParams};
use crate::net::jitter::{Bursty, Jitter, JitterDist};
use crate::net::loss::{GilbertElliott, LossAt, LossModel, MarkovLoss, TraceLoss};
use crate::net::{Dir, NodeId, Topology};
use crate::rng::{kind, Rng, StreamId};
use crate::scenario::{
    BackgroundCfg, ChannelCfg, JitterCfg, LossCfg, MediaStart, ScheduleCfg, ScheduleData, StepCfg, Scenario, ScenarioError, SpeechCfg, StartCfg, TrafficKind, TransportCfg,
};
use crate::sched::EventQueue;
use crate::time::{SimDuration, SimTime};
use crate::traffic::{Options, Pattern, StreamApp, TrafficSource};
use crate::cc::Controller;
use crate::transport::framing::StreamFramer;
use crate::transport::{ccid2, echo, tcp, tfrc, udp, FlowAddr, Receiver, Sender};
use crate::trace::record::CallRecord;
use crate::voice::{codec, SpeechModel, SpeechProcess, VoiceSource};

fn channel(topo: &Topology, from: NodeId, to: NodeId, cfg: &ChannelCfg, seed: u64, run: u64, index: u32) -> Channel {
    let limit = cfg.queue.limit();
    let rng = || Rng::stream(seed, run, StreamId::new(kind::LINK_LOSS, index));
    let loss = match &cfg.loss {
        LossCfg::None => LossModel::None,
        &LossCfg::Bernoulli { p, .. } => LossModel::Bernoulli { p, rng: rng() },
        &LossCfg::Ber { ber, .. } => LossModel::ber(ber, rng()),
        &LossCfg::GilbertElliott { p, r, loss_good, loss_bad, mean_loss, mean_burst, .. } => {
            let (p, r) = match (p, r, mean_loss, mean_burst) {
                (Some(p), Some(r), _, _) => (p, r),
                (_, _, Some(l), Some(b)) => (GilbertElliott::simple_p(l, b), 1.0 / b),
                _ => unreachable!("validation resolves one parameterisation"),
            };
            LossModel::GilbertElliott(GilbertElliott::new(p, r, loss_good, loss_bad, rng()))
        }
        LossCfg::Markov { transition, loss, .. } => LossModel::Markov(MarkovLoss::new(transition, loss, rng())),
        LossCfg::Trace { data, .. } => LossModel::Trace(TraceLoss::new(data.clone())),
    };
    let at = match cfg.loss.at() {
        crate::scenario::LossAt::Enqueue => LossAt::Enqueue,
        crate::scenario::LossAt::Wire => LossAt::Wire,
    };
    let name = format!("{}->{}", topo.nodes[from as usize], topo.nodes[to as usize]);
    let qrng = Rng::stream(seed, run, StreamId::new(kind::QUEUE, index));
    let ch = Channel::new(name, from, to, cfg.rate_bps, cfg.delay, limit, loss)
        .with_loss_at(at)
        .with_discipline(&crate::scenario::queue::discipline(&cfg.queue), qrng)
        .with_series(cfg.queue.series());
    let ch = match &cfg.schedule {
        Some(s) => {
            let (capacity, propagation) = timing(cfg, s);
            ch.with_timing(capacity, propagation)
        }
        None => ch,
    };
    let rng = Rng::stream(seed, run, StreamId::new(kind::LINK_JITTER, index));
    let ns = |d: SimDuration| d.0 as f64;
    let jitter = match cfg.jitter {
        JitterCfg::None => Jitter::None,
        JitterCfg::Uniform { min, max, reorder } => Jitter::random(JitterDist::Uniform { lo: ns(min), hi: ns(max) }, reorder, rng),
        JitterCfg::Normal { mean, sd, min, max, reorder } => {
            let lo = min.map_or((ns(mean) - 3.0 * ns(sd)).max(0.0), ns);
            let hi = max.map_or(ns(mean) + 3.0 * ns(sd), ns);
            Jitter::random(JitterDist::Normal { mean: ns(mean), sd: ns(sd), lo, hi }, reorder, rng)
        }
        JitterCfg::Bursty { interval, stall, stall_every } => {
            Jitter::Bursty(Bursty::new(ns(interval), stall.0, stall_every.map(|d| d.0), rng))
        }
    };
    let background = match cfg.background {
        BackgroundCfg::None => None,
        BackgroundCfg::OnOff { rate, packet, on, off } => Some(OnOff::new(
            OnOffParams { rate_bps: rate as f64, packet, on_ns: ns(on), off_ns: ns(off) },
            Rng::stream(seed, run, StreamId::new(kind::LINK_BACKGROUND, index)),
        )),
    };
    ch.with_jitter(jitter).with_background(background)
}

/// A schedule as the channel's capacity and propagation: the link's
/// `rate` and `delay` hold from 0 until the first step that changes them.
fn timing(cfg: &ChannelCfg, s: &ScheduleCfg) -> (Capacity, Propagation) {
    let steps = match &*s.data {
        ScheduleData::Mahimahi(times, period) => {
            let cap = Capacity::Deliveries(Deliveries::new(std::sync::Arc::new(times.clone()), *period));
            return (cap, Propagation::Constant(cfg.delay));
        }
        ScheduleData::Steps(v) => v.as_slice(),
        ScheduleData::None => s.steps.as_slice(),
    };
    let period = s.repeat.map(|d| d.0);
    let series = |base: u64, pick: &dyn Fn(&StepCfg) -> Option<u64>| {
        let mut st = Steps { at: vec![0], value: vec![base], period };
        for x in steps {
            if let Some(v) = pick(x) {
                if x.at.0 == 0 {
                    st.value[0] = v;
                } else {
                    st.at.push(x.at.0);
                    st.value.push(v);
                }
            }
        }
        st
    };
    let rate = series(cfg.rate_bps, &|x| x.rate);
    let delay = series(cfg.delay.0, &|x| x.delay.map(|d| d.0));
    let cap = if rate.at.len() == 1 { Capacity::Constant(rate.value[0]) } else { Capacity::Steps(rate) };
    let prop = if delay.at.len() == 1 { Propagation::Constant(SimDuration(delay.value[0])) } else { Propagation::Steps(delay) };
    (cap, prop)
}

fn start_time(cfg: &StartCfg, stagger: SimDuration, i: u32, rng: &mut Rng) -> SimTime {
    let base = match *cfg {
        StartCfg::Fixed(t) => t,
        StartCfg::Uniform { from, to } => {
            let span = to.as_nanos() - from.as_nanos();
            from + SimDuration(if span == 0 { 0 } else { rng.below(span) })
        }
    };
    SimTime::ZERO + base + stagger.mul(i as u64)
}

fn endpoints(
    t: &TransportCfg,
    flow: u32,
    src: NodeId,
    dst: NodeId,
    series: bool,
    path: &str,
) -> Result<(Sender, Receiver), ScenarioError> {
    let fwd = FlowAddr { flow, peer: dst, dir: Dir::Forward };
    let rev = FlowAddr { flow, peer: src, dir: Dir::Reverse };
    Ok(match t {
        &TransportCfg::Udp { send_buffer } => {
            (Sender::Udp(udp::UdpSender::new(fwd, send_buffer)), Receiver::Udp(udp::UdpReceiver::default()))
        }
        &TransportCfg::Echo { send_buffer, ack_bytes } => (
            Sender::Echo(echo::EchoSender::new(fwd, send_buffer, series)),
            Receiver::Echo(echo::EchoReceiver::new(rev, ack_bytes)),
        ),
        TransportCfg::Tcp(c) => {
            let smss = c.smss();
            let cc = Controller::new(c.cc, &c.params, smss, c.initial_window.bytes(smss)).map_err(|name| {
                ScenarioError::new(format!("{path}.cc"), format!("\"{name}\""), "a congestion controller this build has")
            })?;
            (
                Sender::Tcp(Box::new(tcp::TcpSender::new(fwd, c.clone(), cc, series))),
                Receiver::Tcp(Box::new(tcp::TcpReceiver::new(rev, c.clone()))),
            )
        }
        TransportCfg::Dccp(d) if d.ccid == Some(2) => {
            let c = t.ccid2().expect("a CCID 2 transport");
            (
                Sender::Ccid2(Box::new(ccid2::Ccid2Sender::new(fwd, c.clone(), series))),
                Receiver::Ccid2(Box::new(ccid2::Ccid2Receiver::new(rev, c))),
            )
        }
        TransportCfg::Dccp(_) | TransportCfg::Tfrc(_) => {
            let c = t.rate().expect("a rate transport");
            (
                Sender::Rate(Box::new(tfrc::RateSender::new(fwd, c.clone(), series))),
                Receiver::Rate(Box::new(tfrc::RateReceiver::new(rev, c, series))),
            )
        }
    })
}

/// Seed 001 Table 3's table for the codec, where it has one.
pub fn patent_table(c: &Codec) -> Option<PatentCfg> {
    match c.name {
        n if n.starts_with("G.711") => Some(PatentCfg::g711()),
        n if n.starts_with("G.729") => Some(PatentCfg::g729()),
        _ => None,
    }
}

/// busse1996's ptime range: 10 ms (or the frame) up to seed 001's maximum
/// (30 ms for G.711, 80 ms otherwise), unless given.
pub fn busse_range(c: &Codec, min: Option<SimDuration>, max: Option<SimDuration>) -> (SimDuration, SimDuration) {
    let lo = min.unwrap_or(c.frame.max(codec::PTIME_MIN));
    let top = if c.name.starts_with("G.711") { SimDuration::from_millis(30) } else { codec::PTIME_MAX };
    (lo, max.unwrap_or(top))
}

fn ms(d: SimDuration) -> u32 {
    (d.as_nanos() / 1_000_000) as u32
}

/// The modes a `codec-mode` call may use, ascending in rate: the named
/// ones, or the whole family of `c`. `Err(i)`: `names[i]` is not a mode of
/// the family (`usize::MAX`: `c` has no modes).
pub fn mode_ladder(c: &Codec, names: Option<&[String]>) -> Result<Vec<&'static Codec>, usize> {
    let all = codec::modes(c);
    if all.is_empty() {
        return Err(usize::MAX);
    }
    let Some(names) = names else { return Ok(all) };
    let mut v = Vec::new();
    for (i, n) in names.iter().enumerate() {
        v.push(*all.iter().find(|m| m.name == n).ok_or(i)?);
    }
    v.sort_by_key(|m| m.frame_bytes);
    v.dedup_by_key(|m| m.name);
    Ok(v)
}

/// The call's adaptation, starting from `ptime` at `start`.
fn adapter(cfg: &AdaptCfg, c: &Codec, ptime: SimDuration, overhead: u32, start: SimTime) -> Adapter {
    match cfg {
        AdaptCfg::None => Adapter::None,
        AdaptCfg::Patent { thresholds, ptimes } => {
            let table = match (thresholds, ptimes) {
                (t, Some(p)) => PatentCfg {
                    thresholds: t.clone().unwrap_or_default().iter().map(|x| x / 100.0).collect(),
                    ptimes: p.iter().map(|d| ms(*d)).collect(),
                    step: 10,
                },
                _ => patent_table(c).expect("validated: a table exists"),
            };
            Adapter::Patent(Patent::new(table, ms(ptime)))
        }
        AdaptCfg::Busse1996 { alpha, lambda_u, lambda_c, min_ptime, max_ptime } => {
            let (lo, hi) = busse_range(c, *min_ptime, *max_ptime);
            let mut b = BusseCfg::new(ms(lo), ms(hi));
            b.alpha = *alpha;
            b.lambda_u = lambda_u / 100.0;
            b.lambda_c = lambda_c / 100.0;
            Adapter::Busse1996(Busse1996::new(b, ms(ptime)))
        }
        &AdaptCfg::Avoip { min_rate, max_rate, step, dec_int, inc_int, max_loss, min_loss, latency_thresh, alpha, no_report, delay, .. } => {
            let cfg = AvoipCfg {
                min_bps: min_rate as u32,
                max_bps: max_rate as u32,
                step_bps: step as u32,
                start_bps: cfg.start_rate().expect("avoip has a rate") as u32,
                dec_int,
                inc_int,
                max_loss: max_loss / 100.0,
                min_loss: min_loss / 100.0,
                latency_thresh,
                alpha,
                no_report,
                delay: match delay {
                    AvoipDelay::OneWay => DelaySignal::OneWay,
                    AvoipDelay::Rtt => DelaySignal::Rtt,
                },
            };
            Adapter::Avoip(Avoip::new(cfg, start))
        }
        AdaptCfg::CodecMode { modes, alpha, lambda_u, lambda_c } => {
            let modes = mode_ladder(c, modes.as_deref()).expect("validated: modes of the codec's family");
            Adapter::CodecMode(CodecMode::new(ModeCfg { modes, alpha: *alpha, lambda_u: lambda_u / 100.0, lambda_c: lambda_c / 100.0 }, c))
        }
        AdaptCfg::TfrcCodec { modes, pad, probe } => {
            let modes = mode_ladder(c, modes.as_deref()).expect("validated: modes of the codec's family");
            let frames = (ptime.as_nanos() / c.frame.as_nanos()) as u32;
            let seg_overhead = overhead.saturating_sub(IPV4_HEADER + UDP_HEADER);
            Adapter::TfrcCodec(TfrcCodec::new(TfrcCodecCfg { modes, frames, seg_overhead, pad: *pad, probe: *probe }, c, start))
        }
    }
}

/// The call's RTCP configuration; the session bandwidth defaults to the
/// starting packets (`payload` bytes every `ptime`) with the call's header
/// overhead (§6.2).
fn rtcp_config(grp: &crate::scenario::CallGroupCfg, payload: u64, ptime: SimDuration) -> Option<RtcpConfig> {
    let r = grp.rtcp.as_ref()?;
    let bytes = payload as f64 + grp.overhead_bytes as f64;
    let session_bps = r.session_bw.map_or(bytes * 8.0 / ptime.as_secs_f64(), |b| b as f64);
    let schedule = match r.interval {
        IntervalKind::Fixed => Schedule::Fixed(r.min_interval),
        IntervalKind::Rfc3550 => Schedule::Rfc3550 { min: r.min_interval, reduced_min: r.reduced_min, reconsideration: r.reconsideration },
    };
    let feedback = grp.feedback.as_ref().map(|f| AvpfConfig {
        mode: match f.mode {
            FbModeName::Immediate => FbMode::Immediate,
            FbModeName::Early => FbMode::Early,
        },
        t_rr_interval: f.t_rr_interval,
        limit: match f.limit {
            FbLimitName::Budget => FbLimit::Budget { fraction: f.budget },
            FbLimitName::Rfc4585 => FbLimit::Rfc4585,
        },
    });
    Some(RtcpConfig { schedule, fraction: r.fraction, session_bps, cname_len: r.cname as u8, feedback, xr_voip: r.xr == XrBlock::VoipMetrics, owd: grp.adapt.wants_owd() })
}

fn route_check(topo: &Topology, a: NodeId, b: NodeId, path: &str) -> Result<(), ScenarioError> {
    if !topo.reachable(a, b) || !topo.reachable(b, a) {
        return Err(ScenarioError::new(
            path,
            format!("\"{}\"", topo.nodes[b as usize]),
            format!("a node reachable from \"{}\" in both directions over the links", topo.nodes[a as usize]),
        ));
    }
    Ok(())
}

fn node(topo: &Topology, name: &str, path: String) -> Result<NodeId, ScenarioError> {
    topo.node_id(name)
        .ok_or_else(|| ScenarioError::new(path, format!("\"{name}\""), format!("one of the nodes named in links: {}", topo.nodes.join(", "))))
}

/// Expected packets for one call, to size its record once.
fn expected_packets(dur: SimDuration, ptime: SimDuration, speech: &SpeechCfg, spurts: &[(u64, u64)], frame: SimDuration) -> usize {
    let slots = dur.as_nanos() / ptime.as_nanos().max(1) + 2;
    match speech {
        SpeechCfg::Continuous => slots as usize,
        SpeechCfg::OnOff { talk, silence } => {
            let (t, s) = (talk.mean().as_secs_f64(), silence.mean().as_secs_f64());
            let frac = t / (t + s).max(1e-12);
            let spurts = dur.as_secs_f64() / (t + s).max(1e-3);
            ((slots as f64 * frac + spurts) * 1.1 + 64.0) as usize
        }
        // At most one packet per ptime of talk plus one partial per talkspurt.
        SpeechCfg::Schedule(_) => slots.min(spurts.iter().map(|(b, e)| (e - b) * frame.as_nanos() / ptime.as_nanos().max(1) + 1).sum::<u64>() + 2) as usize,
    }
}

pub fn build(s: &Scenario) -> Result<World, ScenarioError> {
    let (seed, run) = (s.run.seed, s.run.run_index);
    let mut topo = Topology::default();
    for l in &s.links {
        topo.add_node(&l.a);
        topo.add_node(&l.b);
    }
    for l in &s.links {
        let (a, b) = (topo.node_id(&l.a).unwrap(), topo.node_id(&l.b).unwrap());
        let i = topo.channels.len() as u32;
        let f = channel(&topo, a, b, &l.forward, seed, run, i);
        topo.add_channel(f, l.cost);
        let r = channel(&topo, b, a, &l.reverse, seed, run, i + 1);
        topo.add_channel(r, l.cost);
    }
    topo.compute_routes();

    let gen_end = SimTime::ZERO + s.run.duration;
    // Sized once: growing a vector of 100 000 calls by doubling copied
    // them ~17 times and held up to 1.5x their size (issue 14).
    let n_calls: usize = s.calls.iter().map(|g| g.count as usize).sum();
    let n_flows = s.calls.iter().map(|g| g.count as usize * if g.rtcp.is_some() { 2 } else { 1 }).sum::<usize>()
        + s.traffic.iter().map(|t| t.count as usize).sum::<usize>();
    let mut flows = Vec::with_capacity(n_flows);
    let mut calls = Vec::with_capacity(n_calls);
    let mut trunks = Vec::new();
    // Read on every packet: huge pages where the kernel gives them.
    crate::trace::slab::advise_huge(&mut calls);
    for (g, grp) in s.calls.iter().enumerate() {
        let ends = |i: u32| -> Result<(_, _), ScenarioError> {
            let (a, b) = super::model::flow_endpoints(&grp.from, &grp.to, grp.spread, i);
            let src = node(&topo, &a, format!("calls[{g}].from"))?;
            let dst = node(&topo, &b, format!("calls[{g}].to"))?;
            route_check(&topo, src, dst, &format!("calls[{g}].to"))?;
            Ok((src, dst))
        };
        let (mut src, mut dst) = ends(0)?;
        let c = &group_codec(grp).ok_or_else(|| {
            ScenarioError::new(format!("calls[{g}].codec"), format!("\"{}\"", grp.codec), codec::names().join(", "))
        })?;
        let (frame, frame_bytes, k, ptime) = match (grp.adapt.interval(), grp.adapt.start_rate()) {
            // A bit-rate adaptation (avoip) sends one "frame" per interval,
            // its size following the rate.
            (Some(iv), Some(rate)) => (iv, rate_bytes(rate, iv), 1, iv),
            _ => {
                let ptime = grp.ptime.unwrap_or_else(|| codec::default_ptime(c));
                // A bitrate call sends one frame (its whole interval) per packet.
                let k = if grp.bitrate.is_some() {
                    1
                } else {
                    codec::check_ptime(c, ptime)
                        .map_err(|a| ScenarioError::new(format!("calls[{g}].ptime"), format!("\"{ptime}\""), a))?
                };
                (c.frame, c.frame_bytes, k, ptime)
            }
        };
        let transport_key = format!("calls[{g}].transport");
        // IAX2 trunk (`sim/trunk.rs`): one flow for the whole group, its
        // packets' headers IP + UDP with the trunk frame as payload.
        let trunk = match &grp.trunk {
            Some(tc) => {
                let cfg = tc.config();
                let flow = flows.len() as u32;
                let ti = trunks.len() as u32;
                let (mut snd, rcv) = endpoints(&grp.transport, flow, src, dst, s.run.series, &transport_key)?;
                if let Sender::Rate(r) = &mut snd {
                    // TFRC's first rates from the trunk packet with every call talking.
                    let seg = cfg.header as u64 + grp.count as u64 * (cfg.entry as u64 + k as u64 * frame_bytes as u64);
                    r.hint_segment(seg.min(u32::MAX as u64) as u32);
                }
                flows.push(Flow::new(src, dst, snd, rcv, Owner::Trunk(ti)));
                let framer = matches!(grp.transport, TransportCfg::Tcp(_)).then(StreamFramer::default);
                trunks.push(TrunkApp { flow, trunk: Trunk::new(cfg), overhead: IPV4_HEADER + UDP_HEADER, live: grp.count, framer });
                Some((ti, flow))
            }
            None => None,
        };
        for i in 0..grp.count {
            if grp.spread && i > 0 {
                (src, dst) = ends(i)?;
            }
            let model = match &grp.speech {
                SpeechCfg::Continuous => SpeechModel::Continuous,
                SpeechCfg::OnOff { talk, silence } => SpeechModel::OnOff { talk: *talk, silence: *silence },
                SpeechCfg::Schedule(s) => SpeechModel::Schedule(super::speech::frames(s, i as usize, frame)),
            };
            let spurts = match &model {
                SpeechModel::Schedule(s) => s.clone(),
                _ => Vec::new().into(),
            };
            let ci = calls.len() as u32;
            let mut start_rng = Rng::stream(seed, run, StreamId::new(kind::CALL_START, ci));
            let start = start_time(&grp.start, grp.stagger, i, &mut start_rng);
            let stop = grp.length.map_or(gen_end, |l| (start + l).min(gen_end));
            let speech = SpeechProcess::new(model, frame, Rng::stream(seed, run, StreamId::new(kind::SPEECH, ci)));
            let mut source = VoiceSource::with_frame(frame, frame_bytes, k, start, stop, grp.vad, speech);
            if grp.bitrate.as_ref().is_some_and(|b| b.random) {
                source = source.with_send_jitter(Rng::stream(seed, run, StreamId::new(kind::SEND_JITTER, ci)));
            }
            let (flow, framer) = match trunk {
                Some((_, flow)) => (flow, None),
                None => {
                    let flow = flows.len() as u32;
                    let (mut snd, rcv) = endpoints(&grp.transport, flow, src, dst, s.run.series, &transport_key)?;
                    if let Sender::Rate(r) = &mut snd {
                        // The call's own segment (frames + RTP and any header past
                        // IP/UDP) sets TFRC's first rates (RFC 5348 §4.2).
                        let seg = k as u64 * frame_bytes as u64 + grp.overhead_bytes.saturating_sub(IPV4_HEADER + UDP_HEADER) as u64;
                        r.hint_segment(seg.min(u32::MAX as u64) as u32);
                    }
                    flows.push(Flow::new(src, dst, snd, rcv, Owner::Call(ci)));
                    (flow, matches!(grp.transport, TransportCfg::Tcp(_)).then(StreamFramer::default))
                }
            };
            let rtcp_cfg = rtcp_config(grp, k as u64 * frame_bytes as u64, ptime);
            let (pt, clock_rate) = codec::rtp_format(c);
            let tx = RtpSender::new(pt, clock_rate, rtcp_cfg.as_ref(), start, Rng::stream(seed, run, StreamId::new(kind::RTP, 2 * ci)));
            let rx = RtpReceiver::new(clock_rate, rtcp_cfg.as_ref(), start, Rng::stream(seed, run, StreamId::new(kind::RTP, 2 * ci + 1)));
            let rtcp_flow = rtcp_cfg.as_ref().map(|_| {
                let f = flows.len() as u32;
                let (s, r) = (udp::UdpSender::new(FlowAddr { flow: f, peer: dst, dir: Dir::Forward }, 1), udp::UdpReceiver::default());
                flows.push(Flow::new(src, dst, Sender::Udp(s), Receiver::Udp(r), Owner::Rtcp(ci)));
                f
            });
            let rtp = RtpCall { tx, rx: Box::new(rx), rtcp_flow, clock_rate };
            let expect = expected_packets(stop.saturating_since(start), ptime, &grp.speech, &spurts, frame);
            let adapt = Box::new(adapter(&grp.adapt, c, ptime, grp.overhead_bytes, start));
            let reports = (s.run.series && adapt.has_report_view()).then(Vec::new);
            calls.push(Call {
                flow,
                group: g as u32,
                codec: *c,
                overhead: grp.overhead_bytes,
                source,
                rec: CallRecord::new(s.run.trace, expect),
                gated: false,
                direct: false,
                route: crate::sim::NO_VOICE_ROUTE,
                trunk: trunk.map_or(crate::sim::NO_TRUNK, |(t, _)| t),
                start,
                stop,
                framer,
                rtp,
                adapt,
                reports,
                log: vec![AdaptPoint::new(start, ptime, frame_bytes as f64 * 8.0 / frame.as_secs_f64(), grp.overhead_bytes)],
                pending_fpp: None,
                pending_bytes: None,
                await_open: grp.media_start == MediaStart::Connection,
            });
        }
    }
    let interval = s.analysis.interval.map_or((SimTime::ZERO, gen_end), |(a, b)| (SimTime::ZERO + a, SimTime::ZERO + b));
    let mut traffic = Vec::new();
    for (g, t) in s.traffic.iter().enumerate() {
        let ends = |i: u32| -> Result<(_, _), ScenarioError> {
            let (a, b) = super::model::flow_endpoints(&t.from, &t.to, t.spread, i);
            let src = node(&topo, &a, format!("traffic[{g}].from"))?;
            let dst = node(&topo, &b, format!("traffic[{g}].to"))?;
            route_check(&topo, src, dst, &format!("traffic[{g}].to"))?;
            Ok((src, dst))
        };
        let (mut src, mut dst) = ends(0)?;
        let packets = match t.kind {
            TrafficKind::Cbr { rate_bps, packet } => Some((Pattern::Cbr, rate_bps, packet)),
            TrafficKind::Poisson { rate_bps, packet } => Some((Pattern::Poisson, rate_bps, packet)),
            TrafficKind::OnOff { rate_bps, packet, on, off } => Some((Pattern::OnOff { on, off }, rate_bps, packet)),
            TrafficKind::Bulk { .. } | TrafficKind::Transfer { .. } => None,
        };
        let transport_key = format!("traffic[{g}].transport");
        for i in 0..t.count {
            if t.spread && i > 0 {
                (src, dst) = ends(i)?;
            }
            let ti = traffic.len() as u32;
            let mut rng = Rng::stream(seed, run, StreamId::new(kind::TRAFFIC, ti));
            let start = start_time(&t.start, t.stagger, i, &mut rng);
            let stop = t.stop.map_or(gen_end, |d| (SimTime::ZERO + d).min(gen_end));
            // Activation windows, source i's shifted by i·stagger (validated:
            // the first is before stop); empty ones after stop are dropped.
            let shift = t.stagger.mul(i as u64);
            let windows: Vec<(SimTime, SimTime)> = if t.active.is_empty() {
                vec![(start, stop)]
            } else {
                t.active
                    .iter()
                    .map(|w| (SimTime::ZERO + w.from + shift, w.to.map_or(stop, |e| (SimTime::ZERO + e + shift).min(stop))))
                    .filter(|(a, b)| a < b)
                    .collect()
            };
            let opts = Options { random: t.random, idle_first: t.idle_first };
            let flow = flows.len() as u32;
            let (snd, rcv) = endpoints(&t.transport, flow, src, dst, s.run.series, &transport_key)?;
            flows.push(Flow::new(src, dst, snd, rcv, Owner::Traffic(ti)));
            let source = match (packets, t.kind.clone()) {
                (Some((pattern, rate, packet)), _) => {
                    TrafficFeed::Packets(TrafficSource::scheduled(pattern, packet, rate, windows, opts, rng))
                }
                (None, TrafficKind::Bulk { on_off }) => {
                    TrafficFeed::Stream(StreamApp::bulk_scheduled(windows, on_off, t.idle_first, rng))
                }
                (None, TrafficKind::Transfer { size_bytes }) => {
                    TrafficFeed::Stream(StreamApp::Transfer { size: size_bytes, at: start, done: start >= stop })
                }
                (None, _) => unreachable!("packet kinds have a pattern"),
            };
            traffic.push(TrafficApp { flow, group: g as u32, source, counters: TrafficCounters::default() });
        }
    }
    // Counters over the measurement interval.
    for f in &mut flows {
        match &mut f.sender {
            Sender::Tcp(tcp) => tcp.stats.window = interval,
            Sender::Rate(r) => r.stats.window = interval,
            _ => {}
        }
    }
    let mut w = World {
        q: EventQueue::new(),
        topo,
        flows,
        calls,
        traffic,
        gen_end,
        end: gen_end + s.run.drain,
        series: Vec::new(),
        interval,
        dropped: Vec::new(),
        call_series: s.run.series,
        capture: None,
        cut: Default::default(),
        prefetch: false,
        records: Default::default(),
        in_flight: Default::default(),
        timer_late: SimTime::ZERO,
        trunks,
    };
    w.prime();
    Ok(w)
}
