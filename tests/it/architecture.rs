//! The house rules of the source tree, checked on the source itself (issues 11 and 26):
//! no import cycles between modules, nor between the files of one folder; every module in its
//! layer of ARCHITECTURE.md, using only the layers below it; thin command files; short
//! functions; files that fit in one head.
//!
//! The module graph has one node per top-level module of `src/` (`core`, `cluster`, …) and one
//! per command file (`commands::explain`, …), so that commands importing each other count as a
//! cycle. An edge is any `crate::…` path (or `super::…` between command files) outside comments.
//!
//! The file graph has one node per file of a folder (the folder's own `mod.rs` aside: it is the
//! folder's front, not a sibling). An edge is a path to a sibling file: `super::x`,
//! `crate::folder::x`, or an item the folder's `mod.rs` re-exports by name from `x`
//! (`pub use x::{Item}`; glob re-exports are not followed). Code in `#[cfg(test)]` modules, and
//! files that are `#[cfg(test)] mod x;`, are left out of both the file graph and the file budget.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Functions allowed over the length limit, with the reason.
const LONG_FUNCTION_EXCEPTIONS: &[(&str, &str)] = &[
    // A literal table of apimachinery's parsing cases, one line per case.
    ("src/quantity.rs", "apimachinery_parse_table"),
];

/// Files allowed over the file budget, with the reason. An exception that is no longer needed
/// fails the test, so the list stays honest: drop it when the file is split.
const FILE_BUDGET_EXCEPTIONS: &[(&str, &str)] = &[];

/// Cycles between the files of one folder that exist today, with the reason. A cycle found is
/// allowed when all its files are in one exception (so breaking part of a cycle passes); an
/// exception that no longer matches a cycle fails the test: drop it.
const CYCLE_EXCEPTIONS: &[(&[&str], &str)] = &[];

const MAX_FUNCTION_LINES: usize = 100;
const MAX_COMMAND_LINES: usize = 150;
/// Code lines (non-blank, non-comment, outside `#[cfg(test)]` modules) per source file.
const MAX_FILE_CODE_LINES: usize = 800;

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

/// Every source file as `(src/…, text)`.
fn sources() -> Vec<(String, String)> {
    src_files()
        .iter()
        .map(|p| (relative(p), std::fs::read_to_string(p).unwrap()))
        .collect()
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
    module_graph_of(&sources())
}

fn module_graph_of(files: &[(String, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (rel, text) in files {
        let Some(node) = node_of(rel) else { continue };
        let code = code_of(text);
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

// ---- The file budget -------------------------------------------------------------------------

/// The text with the lines of every `#[cfg(test)] mod x { … }` blanked (so line numbers stay),
/// and the names of the `#[cfg(test)] mod x;` files it declares.
fn without_test_modules(text: &str) -> (String, Vec<String>) {
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<&str> = Vec::with_capacity(lines.len());
    let mut test_files = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() == "#[cfg(test)]" {
            let mut j = i + 1;
            while j < lines.len() && lines[j].trim_start().starts_with("#[") {
                j += 1;
            }
            let line = lines.get(j).copied().unwrap_or("");
            let trimmed = line.trim_start();
            let indent = &line[..line.len() - trimmed.len()];
            let decl = ["pub(crate) ", "pub(super) ", "pub "]
                .iter()
                .fold(trimmed, |s, p| s.strip_prefix(p).unwrap_or(s));
            if let Some(rest) = decl.strip_prefix("mod ") {
                let name = ident_at(rest);
                let end = match rest[name.len()..].trim() {
                    ";" => {
                        test_files.push(name.to_string());
                        Some(j + 1)
                    }
                    "{" => {
                        let close = format!("{indent}}}");
                        let found = lines[j + 1..].iter().position(|l| l.trim_end() == close);
                        Some(found.map_or(lines.len(), |e| j + e + 2))
                    }
                    _ => None,
                };
                if let Some(end) = end {
                    out.extend(std::iter::repeat_n("", end - i));
                    i = end;
                    continue;
                }
            }
        }
        out.push(lines[i]);
        i += 1;
    }
    (out.join("\n"), test_files)
}

/// Non-blank, non-comment lines outside `#[cfg(test)]` modules.
fn code_lines(text: &str) -> usize {
    without_test_modules(text)
        .0
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .count()
}

/// The files (and folders, ending in `/`) that only exist under `#[cfg(test)]`.
fn test_only_paths(files: &[(String, String)]) -> Vec<String> {
    let mut out = Vec::new();
    for (rel, text) in files {
        let (dir, stem) = rel.rsplit_once('/').unwrap_or(("", rel));
        let stem = stem.trim_end_matches(".rs");
        let module_dir = if matches!(stem, "mod" | "lib" | "main") {
            dir.to_string()
        } else {
            format!("{dir}/{stem}")
        };
        for name in without_test_modules(text).1 {
            out.push(format!("{module_dir}/{name}.rs"));
            out.push(format!("{module_dir}/{name}/"));
        }
    }
    out
}

fn is_test_only(rel: &str, test_only: &[String]) -> bool {
    test_only
        .iter()
        .any(|p| rel == p || (p.ends_with('/') && rel.starts_with(p.as_str())))
}

/// `file: N code lines` for every file over the budget and not excepted, and a line for every
/// exception that is no longer needed.
fn budget_violations(files: &[(String, String)], exceptions: &[(&str, &str)]) -> Vec<String> {
    let test_only = test_only_paths(files);
    let mut out = Vec::new();
    let mut over = BTreeSet::new();
    for (rel, text) in files {
        if is_test_only(rel, &test_only) {
            continue;
        }
        let n = code_lines(text);
        if n > MAX_FILE_CODE_LINES {
            over.insert(rel.as_str());
            if !exceptions.iter().any(|(f, _)| f == rel) {
                out.push(format!("{rel}: {n} code lines"));
            }
        }
    }
    for (file, reason) in exceptions {
        if !over.contains(file) {
            out.push(format!(
                "{file} is within the budget now (or gone): drop its exception ({reason})"
            ));
        }
    }
    out
}

#[test]
fn files_fit_the_budget() {
    let found = budget_violations(&sources(), FILE_BUDGET_EXCEPTIONS);
    assert!(
        found.is_empty(),
        "files over {MAX_FILE_CODE_LINES} code lines (non-blank, non-comment, outside \
         #[cfg(test)] modules; split them along the code's own seams, see ARCHITECTURE.md):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_budget_check_catches_a_long_file() {
    let code = "let x = 1;\n".repeat(MAX_FILE_CODE_LINES);
    let padding = "\n// a comment\n   \n/// a doc comment\n";
    let tests = "#[cfg(test)]\nmod tests {\n    fn t() {}\n}\n";
    let at_budget = format!("{code}{padding}{tests}");
    assert_eq!(code_lines(&at_budget), MAX_FILE_CODE_LINES);
    let over = format!("{code}fn one_more() {{}}\n{tests}");
    let files = vec![
        ("src/ok.rs".to_string(), at_budget.clone()),
        ("src/long.rs".to_string(), over.clone()),
        (
            "src/a/mod.rs".to_string(),
            "#[cfg(test)]\nmod tests;\n".into(),
        ),
        ("src/a/tests.rs".to_string(), over.clone()),
        ("src/a/tests/deep.rs".to_string(), over.clone()),
    ];
    assert_eq!(
        budget_violations(&files, &[]),
        vec![format!(
            "src/long.rs: {} code lines",
            MAX_FILE_CODE_LINES + 1
        )]
    );
    assert!(budget_violations(&files, &[("src/long.rs", "why")]).is_empty());
    let stale = budget_violations(&files, &[("src/long.rs", "why"), ("src/ok.rs", "why")]);
    assert_eq!(stale.len(), 1);
    assert!(stale[0].starts_with("src/ok.rs is within the budget now"));
}

// ---- Cycles between the files of one folder -------------------------------------------------

/// The folder of a file and its name there (`("src/core", "calc")`); `None` for a folder's
/// front (`mod.rs`) and for the top-level files, whose graph is the module graph.
fn place(rel: &str) -> Option<(&str, &str)> {
    let (dir, file) = rel.rsplit_once('/')?;
    let stem = file.strip_suffix(".rs")?;
    (dir != "src" && stem != "mod").then_some((dir, stem))
}

/// The parts of a `{a, b::{c, d}, e}` group, split at its top-level commas.
fn group_parts(group: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                parts.push(&group[start..i]);
                return parts;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&group[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&group[start..]);
    parts
}

/// The first names of the paths that follow `prefix` in `code` (`super::{a, b::C}` → a, b).
fn names_after<'a>(code: &'a str, prefix: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    for (i, _) in code.match_indices(prefix) {
        let before = code[..i].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let after = &code[i + prefix.len()..];
        match after.strip_prefix('{') {
            Some(group) => out.extend(group_parts(group).into_iter().map(|p| ident_at(p.trim()))),
            None => out.push(ident_at(after)),
        }
    }
    out
}

/// The items a folder's front re-exports by name, and the file each comes from.
fn reexports(front: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (i, _) in front.match_indices("use ") {
        let before = front[..i].trim_end();
        if !(before.ends_with("pub") || before.ends_with(')')) {
            continue;
        }
        let path = &front[i + 4..];
        let path = &path[..path.find(';').unwrap_or(path.len())];
        let path = path.trim().trim_start_matches("self::");
        let file = ident_at(path);
        let Some(items) = path[file.len()..].strip_prefix("::") else {
            continue;
        };
        let items = match items.strip_prefix('{') {
            Some(group) => group_parts(group),
            None => vec![items],
        };
        for item in items {
            let name = item.trim().rsplit([' ', ':']).next().unwrap_or("");
            if !name.is_empty() && name != "*" {
                out.insert(name.to_string(), file.to_string());
            }
        }
    }
    out
}

/// One node per file of a folder (`src/core/calc.rs`), an edge to each sibling file it uses.
fn file_graph(files: &[(String, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let test_only = test_only_paths(files);
    let live: Vec<&(String, String)> = files
        .iter()
        .filter(|(rel, _)| !is_test_only(rel, &test_only))
        .collect();
    let mut graph = BTreeMap::new();
    for (rel, text) in &live {
        let Some((dir, stem)) = place(rel) else {
            continue;
        };
        let siblings: BTreeSet<&str> = live
            .iter()
            .filter_map(|(r, _)| place(r))
            .filter(|(d, _)| *d == dir)
            .map(|(_, s)| s)
            .collect();
        let front = live
            .iter()
            .find(|(r, _)| *r == format!("{dir}/mod.rs") || *r == format!("{dir}.rs"))
            .map(|(_, t)| reexports(&code_of(&without_test_modules(t).0)))
            .unwrap_or_default();
        let code = code_of(&without_test_modules(text).0);
        let folder_path = format!("crate::{}::", dir["src/".len()..].replace('/', "::"));
        let mut edges = BTreeSet::new();
        for name in names_after(&code, "super::")
            .into_iter()
            .chain(names_after(&code, &folder_path))
        {
            let target = if siblings.contains(name) {
                Some(name)
            } else {
                front.get(name).map(String::as_str)
            };
            if let Some(target) = target.filter(|t| *t != stem && siblings.contains(t)) {
                edges.insert(format!("{dir}/{target}.rs"));
            }
        }
        graph.insert(rel.to_string(), edges);
    }
    graph
}

/// Every file cycle not inside one exception, and every exception no cycle needs.
fn file_cycle_violations(
    files: &[(String, String)],
    exceptions: &[(&[&str], &str)],
) -> Vec<String> {
    let graph = file_graph(files);
    let found = cycles(&graph);
    let mut out = Vec::new();
    for comp in &found {
        let excepted = exceptions
            .iter()
            .any(|(names, _)| comp.iter().all(|f| names.contains(&f.as_str())));
        if !excepted {
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
            out.push(edges.join("; "));
        }
    }
    for (names, reason) in exceptions {
        if !found
            .iter()
            .any(|comp| comp.iter().any(|f| names.contains(&f.as_str())))
        {
            out.push(format!(
                "no cycle among {} any more: drop its exception ({reason})",
                names.join(", ")
            ));
        }
    }
    out
}

#[test]
fn files_of_a_folder_have_no_import_cycles() {
    let found = file_cycle_violations(&sources(), CYCLE_EXCEPTIONS);
    assert!(
        found.is_empty(),
        "import cycles between the files of a folder (move what both use into a third file, \
         or merge them):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_file_cycle_check_catches_a_cycle() {
    let file = |rel: &str, text: &str| (rel.to_string(), text.to_string());
    let front = "mod a;\nmod b;\nmod c;\npub use c::{Cee, other::Deep as D};\n";
    let planted = vec![
        file("src/x/mod.rs", front),
        file(
            "src/x/a.rs",
            "use super::b::Bee;\n// super::c in a comment\n",
        ),
        file("src/x/b.rs", "fn f() { crate::x::{a::Ay, c}; }\n"),
        file("src/x/c.rs", "use super::super::a;\n"),
        file("src/y/d.rs", "use crate::x::a::Ay;\n"),
    ];
    let graph = file_graph(&planted);
    assert_eq!(
        graph["src/x/a.rs"],
        BTreeSet::from(["src/x/b.rs".to_string()])
    );
    assert!(
        graph["src/x/c.rs"].is_empty(),
        "super::super is another folder"
    );
    assert!(graph["src/y/d.rs"].is_empty(), "another folder");
    let found = file_cycle_violations(&planted, &[]);
    assert_eq!(
        found,
        vec!["src/x/a.rs -> src/x/b.rs; src/x/b.rs -> src/x/a.rs"]
    );
    assert!(file_cycle_violations(&planted, &[(&["src/x/a.rs", "src/x/b.rs"], "why")]).is_empty());
    // Through an item the front re-exports from c, and in a test module (not counted).
    let mut via_front = planted.clone();
    via_front[3] = file("src/x/c.rs", "use super::D;\nfn g(_: super::Cee) {}\n");
    via_front.push(file("src/x/e.rs", "use super::Cee;\n"));
    via_front[1] = file(
        "src/x/a.rs",
        "#[cfg(test)]\nmod tests {\n    use super::super::b;\n}\n",
    );
    let found = file_cycle_violations(&via_front, &[]);
    assert!(found.is_empty(), "{found:?}");
    via_front[3] = file("src/x/c.rs", "use super::e;\n");
    let found = file_cycle_violations(&via_front, &[]);
    assert_eq!(
        found,
        vec!["src/x/c.rs -> src/x/e.rs; src/x/e.rs -> src/x/c.rs"]
    );
    let stale = file_cycle_violations(
        &planted,
        &[(&["src/x/a.rs", "src/x/b.rs"], "w"), (&["src/y/d.rs"], "w")],
    );
    assert_eq!(stale.len(), 1);
    assert!(stale[0].starts_with("no cycle among src/y/d.rs"));
}

// ---- The layer order ------------------------------------------------------------------------

/// The layers of ARCHITECTURE.md's fenced `layers` block, top to bottom: each line names the
/// modules of one layer (`explain/ simulate/ …`), then, after two spaces, what they are.
fn declared_layers(doc: &str) -> Vec<Vec<String>> {
    let block = doc
        .split("```layers\n")
        .nth(1)
        .and_then(|b| b.split("\n```").next())
        .expect("ARCHITECTURE.md has a ```layers block");
    block
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let names = l.split("  ").next().unwrap_or("");
            names
                .split_whitespace()
                .map(|n| n.trim_end_matches('/').trim_end_matches(".rs").to_string())
                .collect()
        })
        .collect()
}

/// Every edge from a module to one in its own layer or above, every module in no layer, and
/// every layer name that is no module.
fn layer_violations(
    graph: &BTreeMap<String, BTreeSet<String>>,
    layers: &[Vec<String>],
) -> Vec<String> {
    let layer_of = |node: &str| {
        let module = node.split("::").next().unwrap_or(node);
        layers.iter().position(|l| l.iter().any(|m| m == module))
    };
    let mut out = Vec::new();
    for (from, targets) in graph {
        let Some(lf) = layer_of(from) else {
            out.push(format!("{from} is in no layer of ARCHITECTURE.md"));
            continue;
        };
        for to in targets {
            if let Some(lt) = layer_of(to).filter(|lt| *lt <= lf) {
                let how = if lt == lf {
                    "its own layer"
                } else {
                    "a layer above it"
                };
                out.push(format!("{from} uses {to}, in {how}"));
            }
        }
    }
    let modules: BTreeSet<&str> = graph
        .keys()
        .map(|n| n.split("::").next().unwrap_or(n))
        .collect();
    for name in layers.iter().flatten() {
        if !modules.contains(name.as_str()) {
            out.push(format!(
                "ARCHITECTURE.md's layers name {name}, which is no module"
            ));
        }
    }
    out
}

fn architecture_md() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md")).unwrap()
}

#[test]
fn modules_keep_the_declared_layer_order() {
    let layers = declared_layers(&architecture_md());
    let found = layer_violations(&module_graph(), &layers);
    assert!(
        found.is_empty(),
        "the layer order of ARCHITECTURE.md (a module uses only the layers below it):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_layer_check_catches_an_inversion() {
    let doc =
        "x\n```layers\ncommands/     wiring\ncli.rs render/  flags; text\n\ncore/  pure\n```\n";
    let layers = declared_layers(doc);
    assert_eq!(
        layers,
        vec![vec!["commands"], vec!["cli", "render"], vec!["core"]]
    );
    let file = |rel: &str, text: &str| (rel.to_string(), text.to_string());
    let mut files = vec![
        file("src/commands/explain.rs", "use crate::cli::X;\n"),
        file("src/cli.rs", "use crate::core::Y;\n"),
        file("src/render/mod.rs", "use crate::core::Z;\n"),
        file("src/core/mod.rs", "pub struct Y;\n"),
    ];
    assert!(layer_violations(&module_graph_of(&files), &layers).is_empty());
    files[3] = file("src/core/mod.rs", "use crate::render::Z;\n");
    files[2] = file("src/render/mod.rs", "use crate::cli::W;\n");
    files.push(file("src/extra.rs", ""));
    assert_eq!(
        layer_violations(&module_graph_of(&files), &layers),
        vec![
            "core uses render, in a layer above it",
            "extra is in no layer of ARCHITECTURE.md",
            "render uses cli, in its own layer",
        ]
    );
    let gone = vec![file("src/cli.rs", "")];
    assert!(layer_violations(&module_graph_of(&gone), &layers)
        .contains(&"ARCHITECTURE.md's layers name core, which is no module".to_string()));
}
