//! Per-packet quality impairments over time, after seed 000 (Balan, §5,
//! Figure 5.7, last subgraph): "The delay impairment is individual to each
//! packet (while all packets in the same talkspurt are played with the same
//! end-to-end delay) while the loss impairment is determined by computing a
//! running average over 100 packets."
//!
//! For packet i (generation order), with the simplified Cole–Rosenbluth
//! model of [`crate::quality::simplified`]:
//!
//! - delay d_i = offset_ms + (played_i − t_gen_i) in ms, played packets only;
//!   Id_i = Id(d_i);
//! - loss fraction e_i = (packets not played among the window) / (window
//!   size), the window being the **trailing** W packets i−W+1 ..= i (the
//!   current packet included); the first W−1 packets use the shorter window
//!   0 ..= i that exists; Ie_i = Ie(λ, e_i).
//!
//! `offset_ms` carries the delays outside playout − generation (ptime,
//! codec look-ahead), as in [`crate::quality`]'s callers.

use crate::playout::NOT_ARRIVED;
use crate::quality::{delay_impairment_simplified, loss_impairment_simplified};

/// Seed 000 Fig. 5.7's running window: 100 packets.
pub const DEFAULT_WINDOW_PACKETS: usize = 100;

/// Quality impairments at one packet.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowedPoint {
    /// Mouth-to-ear delay in ms; `None` if the packet was not played.
    pub delay_ms: Option<f64>,
    /// Delay impairment Id(delay_ms); `None` if not played.
    pub id: Option<f64>,
    /// Packets in the window (W, or i + 1 at the start).
    pub window: usize,
    /// Fraction of the window not played.
    pub loss_fraction: f64,
    /// Loss impairment Ie(λ, loss_fraction).
    pub ie: f64,
}

/// One [`WindowedPoint`] per packet. `window` is W (0 is taken as 1);
/// `lambda` the codec's [λ1, λ2, λ3] (e.g. `quality::LAMBDA_G729`). Panics
/// if `t_gen` and `played` differ in length.
pub fn windowed_impairments(
    t_gen: &[u64],
    played: &[u64],
    offset_ms: f64,
    lambda: [f64; 3],
    window: usize,
) -> Vec<WindowedPoint> {
    assert_eq!(
        t_gen.len(),
        played.len(),
        "t_gen and played columns differ in length"
    );
    let w = window.max(1);
    let mut lost_in_window = 0usize;
    let mut out = Vec::with_capacity(played.len());
    for i in 0..played.len() {
        if played[i] == NOT_ARRIVED {
            lost_in_window += 1;
        }
        if i >= w && played[i - w] == NOT_ARRIVED {
            lost_in_window -= 1;
        }
        let size = (i + 1).min(w);
        let e = lost_in_window as f64 / size as f64;
        let delay_ms = (played[i] != NOT_ARRIVED)
            .then(|| offset_ms + played[i].saturating_sub(t_gen[i]) as f64 * 1e-6);
        out.push(WindowedPoint {
            delay_ms,
            id: delay_ms.map(delay_impairment_simplified),
            window: size,
            loss_fraction: e,
            ie: loss_impairment_simplified(lambda, e),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::close;
    use super::*;
    use crate::quality::{LAMBDA_G711, LAMBDA_G729};

    const MS: u64 = 1_000_000;
    const X: u64 = NOT_ARRIVED;

    #[test]
    fn trailing_window_of_four() {
        // Played pattern P X P P X X P, W = 4, G.711 λ = [0, 30, 15]:
        // i:      0    1    2    3    4    5    6
        // window  1    2    3    4    4    4    4
        // lost    0    1    1    1    2    2    2   (trailing, current incl.)
        // e       0   1/2  1/3  1/4  1/2  1/2  1/2
        // Ie = 30·ln(1 + 15e): 0, 30 ln 8.5 = 64.20198, 30 ln 6 = 53.75278,
        //      30 ln 4.75 = 46.74434, 64.20198, 64.20198, 64.20198.
        let t_gen: Vec<u64> = (0..7).map(|i| i * 20 * MS).collect();
        let mut played = vec![X; 7];
        for i in [0, 2, 3] {
            played[i] = t_gen[i] + 100 * MS;
        }
        played[6] = t_gen[6] + 200 * MS;
        let pts = windowed_impairments(&t_gen, &played, 30.0, LAMBDA_G711, 4);
        let windows: Vec<usize> = pts.iter().map(|p| p.window).collect();
        assert_eq!(windows, vec![1, 2, 3, 4, 4, 4, 4]);
        let e = [0.0, 0.5, 1.0 / 3.0, 0.25, 0.5, 0.5, 0.5];
        let ie = [
            0.0, 64.20198, 53.75278, 46.74434, 64.20198, 64.20198, 64.20198,
        ];
        for i in 0..7 {
            close(pts[i].loss_fraction, e[i], 1e-12);
            close(pts[i].ie, ie[i], 1e-5);
        }
        // Delays: played at +100 ms with offset 30 → 130 ms → Id = 0.024·130 = 3.12;
        // packet 6 at +200 → 230 ms → 0.024·230 + 0.11·(230 − 177.3) = 11.317.
        close(pts[0].delay_ms.unwrap(), 130.0, 1e-9);
        close(pts[0].id.unwrap(), 3.12, 1e-9);
        close(pts[6].delay_ms.unwrap(), 230.0, 1e-9);
        close(pts[6].id.unwrap(), 11.317, 1e-9);
        assert_eq!((pts[1].delay_ms, pts[1].id), (None, None));
    }

    #[test]
    fn default_window_of_100() {
        // 150 packets, only packet 10 lost: e = 1/(i+1) for 10 ≤ i < 100,
        // 1/100 for 100 ≤ i ≤ 109, 0 from packet 110 (it left the window).
        let t_gen: Vec<u64> = (0..150).map(|i| i * 20 * MS).collect();
        let mut played: Vec<u64> = t_gen.iter().map(|t| t + 60 * MS).collect();
        played[10] = X;
        let pts = windowed_impairments(&t_gen, &played, 0.0, LAMBDA_G729, DEFAULT_WINDOW_PACKETS);
        close(pts[9].loss_fraction, 0.0, 0.0);
        close(pts[10].loss_fraction, 1.0 / 11.0, 1e-12);
        close(pts[99].loss_fraction, 0.01, 1e-12);
        close(pts[109].loss_fraction, 0.01, 1e-12);
        close(pts[110].loss_fraction, 0.0, 0.0);
        // G.729 at e = 0: Ie = λ1 = 10; at e = 0.01: 10 + 47.82·ln 1.18 = 17.91490.
        close(pts[110].ie, 10.0, 1e-12);
        close(pts[99].ie, 17.91490, 1e-5);
        assert_eq!(pts[149].window, 100);
    }

    #[test]
    fn edge_cases() {
        assert!(windowed_impairments(&[], &[], 0.0, LAMBDA_G711, 100).is_empty());
        // All lost: e = 1 everywhere, Ie = 30 ln 16 = 83.17766; no delays.
        let p = windowed_impairments(&[0, 1, 2], &[X, X, X], 0.0, LAMBDA_G711, 2);
        assert!(p.iter().all(|q| q.loss_fraction == 1.0 && q.id.is_none()));
        close(p[2].ie, 83.17766, 1e-5);
        // Window 0 is taken as 1: each point sees only itself.
        let p = windowed_impairments(&[0, 1], &[X, 5], 0.0, LAMBDA_G711, 0);
        assert_eq!(
            (p[0].loss_fraction, p[1].loss_fraction, p[1].window),
            (1.0, 0.0, 1)
        );
    }
}
