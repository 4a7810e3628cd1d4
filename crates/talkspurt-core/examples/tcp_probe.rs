//! Debug probe: one bulk TCP flow on the test dumbbell; prints the traffic row.
use talkspurt_core::scenario::from_toml_str;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let (cc, p, seed) = (&a[1], &a[2], &a[3]);
    let toml = format!(r#"
[run]
duration = "100s"
seed = {seed}
trace = false
series = {series}
[[links]]
between = ["s", "r1"]
rate = "100Mbps"
delay = "1ms"
queue = {{ kind = "droptail", limit = "1000p" }}
[[links]]
between = ["r1", "r2"]
rate = "10Mbps"
delay = "50ms"
queue = {{ kind = "droptail", limit = "100p" }}
forward = {{ loss = {{ kind = "bernoulli", p = {p} }} }}
[[links]]
between = ["r2", "d"]
rate = "100Mbps"
delay = "1ms"
queue = {{ kind = "droptail", limit = "1000p" }}
[[traffic]]
from = "s"
to = "d"
kind = "cbr"
rate = "1kbps"
packet = "100B"
"#, series = a.len() > 4);
    let mut s = from_toml_str(&toml).unwrap();
    s.traffic.clear();
    s.traffic.push(talkspurt_core::scenario::TrafficCfg {
        count: 1, from: "s".into(), to: "d".into(),
        kind: talkspurt_core::scenario::TrafficKind::Bulk { on_off: None },
        transport: talkspurt_core::scenario::TransportCfg::Tcp(talkspurt_core::transport::tcp::TcpConfig {
            cc: talkspurt_core::cc::CcAlgorithm::from_name(cc).unwrap(),
            initial_window: talkspurt_core::transport::tcp::InitialWindow::Segments(2), handshake: true,
            delayed_ack: false, min_rto: talkspurt_core::time::SimDuration::from_millis(200),
            granularity: talkspurt_core::time::SimDuration::from_millis(10), rcv_window: 14_600_000,
            ..Default::default() }),
        packet: talkspurt_core::traffic::SizeDist::Fixed { bytes: 1500 },
        start: talkspurt_core::scenario::StartCfg::Fixed(talkspurt_core::time::SimDuration::ZERO),
        stagger: talkspurt_core::time::SimDuration::ZERO, stop: None, label: None });
    s.analysis.interval = Some((talkspurt_core::time::SimDuration::from_secs(10), talkspurt_core::time::SimDuration::from_secs(100)));
    let out = talkspurt_core::run::run(&s, &mut |_| true).unwrap();
    let t = &out.report.traffic;
    for name in ["goodput_bps", "rtt_mean_ms", "rto_mean_ms"] { print!("{name}={:.1} ", t.f64(name)[0]); }
    for name in ["segments_sent", "retransmits", "fast_retransmits", "timeouts"] { print!("{name}={} ", t.i64(name)[0]); }
    println!();
    if a.len() > 4 {
        let se = &out.report.series;
        let names = match se.get("name") { Some(talkspurt_core::trace::Column::Str(v)) => v.clone(), _ => vec![] };
        let tt = se.f64("t"); let v = se.f64("value");
        for i in 0..names.len() { if names[i] == "cwnd" && tt[i] > 20.0 && tt[i] < 24.0 { println!("{:.4} {}", tt[i], v[i] / 1460.0); } }
    }
}
