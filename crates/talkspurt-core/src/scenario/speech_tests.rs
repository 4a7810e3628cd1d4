//! Scheduled talkspurts (`speech = { model = "schedule" }`): parsing, the
//! errors that name the bad talkspurt, and exactness of what is sent.
use super::tests::{check_all, ms, with};
use super::*;
use crate::rng::{Rng, StreamId};
use crate::scenario::{SpeechCfg, Spurt};
use crate::time::SimTime;
use crate::voice::{codec, SpeechModel, SpeechProcess, VoiceSource};

fn call(lines: &str) -> String {
    with("call", lines)
}

#[test]
fn schedule_parses_and_round_trips() {
    let s = from_toml_str(&call(r#"speech = { model = "schedule", spurts = [["100ms", "1s"], ["1.5s", "2s"]] }"#)).unwrap();
    let SpeechCfg::Schedule(sch) = &s.calls[0].speech else { panic!("{:?}", s.calls[0].speech) };
    assert_eq!(sch.for_call(0), &[Spurt(ms(100), ms(1000)), Spurt(ms(1500), ms(2000))]);
    assert_eq!(from_value(&to_json(&s)).unwrap(), s);
    let s = from_toml_str(&call("count = 2\nspeech = { model = \"schedule\", calls = [[[\"0s\", \"1s\"]], []] }")).unwrap();
    let SpeechCfg::Schedule(sch) = &s.calls[0].speech else { panic!() };
    assert_eq!((sch.for_call(0).len(), sch.for_call(1).len()), (1, 0));
    assert_eq!(from_value(&to_json(&s)).unwrap(), s);
}

#[test]
fn bad_schedules_name_the_talkspurt() {
    let sp = |v: &str| call(&format!("speech = {{ model = \"schedule\", spurts = {v} }}"));
    let cases = [
        // Overlapping, touching (no silence between) and out of order.
        (sp(r#"[["0s", "1s"], ["900ms", "2s"]]"#), "calls[0].speech.spurts[1][0]", "after the previous talkspurt's end (1s)"),
        (sp(r#"[["0s", "1s"], ["1s", "2s"]]"#), "calls[0].speech.spurts[1][0]", "a silence between them"),
        (sp(r#"[["2s", "3s"], ["0s", "1s"]]"#), "calls[0].speech.spurts[1][0]", "after the previous talkspurt's end"),
        // Empty or reversed, beyond the run (10 s) or the call's length.
        (sp(r#"[["1s", "1s"]]"#), "calls[0].speech.spurts[0][1]", "an end after the talkspurt's begin"),
        (sp(r#"[["2s", "1s"]]"#), "calls[0].speech.spurts[0][1]", "an end after"),
        (sp(r#"[["9s", "10010ms"]]"#), "calls[0].speech.spurts[0][1]", "within the call's length (10s"),
        (call("length = \"2s\"\nspeech = { model = \"schedule\", spurts = [[\"0s\", \"3s\"]] }"), "calls[0].speech.spurts[0][1]", "(2s"),
        // Off the frame clock: G.711's 10 ms frames, a bit-rate call's 128 ms interval.
        (sp(r#"[["15ms", "1s"]]"#), "calls[0].speech.spurts[0][0]", "a multiple of the call's frame (10ms)"),
        (sp(r#"[["0s", "1005ms"]]"#), "calls[0].speech.spurts[0][1]", "(10ms)"),
        (call("bitrate = { rate = \"32kbps\", packet = \"512B\" }\nspeech = { model = \"schedule\", spurts = [[\"0s\", \"1s\"]] }"),
         "calls[0].speech.spurts[0][1]", "(128ms)"),
        // One list per call; one of the two keys.
        (call("count = 3\nspeech = { model = \"schedule\", calls = [[], []] }"), "calls[0].speech.calls", "one list of talkspurts per call: 3"),
        (call("count = 2\nspeech = { model = \"schedule\", calls = [[], [[\"1s\", \"0s\"]]] }"), "calls[0].speech.calls[1][0][1]", "an end after"),
        (call("speech = { model = \"schedule\", spurts = [], calls = [[]] }"), "calls[0].speech.calls", "no calls with spurts"),
        (call("speech = { model = \"schedule\" }"), "calls[0].speech", "spurts = "),
        (sp(r#"[["0s", "1s", "2s"]]"#), "calls[0].speech.spurts[0]", ""),
        (sp(r#"[["0s", "one"]]"#), "calls[0].speech.spurts[0][1]", ""),
    ];
    check_all(&cases.iter().map(|(s, p, f)| (s.clone(), *p, *f)).collect::<Vec<_>>());
}

/// A random schedule in frames: talkspurts and silences of 1–60 frames.
fn random_schedule(rng: &mut Rng, frames: u64) -> Vec<(u64, u64)> {
    let mut out = Vec::new();
    let mut t = rng.below(5);
    while t < frames {
        let e = (t + 1 + rng.below(60)).min(frames);
        out.push((t, e));
        t = e + 1 + rng.below(60);
    }
    out
}

#[test]
fn packets_cover_exactly_the_scheduled_frames() {
    // Packets are sent only inside talkspurts, every scheduled frame is in
    // exactly one packet, packet bounds are frame-aligned, and a packet never
    // spans two talkspurts; for ptimes of 1–4 frames and random schedules.
    let c = codec::lookup("G.711").unwrap();
    let f = c.frame.as_nanos();
    for seed in 0..40u64 {
        let mut rng = Rng::stream(seed, 0, StreamId::new(1, 0));
        let total = 500;
        let sched = random_schedule(&mut rng, total);
        let k = 1 + (seed % 4) as u32;
        let start = SimTime(3 * f + seed * 1_000);
        let sp = SpeechProcess::new(SpeechModel::Schedule(sched.clone().into()), c.frame, rng.clone());
        let mut src = VoiceSource::new(c, k, start, start + c.frame.mul(total), true, sp);
        let mut covered = vec![false; total as usize];
        let mut last_spurt = None;
        while src.next_ready().is_some() {
            let p = src.emit();
            let end = (p.t_gen.0 - start.0) / f;
            assert_eq!((p.t_gen.0 - start.0) % f, 0, "seed {seed}: packet end off the frame clock");
            let begin = end - p.frames as u64;
            assert!(p.frames >= 1 && p.frames <= k, "seed {seed}: {p:?}");
            let spurt = sched.iter().position(|&(b, e)| b <= begin && end <= e);
            let spurt = spurt.unwrap_or_else(|| panic!("seed {seed}: packet frames [{begin}, {end}) outside every talkspurt"));
            // Talkspurt ids count the schedule's talkspurts.
            assert_eq!(p.talkspurt as usize, spurt, "seed {seed}");
            assert!(last_spurt.map_or(true, |l| l <= spurt), "seed {seed}");
            last_spurt = Some(spurt);
            for i in begin..end {
                assert!(!covered[i as usize], "seed {seed}: frame {i} sent twice");
                covered[i as usize] = true;
            }
        }
        let want: Vec<bool> = (0..total).map(|i| sched.iter().any(|&(b, e)| b <= i && i < e)).collect();
        assert_eq!(covered, want, "seed {seed}: sent frames differ from the schedule {sched:?}");
    }
}
