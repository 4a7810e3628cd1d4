//! One direction of a link: a transmitter with a queue (drop-tail, RED,
//! CoDel, FQ-CoDel or PIE, `queue.rs`), a serialization rate, a
//! propagation delay and an optional random loss.
//!
//! For a FIFO, when each packet starts and finishes serializing is fixed
//! the moment it is accepted: it starts at `max(now, busy_until)`. So the
//! channel needs no "transmission done" event: it keeps the start times of
//! accepted packets, and the number still waiting at any instant is the
//! number whose start lies in the future. This is exact (not an
//! approximation) for drop-tail FIFO and halves the events per hop.
//! Serialization time is exact to the nanosecond, rounded up. RED decides
//! on arrival too, so it uses the same lazy FIFO.
//!
//! CoDel, FQ-CoDel and PIE hold their packets (`enqueue`/`dequeue`, in
//! `held.rs`): the world calls `dequeue` when the transmitter frees (the
//! `wake` times these methods return), and the discipline picks, drops or
//! marks there.

use super::background::OnOff;
use super::capacity::{Capacity, Propagation};
use super::codel::{CoDel, CoDelQueue, TimedFifo};
use super::fq_codel::FqCoDel;
use super::held::Held;
pub use super::held::{Dequeued, Enqueued};
use super::jitter::Jitter;
use super::loss::{LossAt, LossModel};
use super::packet::{Ecn, NodeId, Packet};
use super::pie::PieQueue;
use super::queue::{Discipline, QueueLimit, Verdict};
use super::red::Red;
use crate::rng::Rng;
use crate::time::{SimDuration, SimTime};
use std::collections::VecDeque;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChannelStats {
    /// Packets offered to the channel.
    pub offered: u64,
    pub queue_drops: u64,
    pub link_losses: u64,
    /// Packets that left the wire intact.
    pub delivered: u64,
    pub bytes_delivered: u64,
    /// Packets accepted for transmission, and their total queueing wait.
    pub served: u64,
    pub wait_sum_ns: u128,
    pub wait_max_ns: u64,
    /// Time the transmitter was busy.
    pub busy_ns: u64,
    /// Most packets ever waiting (excluding the one on the wire).
    pub max_queue_len: u64,
    /// Early drops by the AQM (RED, CoDel, PIE), not counted in
    /// `queue_drops` (which are limit overflows).
    pub aqm_drops: u64,
    /// Packets marked CE instead of dropped.
    pub ecn_marks: u64,
    /// ∫ packets waiting dt: the sum of every packet's time in the queue,
    /// served or dropped from it, added whole when it is known (a lazy
    /// FIFO: on acceptance; a holding queue: when the packet leaves). So at
    /// the end of a run it may reach past the end or miss packets still
    /// held: `Channel::queue_integral_within` gives the run's part (Little:
    /// the time-average queue length is that over the run's length).
    pub queue_integral_ns: u128,
    /// Background packets (net::background) offered, and dropped at the
    /// queue limit. Their transmitter time is in `busy_ns`; no other
    /// field counts them.
    pub background_offered: u64,
    pub background_drops: u64,
}

#[derive(Debug)]
pub struct Channel {
    pub name: String,
    pub from: NodeId,
    pub to: NodeId,
    pub rate_bps: u64,
    pub delay: SimDuration,
    pub(super) limit: QueueLimit,
    loss: LossModel,
    loss_at: LossAt,
    /// Serialization and propagation; constant unless the link has a
    /// schedule (`rate_bps` and `delay` are then the nominal values).
    capacity: Capacity,
    propagation: Propagation,
    jitter: Jitter,
    /// Latest arrival so far: a link whose delay changes stays FIFO.
    last_arrive: SimTime,
    /// End of the last accepted packet's serialization.
    pub(super) busy_until: SimTime,
    /// (start of serialization, bytes, background) of accepted packets,
    /// oldest first; entries whose start has passed are purged lazily.
    /// `background`: a packet of the background load (net::background),
    /// whose wait `queue_integral_ns` does not count.
    pending: VecDeque<(SimTime, u32, bool)>,
    /// Bytes of packets in `pending` (waiting, after purge).
    pending_bytes: u64,
    pub stats: ChannelStats,
    red: Option<Box<Red>>,
    pub(super) held: Option<Box<Held>>,
    /// A `dequeue` is scheduled (holding queues).
    pub(super) wake_pending: bool,
    /// Queue series (time, name, value), when asked for.
    pub series: Option<Vec<(SimTime, &'static str, f64)>>,
    /// Drop-tail at a constant rate and delay with no loss, jitter or
    /// series: `offer` takes `offer_plain`, free of the branches the other
    /// models need (set by the builders, `refresh_plain`).
    plain: bool,
    /// The last packet size serialized and its time (ns), so that a run of
    /// equal sizes (voice) divides once.
    tx_memo: (u32, u64),
    /// Other users' load sharing the FIFO (net::background).
    background: Option<Box<OnOff>>,
}

/// What happened to an offered packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offer {
    /// Accepted: it reaches the far end at `arrive` — unless `lost` on the
    /// wire, in which case it used the link but never arrives.
    Accepted { arrive: SimTime, lost: bool },
    /// Tail drop: the queue was full.
    Dropped,
    /// Lost on arrival, before the queue (`LossAt::Enqueue`).
    Lost,
}

impl Channel {
    pub fn new(
        name: String,
        from: NodeId,
        to: NodeId,
        rate_bps: u64,
        delay: SimDuration,
        limit: QueueLimit,
        loss: LossModel,
    ) -> Self {
        Channel {
            name,
            from,
            to,
            rate_bps,
            delay,
            limit,
            loss,
            loss_at: LossAt::Wire,
            capacity: Capacity::Constant(rate_bps),
            propagation: Propagation::Constant(delay),
            jitter: Jitter::None,
            last_arrive: SimTime::ZERO,
            busy_until: SimTime::ZERO,
            pending: VecDeque::new(),
            pending_bytes: 0,
            stats: ChannelStats::default(),
            red: None,
            held: None,
            wake_pending: false,
            series: None,
            plain: false,
            tx_memo: (0, 0),
            background: None,
        }
        .refresh_plain()
    }

    fn refresh_plain(mut self) -> Self {
        self.plain = matches!(self.loss, LossModel::None)
            && self.capacity == Capacity::Constant(self.rate_bps)
            && self.propagation == Propagation::Constant(self.delay)
            && matches!(self.jitter, Jitter::None)
            && self.red.is_none()
            && self.held.is_none()
            && self.series.is_none()
            && self.background.is_none();
        self
    }

    /// Apply the loss model before the queue instead of on the wire.
    pub fn with_loss_at(mut self, at: LossAt) -> Self {
        self.loss_at = at;
        self.refresh_plain()
    }

    /// A time-varying rate and delay (net::capacity).
    pub fn with_timing(mut self, capacity: Capacity, propagation: Propagation) -> Self {
        self.capacity = capacity;
        self.propagation = propagation;
        self.refresh_plain()
    }

    /// Background load sharing the queue (net::background). Drop-tail
    /// only: validation refuses it with an AQM, whose state background
    /// arrivals would have to update.
    pub fn with_background(mut self, bg: Option<OnOff>) -> Self {
        debug_assert!(bg.is_none() || self.held.is_none());
        self.background = bg.map(Box::new);
        self.refresh_plain()
    }

    /// Put every background arrival up to `now` through the FIFO, in
    /// time order, as if each had been offered at its instant: it waits
    /// for `busy_until`, or is dropped if the limit is reached then. Exact
    /// for a FIFO decided at arrival, since nothing else reads the
    /// channel between two of the simulated packets' offers.
    fn inject(&mut self, now: SimTime) {
        let Some(bg) = self.background.as_deref_mut() else { return };
        let size = bg.params.packet;
        while let Some(t) = bg.pop_until(now) {
            self.stats.background_offered += 1;
            while let Some(&(start, bytes, _)) = self.pending.front() {
                if start > t {
                    break;
                }
                self.pending.pop_front();
                self.pending_bytes -= bytes as u64;
            }
            let start = self.busy_until.max(t);
            if start > t {
                if self.limit.full(self.pending.len(), self.pending_bytes, size) {
                    self.stats.background_drops += 1;
                    continue;
                }
                self.pending.push_back((start, size, true));
                self.pending_bytes += size as u64;
                self.stats.max_queue_len = self.stats.max_queue_len.max(self.pending.len() as u64);
            }
            let done = self.capacity.finish(start, size);
            self.stats.busy_ns += (done - start).as_nanos();
            self.busy_until = done;
        }
    }

    /// Extra per-packet delay after propagation (net::jitter).
    pub fn with_jitter(mut self, jitter: Jitter) -> Self {
        self.jitter = jitter;
        self.refresh_plain()
    }

    /// Whether an arrival is lost before the queue (`LossAt::Enqueue`,
    /// ns-2's `lossmodel`): counted as a link loss, it takes no link time.
    #[inline]
    pub(super) fn lost_on_arrival(&mut self, now: SimTime, size: u32) -> bool {
        let lost = self.loss_at == LossAt::Enqueue && self.loss.lose(now, size);
        self.stats.link_losses += lost as u64;
        lost
    }

    /// Use discipline `d`; `rng` is the queue's own stream (RED, PIE).
    pub fn with_discipline(mut self, d: &Discipline, rng: Rng) -> Self {
        let limit = self.limit;
        match d {
            Discipline::DropTail => {}
            Discipline::Red(p) => self.red = Some(Box::new(Red::new(p, self.rate_bps, self.delay, rng))),
            Discipline::CoDel(p) => {
                self.held = Some(Box::new(Held::CoDel(CoDelQueue { fifo: TimedFifo::default(), codel: CoDel::new(p) })))
            }
            Discipline::FqCoDel(p) => self.held = Some(Box::new(Held::FqCoDel(FqCoDel::new(p, limit)))),
            Discipline::Pie(p) => self.held = Some(Box::new(Held::Pie(PieQueue::new(p, limit, rng)))),
        }
        self.refresh_plain()
    }

    /// Record queue length and sojourn time series.
    pub fn with_series(mut self, on: bool) -> Self {
        self.series = on.then(Vec::new);
        self.refresh_plain()
    }

    #[inline]
    pub(super) fn record(&mut self, t: SimTime, name: &'static str, v: f64) {
        if let Some(s) = &mut self.series {
            s.push((t, name, v));
        }
    }

    /// Whether the channel holds packets (use `enqueue`/`dequeue`, not `offer`).
    #[inline]
    pub fn holds_packets(&self) -> bool {
        self.held.is_some()
    }

    /// Whether packets reach the far end in the order they left the queue:
    /// serialization ends never decrease, a falling delay schedule is
    /// clamped (`last_arrive`), and jitter keeps the order unless it is
    /// asked to reorder.
    pub fn keeps_order(&self) -> bool {
        !matches!(&self.jitter, Jitter::Random(j) if j.reorder)
    }

    /// The RED state, if the discipline is RED.
    pub fn red(&self) -> Option<&Red> {
        self.red.as_deref()
    }

    /// Forget packets that have started serializing by `now`: they are on
    /// the wire or gone, no longer waiting.
    fn purge(&mut self, now: SimTime) {
        while let Some(&(start, bytes, _)) = self.pending.front() {
            if start > now {
                break;
            }
            self.pending.pop_front();
            self.pending_bytes -= bytes as u64;
        }
    }

    /// Packets waiting at `now`, excluding the one on the wire.
    pub fn queue_len(&mut self, now: SimTime) -> usize {
        self.purge(now);
        self.pending.len()
    }

    /// Transmitter time within [0, `end`]. `busy_ns` adds a packet's whole
    /// serialization when it is accepted (a FIFO fixes its start then), so
    /// at the end of a run it also holds the backlog still to be sent and
    /// the rest of the packet on the wire. Every packet finishing after
    /// `end` was sent back to back from there (one starting later started
    /// at the previous one's finish), so the time past `end` is exactly
    /// `busy_until − end`. Utilization = this / end ≤ 1.
    pub fn busy_within(&self, end: SimTime) -> u64 {
        let past_end = self.busy_until.0.saturating_sub(end.0);
        self.stats.busy_ns.saturating_sub(past_end)
    }

    /// ∫ packets waiting dt over [0, `end`]: `queue_integral_ns` clipped
    /// at the end of the run, for `links.queue_mean`.
    ///
    /// A lazy FIFO adds a packet's whole wait, start of serialization −
    /// arrival, when it accepts it; a packet accepted by `end` whose
    /// serialization starts after `end` waited `start − end` of that after
    /// the run, which is taken off here (every arrival is at or before
    /// `end`: the run's clock ends no earlier than any offer, sim/world.rs
    /// `run`). Those packets are exactly the entries of `pending` starting
    /// after `end` (purging only drops entries that started by the time of
    /// an offer, ≤ `end`).
    ///
    /// A holding queue adds a packet's wait when it leaves the queue
    /// (dequeued or dropped), so a packet still held at `end` is missing
    /// from the sum; its part of the run, `end − enqueue`, is added here.
    ///
    /// Packets of the background load (net::background) are not counted,
    /// as in `queue_integral_ns` and the wait statistics.
    pub fn queue_integral_within(&self, end: SimTime) -> u128 {
        let after: u128 = self
            .pending
            .iter()
            .filter(|&&(start, _, background)| start > end && !background)
            .map(|&(start, _, _)| (start - end).as_nanos() as u128)
            .sum();
        let held: u128 = self.held.as_ref().map_or(0, |h| h.enqueued_at().map(|t| end.saturating_since(t).as_nanos() as u128).sum());
        self.stats.queue_integral_ns - after + held
    }

    /// Packets waiting in a holding queue.
    pub fn held_len(&self) -> usize {
        self.held.as_ref().map_or(0, |h| h.len())
    }

    /// Offer a packet to a drop-tail or RED queue (lazy FIFO). RED may
    /// mark it CE.
    #[inline]
    pub fn offer(&mut self, now: SimTime, pkt: &mut Packet) -> Offer {
        self.offer_parts(now, pkt.size, &mut pkt.ecn)
    }

    /// `offer` of a packet of `size` bytes with ECN field `ecn`, the only
    /// fields a lazy FIFO reads or writes (the world's voice routes carry
    /// no `Packet` until one is needed, sim/voice.rs).
    #[inline]
    pub fn offer_parts(&mut self, now: SimTime, size: u32, ecn: &mut Ecn) -> Offer {
        if self.plain {
            return self.offer_plain(now, size);
        }
        self.offer_general(now, size, ecn)
    }

    /// `offer_general` with every model switched off (`plain`): the same
    /// arithmetic in the same order, so the same results. Always inlined:
    /// a voice packet makes one offer a hop, and as a call its register
    /// saves cost ~10 instructions of its ~35 (callgrind); the endpoints'
    /// planned paths (sim/flow_path.rs) call it directly for the same
    /// reason. Only on a plain channel (`is_plain`).
    #[inline(always)]
    pub fn offer_plain(&mut self, now: SimTime, size: u32) -> Offer {
        match self.offer_uncounted(now, size) {
            Some(arrive) => {
                self.count_through(1, size as u64);
                Offer::Accepted { arrive, lost: false }
            }
            None => Offer::Dropped,
        }
    }

    /// Whether offers take `offer_plain` (drop-tail at a constant rate and
    /// delay, no loss, jitter or series): fixed once built.
    pub fn is_plain(&self) -> bool {
        self.plain
    }

    /// `offer_plain` on a plain channel, but an accepted packet is not
    /// counted (`offered`, `served`, `delivered`, `bytes_delivered`): the
    /// caller counts the packets that crossed it in bulk with
    /// `count_through` (a voice route, `sim/voice.rs`). A drop is counted
    /// here. `None`: dropped at the queue limit; otherwise the arrival at
    /// the far end.
    #[inline(always)]
    pub fn offer_uncounted(&mut self, now: SimTime, size: u32) -> Option<SimTime> {
        debug_assert!(self.plain);
        let start = if self.busy_until > now {
            self.purge(now);
            if self.limit.full(self.pending.len(), self.pending_bytes, size) {
                self.stats.offered += 1;
                self.stats.queue_drops += 1;
                return None;
            }
            self.pending.push_back((self.busy_until, size, false));
            self.pending_bytes += size as u64;
            self.stats.max_queue_len = self.stats.max_queue_len.max(self.pending.len() as u64);
            let wait = (self.busy_until - now).as_nanos();
            self.stats.queue_integral_ns += wait as u128;
            self.stats.wait_sum_ns += wait as u128;
            self.stats.wait_max_ns = self.stats.wait_max_ns.max(wait);
            self.busy_until
        } else {
            // Idle: every accepted packet has started by `busy_until`, so
            // `purge` would empty the list; no wait, so the wait sums and
            // maximum stay as they are (the usual case on an uncongested
            // link: no 128-bit additions of zero). `pending_bytes` is the
            // list's sum, so zero when it is empty.
            if !self.pending.is_empty() {
                self.pending.clear();
                self.pending_bytes = 0;
            }
            now
        };
        let tx = self.tx_time(size);
        let done = start + SimDuration(tx);
        self.busy_until = done;
        self.stats.busy_ns += tx;
        Some(done + self.delay)
    }

    /// `n` packets of `bytes` in all crossed this plain channel
    /// (`offer_uncounted`): offered, served and delivered.
    #[inline]
    pub fn count_through(&mut self, n: u64, bytes: u64) {
        self.stats.offered += n;
        self.stats.served += n;
        self.stats.delivered += n;
        self.stats.bytes_delivered += bytes;
    }

    /// Serialization time of `size` bytes at the constant rate.
    #[inline]
    fn tx_time(&mut self, size: u32) -> u64 {
        if self.tx_memo.0 != size {
            self.tx_memo_miss(size);
        }
        self.tx_memo.1
    }

    // Out of line: inlined, its multiplications were hoisted ahead of the
    // voice routes' loop and paid on every packet (`sim/voice.rs`).
    #[cold]
    #[inline(never)]
    fn tx_memo_miss(&mut self, size: u32) {
        self.tx_memo = (size, SimDuration::transmission(size, self.rate_bps).as_nanos());
    }

    /// Any lazy FIFO: loss before or on the wire, RED, schedules, jitter.
    fn offer_general(&mut self, now: SimTime, size: u32, ecn: &mut Ecn) -> Offer {
        debug_assert!(self.held.is_none());
        self.inject(now);
        self.stats.offered += 1;
        if self.lost_on_arrival(now, size) {
            return Offer::Lost;
        }
        self.purge(now);
        let start = self.busy_until.max(now);
        let mut mark = false;
        if let Some(red) = &mut self.red {
            let q = if red.in_bytes() { self.pending_bytes } else { self.pending.len() as u64 };
            let idle = (self.busy_until <= now).then(|| now - self.busy_until);
            let v = red.arrive(q, idle, size, *ecn != Ecn::NotEct);
            let avg = red.avg;
            self.record(now, "red_avg", avg);
            match v {
                Verdict::Drop => {
                    self.stats.aqm_drops += 1;
                    return Offer::Dropped;
                }
                Verdict::Mark => mark = true,
                Verdict::Enqueue => {}
            }
        }
        self.record(now, "queue", self.pending.len() as f64);
        if start > now {
            // It would wait: the limit applies (ns-2 DropTail semantics:
            // the limit counts waiting packets).
            if self.limit.full(self.pending.len(), self.pending_bytes, size) {
                self.stats.queue_drops += 1;
                if let Some(red) = &mut self.red {
                    red.forced_drop();
                }
                return Offer::Dropped;
            }
            self.pending.push_back((start, size, false));
            self.pending_bytes += size as u64;
            self.stats.max_queue_len = self.stats.max_queue_len.max(self.pending.len() as u64);
        }
        if mark {
            *ecn = Ecn::Ce;
            self.stats.ecn_marks += 1;
        }
        let wait = (start - now).as_nanos();
        self.stats.queue_integral_ns += wait as u128;
        self.record(now, "sojourn_ms", wait as f64 * 1e-6);
        self.transmit(start, wait, size)
    }

    /// Put a packet of `size` bytes on the wire at `start` after waiting
    /// `wait` ns: serialization, statistics, wire loss.
    pub(super) fn transmit(&mut self, start: SimTime, wait: u64, size: u32) -> Offer {
        let done = self.capacity.finish(start, size);
        let tx = done - start;
        self.busy_until = done;
        self.stats.served += 1;
        self.stats.wait_sum_ns += wait as u128;
        self.stats.wait_max_ns = self.stats.wait_max_ns.max(wait);
        self.stats.busy_ns += tx.as_nanos();
        let lost = self.loss_at == LossAt::Wire && self.loss.lose(done, size);
        if lost {
            self.stats.link_losses += 1;
            return Offer::Accepted { arrive: done + self.propagation.at(done), lost };
        }
        self.stats.delivered += 1;
        self.stats.bytes_delivered += size as u64;
        let mut arrive = done + self.propagation.at(done);
        if let Propagation::Steps(_) = self.propagation {
            // A delay that drops must not let a packet overtake the one before.
            arrive = arrive.max(self.last_arrive);
            self.last_arrive = arrive;
        }
        Offer::Accepted { arrive: self.jitter.apply(arrive), lost }
    }
}

#[cfg(test)]
#[path = "channel_tests.rs"]
mod tests;
