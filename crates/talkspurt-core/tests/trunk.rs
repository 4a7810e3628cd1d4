//! IAX2 trunking (`calls[i].trunk`, voice/trunk.rs, sim/trunk.rs): N calls
//! of a group in one connection. Closed forms checked here:
//! - one packet per tick of the trunk timer that has frames, leaving at
//!   the tick (UDP sends at once): t_sent = (⌊t_gen / 20 ms⌋ + 1) · 20 ms;
//! - its IP size is IP + UDP + trunk header + Σ (entry + frame): with 5
//!   G.711 calls at 20 ms (160 B), 20 + 8 + 8 + 5 · (6 + 160) = 866 B
//!   (RFC 5456 Meta Trunk Frame, per-entry time-stamps);
//! - every frame a call generated reaches its call's record (delivery
//!   counts conserved: Σ calls' frames = frames in the link's packets);
//! - a lost trunk packet loses the frame of every call in it.

mod common;
use common::*;
use talkspurt_core::scenario::trunk::TrunkCfg;
use talkspurt_core::scenario::*;
use talkspurt_core::sim::world::World;
use talkspurt_core::trace::record::NetFate;

const N: u32 = 5;
const IV: u64 = 20_000_000;

fn trunked(loss: LossCfg, transport: TransportCfg) -> Scenario {
    let mut g = calls(N, "a", "b", "G.711", 20);
    g.trunk = Some(TrunkCfg::default());
    g.transport = transport;
    // Random phases within one 20 ms frame, as the paper's calls start at
    // random points of their recording (seed 003 §4).
    g.start = StartCfg::Uniform { from: SimDuration::ZERO, to: ms(20) };
    let l = link("a", "b", chan(10_000_000, ms(50), QueueLimit::Packets(1000), loss));
    scenario(run_cfg(secs(20), 3), vec![l], vec![g], vec![])
}

fn run(s: &Scenario) -> World {
    let mut w = build(s).expect("build");
    assert!(w.run(&mut no_progress()));
    w
}

use talkspurt_core::time::SimDuration;

/// Parses a trunk scenario written in TOML, with the trace on, and runs it.
/// `run_extra`, `link` and `call` are the lines that differ between the
/// tests; the frame they share is a link a → b and one group of calls with
/// continuous speech and random phases within one 20 ms frame.
fn run_toml(duration: &str, run_extra: &str, link: &str, call: &str) -> World {
    let toml = format!(
        "[run]\nduration = \"{duration}\"\n{run_extra}\n\
         [[links]]\nbetween = [\"a\", \"b\"]\n{link}\n\
         [[calls]]\nfrom = \"a\"\nto = \"b\"\nspeech = {{ model = \"continuous\" }}\n\
         start = {{ kind = \"uniform\", from = \"0s\", to = \"20ms\" }}\n{call}\n"
    );
    let mut s = from_toml_str(&toml).expect("scenario");
    s.run.trace = true;
    run(&s)
}

#[test]
fn one_packet_per_tick_of_header_plus_entries() {
    let w = run(&trunked(LossCfg::None, TransportCfg::Udp { send_buffer: 5 }));
    let mut ticks = std::collections::BTreeMap::<u64, u32>::new();
    let mut frames = 0u64;
    for c in &w.calls {
        let r = &c.rec;
        assert!(r.len() > 900, "20 s of 20 ms packets: {}", r.len());
        for i in 0..r.len() {
            let tick = (r.t_gen(i) / IV + 1) * IV;
            assert_eq!(r.t_sent(i), tick, "frame {i} leaves at the tick after it");
            assert_eq!(r.fate(i), NetFate::Arrived);
            assert_eq!(r.wire(i), 160 + 6, "the call's own bytes: entry + frame");
            *ticks.entry(tick).or_default() += 1;
            frames += 1;
        }
    }
    let fwd = &w.topo.channels[0].stats;
    // One packet per tick with frames, nothing else on the forward link.
    assert_eq!(fwd.delivered, ticks.len() as u64);
    // Σ over packets of 36 + n·166 B (closed form); all five calls are in
    // every tick but the first and last few.
    let want: u64 = ticks.values().map(|&n| 20 + 8 + 8 + n as u64 * 166).sum();
    assert_eq!(fwd.bytes_delivered, want);
    assert_eq!(ticks.values().map(|&n| n as u64).sum::<u64>(), frames);
    let full = ticks.values().filter(|&&n| n == N).count();
    assert!(full as f64 > 0.99 * ticks.len() as f64, "{full} of {} ticks carry all {N} calls", ticks.len());
    assert_eq!(fwd.bytes_delivered / fwd.delivered, 866, "mean packet 866 B: 28 + 8 + 5 · 166");
}

#[test]
fn a_lost_trunk_packet_loses_a_frame_of_every_call_in_it() {
    let w = run(&trunked(LossCfg::Bernoulli { p: 0.05, at: LossAt::Wire }, TransportCfg::Udp { send_buffer: 5 }));
    let lost_ticks = |c: usize| -> Vec<u64> {
        let r = &w.calls[c].rec;
        (0..r.len()).filter(|&i| r.fate(i) == NetFate::LinkLoss).map(|i| r.t_sent(i)).collect()
    };
    let first = lost_ticks(0);
    assert!(first.len() > 20, "5 % of ~1000 packets: {}", first.len());
    let stats = &w.topo.channels[0].stats;
    let mut total = 0;
    for c in 0..N as usize {
        let mine = lost_ticks(c);
        total += mine.len() as u64;
        // Every call loses exactly the ticks the others lose (all five are
        // in every packet once started, which the losses here all follow).
        let common: Vec<u64> = mine.iter().filter(|t| first.contains(t)).copied().collect();
        assert!(common.len() + 1 >= mine.len().max(first.len()), "call {c}: {} lost, {} shared with call 0", mine.len(), common.len());
        let r = &w.calls[c].rec;
        let arrived = (0..r.len()).filter(|&i| r.fate(i) == NetFate::Arrived).count();
        assert_eq!(arrived + mine.len(), r.len(), "call {c}: every frame arrived or was lost with its packet");
    }
    // Frames lost = frames in the lost packets: each lost packet carried
    // one frame per call whose tick it was.
    let per_packet = total as f64 / stats.link_losses as f64;
    assert!((per_packet - N as f64).abs() < 0.1, "{per_packet} frames per lost packet");
}

#[test]
fn a_dccp_trunk_keeps_every_calls_frames_accounted_and_is_deterministic() {
    let dccp = || {
        run_toml(
            "30s",
            "seed = 5",
            "rate = \"2Mbps\"\ndelay = \"250ms\"\nloss = { kind = \"bernoulli\", p = 0.01 }",
            "count = 12\ncodec = \"G.711\"\nptime = \"20ms\"\n\
             transport = { kind = \"dccp\", ccid = 4, send_buffer = \"5p\" }\ntrunk = { entry = \"4B\" }",
        )
    };
    let (a, b) = (dccp(), dccp());
    let mut by_fate = [0u64; 5];
    for (ca, cb) in a.calls.iter().zip(&b.calls) {
        assert_eq!(ca.rec.fates(), cb.rec.fates(), "same scenario and seed, same fates");
        assert_eq!(ca.flow, a.calls[0].flow, "one connection for the twelve calls");
        for f in ca.rec.fates() {
            by_fate[f as usize] += 1;
        }
    }
    // CCID 4 cannot carry 790 kb/s at 1 % loss and a 500 ms RTT (the
    // throughput equation allows ~1/3 of it): the send buffer drops whole
    // trunk packets, and each lost packet takes a frame of every call in
    // it. Nothing is left in flight after the drain.
    assert_eq!(by_fate[NetFate::InFlight as usize], 0, "{by_fate:?}");
    assert!(by_fate[NetFate::SenderDrop as usize] > 0 && by_fate[NetFate::LinkLoss as usize] > 0, "{by_fate:?}");
    assert_eq!(by_fate.iter().sum::<u64>(), a.calls.iter().map(|c| c.rec.len() as u64).sum::<u64>());
    // The members keep their own phases after the connection opens, so
    // a tick's packet holds the frames completed in the 20 ms before it,
    // one of each running call (t_gen in [T - 20 ms, T): tick index
    // ⌊t_gen / 20 ms⌋): every frame of one packet has one fate, and once
    // all twelve run a packet holds twelve.
    let mut by_tick = std::collections::BTreeMap::<u64, Vec<NetFate>>::new();
    for c in &a.calls {
        for j in 0..c.rec.len() {
            by_tick.entry(c.rec.t_gen(j) / IV).or_default().push(c.rec.fate(j));
        }
    }
    let full = by_tick.values().filter(|f| f.len() == 12).count();
    assert!(full + 2 >= by_tick.len(), "{} of {} ticks with twelve frames", full, by_tick.len());
    for (t, fates) in &by_tick {
        assert!(fates.len() <= 12 && fates.iter().all(|f| *f == fates[0]), "tick {t}: one packet, one fate: {fates:?}");
    }
}

#[test]
fn every_transport_carries_a_trunk_and_delivers_each_calls_frames() {
    // A byte stream (TCP: the trunk frames' ends come from the framing),
    // CCID 2, CCID 3 and plain TFRC: on a clean, ample path every frame of
    // every call arrives.
    for kind in ["{ kind = \"tcp\" }", "{ kind = \"dccp\", ccid = 2 }", "{ kind = \"dccp\", ccid = 3 }", "{ kind = \"tfrc\" }"] {
        let w = run_toml(
            "20s",
            "",
            "rate = \"5Mbps\"\ndelay = \"20ms\"",
            &format!("count = 3\ncodec = \"G.729\"\ntransport = {kind}\ntrunk = {{}}"),
        );
        for (i, c) in w.calls.iter().enumerate() {
            let r = &c.rec;
            assert!(r.len() > 900, "{kind} call {i}: {}", r.len());
            let arrived = (0..r.len()).filter(|&j| r.fate(j) == NetFate::Arrived).count();
            // (At a 40 ms RTT the rate transports' slow start keeps up
            // with the 3-call trunk within the send buffer: nothing drops.)
            assert_eq!(arrived, r.len(), "{kind} call {i}");
            assert_eq!(c.flow, w.calls[0].flow, "{kind}: one connection");
        }
    }
}

/// A trunk's members start their media when the trunk's connection opens
/// (`media_start = "connection"`, the default; issue 23): the connection is
/// theirs. Over DCCP on a 100 ms link the Response arrives one RTT after
/// the Request (200 ms plus transmission), so every call's first frame is
/// complete at least 200 ms + one ptime (20 ms) after the start and within
/// one more ptime of it (the calls' random phases in [0, 20 ms)); with
/// `media_start = "call"` the first frames are complete within 40 ms.
/// Nothing is lost on the link, and only slow start drops at the sender.
#[test]
fn a_trunks_members_start_their_media_when_its_connection_opens() {
    // "connection": the handshake takes ~200 ms (two 100 ms crossings), and
    // each member's clock then starts at the next instant of its own
    // 20 ms grid (its start's phase, 0-20 ms), its first packet complete a
    // ptime later: 220-262 ms. The members keep distinct phases: their
    // first frames differ by their starts' differences modulo 20 ms.
    for (media, lo, hi) in [("connection", 220_000_000u64, 262_000_000u64), ("call", 20_000_000, 40_000_000)] {
        let w = run_toml(
            "10s",
            "",
            "rate = \"5Mbps\"\ndelay = \"100ms\"",
            &format!("count = 3\ncodec = \"G.729\"\ntransport = {{ kind = \"dccp\", ccid = 3 }}\nmedia_start = \"{media}\"\ntrunk = {{}}"),
        );
        for (i, c) in w.calls.iter().enumerate() {
            let r = &c.rec;
            assert!(r.len() > 400, "{media} call {i}: {} frames", r.len());
            let first = r.t_gen(0);
            assert!((lo..=hi).contains(&first), "{media} call {i}: first frame complete at {first} ns");
            let p = c.source.ptime().as_nanos();
            assert_eq!((first - c.start.0) % p, 0, "{media} call {i}: first frame at {first} ns off the grid of its start {} ns", c.start.0);
            // Those of the last ~100 ms are still in flight when the run
            // ends; CCID 3's slow start from one RTT's rate (RFC 5348 §4.2)
            // drops some of the first two seconds' at the send buffer, none later.
            for j in 0..r.len() {
                let f = r.fate(j);
                let early = r.t_gen(j) < first + 2_000_000_000;
                assert!(matches!(f, NetFate::Arrived | NetFate::InFlight) || (f == NetFate::SenderDrop && early), "{media} call {i} frame {j}: {f:?}");
            }
        }
        let mut firsts: Vec<u64> = w.calls.iter().map(|c| c.rec.t_gen(0)).collect();
        firsts.sort();
        firsts.dedup();
        assert_eq!(firsts.len(), 3, "{media}: the members' first frames {firsts:?} share a phase");
    }
}

/// Aligned starts (`start = "0s"`, the default): every call's frame k is
/// complete at exactly k · 20 ms, the instant of a trunk tick, where the
/// trunk's own event and twelve calls' voice events fall together. The rule
/// (docs/models/trunk.md, "The trunk timer"): the tick at T carries the
/// frames completed in [T − 20 ms, T), so frame k leaves at the tick
/// (k + 1) · 20 ms whatever the order of those events:
/// - every frame waits exactly one interval, t_sent − t_gen = 20 ms (UDP
///   sends at once);
/// - every trunk packet carries exactly one frame of each of the 12 calls,
///   IP 20 + UDP 8 + header 8 + 12 · (6 + 160) = 2028 B.
/// (Before the tie rule, frames queued before the tick's event went at
/// once and the others a tick later: waits of 0 and 20 ms, and a packet
/// with 13 entries, 2194 B, two frames of one call.)
#[test]
fn aligned_starts_fill_every_packet_with_one_frame_per_call() {
    const CALLS: usize = 12;
    let toml = "[run]\nduration = \"10s\"\n\
        [[links]]\nbetween = [\"a\", \"b\"]\nrate = \"10Mbps\"\ndelay = \"20ms\"\n\
        [[calls]]\ncount = 12\nfrom = \"a\"\nto = \"b\"\ncodec = \"G.711\"\nptime = \"20ms\"\n\
        speech = { model = \"continuous\" }\nstart = \"0s\"\ntransport = { kind = \"udp\" }\ntrunk = {}\n";
    let mut s = from_toml_str(toml).expect("scenario");
    s.run.trace = true;
    let w = run(&s);
    assert_eq!(w.calls.len(), CALLS);
    let mut packets = std::collections::BTreeMap::<u64, Vec<usize>>::new();
    for (c, call) in w.calls.iter().enumerate() {
        let r = &call.rec;
        assert!(r.len() > 450, "10 s of 20 ms frames: {}", r.len());
        for i in 0..r.len() {
            assert_eq!(r.t_gen(i) % IV, 0, "call {c} frame {i}: complete on a tick");
            assert_eq!(r.t_sent(i) - r.t_gen(i), IV, "call {c} frame {i}: waits one whole interval");
            packets.entry(r.t_sent(i)).or_default().push(c);
        }
    }
    for (t, calls) in &packets {
        assert_eq!(*calls, (0..CALLS).collect::<Vec<_>>(), "packet at {t} ns: one frame of each call");
    }
    let fwd = &w.topo.channels[0].stats;
    assert_eq!(fwd.delivered, packets.len() as u64, "one packet per tick with frames");
    let size = 20 + 8 + 8 + CALLS as u64 * (6 + 160);
    assert_eq!(size, 2028);
    assert_eq!(fwd.bytes_delivered, fwd.delivered * size, "every packet 2028 B");
}
