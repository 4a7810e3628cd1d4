//! The core's layers, enforced: a top-level module may use only modules
//! below it in `LAYERS` (and itself). Every `crate::<module>` path in the
//! code under `src/` counts — `use` items and paths in expressions, types
//! and macros — but not comments, doc comments or string literals.
//!
//! Not checked: `super::` chains (keep them inside their own module).
//! The rule and what each layer owns: docs/models/engine.md, "Layers".

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

/// The layers, bottom up. A module may reference only modules earlier in
/// this list, or itself. Names not (yet) in `src/` are allowed.
const LAYERS: &[&str] = &[
    "time",
    "rng",
    "sched",
    "net",
    "cc",
    "transport",
    "rtp",
    "voice",
    "traffic",
    "playout",
    "quality",
    "trace",
    "metrics",
    "score",
    "sim",
    "scenario",
    "rescore",
    "run",
];

/// The source with comments and the contents of string and char literals
/// blanked to spaces (newlines kept, so line numbers still hold).
fn code_only(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let blank = |out: &mut String, ch: char| out.push(if ch == '\n' { '\n' } else { ' ' });
    let ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut i = 0;
    while i < c.len() {
        let prev_ident = i > 0 && ident(c[i - 1]);
        if c[i] == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            // Block comments nest in Rust.
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    out.push_str("  ");
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    out.push_str("  ");
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
        } else if !prev_ident && (c[i] == 'r' || (c[i] == 'b' && c.get(i + 1) == Some(&'r'))) && {
            let mut j = i + if c[i] == 'b' { 2 } else { 1 };
            while c.get(j) == Some(&'#') {
                j += 1;
            }
            c.get(j) == Some(&'"')
        } {
            // Raw string: r"…", r#"…"#, br"…".
            let mut j = i + if c[i] == 'b' { 2 } else { 1 };
            let mut hashes = 0;
            while c[j] == '#' {
                hashes += 1;
                j += 1;
            }
            out.extend(std::iter::repeat_n(' ', j + 1 - i));
            i = j + 1;
            while i < c.len() {
                if c[i] == '"' && (1..=hashes).all(|k| c.get(i + k) == Some(&'#')) {
                    out.extend(std::iter::repeat_n(' ', hashes + 1));
                    i += hashes + 1;
                    break;
                }
                blank(&mut out, c[i]);
                i += 1;
            }
        } else if c[i] == '"' {
            out.push(' ');
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    blank(&mut out, c[i]);
                    i += 1;
                }
                if i < c.len() {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else if c[i] == '\'' && (c.get(i + 1) == Some(&'\\') || c.get(i + 2) == Some(&'\'')) {
            // A char literal ('x', '\n', '\u{..}'); a lone ' is a lifetime.
            out.push(' ');
            i += 1;
            while i < c.len() && c[i] != '\'' {
                if c[i] == '\\' {
                    out.push(' ');
                    i += 1;
                }
                if i < c.len() {
                    blank(&mut out, c[i]);
                    i += 1;
                }
            }
            out.push(' ');
            i += 1;
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// The top-level modules a file's code names through `crate::` (or
/// `$crate::`), with the 1-based line of each reference. `crate::{a, b::c}`
/// names `a` and `b`.
fn references(src: &str) -> Vec<(usize, String)> {
    let code = code_only(src);
    let mut refs = Vec::new();
    for (n, line) in code.lines().enumerate() {
        let mut rest = line;
        while let Some(k) = rest.find("crate::") {
            let before = rest[..k].chars().next_back();
            let after = &rest[k + "crate::".len()..];
            rest = after;
            if before.is_some_and(|b| b.is_alphanumeric() || b == '_') {
                continue; // e.g. `talkspurt_crate::`
            }
            let names: Vec<&str> = match after.strip_prefix('{') {
                Some(group) => {
                    // Top-level items of the group (nested braces skipped).
                    let mut depth = 0;
                    let mut items = vec![0];
                    let mut end = group.len();
                    for (p, ch) in group.char_indices() {
                        match ch {
                            '{' => depth += 1,
                            '}' if depth == 0 => {
                                end = p;
                                break;
                            }
                            '}' => depth -= 1,
                            ',' if depth == 0 => items.push(p + 1),
                            _ => {}
                        }
                    }
                    items.iter().map(|&s| &group[s..end]).collect()
                }
                None => vec![after],
            };
            for item in names {
                let name: String =
                    item.trim_start().chars().take_while(|&ch| ch.is_alphanumeric() || ch == '_').collect();
                if !name.is_empty() {
                    refs.push((n + 1, name));
                }
            }
        }
    }
    refs
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> =
        fs::read_dir(dir).expect("read src dir").map(|e| e.expect("dir entry").path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a file under `src/` belongs to (None for lib.rs).
fn module_of(rel: &Path) -> Option<String> {
    let first = rel.components().next()?.as_os_str().to_str()?.to_string();
    match first.strip_suffix(".rs") {
        Some("lib") => None,
        Some(m) => Some(m.to_string()),
        None => Some(first),
    }
}

fn layer(m: &str) -> Option<usize> {
    LAYERS.iter().position(|l| *l == m)
}

/// Every reference in `src` (the code of a file of module `m`) that breaks
/// the rule, as `line: crate::name (why)`.
fn violations(m: &str, src: &str) -> Vec<String> {
    let Some(own) = layer(m) else {
        return vec![format!("module `{m}` is not in LAYERS")];
    };
    let mut bad = Vec::new();
    for (line, name) in references(src) {
        match layer(&name) {
            None => bad.push(format!("{line}: crate::{name} (not a module in LAYERS)")),
            Some(l) if l > own => bad.push(format!("{line}: crate::{name} (layer {l} is above `{m}`, layer {own})")),
            Some(_) => {}
        }
    }
    bad
}

#[test]
fn no_module_reaches_upward() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rs_files(&src, &mut files);
    assert!(files.len() > 20, "found only {} files under {}", files.len(), src.display());
    let mut bad = Vec::new();
    let mut modules = BTreeSet::new();
    for f in &files {
        let rel = f.strip_prefix(&src).expect("under src");
        let text = fs::read_to_string(f).expect("read source");
        let Some(m) = module_of(rel) else {
            // lib.rs: every module it declares must have a layer.
            for (line, l) in code_only(&text).lines().enumerate() {
                if let Some(name) = l.trim().strip_prefix("pub mod ").or_else(|| l.trim().strip_prefix("mod ")) {
                    let name = name.trim_end_matches(';').trim();
                    if layer(name).is_none() {
                        bad.push(format!("lib.rs:{}: module `{name}` is not in LAYERS", line + 1));
                    }
                }
            }
            continue;
        };
        modules.insert(m.clone());
        bad.extend(violations(&m, &text).into_iter().map(|v| format!("{}:{v}", rel.display())));
    }
    assert!(modules.len() >= 10, "found only modules {modules:?}");
    assert!(bad.is_empty(), "layering broken (order, bottom up: {}):\n{}", LAYERS.join(", "), bad.join("\n"));
}

#[test]
fn scanner_sees_code_not_comments_or_strings() {
    let src = r##"
//! Uses [`crate::run`] in a doc comment: fine.
use crate::time::SimTime; // crate::run in a line comment: fine
/* crate::run /* nested crate::run */ still a comment: crate::run */
use crate::{playout, quality::{self, mean}};
fn f<'a>(x: &'a str) -> char {
    let _ = "crate::run in a string";
    let _ = r#"crate::run in a raw "string""#;
    let _ = '"'; let _ = '\''; let _ = crate::score::call_tables;
    '}'
}
"##;
    let names: Vec<(usize, String)> = references(src);
    let expected: Vec<(usize, String)> =
        [(3, "time"), (5, "playout"), (5, "quality"), (9, "score")].iter().map(|&(l, n)| (l, n.to_string())).collect();
    assert_eq!(names, expected);
    // From `trace`, `score` is upward, `time` and `playout` are not.
    assert_eq!(violations("trace", src).len(), 1, "{:?}", violations("trace", src));
    assert!(violations("run", src).is_empty());
    assert_eq!(violations("trace", "fn g() { crate::nowhere::f() }"), ["1: crate::nowhere (not a module in LAYERS)"]);
}
