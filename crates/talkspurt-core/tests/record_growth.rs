//! Issue 14, target 3: what a long call holds while it runs. With the trace
//! off a call keeps 17 bytes a packet of records for scoring (plus 16 bytes
//! per 64 packets: a block's base time and the pointer to the block),
//! whatever its speech: the side maps for
//! values beyond the narrow slots (gaps over 4.29 s between packets of a
//! block, sends or arrivals later than that) stay near empty. A 24-hour
//! call therefore holds 4.32 M × 17.3 B ≈ 75 MB of records; they grow with
//! the call, they are not flat (see bench/README.md).
use talkspurt_core::scenario::{build, from_toml_str};

fn two_hour_call(speech: &str) -> (usize, usize) {
    let src = format!(
        "[run]\nduration = \"120min\"\ntrace = false\nseed = 7\n\
         [[links]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\ndelay = \"40ms\"\n\
         [[calls]]\nfrom = \"a\"\nto = \"b\"\ncodec = \"G.711\"\nspeech = {speech}\n"
    );
    let s = from_toml_str(&src).unwrap_or_else(|e| panic!("{e}"));
    let mut w = build(&s).expect("build");
    assert!(w.run(&mut |_| true));
    let rec = &w.calls[0].rec;
    (rec.len(), rec.heap_bytes())
}

#[test]
fn records_cost_17_bytes_a_packet() {
    // On/off calls reserve 10 % over their expected packets
    // (scenario::build): the bound allows that, not a vector's doubling.
    for (speech, slack) in [("{ model = \"continuous\" }", 1.0), ("{ model = \"exponential\", talk = \"1s\", silence = \"5s\" }", 1.15)] {
        let (n, bytes) = two_hour_call(speech);
        let per = bytes as f64 / n as f64;
        // Continuous: 360,000 packets; on/off speech about a sixth of that.
        assert!(n > 40_000, "{speech}: {n} packets");
        // 17 + 16/64 bytes, and at most one side-map entry (32 B) per 1000 packets.
        assert!(per <= (17.25 + 0.032) * slack + 1e-9, "{speech}: {per:.3} bytes a packet over {n} packets");
        println!("{speech}: {n} packets, {per:.3} bytes a packet");
    }
}
