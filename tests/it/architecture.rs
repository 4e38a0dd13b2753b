//! The house rules of the source tree, checked on the source itself (issue 11):
//! no import cycles between modules, thin command files, short functions.
//!
//! The module graph has one node per top-level module of `src/` (`core`, `cluster`, …) and one
//! per command file (`commands::explain`, …), so that commands importing each other count as a
//! cycle. An edge is any `crate::…` path (or `super::…` between command files) outside comments.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Functions allowed over the length limit, with the reason.
const LONG_FUNCTION_EXCEPTIONS: &[(&str, &str)] = &[
    // A literal table of apimachinery's parsing cases, one line per case.
    ("src/quantity.rs", "apimachinery_parse_table"),
];

const MAX_FUNCTION_LINES: usize = 100;
const MAX_COMMAND_LINES: usize = 150;

fn src_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut out);
    out.sort();
    out
}

fn relative(path: &Path) -> String {
    path.strip_prefix(env!("CARGO_MANIFEST_DIR"))
        .unwrap()
        .to_string_lossy()
        .replace('\\', "/")
}

/// The graph node a file belongs to.
fn node_of(rel: &str) -> Option<String> {
    let inner = rel.strip_prefix("src/")?.strip_suffix(".rs")?;
    let mut parts = inner.split('/');
    let top = parts.next()?;
    if matches!(top, "lib" | "main") {
        return None;
    }
    if top == "commands" {
        return match parts.next() {
            Some("mod") | None => None,
            Some(cmd) => Some(format!("commands::{cmd}")),
        };
    }
    Some(top.to_string())
}

/// The source without comments (line comments and doc comments).
fn code_of(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("//") {
            Some(i) if !l[..i].contains('"') => &l[..i],
            _ => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn ident_at(s: &str) -> &str {
    let end = s
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(s.len());
    &s[..end]
}

/// The modules a piece of code names through `crate::`.
fn references(code: &str, from_command: bool) -> BTreeSet<String> {
    let mut refs = BTreeSet::new();
    let mut add = |path: &str| {
        let first = ident_at(path);
        if first == "commands" {
            let rest = path[first.len()..].trim_start_matches("::");
            refs.insert(format!("commands::{}", ident_at(rest)));
        } else if !first.is_empty() {
            refs.insert(first.to_string());
        }
    };
    for (i, _) in code.match_indices("crate::") {
        let after = &code[i + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            for part in group.split(',') {
                add(part.trim());
            }
        } else {
            add(after);
        }
    }
    if from_command {
        for (i, _) in code.match_indices("super::") {
            let name = ident_at(&code[i + "super::".len()..]);
            if !name.is_empty() {
                refs.insert(format!("commands::{name}"));
            }
        }
    }
    refs
}

fn module_graph() -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for path in src_files() {
        let rel = relative(&path);
        let Some(node) = node_of(&rel) else { continue };
        let code = code_of(&std::fs::read_to_string(&path).unwrap());
        let refs = references(&code, node.starts_with("commands::"));
        let entry = graph.entry(node.clone()).or_default();
        entry.extend(refs.into_iter().filter(|r| *r != node));
    }
    // Names that are not modules (functions of lib.rs such as `crate::note_own_failure`).
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    for targets in graph.values_mut() {
        targets.retain(|t| modules.contains(t));
    }
    graph
}

/// Strongly connected components with more than one node (Tarjan).
fn cycles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        for w in s.graph.get(v).into_iter().flatten() {
            if !s.index.contains_key(w.as_str()) {
                visit(s, w);
                let lw = s.low[w.as_str()];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(lw);
            } else if s.stack.contains(&w.as_str()) {
                let iw = s.index[w.as_str()];
                let lv = s.low.get_mut(v).unwrap();
                *lv = (*lv).min(iw);
            }
        }
        if s.low[v] == s.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = s.stack.pop() {
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                s.found.push(comp);
            }
        }
    }
    let mut s = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !s.index.contains_key(v.as_str()) {
            visit(&mut s, v);
        }
    }
    s.found
}

#[test]
fn modules_have_no_import_cycles() {
    let graph = module_graph();
    let found = cycles(&graph);
    let described: Vec<String> = found
        .iter()
        .map(|comp| {
            let edges: Vec<String> = comp
                .iter()
                .map(|a| {
                    let inside: Vec<&str> = graph[a]
                        .iter()
                        .filter(|b| comp.contains(b))
                        .map(String::as_str)
                        .collect();
                    format!("{a} -> {}", inside.join(", "))
                })
                .collect();
            edges.join("; ")
        })
        .collect();
    assert!(
        described.is_empty(),
        "import cycles:\n{}",
        described.join("\n")
    );
}

#[test]
fn the_cycle_check_sees_a_cycle() {
    let mut graph = BTreeMap::new();
    let a = references("use crate::b::X;", false);
    let b = references("fn f() { crate::{a::Y, c}; }", false);
    graph.insert("a".to_string(), a);
    graph.insert("b".to_string(), b);
    graph.insert("c".to_string(), BTreeSet::new());
    assert_eq!(cycles(&graph), vec![vec!["a".to_string(), "b".to_string()]]);
    assert!(references("super::fleet::run()", true).contains("commands::fleet"));
    assert!(
        references("// crate::a", false).contains("a"),
        "raw text is not stripped here"
    );
    assert!(!references(&code_of("// crate::a"), false).contains("a"));
}

#[test]
fn command_files_are_thin() {
    let fat: Vec<String> = src_files()
        .iter()
        .map(|p| {
            (
                relative(p),
                std::fs::read_to_string(p).unwrap().lines().count(),
            )
        })
        .filter(|(rel, n)| rel.starts_with("src/commands/") && *n > MAX_COMMAND_LINES)
        .map(|(rel, n)| format!("{rel}: {n} lines"))
        .collect();
    assert!(
        fat.is_empty(),
        "command files over {MAX_COMMAND_LINES} lines: {fat:?}"
    );
}

/// `(file, name, lines)` of every function, found by its signature line and the closing
/// brace at the same indentation.
fn functions(rel: &str, text: &str) -> Vec<(String, String, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let indent = &line[..line.len() - trimmed.len()];
        let sig = [
            "pub(crate) ",
            "pub(super) ",
            "pub ",
            "async ",
            "const ",
            "unsafe ",
        ]
        .iter()
        .fold(trimmed, |s, p| s.strip_prefix(p).unwrap_or(s));
        let sig = sig.strip_prefix("async ").unwrap_or(sig);
        let Some(rest) = sig.strip_prefix("fn ") else {
            continue;
        };
        if line.trim_end().ends_with(';') {
            continue;
        }
        let name = ident_at(rest).to_string();
        let close = format!("{indent}}}");
        if let Some(end) = lines[i + 1..].iter().position(|l| l.trim_end() == close) {
            out.push((rel.to_string(), name, end + 2));
        }
    }
    out
}

#[test]
fn functions_are_short() {
    let mut long = Vec::new();
    for path in src_files() {
        let rel = relative(&path);
        let text = std::fs::read_to_string(&path).unwrap();
        for (file, name, n) in functions(&rel, &text) {
            let excepted = LONG_FUNCTION_EXCEPTIONS
                .iter()
                .any(|(f, fname)| *f == file && *fname == name);
            if n > MAX_FUNCTION_LINES && !excepted {
                long.push(format!("{file}: fn {name} is {n} lines"));
            }
        }
    }
    assert!(
        long.is_empty(),
        "functions over {MAX_FUNCTION_LINES} lines:\n{}",
        long.join("\n")
    );
}

#[test]
fn the_length_check_measures_a_function() {
    let text = "fn a() {\n    x();\n}\n    pub fn b() {\n    }\n";
    let found = functions("f.rs", text);
    assert_eq!(found[0], ("f.rs".to_string(), "a".to_string(), 3));
    assert_eq!(found[1].2, 2);
}
