//! Kustomize: the `replicas:` transformer and the patches that set `spec.replicas`
//! (`patches`, `patchesStrategicMerge`, `patchesJson6902`; inline or from a file). Kustomize adds
//! the field even when the base has none, so each of them must go, in every overlay.

use serde::Serialize;
use serde_json::Value;

use super::manifest::yaml_scalar;
use super::text::{self, Seg};

/// A kustomization file and the patch files it names (read by the caller).
#[derive(Clone, Debug)]
pub struct Kustomization {
    pub file: String,
    pub text: String,
    /// `(path as written, (path on disk, text))` of each patch file that could be read.
    pub patch_files: Vec<(String, String, String)>,
}

/// One place that sets replicas.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KustomizeSetting {
    pub file: String,
    pub line: usize,
    /// The workload name it applies to (empty: every target of the patch).
    pub name: String,
    /// `transformer` or `patch`.
    pub how: &'static str,
    pub value: String,
}

impl KustomizeSetting {
    pub fn describe(&self) -> String {
        match self.how {
            "transformer" => format!(
                "{}:{}: the kustomization's `replicas:` sets count {} for {}",
                self.file, self.line, self.value, self.name
            ),
            _ => format!(
                "{}:{}: a patch sets spec.replicas {}{}",
                self.file,
                self.line,
                self.value,
                if self.name.is_empty() {
                    String::new()
                } else {
                    format!(" on {}", self.name)
                }
            ),
        }
    }
}

/// Is this file a kustomization (by name, or by `kind: Kustomization` with kustomize's apiVersion)?
pub fn is_kustomization(path: &str, text: &str) -> bool {
    let base = path.rsplit(['/', '\\']).next().unwrap_or(path);
    matches!(
        base,
        "kustomization.yaml" | "kustomization.yml" | "Kustomization"
    ) || (text.contains("kind: Kustomization") && text.contains("kustomize.config.k8s.io"))
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> Option<&'a str> {
    let mut cur = v;
    for p in path {
        cur = cur.get(*p)?;
    }
    cur.as_str()
}

/// Line (1-based) of the first `replicas` mention at or after line `from` (1-based) of `text`.
fn replicas_line(text: &str, from: usize) -> usize {
    text.lines()
        .enumerate()
        .skip(from.saturating_sub(1))
        .find(|(_, l)| {
            let t = l.trim_start().trim_start_matches("- ");
            t.contains("/spec/replicas") || t.trim_start().starts_with("replicas:")
        })
        .map_or(from.max(1), |(i, _)| i + 1)
}

/// What a patch sets: (target name, value) when it sets spec.replicas.
fn patch_sets(patch: &str) -> Option<(String, String)> {
    let v: Value = crate::yaml::from_str(patch).ok()?;
    match &v {
        Value::Array(ops) => ops.iter().find_map(|op| {
            let (o, p) = (str_at(op, &["op"])?, str_at(op, &["path"])?);
            (matches!(o, "add" | "replace") && p == "/spec/replicas").then(|| {
                (
                    String::new(),
                    op.get("value").map(yaml_scalar).unwrap_or_default(),
                )
            })
        }),
        Value::Object(_) => {
            let r = v.get("spec")?.get("replicas")?;
            Some((
                str_at(&v, &["metadata", "name"])
                    .unwrap_or_default()
                    .to_string(),
                yaml_scalar(r),
            ))
        }
        _ => None,
    }
}

/// Every setting of replicas in a kustomization (for any workload).
pub fn scan(k: &Kustomization) -> Vec<KustomizeSetting> {
    let Ok(doc) = crate::yaml::from_str::<Value>(&k.text) else {
        return Vec::new();
    };
    let ls = text::lines(&k.text);
    let hits = text::scan_yaml(&k.text, &ls, 0, ls.len());
    let line_of = |path: &[Seg]| hits.iter().find(|h| h.path == path).map(|h| h.line + 1);
    let mut out = Vec::new();
    let seq = |key: &str| {
        doc.get(key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    for (i, r) in seq("replicas").iter().enumerate() {
        let p = [Seg::key("replicas"), Seg::Index(i), Seg::key("name")];
        out.push(KustomizeSetting {
            file: k.file.clone(),
            line: line_of(&p).unwrap_or(1),
            name: str_at(r, &["name"]).unwrap_or_default().to_string(),
            how: "transformer",
            value: r.get("count").map(yaml_scalar).unwrap_or_default(),
        });
    }
    for key in ["patches", "patchesJson6902", "patchesStrategicMerge"] {
        for (i, e) in seq(key).iter().enumerate() {
            let at = |sub: Option<&str>| {
                let mut p = vec![Seg::key(key), Seg::Index(i)];
                if let Some(s) = sub {
                    p.push(Seg::key(s));
                }
                line_of(&p)
            };
            let target = str_at(e, &["target", "name"])
                .unwrap_or_default()
                .to_string();
            let (inline, path) = match e {
                Value::String(s) if s.contains('\n') || s.contains(':') => (Some(s.clone()), None),
                Value::String(s) => (None, Some(s.clone())),
                _ => (
                    str_at(e, &["patch"]).map(String::from),
                    str_at(e, &["path"]).map(String::from),
                ),
            };
            if let Some((name, value)) = inline.as_deref().and_then(patch_sets) {
                let from = at(Some("patch")).or(at(None)).unwrap_or(1);
                out.push(KustomizeSetting {
                    file: k.file.clone(),
                    line: replicas_line(&k.text, from),
                    name: if name.is_empty() {
                        target.clone()
                    } else {
                        name
                    },
                    how: "patch",
                    value,
                });
            }
            let file = path.and_then(|p| k.patch_files.iter().find(|(w, _, _)| *w == p));
            if let Some((_, disk, t)) = file {
                if let Some((name, value)) = patch_sets(t) {
                    out.push(KustomizeSetting {
                        file: disk.clone(),
                        line: replicas_line(t, 1),
                        name: if name.is_empty() { target } else { name },
                        how: "patch",
                        value,
                    });
                }
            }
        }
    }
    out
}

/// The patch files a kustomization names (paths as written).
pub fn patch_paths(text: &str) -> Vec<String> {
    let Ok(doc) = crate::yaml::from_str::<Value>(text) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for key in ["patches", "patchesJson6902", "patchesStrategicMerge"] {
        for e in doc.get(key).and_then(Value::as_array).into_iter().flatten() {
            match e {
                Value::String(s) if !s.contains('\n') && !s.contains(':') => out.push(s.clone()),
                _ => out.extend(str_at(e, &["path"]).map(String::from)),
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transformer_inline_and_file_patches() {
        let text = "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [../../base]\nreplicas:\n- name: web\n  count: 4\npatches:\n- target: {kind: Deployment, name: web}\n  patch: |-\n    - op: replace\n      path: /spec/replicas\n      value: 6\n- path: more.yaml\n";
        let k = Kustomization {
            file: "o/kustomization.yaml".into(),
            text: text.into(),
            patch_files: vec![(
                "more.yaml".into(),
                "o/more.yaml".into(),
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 8\n".into(),
            )],
        };
        assert_eq!(patch_paths(text), ["more.yaml"]);
        let got: Vec<(String, usize, &str, String)> = scan(&k)
            .into_iter()
            .map(|s| (s.file, s.line, s.how, s.value))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "o/kustomization.yaml".to_string(),
                    5,
                    "transformer",
                    "4".to_string()
                ),
                ("o/kustomization.yaml".into(), 11, "patch", "6".into()),
                ("o/more.yaml".into(), 6, "patch", "8".into()),
            ]
        );
    }
}
