//! `-o custom-columns=SPEC` and `-o custom-columns-file=FILE` in kubectl's syntax, over the
//! JSON contract: `HEADER:PATH[,HEADER:PATH…]` (a path in kubectl's relaxed JSONPath: `.name`,
//! `{.decision.proposal}`, `desiredReplicas`); a file holds the headers on its first line and
//! the paths on its second, separated by blanks. One row per item of a fleet document (each
//! item also answers `.metadata.name` and `.metadata.namespace`, as kubectl's objects do), one
//! row for a single explanation. A path that finds nothing prints `<none>`, as kubectl does.

use serde_json::{json, Value};

use super::path::{select, Step};

/// Space after each column but the last, as kubectl prints its tables.
const GAP: usize = 3;

/// A custom-columns specification that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnsError(pub String);

impl std::fmt::Display for ColumnsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ColumnsError {}

/// The columns, parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct Columns {
    headers: Vec<String>,
    paths: Vec<Path>,
    /// `--no-headers`: the rows only.
    pub no_headers: bool,
}

/// One step of a path: a field, an index, or every element (`[*]`).
/// A column's path: kubectl's relaxed JSONPath (`{.a.b[0]}`, `.a.b`, `a.b[*].c`).
#[derive(Debug, Clone, PartialEq)]
struct Path(Vec<Step>);

/// Parse a relaxed path.
fn relaxed(path: &str) -> Result<Path, ColumnsError> {
    let bad = |why: &str| ColumnsError(format!("{path:?}: {why}"));
    let p = path.trim();
    let inner = p
        .strip_prefix('{')
        .and_then(|x| x.strip_suffix('}'))
        .unwrap_or(p)
        .trim();
    let body = inner.strip_prefix('$').unwrap_or(inner);
    let body = body.strip_prefix('.').unwrap_or(body);
    if body.is_empty() {
        return Err(bad("an empty path"));
    }
    if body.contains(['{', '}', '?', '(', ' ']) || body.contains("..") {
        return Err(bad(
            "only field paths are supported (e.g. .decision.proposal, .warnings[0])",
        ));
    }
    let mut steps = Vec::new();
    for segment in body.split('.') {
        let (name, mut brackets) = segment.split_at(segment.find('[').unwrap_or(segment.len()));
        if name.is_empty() && brackets.is_empty() {
            return Err(bad("an empty field name"));
        }
        if !name.is_empty() {
            steps.push(Step::Field(name.to_string()));
        }
        while let Some(rest) = brackets.strip_prefix('[') {
            let end = rest.find(']').ok_or_else(|| bad("an unclosed '['"))?;
            steps.push(match &rest[..end] {
                "*" => Step::All,
                i => Step::Index(i.parse().map_err(|_| bad("an index is a number or *"))?),
            });
            brackets = &rest[end + 1..];
        }
        if !brackets.is_empty() {
            return Err(bad("text after ']'"));
        }
    }
    Ok(Path(steps))
}

impl Path {
    /// What the path finds, as kubectl prints it: scalars as text, several joined by commas;
    /// `<none>` when it finds nothing (or null).
    fn print(&self, doc: &Value) -> String {
        let found = select(doc, &self.0);
        let texts: Vec<String> = found
            .into_iter()
            .filter(|v| !v.is_null())
            .map(|v| match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
            .collect();
        match texts.is_empty() {
            true => "<none>".to_string(),
            false => texts.join(","),
        }
    }
}

impl Columns {
    /// `HEADER:PATH,HEADER:PATH…`.
    pub fn parse(spec: &str) -> Result<Columns, ColumnsError> {
        if spec.trim().is_empty() {
            return Err(ColumnsError(
                "custom-columns format specified but no custom columns given (e.g. -o custom-columns=NAME:.name,DESIRED:.desiredReplicas)".into(),
            ));
        }
        let mut headers = Vec::new();
        let mut paths = Vec::new();
        for part in spec.split(',') {
            let Some((header, path)) = part.split_once(':').filter(|(h, _)| !h.is_empty()) else {
                return Err(ColumnsError(format!(
                    "unexpected custom-columns spec {part:?}: expected <header>:<json-path-expr>"
                )));
            };
            headers.push(header.to_string());
            paths.push(relaxed(path)?);
        }
        Ok(Columns {
            headers,
            paths,
            no_headers: false,
        })
    }

    /// A custom-columns file: the headers on the first line, the paths on the second.
    pub fn parse_file(text: &str, source: &str) -> Result<Columns, ColumnsError> {
        let mut lines = text.lines().filter(|l| !l.trim().is_empty());
        let (Some(headers), Some(paths)) = (lines.next(), lines.next()) else {
            return Err(ColumnsError(format!(
                "{source}: expected two lines, the column headers then their paths"
            )));
        };
        let headers: Vec<&str> = headers.split_whitespace().collect();
        let paths: Vec<&str> = paths.split_whitespace().collect();
        if headers.len() != paths.len() {
            return Err(ColumnsError(format!(
                "{source}: {} headers but {} paths: give one path per header",
                headers.len(),
                paths.len()
            )));
        }
        Ok(Columns {
            headers: headers.iter().map(|h| h.to_string()).collect(),
            paths: paths
                .iter()
                .map(|p| relaxed(p))
                .collect::<Result<_, _>>()
                .map_err(|e| ColumnsError(format!("{source}: {e}")))?,
            no_headers: false,
        })
    }

    /// The cells of one item.
    fn row(&self, item: &Value) -> Vec<String> {
        let mut doc = item.clone();
        if let Value::Object(m) = &mut doc {
            if !m.contains_key("metadata") {
                let meta = json!({"name": m.get("name"), "namespace": m.get("namespace")});
                m.insert("metadata".into(), meta);
            }
        }
        self.paths.iter().map(|p| p.print(&doc)).collect()
    }

    /// The table of a JSON document: a row per item of a fleet, one for an explanation.
    pub fn render(&self, doc: &Value) -> String {
        let rows: Vec<Vec<String>> = match doc.get("items").and_then(Value::as_array) {
            Some(items) => items.iter().map(|i| self.row(i)).collect(),
            None => vec![self.row(doc)],
        };
        self.lines(&rows, !self.no_headers)
    }

    /// The rows of the given items only (a watch's changes), the header when `header`.
    pub fn render_items(&self, items: &[Value], header: bool) -> String {
        let rows: Vec<Vec<String>> = items.iter().map(|i| self.row(i)).collect();
        self.lines(&rows, header && !self.no_headers)
    }

    fn lines(&self, rows: &[Vec<String>], header: bool) -> String {
        let head = header.then(|| self.headers.clone());
        let all: Vec<&Vec<String>> = head.iter().chain(rows).collect();
        let mut widths = vec![0; self.headers.len()];
        for r in &all {
            for (k, c) in r.iter().enumerate() {
                widths[k] = widths[k].max(c.chars().count());
            }
        }
        let mut out = String::new();
        for r in all {
            let mut line = String::new();
            for (k, c) in r.iter().enumerate() {
                line += c;
                if k + 1 < r.len() {
                    line += &" ".repeat(widths[k] - c.chars().count() + GAP);
                }
            }
            out += line.trim_end();
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fleet() -> Value {
        json!({"kind": "FleetExplanation", "items": [
            {"namespace": "shop", "name": "web", "desiredReplicas": 5, "warnings": [],
             "decision": {"proposal": 5}},
            {"namespace": "shop", "name": "session-cache", "desiredReplicas": null,
             "warnings": ["memory-scale-up"]},
        ]})
    }

    #[test]
    fn columns_in_kubectl_syntax_with_none_for_a_missing_key() {
        let c = Columns::parse(
            "NAME:.metadata.name,DESIRED:{.desiredReplicas},P:decision.proposal,W:.warnings[0]",
        )
        .expect("parses");
        assert_eq!(
            c.render(&fleet()),
            "NAME            DESIRED   P        W\n\
             web             5         5        <none>\n\
             session-cache   <none>    <none>   memory-scale-up\n"
        );
        let mut quiet = c.clone();
        quiet.no_headers = true;
        assert!(quiet.render(&fleet()).starts_with("web "));
        // One explanation: one row.
        let one = Columns::parse("N:.name").expect("parses");
        assert_eq!(one.render(&json!({"name": "web"})), "N\nweb\n");
    }

    #[test]
    fn a_file_holds_headers_then_paths() {
        let c = Columns::parse_file("NAME   DESIRED\n.name  .desiredReplicas\n", "cols.txt")
            .expect("parses");
        assert!(c
            .render(&fleet())
            .starts_with("NAME            DESIRED\nweb             5\n"));
        let e = Columns::parse_file("NAME DESIRED\n.name\n", "cols.txt").unwrap_err();
        assert_eq!(
            e.0,
            "cols.txt: 2 headers but 1 paths: give one path per header"
        );
        assert!(Columns::parse_file("NAME\n", "f").is_err());
    }

    #[test]
    fn a_bad_spec_says_what_is_expected() {
        let e = Columns::parse("NAME.name").unwrap_err();
        assert!(e.0.contains("expected <header>:<json-path-expr>"), "{e}");
        assert!(Columns::parse("").is_err());
        assert!(Columns::parse("N:").is_err());
        assert!(Columns::parse("N:.a[x]").is_err());
        assert!(Columns::parse("N:{range .items[*]}").is_err());
        let all = Columns::parse("A:.a[*],B:.b").expect("parses");
        assert_eq!(
            all.render(&json!({"a": [1, "x"], "b": ""})),
            "A     B\n1,x\n"
        );
    }
}
