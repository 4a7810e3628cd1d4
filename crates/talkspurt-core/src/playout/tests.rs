//! Tests of the playout module's shared types and functions (`mod.rs`).

use super::testutil::*;
use super::*;

#[test]
fn validate_rejects_bad_traces() {
    let ts = [0u32, 0, 1];
    let tg = [0u64, 10, 20];
    let ta = [5u64, NOT_ARRIVED, 25];
    assert!(CallTrace { talkspurt: &ts, t_gen: &tg, t_arr: &ta }.validate().is_ok());
    let bad_ts = [0u32, 1, 0];
    assert_eq!(
        CallTrace { talkspurt: &bad_ts, t_gen: &tg, t_arr: &ta }.validate(),
        Err(PlayoutError::TalkspurtDecreasing { index: 2 })
    );
    let bad_tg = [0u64, 10, 10];
    assert_eq!(
        CallTrace { talkspurt: &ts, t_gen: &bad_tg, t_arr: &ta }.validate(),
        Err(PlayoutError::GenerationNotIncreasing { index: 2 })
    );
    let bad_ta = [5u64, 9, 25];
    assert_eq!(
        CallTrace { talkspurt: &ts, t_gen: &tg, t_arr: &bad_ta }.validate(),
        Err(PlayoutError::ArrivalBeforeGeneration { index: 1 })
    );
    assert!(matches!(
        CallTrace { talkspurt: &ts[..2], t_gen: &tg, t_arr: &ta }.validate(),
        Err(PlayoutError::LengthMismatch { .. })
    ));
}

#[test]
fn names_round_trip() {
    for name in PlayoutKind::NAMES {
        assert_eq!(PlayoutKind::from_name(name).unwrap().name(), name);
    }
    assert!(PlayoutKind::from_name("adaptive").is_none());
}

#[test]
fn runs_split_on_id_change() {
    let ts = [3u32, 3, 5, 5, 5, 9];
    let tg = [0u64, 1, 2, 3, 4, 5];
    let ta = [NOT_ARRIVED; 6];
    let t = CallTrace { talkspurt: &ts, t_gen: &tg, t_arr: &ta };
    let r = t.runs();
    assert_eq!(r.len(), 3);
    assert_eq!((r[1].id, r[1].start, r[1].end), (5, 2, 5));
}

/// The streaming replay (`PlayoutKind::online`, fed arrivals in
/// arrival order, ties by sequence number) decides as the offline one
/// for every buffer, on random traces with whole talkspurts lost.
#[test]
fn online_replay_equals_the_offline_one() {
    for case in 0..300u64 {
        let seed = 0x0a11_0000 + case;
        let owned = random_trace(seed, 8, 10);
        let t = owned.trace();
        let mut run_of = Vec::with_capacity(t.len());
        for i in 0..t.len() {
            let k = if i == 0 { 0 } else { run_of[i - 1] + (t.talkspurt[i] != t.talkspurt[i - 1]) as usize };
            run_of.push(k);
        }
        let mut order: Vec<usize> = (0..t.len()).filter(|&i| t.t_arr[i] != NOT_ARRIVED).collect();
        order.sort_by_key(|&i| (t.t_arr[i], i));
        for name in PlayoutKind::NAMES {
            let mut kind = PlayoutKind::from_name(name).unwrap();
            if let PlayoutKind::FixedDepth(d) = &mut kind {
                d.ptime = Some(infer_ptime_of(&t));
            }
            let offline = kind.playout(&t);
            let mut online = kind.online();
            let mut streamed = vec![NOT_ARRIVED; t.len()];
            for &i in &order {
                let at = t.t_gen[i].saturating_add(online.arrive(run_of[i], t.t_arr[i] - t.t_gen[i]));
                if t.t_arr[i] <= at {
                    streamed[i] = at;
                }
            }
            assert_eq!(streamed, offline, "seed {seed} {name}");
        }
    }
}

fn infer_ptime_of(t: &CallTrace<'_>) -> u64 {
    online::infer_ptime(t)
}

/// Every online buffer only plays arrived packets, never before arrival,
/// and with one offset per talkspurt.
#[test]
fn online_buffers_are_well_formed() {
    for case in 0..200u64 {
        let seed = 0x5eed_0000 + case;
        let owned = random_trace(seed, 6, 12);
        let t = owned.trace();
        for name in PlayoutKind::NAMES {
            let p = PlayoutKind::from_name(name).unwrap().playout(&t);
            assert_eq!(p.len(), t.len());
            let mut offset: Option<(u32, u64)> = None;
            for (i, &pi) in p.iter().enumerate() {
                if pi == NOT_ARRIVED {
                    continue;
                }
                assert!(t.t_arr[i] != NOT_ARRIVED, "seed {seed} {name}: played a lost packet");
                assert!(pi >= t.t_arr[i], "seed {seed} {name}: played before arrival");
                let off = pi - t.t_gen[i];
                match offset {
                    Some((k, o)) if k == t.talkspurt[i] => {
                        assert_eq!(o, off, "seed {seed} {name}: two offsets in a talkspurt")
                    }
                    _ => offset = Some((t.talkspurt[i], off)),
                }
            }
        }
    }
}
