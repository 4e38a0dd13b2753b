//! The documentation is checked against what it documents (issue 26 item 5): the README stays a
//! front door that links every page of `docs/`, the links between the pages resolve, and
//! `docs/contract.md` names every kind and top-level field of the generated schema and every
//! value of the `Action` and `Rule` enums — and nothing that does not exist.
//! (`explain_cli.rs` runs the command blocks of the README and of `docs/`.)

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;

use crate::support::binary::root;

const README_MAX_LINES: usize = 250;

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The pages of `docs/`, as `docs/NAME.md`.
fn doc_pages() -> Vec<String> {
    let mut pages: Vec<String> = std::fs::read_dir(root().join("docs"))
        .expect("docs/")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    pages.sort();
    pages
}

/// The backticked names in the first column of the first table after `heading` (`metrics[]`
/// is `metrics`); `None` when the page has no such heading.
fn first_column(doc: &str, heading: &str) -> Option<BTreeSet<String>> {
    let section = doc.split(&format!("\n{heading}\n")).nth(1)?;
    let section = section.split("\n## ").next().unwrap_or(section);
    let mut names = BTreeSet::new();
    let rows = section
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2);
    for row in rows {
        let cell = row
            .split(" | ")
            .next()
            .unwrap_or("")
            .trim_start_matches('|');
        for (i, part) in cell.split('`').enumerate() {
            if i % 2 == 1 {
                names.insert(part.trim_end_matches("[]").to_string());
            }
        }
    }
    Some(names)
}

/// The string values a schema definition allows (`enum` and `const`, through `oneOf`).
fn schema_values(def: &Value) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if let Some(v) = def["const"].as_str() {
        out.insert(v.to_string());
    }
    for v in def["enum"].as_array().into_iter().flatten() {
        out.extend(v.as_str().map(str::to_string));
    }
    for alt in def["oneOf"].as_array().into_iter().flatten() {
        out.extend(schema_values(alt));
    }
    out
}

/// The variants of the `rules!` block of `src/core/rule.rs`.
fn rule_variants(source: &str) -> BTreeSet<String> {
    let block = source
        .split("\nrules! {\n")
        .nth(1)
        .and_then(|b| b.split("\n}").next())
        .expect("the rules! block");
    block
        .lines()
        .map(str::trim)
        .filter(|l| !l.starts_with("//") && !l.is_empty())
        .map(|l| l.trim_end_matches(',').to_string())
        .collect()
}

/// Every difference between the contract page and the schema and enums, in words.
fn contract_drift(doc: &str, schema: &Value, rules: &BTreeSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut compare = |what: &str, documented: Option<BTreeSet<String>>, real: BTreeSet<String>| {
        let Some(documented) = documented else {
            out.push(format!("{what}: no section"));
            return;
        };
        for missing in real.difference(&documented) {
            out.push(format!("{what}: `{missing}` is not documented"));
        }
        for extra in documented.difference(&real) {
            out.push(format!(
                "{what}: `{extra}` is documented but does not exist"
            ));
        }
    };
    let kinds: Vec<String> = schema["oneOf"]
        .as_array()
        .expect("oneOf")
        .iter()
        .filter_map(|k| k["$ref"].as_str())
        .map(|r| r.trim_start_matches("#/$defs/").to_string())
        .collect();
    compare(
        "the kinds table",
        first_column(doc, "## Kinds"),
        kinds.iter().cloned().collect(),
    );
    for kind in &kinds {
        let fields: BTreeSet<String> = schema["$defs"][kind]["properties"]
            .as_object()
            .map(|p| p.keys().cloned().collect())
            .unwrap_or_default();
        compare(
            &format!("kind: {kind}"),
            first_column(doc, &format!("## `kind: {kind}`")),
            fields,
        );
    }
    compare(
        "verdict.action",
        first_column(doc, "## `verdict.action`"),
        schema_values(&schema["$defs"]["Action"]),
    );
    compare(
        "verdict.decidedBy",
        first_column(doc, "## `verdict.decidedBy`"),
        rules.clone(),
    );
    out
}

fn schema() -> Value {
    serde_json::from_str(&read("schema/kubectl-hpa.v1.schema.json")).expect("the schema")
}

#[test]
fn the_contract_page_documents_every_kind_field_action_and_rule() {
    let rules = rule_variants(&read("src/core/rule.rs"));
    assert!(rules.contains("FetchFailed") && rules.contains("MetricProposal"));
    let drift = contract_drift(&read("docs/contract.md"), &schema(), &rules);
    assert!(
        drift.is_empty(),
        "docs/contract.md has drifted from schema/*.json and the Action/Rule enums:\n{}",
        drift.join("\n")
    );
}

#[test]
fn the_contract_check_sees_drift() {
    let schema = serde_json::json!({
        "oneOf": [{"$ref": "#/$defs/Thing"}],
        "$defs": {
            "Thing": {"properties": {"apiVersion": {}, "kind": {}, "size": {}, "items": {}}},
            "Action": {"oneOf": [{"enum": ["Up", "Down"]}, {"const": "Unknown"}]}
        }
    });
    let rules: BTreeSet<String> = ["Tolerance".to_string()].into();
    let doc = "# C\n\n## Kinds\n\n| kind | written by |\n|---|---|\n| `Thing` | x |\n\n\
               ## `kind: Thing`\n\nwords\n\n| field | meaning |\n|---|---|\n\
               | `apiVersion`, `kind` | x |\n| `size` | x |\n| `items[]` | x |\n\n\
               ## `verdict.action`\n\n| value | meaning |\n|---|---|\n\
               | `Up` | x |\n| `Down` | x |\n| `Unknown` | x |\n\n\
               ## `verdict.decidedBy`\n\n| value | meaning |\n|---|---|\n| `Tolerance` | x |\n";
    assert_eq!(contract_drift(doc, &schema, &rules), Vec::<String>::new());
    let drifted = doc
        .replace("| `size` | x |\n", "| `colour` | x |\n")
        .replace("| `Unknown` | x |\n", "");
    let rules: BTreeSet<String> = ["Tolerance".to_string(), "NoMetrics".to_string()].into();
    assert_eq!(
        contract_drift(&drifted, &schema, &rules),
        vec![
            "kind: Thing: `size` is not documented",
            "kind: Thing: `colour` is documented but does not exist",
            "verdict.action: `Unknown` is not documented",
            "verdict.decidedBy: `NoMetrics` is not documented",
        ]
    );
    let no_section = doc.replace("## `kind: Thing`", "## Thing");
    assert_eq!(
        contract_drift(&no_section, &schema, &[].into()),
        vec![
            "kind: Thing: no section",
            "verdict.decidedBy: `Tolerance` is documented but does not exist"
        ]
    );
    let rules = rule_variants("x\nrules! {\n    /// A.\n    FetchFailed,\n    Tolerance,\n}\n");
    assert_eq!(rules, ["FetchFailed".into(), "Tolerance".into()].into());
}

#[test]
fn the_readme_is_a_front_door_that_links_every_page() {
    let readme = read("README.md");
    let lines = readme.lines().count();
    assert!(
        lines <= README_MAX_LINES,
        "README.md has {lines} lines (≤ {README_MAX_LINES}): move the detail into docs/"
    );
    let unlinked: Vec<String> = doc_pages()
        .into_iter()
        .chain(["ARCHITECTURE.md".to_string(), "CHANGELOG.md".to_string()])
        .filter(|p| !readme.contains(&format!("]({p})")))
        .collect();
    assert!(
        unlinked.is_empty(),
        "pages the README does not link: {unlinked:?}"
    );
}

/// The relative links of a page (`[text](target)`, without the `#anchor`).
fn relative_links(text: &str) -> Vec<String> {
    text.match_indices("](")
        .filter_map(|(i, _)| {
            let rest = &text[i + 2..];
            let target = &rest[..rest.find(')')?];
            let path = target.split('#').next().unwrap_or("");
            let external = target.contains("://") || target.starts_with("mailto:");
            (!external && !path.is_empty()).then(|| path.to_string())
        })
        .collect()
}

#[test]
fn the_links_between_pages_resolve() {
    let mut broken = Vec::new();
    let pages = ["README.md", "ARCHITECTURE.md", "CHANGELOG.md"]
        .map(String::from)
        .into_iter()
        .chain(doc_pages());
    for page in pages {
        let dir = Path::new(&page).parent().unwrap_or(Path::new(""));
        for link in relative_links(&read(&page)) {
            if !root().join(dir).join(&link).exists() {
                broken.push(format!("{page}: {link}"));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links to nothing:\n{}",
        broken.join("\n")
    );
    assert_eq!(
        relative_links("[a](docs/x.md#y) [b](https://e.org/z) [c](#here)"),
        vec!["docs/x.md"]
    );
}
