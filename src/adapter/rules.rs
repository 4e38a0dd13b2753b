//! prometheus-adapter's rules, and which rule can name an HPA's metric.
//!
//! Read from kubernetes-sigs/prometheus-adapter @ 01919d0 (`pkg/config/config.go`,
//! `pkg/naming/metric_namer.go`): a rule selects Prometheus series by `seriesQuery` (a series
//! selector), keeps those whose name passes every `seriesFilters` entry (`is`/`isNot`, Go
//! regexps, unanchored) and `name.matches` (also a filter), and names the metric in the API by
//! expanding `name.as` with Go's `Regexp.ExpandString` over the first match of `name.matches`
//! in the series name (`matches` empty: `.*`; `as` empty: `$0` without capture groups, `$1`
//! with one, an error with more). `rules` serve `custom.metrics.k8s.io` (Pods and Object
//! metrics), `externalRules` `external.metrics.k8s.io`, `resourceRules` `metrics.k8s.io`.
//!
//! Without Prometheus the series that exist are unknown: a rule whose `seriesQuery` names one
//! series gives exactly one API name; a rule selecting names by `__name__=~` can give the HPA's
//! name only from the series its `matches`/`as` pair maps to it, which is found by inverting
//! the common shape `^prefix(.*)suffix$` / `${1}…` and then checked with the rule's own
//! regexps (Go's RE2 syntax is the `regex` crate's).

use std::collections::BTreeMap;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// The adapter's configuration file (`--config`), as `pkg/config` reads it. Every field of
/// these types is optional: serde reads a missing `Option` field as `None`, so no field needs
/// its own `default` (each rule list is read the same way).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdapterConfig {
    pub rules: Option<Vec<DiscoveryRule>>,
    pub external_rules: Option<Vec<DiscoveryRule>>,
    // `resourceRules` (metrics.k8s.io) name no custom or external metric: not read.
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoveryRule {
    pub series_query: Option<String>,
    pub series_filters: Option<Vec<RegexFilter>>,
    pub resources: Option<ResourceMapping>,
    pub name: Option<NameMapping>,
    // `metricsQuery` shapes the values, not the names: not read.
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RegexFilter {
    pub is: Option<String>,
    pub is_not: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceMapping {
    pub template: Option<String>,
    pub overrides: Option<BTreeMap<String, GroupResource>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct GroupResource {
    pub resource: Option<String>,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct NameMapping {
    pub matches: Option<String>,
    #[serde(rename = "as")]
    pub as_: Option<String>,
}

/// Read the configuration text (a one-line error naming what is wrong).
pub fn parse(text: &str) -> Result<AdapterConfig, String> {
    crate::yaml::from_str::<Option<AdapterConfig>>(text)
        .map(Option::unwrap_or_default)
        .map_err(|e| crate::yaml::one_line(&e))
}

/// Which list of rules serves a metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleSet {
    /// `rules`: Pods and Object metrics.
    Custom,
    /// `externalRules`: External metrics.
    External,
}

impl RuleSet {
    pub fn field(self) -> &'static str {
        match self {
            RuleSet::Custom => "rules",
            RuleSet::External => "externalRules",
        }
    }
}

// A rule that gives the metric's name: the verdict's and the `metricsChain` section's one
// type (`matchedBy[]`, named `RuleHit` in the schema). `series`: the Prometheus series the rule
// maps to the name; not `exact`: the rule selects by a pattern, so the series must exist in
// Prometheus with the labels the query asks for; `resource_missing`: `resources` maps no label
// to that resource, so the adapter lists the metric for other resources only. (The field
// docs are the schema's descriptions.)
#[derive(Debug, Clone, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
#[schemars(rename = "RuleHit")]
pub struct RuleMatch {
    /// `rules[2]`.
    pub rule: String,
    pub series: String,
    /// The rule's seriesQuery names that one series (else it selects by a pattern).
    pub exact: bool,
    /// The resource the metric is about that the rule's `resources` do not associate.
    pub resource_missing: Option<String>,
}

/// What the rules say of one metric name.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Verdict {
    /// The rules that give the name, in order.
    pub matches: Vec<RuleMatch>,
    /// The names the rules give, nearest first (`name`, `rules[i]`): for a rule naming one
    /// series its exact API name, for a pattern rule its shape (`*_per_second`).
    pub nearest: Vec<(String, String)>,
    /// Rules that cannot work as written (a Go template pitfall, a bad regexp), in words.
    pub broken: Vec<String>,
    /// How many rules the list holds.
    pub rules: usize,
}

/// The rules of `set` against the metric `metric` (`resource`: the resource the metric is
/// about, `pods` for a Pods metric, the described object's for an Object metric; `None` for
/// External).
pub fn verdict(cfg: &AdapterConfig, set: RuleSet, metric: &str, resource: Option<&str>) -> Verdict {
    let rules = match set {
        RuleSet::Custom => cfg.rules.as_deref(),
        RuleSet::External => cfg.external_rules.as_deref(),
    }
    .unwrap_or_default();
    let mut v = Verdict {
        rules: rules.len(),
        ..Verdict::default()
    };
    let mut shapes: Vec<(usize, String, String)> = Vec::new();
    for (i, r) in rules.iter().enumerate() {
        let id = format!("{}[{i}]", set.field());
        let namer = match Namer::of(r) {
            Ok(n) => n,
            Err(why) => {
                v.broken.push(format!("{id}: {why}"));
                continue;
            }
        };
        if let Some(p) = namer.pitfall() {
            v.broken.push(format!("{id}: {p}"));
        }
        let query = SeriesQuery::parse(r.series_query.as_deref().unwrap_or_default());
        let candidates = match &query.name {
            Some(n) => vec![n.clone()],
            None => namer.series_for(metric),
        };
        for s in candidates {
            if !query.selects(&s) || !namer.passes(&s) {
                continue;
            }
            if namer.name_of(&s).as_deref() == Some(metric) {
                v.matches.push(RuleMatch {
                    rule: id.clone(),
                    series: s,
                    exact: query.name.is_some(),
                    resource_missing: resource.filter(|res| !associates(r, res)).map(String::from),
                });
                break;
            }
        }
        let shape = match &query.name {
            Some(n) if namer.passes(n) => namer.name_of(n),
            Some(_) => None,
            None => Some(namer.shape()),
        };
        if let Some(s) = shape.filter(|s| !s.is_empty()) {
            shapes.push((distance(&s, metric), s, id));
        }
    }
    shapes.sort();
    v.nearest = shapes
        .into_iter()
        .map(|(_, s, id)| (s, id))
        .take(5)
        .collect();
    v
}

/// Whether a rule's `resources` associate `resource` (`pods`, `ingresses`...): an override
/// naming it, or a template (which turns every resource into a label name).
fn associates(r: &DiscoveryRule, resource: &str) -> bool {
    let Some(m) = &r.resources else { return false };
    if m.template.as_deref().is_some_and(|t| !t.is_empty()) {
        return true;
    }
    let singular = resource.strip_suffix('s').unwrap_or(resource);
    m.overrides.iter().flatten().any(|(_, gr)| {
        gr.resource
            .as_deref()
            .is_some_and(|x| x == resource || x == singular)
    })
}

/// A rule's name mapping and series filters, compiled.
struct Namer {
    matches: Regex,
    matches_src: String,
    as_: String,
    filters: Vec<(Regex, bool)>,
    groups: Vec<Option<String>>,
}

impl Namer {
    fn of(r: &DiscoveryRule) -> Result<Namer, String> {
        let name = r.name.clone().unwrap_or_default();
        let matches_src = name.matches.unwrap_or_default();
        let pattern = if matches_src.is_empty() {
            ".*"
        } else {
            &matches_src
        };
        let matches = Regex::new(pattern).map_err(|_| {
            format!("name.matches {matches_src:?} is not a valid regular expression")
        })?;
        let groups: Vec<Option<String>> = matches
            .capture_names()
            .map(|n| n.map(String::from))
            .collect();
        let as_ = match name.as_.unwrap_or_default() {
            a if !a.is_empty() => a,
            _ => match groups.len() {
                1 => "$0".into(),
                2 => "$1".into(),
                _ => {
                    return Err(format!(
                        "name.as is empty while name.matches {matches_src:?} has several capture groups (the adapter refuses to start)"
                    ))
                }
            },
        };
        let mut filters = Vec::new();
        for f in r.series_filters.iter().flatten() {
            let (src, positive) = match (&f.is, &f.is_not) {
                (Some(is), None) => (is, true),
                (None, Some(not)) => (not, false),
                _ => return Err("a seriesFilters entry needs exactly one of is or isNot".into()),
            };
            let re = Regex::new(src)
                .map_err(|_| format!("seriesFilters {src:?} is not a valid regular expression"))?;
            filters.push((re, positive));
        }
        Ok(Namer {
            matches,
            matches_src,
            as_,
            filters,
            groups,
        })
    }

    /// The series filters and `name.matches` (a filter too) pass `series`.
    fn passes(&self, series: &str) -> bool {
        self.filters
            .iter()
            .all(|(re, positive)| re.is_match(series) == *positive)
            && self.matches.is_match(series)
    }

    /// The API name of a series (`MetricNameForSeries`).
    fn name_of(&self, series: &str) -> Option<String> {
        let caps = self.matches.captures(series)?;
        Some(go_expand(&self.as_, &caps, &self.groups))
    }

    /// A Go template pitfall: `$1_per_second` is `${1_per_second}` (a group that does not
    /// exist: empty), not `${1}_per_second`.
    fn pitfall(&self) -> Option<String> {
        let t = &self.as_;
        let mut rest = t.as_str();
        while let Some(at) = rest.find('$') {
            let after = &rest[at + 1..];
            if let Some(stripped) = after.strip_prefix('$') {
                rest = stripped;
                continue;
            }
            let name: String = after
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            let digits: String = name.chars().take_while(char::is_ascii_digit).collect();
            if !digits.is_empty()
                && digits.len() < name.len()
                && !self.groups.iter().flatten().any(|g| *g == name)
            {
                return Some(format!(
                    "name.as {t:?}: Go reads ${name} as the capture group named {name:?}, which does not exist, so it expands to nothing — write ${{{digits}}}{}",
                    &name[digits.len()..]
                ));
            }
            rest = &after[name.len().min(after.len())..];
        }
        None
    }

    /// The series this rule would map to `metric`: the metric itself, and for the shape
    /// `^prefix(…)suffix$` with `as` `…${1}…`, the series whose capture gives it.
    fn series_for(&self, metric: &str) -> Vec<String> {
        let mut out = vec![metric.to_string()];
        if let (Some((pre, post)), Some((apre, apost))) =
            (one_group_shape(&self.matches_src), as_shape(&self.as_))
        {
            if let Some(cap) = metric
                .strip_prefix(apre.as_str())
                .and_then(|m| m.strip_suffix(apost.as_str()))
            {
                out.push(format!("{pre}{cap}{post}"));
            }
        }
        out
    }

    /// What a pattern rule gives, as a shape (`*_per_second`).
    fn shape(&self) -> String {
        match (one_group_shape(&self.matches_src), as_shape(&self.as_)) {
            (Some(_), Some((a, b))) => format!("{a}*{b}"),
            _ if self.as_ == "$0" && self.matches_src.is_empty() => "*".into(),
            _ => format!("{} from {}", self.as_, self.matches_src),
        }
    }
}

/// `^prefix(.*)suffix$` (or `.+`, any one group) → the literal prefix and suffix.
fn one_group_shape(src: &str) -> Option<(String, String)> {
    let s = src.strip_prefix('^').unwrap_or(src);
    let s = s.strip_suffix('$')?;
    let open = s.find('(')?;
    let close = s.rfind(')')?;
    if close < open || s[open + 1..close].contains('(') {
        return None;
    }
    Some((literal(&s[..open])?, literal(&s[close + 1..])?))
}

/// A regexp fragment without metacharacters, unescaped (`\.` → `.`).
fn literal(s: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push(chars.next().filter(|c| !c.is_alphanumeric())?),
            '.' | '*' | '+' | '?' | '[' | ']' | '(' | ')' | '{' | '}' | '|' | '^' | '$' => {
                return None
            }
            c => out.push(c),
        }
    }
    Some(out)
}

/// `as` of the shape `prefix${1}suffix` (or `$1` at the end) → the literal prefix and suffix.
fn as_shape(a: &str) -> Option<(String, String)> {
    for token in ["${1}", "$1"] {
        if let Some((pre, post)) = a.split_once(token) {
            let plain_after =
                token == "${1}" || !post.starts_with(|c: char| c.is_alphanumeric() || c == '_');
            if !pre.contains('$') && !post.contains('$') && plain_after {
                return Some((pre.to_string(), post.to_string()));
            }
        }
    }
    None
}

/// Go's `Regexp.ExpandString`: `$name` / `${name}` (letters, digits, underscores; all digits:
/// a group number), `$$` a dollar, a malformed `$` kept as text, an unknown group empty.
fn go_expand(template: &str, caps: &regex::Captures<'_>, names: &[Option<String>]) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        rest = &rest[at + 1..];
        if let Some(r) = rest.strip_prefix('$') {
            out.push('$');
            rest = r;
            continue;
        }
        let (name, after) = match rest.strip_prefix('{') {
            Some(inner) => match inner.find('}') {
                Some(end) if is_name(&inner[..end]) => (&inner[..end], &inner[end + 1..]),
                _ => {
                    out.push('$');
                    continue;
                }
            },
            None => {
                let end = rest
                    .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .unwrap_or(rest.len());
                if end == 0 {
                    out.push('$');
                    continue;
                }
                (&rest[..end], &rest[end..])
            }
        };
        rest = after;
        let group = match name.parse::<usize>() {
            Ok(n) if name.chars().all(|c| c.is_ascii_digit()) => caps.get(n),
            _ => names
                .iter()
                .position(|g| g.as_deref() == Some(name))
                .and_then(|i| caps.get(i)),
        };
        if let Some(m) = group {
            out.push_str(m.as_str());
        }
    }
    out.push_str(rest);
    out
}

fn is_name(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// A Prometheus series selector as far as names go: the metric name before the braces, and
/// the `__name__` matchers inside them.
#[derive(Debug, Default)]
struct SeriesQuery {
    name: Option<String>,
    name_matchers: Vec<(String, String)>,
}

impl SeriesQuery {
    fn parse(q: &str) -> SeriesQuery {
        let q = q.trim();
        let (head, body) = match q.find('{') {
            Some(i) => (&q[..i], q[i + 1..].trim_end().trim_end_matches('}')),
            None => (q, ""),
        };
        let head = head.trim();
        let mut out = SeriesQuery {
            name: (!head.is_empty()).then(|| head.to_string()),
            ..SeriesQuery::default()
        };
        for m in split_matchers(body) {
            let m = m.trim();
            let Some(rest) = m.strip_prefix("__name__") else {
                continue;
            };
            let rest = rest.trim_start();
            let op = ["=~", "!~", "!=", "="]
                .into_iter()
                .find(|op| rest.starts_with(op));
            let Some(op) = op else { continue };
            let value = rest[op.len()..]
                .trim()
                .trim_matches(|c| c == '"' || c == '\'' || c == '`');
            if op == "=" && out.name.is_none() {
                out.name = Some(value.to_string());
            } else {
                out.name_matchers.push((op.to_string(), value.to_string()));
            }
        }
        out
    }

    /// Whether the selector can select a series of this name (PromQL regexps are anchored).
    fn selects(&self, series: &str) -> bool {
        if self.name.as_deref().is_some_and(|n| n != series) {
            return false;
        }
        self.name_matchers.iter().all(|(op, v)| {
            let anchored = Regex::new(&format!("^(?:{v})$"));
            match (op.as_str(), anchored) {
                ("=~", Ok(re)) => re.is_match(series),
                ("!~", Ok(re)) => !re.is_match(series),
                ("!=", _) => series != v,
                _ => true,
            }
        })
    }
}

/// The matchers of a selector's body, split on commas outside quotes.
fn split_matchers(body: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut quote) = (0, None::<char>);
    let mut escaped = false;
    for (i, c) in body.char_indices() {
        match (quote, c) {
            (Some(_), '\\') if !escaped => {
                escaped = true;
                continue;
            }
            (Some(q), c) if c == q && !escaped => quote = None,
            (None, '"' | '\'' | '`') => quote = Some(c),
            (None, ',') => {
                out.push(&body[start..i]);
                start = i + 1;
            }
            _ => {}
        }
        escaped = false;
    }
    out.push(&body[start..]);
    out
}

/// Levenshtein distance (characters).
pub fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The default rules of the prometheus-adapter Helm chart (prometheus-community), as its
    /// ConfigMap renders them.
    pub(crate) const DEFAULT_RULES: &str = include_str!("testdata/default-rules.yaml");

    fn cfg(text: &str) -> AdapterConfig {
        parse(text).expect("config")
    }

    #[test]
    fn the_default_rules_name_a_counter_without_its_total() {
        let c = cfg(DEFAULT_RULES);
        let v = verdict(&c, RuleSet::Custom, "http_requests", Some("pods"));
        let series: Vec<(&str, &str)> = v
            .matches
            .iter()
            .map(|m| (m.rule.as_str(), m.series.as_str()))
            .collect();
        // Every rule can give it, each from its own series (if Prometheus has it): the gauge
        // itself (`matches: ""`), the counter http_requests_total (`^(.*)_total$`)...
        assert_eq!(
            series,
            [
                ("rules[0]", "container_http_requests_seconds_total"),
                ("rules[1]", "container_http_requests_total"),
                ("rules[2]", "container_http_requests"),
                ("rules[3]", "http_requests"),
                ("rules[4]", "http_requests_total"),
                ("rules[5]", "http_requests_seconds_total"),
            ]
        );
        assert!(v
            .matches
            .iter()
            .all(|m| !m.exact && m.resource_missing.is_none()));
        // container_cpu_usage_seconds_total → cpu_usage (rules[0]).
        let v = verdict(&c, RuleSet::Custom, "cpu_usage", Some("pods"));
        assert_eq!(v.matches[0].series, "container_cpu_usage_seconds_total");
        // A counter never keeps its `_total` in the API: the name needs a series `…_total_total`.
        let v = verdict(&c, RuleSet::Custom, "http_requests_total", Some("pods"));
        assert!(
            v.matches.iter().all(|m| m.series != "http_requests_total"),
            "{v:?}"
        );
    }

    #[test]
    fn a_literal_rule_gives_one_name_and_the_nearest_are_ranked() {
        let c = cfg(r#"
rules:
- seriesQuery: 'http_requests_total{namespace!="",pod!=""}'
  resources: {overrides: {namespace: {resource: namespace}, pod: {resource: pod}}}
  name: {matches: "^(.*)_total$", as: "${1}_per_second"}
  metricsQuery: 'sum(rate(<<.Series>>{<<.LabelMatchers>>}[2m])) by (<<.GroupBy>>)'
- seriesQuery: 'queue_depth{namespace!=""}'
  resources: {overrides: {namespace: {resource: namespace}}}
"#);
        let v = verdict(
            &c,
            RuleSet::Custom,
            "http_requests_per_second",
            Some("pods"),
        );
        assert_eq!(v.matches.len(), 1);
        assert!(v.matches[0].exact);
        let v = verdict(&c, RuleSet::Custom, "http_request_per_second", Some("pods"));
        assert!(v.matches.is_empty());
        assert_eq!(
            v.nearest[0],
            ("http_requests_per_second".into(), "rules[0]".into())
        );
        // Matched by name but not about pods: the adapter lists it for namespaces only.
        let v = verdict(&c, RuleSet::Custom, "queue_depth", Some("pods"));
        assert_eq!(v.matches[0].resource_missing.as_deref(), Some("pods"));
        assert!(verdict(&c, RuleSet::External, "queue_depth", None)
            .matches
            .is_empty());
    }

    #[test]
    fn go_reads_dollar_one_underscore_as_a_group_name() {
        let c = cfg(r#"
rules:
- seriesQuery: 'http_requests_total{namespace!="",pod!=""}'
  resources: {template: "<<.Resource>>"}
  name: {matches: "^(.*)_total$", as: "$1_per_second"}
"#);
        let v = verdict(
            &c,
            RuleSet::Custom,
            "http_requests_per_second",
            Some("pods"),
        );
        assert!(v.matches.is_empty(), "{v:?}");
        assert!(
            v.broken[0].contains("write ${1}_per_second"),
            "{:?}",
            v.broken
        );
        // The empty name is no candidate.
        assert!(v.nearest.is_empty(), "{:?}", v.nearest);
    }

    #[test]
    fn go_expand_follows_the_go_rules() {
        let re = Regex::new("^(?P<base>.*)_(total)$").unwrap();
        let names: Vec<Option<String>> = re.capture_names().map(|n| n.map(String::from)).collect();
        let caps = re.captures("a_b_total").unwrap();
        let e = |t| go_expand(t, &caps, &names);
        assert_eq!(e("$1"), "a_b");
        assert_eq!(e("${base}_x"), "a_b_x");
        assert_eq!(e("$base_x"), "");
        assert_eq!(e("$$1"), "$1");
        assert_eq!(e("cost$"), "cost$");
        assert_eq!(e("$2-$0"), "total-a_b_total");
    }

    #[test]
    fn bad_rules_are_named_not_fatal() {
        let c = cfg("rules:\n- seriesQuery: 'x'\n  name: {matches: '(a)(b)'}\n- seriesQuery: 'y'\n  seriesFilters: [{is: '('}]\n");
        let v = verdict(&c, RuleSet::Custom, "x", Some("pods"));
        assert_eq!(v.broken.len(), 2, "{v:?}");
        assert!(v.broken[0].starts_with("rules[0]: name.as is empty"));
        assert!(parse("rules: 7").is_err());
        assert!(parse("").expect("empty").rules.is_none());
    }

    #[test]
    fn selectors_and_distance() {
        let q = SeriesQuery::parse(r#"{__name__=~"^container_.*",container!="POD",namespace!=""}"#);
        assert!(q.name.is_none());
        assert!(q.selects("container_cpu"));
        assert!(!q.selects("http_total"));
        let q = SeriesQuery::parse(r#"{namespace!="",__name__!~"^container_.*"}"#);
        assert!(q.selects("http_total") && !q.selects("container_x"));
        assert_eq!(SeriesQuery::parse("up").name.as_deref(), Some("up"));
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "ab"), 2);
    }
}
