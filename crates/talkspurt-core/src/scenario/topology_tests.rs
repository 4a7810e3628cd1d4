//! `[topology]` and `both_ways`: the expansion (names, order, keys) and
//! errors naming the keys as written.

use crate::scenario::model::*;
use crate::scenario::from_toml_str;

const RUN: &str = "[run]\nduration = \"10s\"\n";

fn parse(body: &str) -> Result<crate::scenario::Scenario, crate::scenario::ScenarioError> {
    from_toml_str(&format!("{RUN}{body}"))
}

fn ends(s: &crate::scenario::Scenario) -> Vec<(String, String)> {
    s.links.iter().map(|l| (l.a.clone(), l.b.clone())).collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
}

const CALL: &str = "[[calls]]\nfrom = \"a1\"\nto = \"b1\"\ncodec = \"G.711\"\n";

#[test]
fn dumbbell_expands_to_named_links_in_order() {
    let s = parse(&format!(
        "[topology]\nkind = \"dumbbell\"\npairs = 2\nbottleneck = {{ rate = \"1Mbps\", delay = \"20ms\", queue = {{ limit = \"30p\" }} }}\n\
         access = {{ delay = \"2ms\" }}\nright = {{ rate = \"10Mbps\" }}\n\
         [[links]]\nbetween = [\"b2\", \"server\"]\nrate = \"5Mbps\"\n{CALL}"
    ))
    .unwrap();
    assert_eq!(
        ends(&s),
        pairs(&[("r1", "r2"), ("a1", "r1"), ("a2", "r1"), ("r2", "b1"), ("r2", "b2"), ("b2", "server")])
    );
    let rate: Vec<u64> = s.links.iter().map(|l| l.forward.rate_bps).collect();
    assert_eq!(rate, [1_000_000, 100_000_000, 100_000_000, 10_000_000, 10_000_000, 5_000_000]);
    let delay: Vec<u64> = s.links.iter().map(|l| l.reverse.delay.as_nanos() / 1_000_000).collect();
    assert_eq!(delay, [20, 2, 2, 2, 2, 0]);
    assert_eq!(s.links[0].forward.queue, QueueCfg::DropTail { limit: QueueLimit::Packets(30), series: false });
    // The normalized scenario is the expansion: no [topology] left, and it
    // reads back to the same scenario.
    let j = crate::scenario::to_json(&s);
    assert!(j.get("topology").is_none());
    assert_eq!(crate::scenario::from_value(&j).unwrap(), s);
}

#[test]
fn parking_lot_has_hops_and_cross_hosts() {
    let s = parse(&format!(
        "[topology]\nkind = \"parking-lot\"\npairs = 1\nhops = 2\ncross_pairs = 2\n\
         bottleneck = {{ delay = \"10ms\" }}\nbottlenecks = [{{ rate = \"2Mbps\" }}, {{ rate = \"1Mbps\", delay = \"5ms\" }}]\n\
         right = {{ profile = \"wireless-per\" }}\ncross = {{ rate = \"50Mbps\" }}\n{CALL}"
    ))
    .unwrap();
    assert_eq!(
        ends(&s),
        pairs(&[
            ("r1", "r2"),
            ("r2", "r3"),
            ("a1", "r1"),
            ("r3", "b1"),
            ("x1_1", "r1"),
            ("r2", "y1_1"),
            ("x1_2", "r1"),
            ("r2", "y1_2"),
            ("x2_1", "r2"),
            ("r3", "y2_1"),
            ("x2_2", "r2"),
            ("r3", "y2_2"),
        ])
    );
    let rate: Vec<u64> = s.links.iter().map(|l| l.forward.rate_bps / 1000).collect();
    assert_eq!(rate, [2000, 1000, 100_000, 100_000, 50_000, 50_000, 50_000, 50_000, 50_000, 50_000, 50_000, 50_000]);
    assert_eq!(s.links[0].forward.delay.as_nanos(), 10_000_000);
    assert_eq!(s.links[1].forward.delay.as_nanos(), 5_000_000);
    // Seed 002's lossy access links to the sinks: 1 % both ways.
    assert_eq!(s.links[3].forward.loss, s.links[3].reverse.loss);
    assert!(matches!(s.links[3].forward.loss, LossCfg::Bernoulli { p, .. } if p == 0.01));
    assert_eq!(s.links[2].forward.loss, LossCfg::None);
}

#[test]
fn parking_lot_defaults_seed_002() {
    let s = parse(&format!("[topology]\nkind = \"parking-lot\"\npairs = 3\nbottleneck = {{ rate = \"1Mbps\" }}\n{CALL}")).unwrap();
    // Two hops, as many cross pairs per hop as access pairs.
    assert_eq!(s.links.len(), 2 + 3 + 3 + 2 * 3 * 2);
    assert_eq!(s.links[1].b, "r3");
}

#[test]
fn both_ways_mirrors_groups_and_labels_them() {
    let s = parse(
        "[topology]\nkind = \"dumbbell\"\npairs = 1\nbottleneck = { rate = \"256kbps\" }\n\
         [[calls]]\nfrom = \"a1\"\nto = \"b1\"\ncodec = \"G.711\"\nboth_ways = true\n\
         [[calls]]\nfrom = \"a1\"\nto = \"b1\"\ncodec = \"G.729\"\nlabel = \"g729\"\nboth_ways = true\n\
         [[calls]]\nfrom = \"b1\"\nto = \"a1\"\ncodec = \"G.711\"\n\
         [[traffic]]\nfrom = \"a1\"\nto = \"b1\"\nkind = \"cbr\"\nrate = \"32kbps\"\npacket = \"512B\"\nboth_ways = true\nlabel = \"cbr\"\n",
    )
    .unwrap();
    let g: Vec<(String, String, String)> = s
        .calls
        .iter()
        .map(|c| (c.label.clone().unwrap(), c.from.clone(), c.to.clone()))
        .collect();
    let want = [
        ("calls[0]", "a1", "b1"),
        ("calls[0]:reverse", "b1", "a1"),
        ("g729", "a1", "b1"),
        ("g729:reverse", "b1", "a1"),
        ("calls[2]", "b1", "a1"),
    ];
    assert_eq!(g, want.map(|(l, f, t)| (l.to_string(), f.to_string(), t.to_string())));
    assert_eq!(s.calls[3].codec, "G.729");
    let t: Vec<(&str, &str)> = s.traffic.iter().map(|t| (t.label.as_deref().unwrap(), t.from.as_str())).collect();
    assert_eq!(t, [("cbr", "a1"), ("cbr:reverse", "b1")]);
}

fn fails(body: &str) -> (String, String) {
    let e = parse(body).unwrap_err();
    (e.path, e.allowed)
}

#[test]
fn bad_topologies_name_their_keys() {
    let bn = "bottleneck = { rate = \"1Mbps\" }\n";
    let cases: &[(&str, &str, &str)] = &[
        ("kind = \"star\"\npairs = 1\n", "topology.kind", "parking-lot"),
        (&format!("kind = \"dumbbell\"\n{bn}"), "topology.pairs", "access pairs"),
        (&format!("kind = \"dumbbell\"\npairs = 0\n{bn}"), "topology.pairs", "from 1 to 1000"),
        (&format!("kind = \"dumbbell\"\npairs = 1\nhops = 2\n{bn}"), "topology.hops", "dumbbell"),
        ("kind = \"dumbbell\"\npairs = 1\n", "topology.bottleneck", "link keys"),
        (&format!("kind = \"dumbbell\"\npairs = 1\n{bn}access = {{ rate = \"fast\" }}\n"), "topology.access.rate", "unit"),
        (&format!("kind = \"dumbbell\"\npairs = 1\n{bn}left = {{ rate = \"fast\" }}\n"), "topology.left.rate", "unit"),
        (&format!("kind = \"dumbbell\"\npairs = 1\n{bn}right = {{ speed = 3 }}\n"), "topology.right.speed", "rate"),
        ("kind = \"dumbbell\"\npairs = 1\nbottleneck = { delay = \"1ms\" }\n", "topology.bottleneck.rate", "rate"),
        (&format!("kind = \"dumbbell\"\npairs = 1\n{bn}access = {{ between = [\"p\", \"q\"] }}\n"), "topology.access.between", "names the nodes"),
        (&format!("kind = \"parking-lot\"\npairs = 1\n{bn}bottlenecks = [{{ rate = \"1Mbps\" }}]\n"), "topology.bottlenecks", "2 tables"),
        ("kind = \"parking-lot\"\npairs = 1\nbottlenecks = [{ rate = \"1Mbps\" }, { delay = \"1ms\" }]\n", "topology.bottlenecks[1].rate", "rate"),
        (&format!("kind = \"parking-lot\"\npairs = 1\nhops = 17\n{bn}"), "topology.hops", "from 1 to 16"),
        (&format!("kind = \"parking-lot\"\npairs = 1\n{bn}cross = {{ loss = {{ kind = \"bernoulli\", p = 2 }} }}\n"), "topology.cross.loss.p", "probability"),
    ];
    for (t, path, allowed) in cases {
        let (p, a) = fails(&format!("[topology]\n{t}{CALL}"));
        assert_eq!(p, *path, "for {t:?}: {a}");
        assert!(a.contains(allowed), "for {t:?}: {a}");
    }
    // A call to a node the topology does not have lists the nodes it has.
    let (p, a) = fails(&format!("[topology]\nkind = \"dumbbell\"\npairs = 1\n{bn}[[calls]]\nfrom = \"a1\"\nto = \"b2\"\ncodec = \"G.711\"\n"));
    assert_eq!(p, "calls[0].to");
    assert!(a.contains("r1, r2, a1, b1"), "{a}");
}

#[test]
fn errors_after_a_doubled_group_name_the_written_group() {
    let net = "[[links]]\nbetween = [\"a\", \"b\"]\nrate = \"1Mbps\"\n";
    let two = "[[calls]]\nfrom = \"a\"\nto = \"b\"\ncodec = \"G.711\"\nboth_ways = true\n";
    let (p, _) = fails(&format!("{net}{two}[[calls]]\nfrom = \"a\"\nto = \"b\"\ncodec = \"G.7111\"\n"));
    assert_eq!(p, "calls[1].codec");
    // The mirror's `from` is the written `to`.
    let (p, _) = fails(&format!("{net}[[calls]]\nfrom = \"a\"\nto = \"c\"\ncodec = \"G.711\"\nboth_ways = true\n"));
    assert_eq!(p, "calls[0].to");
    let (p, a) = fails(&format!("{net}[[calls]]\nfrom = \"a\"\nto = \"b\"\ncodec = \"G.711\"\nboth_ways = \"yes\"\n"));
    assert_eq!((p.as_str(), a.as_str()), ("calls[0].both_ways", "true or false"));
    // A written link after the topology's keeps its written index.
    let (p, _) = fails(&format!(
        "[topology]\nkind = \"dumbbell\"\npairs = 1\nbottleneck = {{ rate = \"1Mbps\" }}\n\
         [[links]]\nbetween = [\"b1\", \"s\"]\nrate = \"1Mbps\"\n[[links]]\nbetween = [\"s\", \"t\"]\nrate = \"x\"\n{CALL}"
    ));
    assert_eq!(p, "links[1].rate");
}
