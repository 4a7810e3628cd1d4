//! Loss decomposition by cause, after seed 003 §5.1 (Sarwar, Boreli &
//! Lochin): the sources of loss at the decoder input are
//!
//! 1. P_TP, between application and transport (the sender buffer was full);
//! 2. PER, on the link (errors and/or congestion: queue drops and random
//!    link loss);
//! 3. P_J, from jitter (arrived, but too late for the playout buffer).
//!
//! Every packet has exactly one fate, so as fractions of *generated* packets
//! the causes add up: sender + queue + link + in_flight + late = total =
//! 1 − played/generated. Seed 003 writes no equation combining them; read as
//! successive stages, each rate conditional on surviving the stage before,
//!
//! P_TP = sender/generated, PER = (queue + link + in_flight)/sent,
//! P_J = late/arrived, and 1 − (1 − P_TP)(1 − PER)(1 − P_J) = total exactly.
//!
//! Seed 003's Table 3 PLR ("include both the link losses PER and the
//! application-to-transport losses P_TP") is [`LossDecomposition::before_playout`].

use super::ratio;
use crate::playout::NOT_ARRIVED;
use crate::trace::record::NetFate;

/// Packets of one call by fate. `generated` = sum of the five fates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LossCounts {
    pub generated: u64,
    /// Dropped at the send buffer, never sent (P_TP).
    pub sender_drop: u64,
    /// Tail-dropped by a queue.
    pub queue_drop: u64,
    /// Lost by a link's loss model.
    pub link_loss: u64,
    /// Still in the network when the run ended (counted as network loss).
    pub in_flight: u64,
    /// Arrived but not played (late for the playout buffer, P_J).
    pub late: u64,
    /// Arrived and played.
    pub played: u64,
}

impl LossCounts {
    /// Packets handed to the network: generated − sender drops.
    pub fn sent(&self) -> u64 {
        self.generated - self.sender_drop
    }
    /// Packets that reached the receiving application: late + played.
    pub fn arrived(&self) -> u64 {
        self.late + self.played
    }
}

/// Counts fates from the network fate column and the playout column
/// (`NOT_ARRIVED` = not played). A packet is late when its fate is
/// `Arrived` and it was not played; any other fate wins over `played`
/// (as in the per-packet table's fate code). Panics on unequal lengths.
pub fn loss_counts(fate: &[NetFate], played: &[u64]) -> LossCounts {
    assert_eq!(
        fate.len(),
        played.len(),
        "fate and played columns differ in length"
    );
    let mut c = LossCounts {
        generated: fate.len() as u64,
        ..Default::default()
    };
    for (f, &p) in fate.iter().zip(played) {
        match f {
            NetFate::SenderDrop => c.sender_drop += 1,
            NetFate::QueueDrop => c.queue_drop += 1,
            NetFate::LinkLoss => c.link_loss += 1,
            NetFate::InFlight => c.in_flight += 1,
            NetFate::Arrived if p == NOT_ARRIVED => c.late += 1,
            NetFate::Arrived => c.played += 1,
        }
    }
    c
}

/// Loss fractions of one call. See the module documentation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LossDecomposition {
    /// sender_drop / generated (= P_TP).
    pub sender: f64,
    /// queue_drop / generated.
    pub queue: f64,
    /// link_loss / generated.
    pub link: f64,
    /// in_flight / generated.
    pub in_flight: f64,
    /// late / generated.
    pub late: f64,
    /// (sender + queue + link + in_flight) / generated: lost before the
    /// playout buffer, seed 003 Table 3's PLR.
    pub before_playout: f64,
    /// 1 − played / generated: every cause.
    pub total: f64,
    /// Stage rate P_TP = sender_drop / generated.
    pub p_tp: f64,
    /// Stage rate PER = (queue + link + in_flight) / sent; `None` if nothing was sent.
    pub per: Option<f64>,
    /// Stage rate P_J = late / arrived; `None` if nothing arrived.
    pub p_j: Option<f64>,
    /// 1 − (1 − P_TP)(1 − PER)(1 − P_J), an undefined stage counting as 0;
    /// equals `total` up to rounding.
    pub combined: f64,
}

/// Fractions and stage rates of `c`; `None` when nothing was generated.
pub fn loss_decomposition(c: &LossCounts) -> Option<LossDecomposition> {
    let g = c.generated;
    let f = |x: u64| ratio(x, g);
    let net = c.queue_drop + c.link_loss + c.in_flight;
    let p_tp = f(c.sender_drop)?;
    let per = ratio(net, c.sent());
    let p_j = ratio(c.late, c.arrived());
    Some(LossDecomposition {
        sender: p_tp,
        queue: f(c.queue_drop)?,
        link: f(c.link_loss)?,
        in_flight: f(c.in_flight)?,
        late: f(c.late)?,
        before_playout: f(c.sender_drop + net)?,
        total: 1.0 - f(c.played)?,
        p_tp,
        per,
        p_j,
        combined: 1.0 - (1.0 - p_tp) * (1.0 - per.unwrap_or(0.0)) * (1.0 - p_j.unwrap_or(0.0)),
    })
}

#[cfg(test)]
mod tests {
    use super::super::close;
    use super::*;
    use NetFate::*;

    const X: u64 = NOT_ARRIVED;

    #[test]
    fn counts_from_columns() {
        // Fates S Q L F A A A; played only for packets 4 and 6 → late 1 (pkt 5).
        let fate = [
            SenderDrop, QueueDrop, LinkLoss, InFlight, Arrived, Arrived, Arrived,
        ];
        let played = [X, X, X, X, 100, X, 300];
        let c = loss_counts(&fate, &played);
        assert_eq!(
            c,
            LossCounts {
                generated: 7,
                sender_drop: 1,
                queue_drop: 1,
                link_loss: 1,
                in_flight: 1,
                late: 1,
                played: 2
            }
        );
        assert_eq!((c.sent(), c.arrived()), (6, 3));
    }

    #[test]
    fn hand_computed_fractions() {
        // G = 20: sender 2, queue 3, link 1, in flight 1, late 3, played 10.
        // Fractions .10 .15 .05 .05 .15; before playout 7/20 = .35; total .5.
        // Stages: P_TP = 2/20; sent 18 → PER = 5/18; arrived 13 → P_J = 3/13;
        // 1 − 0.9 · (13/18) · (10/13) = 1 − 0.5 = 0.5 = total.
        let c = LossCounts {
            generated: 20,
            sender_drop: 2,
            queue_drop: 3,
            link_loss: 1,
            in_flight: 1,
            late: 3,
            played: 10,
        };
        let d = loss_decomposition(&c).unwrap();
        close(d.sender, 0.10, 1e-12);
        close(d.queue, 0.15, 1e-12);
        close(d.link, 0.05, 1e-12);
        close(d.in_flight, 0.05, 1e-12);
        close(d.late, 0.15, 1e-12);
        close(d.before_playout, 0.35, 1e-12);
        close(d.total, 0.5, 1e-12);
        close(d.p_tp, 0.1, 1e-12);
        close(d.per.unwrap(), 5.0 / 18.0, 1e-12);
        close(d.p_j.unwrap(), 3.0 / 13.0, 1e-12);
        close(d.combined, 0.5, 1e-12);
    }

    #[test]
    fn edge_cases() {
        assert_eq!(loss_decomposition(&LossCounts::default()), None);
        // No loss.
        let ok = loss_decomposition(&LossCounts {
            generated: 4,
            played: 4,
            ..Default::default()
        })
        .unwrap();
        assert_eq!(
            (ok.total, ok.combined, ok.per, ok.p_j),
            (0.0, 0.0, Some(0.0), Some(0.0))
        );
        // All dropped at the sender: PER and P_J undefined, total 1.
        let s = loss_decomposition(&LossCounts {
            generated: 3,
            sender_drop: 3,
            ..Default::default()
        })
        .unwrap();
        assert_eq!(
            (s.p_tp, s.per, s.p_j, s.total, s.combined),
            (1.0, None, None, 1.0, 1.0)
        );
        // All lost on the link: P_J undefined.
        let l = loss_decomposition(&LossCounts {
            generated: 2,
            link_loss: 2,
            ..Default::default()
        })
        .unwrap();
        assert_eq!(
            (l.per, l.p_j, l.total, l.combined),
            (Some(1.0), None, 1.0, 1.0)
        );
        // Everything late.
        let j = loss_decomposition(&LossCounts {
            generated: 2,
            late: 2,
            ..Default::default()
        })
        .unwrap();
        assert_eq!((j.p_j, j.before_playout, j.total), (Some(1.0), 0.0, 1.0));
        assert_eq!(loss_counts(&[], &[]), LossCounts::default());
    }
}
