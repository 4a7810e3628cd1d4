//! Which packets to capture (`run(..., capture=[...])`, `talkspurt run
//! --pcap DIR --capture SPEC`): specs resolved against the scenario into
//! the world's taps, each with its file name. docs/pcap.md.

use crate::scenario::{Scenario, ScenarioError};
use crate::sim::capture::Tap;

/// What a spec may be, for error messages.
pub const ALLOWED: &str = "\"calls\" (every call's receiver), \"call:N\", \"link:I\" (both directions), \
\"link:I:forward\", \"link:I:reverse\", or \"A>B\" (the link direction from node A to node B)";

/// Resolve capture specs; `key` names the option in errors (`capture`,
/// `--capture`), indexed per spec. `calls` is the run's number of calls.
pub fn taps(s: &Scenario, specs: &[String], calls: u32, key: &str) -> Result<Vec<(Tap, String)>, ScenarioError> {
    let mut out = Vec::new();
    for (i, spec) in specs.iter().enumerate() {
        let err = |allowed: String| ScenarioError::new(format!("{key}[{i}]"), format!("{spec:?}"), allowed);
        let link = |txt: &str| -> Result<usize, ScenarioError> {
            match txt.parse::<usize>() {
                Ok(l) if l < s.links.len() => Ok(l),
                _ => Err(err(format!("a link index from 0 to {} (the scenario has {} links)", s.links.len().saturating_sub(1), s.links.len()))),
            }
        };
        let parts: Vec<&str> = spec.trim().split(':').collect();
        match parts.as_slice() {
            ["calls"] => out.extend((0..calls).map(|c| (Tap::Receiver(c), format!("call{c}_receiver.pcap")))),
            ["call", n] => match n.parse::<u32>() {
                Ok(c) if c < calls => out.push((Tap::Receiver(c), format!("call{c}_receiver.pcap"))),
                _ => return Err(err(format!("a call index from 0 to {} (the run has {calls} calls)", calls.saturating_sub(1)))),
            },
            ["link", l] => {
                let l = link(l)?;
                out.push((Tap::Channel(2 * l as u32), format!("link{l}_forward.pcap")));
                out.push((Tap::Channel(2 * l as u32 + 1), format!("link{l}_reverse.pcap")));
            }
            ["link", l, d] => {
                let l = link(l)?;
                let rev = match *d {
                    "forward" => 0,
                    "reverse" => 1,
                    _ => return Err(err("direction \"forward\" or \"reverse\" after \"link:I:\"".into())),
                };
                out.push((Tap::Channel(2 * l as u32 + rev), format!("link{l}_{d}.pcap")));
            }
            [nodes] if nodes.contains('>') => {
                let (a, b) = nodes.split_once('>').expect("contains '>'");
                let (a, b) = (a.trim(), b.trim());
                let hit = s.links.iter().enumerate().find_map(|(l, k)| {
                    if k.a == a && k.b == b {
                        Some((l, 0, "forward"))
                    } else if k.a == b && k.b == a {
                        Some((l, 1, "reverse"))
                    } else {
                        None
                    }
                });
                let Some((l, rev, d)) = hit else {
                    let pairs: Vec<String> = s.links.iter().map(|k| format!("{}>{}", k.a, k.b)).collect();
                    return Err(err(format!("two nodes joined by a link, either way: {}", pairs.join(", "))));
                };
                out.push((Tap::Channel(2 * l as u32 + rev), format!("link{l}_{d}.pcap")));
            }
            _ => return Err(err(ALLOWED.into())),
        }
    }
    Ok(out)
}
