//! Scheduled talkspurts (`speech = { model = "schedule" }`) through the
//! whole stack: what is sent follows the list frame for frame.
use talkspurt_core::run;
use talkspurt_core::scenario::from_toml_str;

const RUN: &str = "[run]\nduration = \"10s\"\n";
const LINK: &str = "[[links]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\n";
const CALL: &str = "[[calls]]\nfrom = \"a\"\nto = \"b\"\ncodec = \"G.711\"\n";

#[test]
fn a_run_follows_the_schedule() {
    // Through the whole stack: a late first talkspurt, a 1-frame talkspurt
    // (one packet of one frame), and one ending with the call. ptime 20 ms
    // on 10 ms frames: a talkspurt of 5 frames is sent as 2 + 2 + 1.
    let src = format!("{RUN}{LINK}{CALL}{}\n", "length = \"1s\"\nspeech = { model = \"schedule\", spurts = [[\"200ms\", \"250ms\"], [\"400ms\", \"410ms\"], [\"900ms\", \"1s\"]] }");
    let s = from_toml_str(&src.replace("[run]\n", "[run]\ntrace = true\n")).unwrap();
    let out = run::run(&s, &mut |_| true).unwrap();
    let p = out.report.packets.unwrap().table();
    let (tg, fr, ts) = (p.f64("t_generated"), p.u32("frames"), p.u32("talkspurt"));
    let t: Vec<(i64, u32, u32)> = (0..tg.len()).map(|i| ((tg[i] * 1000.0).round() as i64, fr[i], ts[i])).collect();
    assert_eq!(t, vec![(220, 2, 0), (240, 2, 0), (250, 1, 0), (410, 1, 1), (920, 2, 2), (940, 2, 2), (960, 2, 2), (980, 2, 2), (1000, 2, 2)]);
}
