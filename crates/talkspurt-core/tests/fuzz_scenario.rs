//! A short budget of the scenario reader's fuzzer (`examples/fuzz_scenario.rs`)
//! in CI: the generator's valid documents must stay valid as the validator
//! gains rules (issue 25: 174 of 300,000 generated documents at seed 4242
//! were rejected once start/stagger rules landed, and nobody noticed because
//! the example ran by hand only). The same code runs long budgets by hand.

#[allow(dead_code)]
#[path = "../examples/fuzz_scenario.rs"]
mod fuzz_scenario;

#[test]
fn fuzz_budget_has_no_problems() {
    // 3,000 cases × 3 seeds: 1.8 s for 4,500 in a debug build (.ci/run's
    // `cargo test`, measured on a loaded machine). Seed 4242 is the one that
    // exposed the start/stagger drift: 174 valid documents rejected in
    // 300,000 cases; the generator before the fix fails this test at its
    // case 1043 (measured).
    let cases = 3_000;
    std::panic::set_hook(Box::new(|_| {}));
    for seed in [4242u64, 0x5EED, 7] {
        let o = fuzz_scenario::fuzz(cases, seed);
        let pristine = o.counts.get("pristine").copied().unwrap_or(0);
        let accepted = o.counts.get("accepted").copied().unwrap_or(0);
        // About one case in eight is left unmutated (must be accepted).
        assert!(pristine > cases / 16, "seed {seed}: only {pristine} unmutated documents");
        assert!(accepted >= pristine, "seed {seed}: {accepted} accepted < {pristine} unmutated");
        assert!(o.problems.is_empty(), "seed {seed}: {} problems, first:\n{}", o.counts["problems"], o.problems.join("\n"));
    }
}
