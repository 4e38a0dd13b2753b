//! Helm release storage: what the previous release rendered decides what `helm upgrade` does.
//!
//! Helm 3 (and Helm 4 in client-side mode) computes a three-way patch from the previous
//! release's manifest, stored in the Secret `sh.helm.release.v1.<release>.v<revision>`
//! (labels `owner=helm`, `name`, `status`, `version`). Its `data.release` is, inside the Secret's
//! own base64, the base64 of the gzip of the release JSON, whose `manifest` holds the rendered
//! documents. If that manifest has `spec.replicas` for the workload and the new chart does not
//! render it, the upgrade sends `replicas: null` and the API defaults it to 1.

use std::io::Read;

use base64::Engine;
use serde::Serialize;
use serde_json::Value;

/// What the release storage says about one workload.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(tag = "state", rename_all = "camelCase")]
pub enum ReleaseState {
    /// The deployed release was read.
    #[serde(rename_all = "camelCase")]
    Read {
        secret: String,
        revision: i64,
        /// `spec.replicas` as the previous release rendered it (None: not rendered).
        replicas: Option<String>,
        /// `ssa` or `csa` (`apply_method`; empty means client-side).
        apply_method: String,
    },
    /// The release could not be read; both outcomes are possible.
    Unreadable { reason: String },
}

/// The Helm release managing a workload.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HelmFacts {
    pub release: String,
    pub namespace: String,
    #[serde(flatten)]
    pub state: ReleaseState,
}

impl HelmFacts {
    /// Did the previous release render `spec.replicas`? None when unknown.
    pub fn rendered_replicas(&self) -> Option<bool> {
        match &self.state {
            ReleaseState::Read { replicas, .. } => Some(replicas.is_some()),
            ReleaseState::Unreadable { .. } => None,
        }
    }
    pub fn server_side(&self) -> bool {
        matches!(&self.state, ReleaseState::Read { apply_method, .. } if apply_method == "ssa")
    }
}

/// The release name and namespace from a workload's Helm annotations.
pub fn release_of(obj: &Value) -> Option<(String, String)> {
    let a = obj.pointer("/metadata/annotations")?;
    let name = a.get("meta.helm.sh/release-name")?.as_str()?;
    let ns = a
        .get("meta.helm.sh/release-namespace")
        .and_then(Value::as_str)
        .or_else(|| obj.pointer("/metadata/namespace").and_then(Value::as_str))
        .unwrap_or_default();
    Some((name.to_string(), ns.to_string()))
}

fn label<'a>(s: &'a Value, k: &str) -> &'a str {
    s.pointer(&format!("/metadata/labels/{k}"))
        .and_then(Value::as_str)
        .unwrap_or_default()
}

/// The Secret of the deployed revision among a release's Secrets (highest `version`).
pub fn deployed(secrets: &[Value], release: &str) -> Option<Value> {
    secrets
        .iter()
        .filter(|s| label(s, "owner") == "helm" && label(s, "name") == release)
        .filter(|s| label(s, "status") == "deployed")
        .max_by_key(|s| label(s, "version").parse::<i64>().unwrap_or(0))
        .cloned()
}

/// Why a Helm release could not be read from its Secrets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReleaseError {
    /// No Secret of the release with `status=deployed`.
    NoDeployedSecret { release: String },
    /// The deployed Secret has no `data.release`.
    NoData { secret: String },
    /// `data.release` does not decode (base64, gzip or JSON).
    Undecodable { layer: &'static str, detail: String },
    /// The decoded release, in a named Secret.
    InSecret {
        secret: String,
        error: Box<ReleaseError>,
    },
    /// The release's manifest does not render the target.
    NotRendered {
        secret: String,
        kind: String,
        name: String,
    },
}

impl std::fmt::Display for ReleaseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReleaseError::NoDeployedSecret { release } => write!(
                f,
                "no deployed release Secret sh.helm.release.v1.{release}.v* (owner=helm, status=deployed)"
            ),
            ReleaseError::NoData { secret } => write!(f, "Secret {secret} has no data.release"),
            ReleaseError::Undecodable { layer, detail } => write!(f, "not {layer}: {detail}"),
            ReleaseError::InSecret { secret, error } => write!(f, "Secret {secret}: {error}"),
            ReleaseError::NotRendered { secret, kind, name } => write!(
                f,
                "Secret {secret}: the release manifest has no {kind} {name}"
            ),
        }
    }
}

impl std::error::Error for ReleaseError {}

fn undecodable(layer: &'static str) -> impl Fn(&dyn std::fmt::Display) -> ReleaseError {
    move |e| ReleaseError::Undecodable {
        layer,
        detail: e.to_string(),
    }
}

fn b64(s: &[u8]) -> Result<Vec<u8>, ReleaseError> {
    let clean: Vec<u8> = s
        .iter()
        .copied()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    base64::engine::general_purpose::STANDARD
        .decode(clean)
        .map_err(|e| undecodable("base64")(&e))
}

/// Decode `data.release` as the API returns it (base64 of Helm's base64 of gzip of JSON).
pub fn decode_release(data_release: &str) -> Result<Value, ReleaseError> {
    let mut bytes = b64(data_release.as_bytes())?;
    // Helm's own encoding: base64 again (the Secret's base64 is the API's)
    if !bytes.starts_with(&[0x1f, 0x8b]) && !bytes.starts_with(b"{") {
        bytes = b64(&bytes)?;
    }
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .take(256 << 20)
            .read_to_end(&mut out)
            .map_err(|e| undecodable("gzip")(&e))?;
        bytes = out;
    }
    serde_json::from_slice(&bytes).map_err(|e| undecodable("a release JSON")(&e))
}

/// `spec.replicas` of `kind`/`name` in a rendered manifest: Some(Some(v)) when rendered,
/// Some(None) when the object has none, None when the object is not in the manifest.
pub fn replicas_in_manifest(manifest: &str, kind: &str, name: &str) -> Option<Option<String>> {
    for v in manifest_documents(manifest) {
        let k = v.get("kind").and_then(|x| x.as_str());
        let n = v
            .get("metadata")
            .and_then(|m| m.get("name"))
            .and_then(|x| x.as_str());
        if k == Some(kind) && n == Some(name) {
            let r = v.get("spec").and_then(|s| s.get("replicas"));
            return Some(r.map(super::manifest::yaml_scalar));
        }
    }
    None
}

/// The documents of a rendered manifest; when the stream does not parse as a whole, each
/// document that parses on its own (a broken one is skipped, as Helm's own readers do).
fn manifest_documents(manifest: &str) -> Vec<Value> {
    if let Ok(docs) = crate::yaml::documents::<Value>(manifest) {
        return docs;
    }
    let mut docs = Vec::new();
    let mut current = String::new();
    for line in manifest.split_inclusive('\n') {
        if line.starts_with("---") {
            docs.extend(crate::yaml::from_str::<Value>(&current).ok());
            current.clear();
        } else {
            current.push_str(line);
        }
    }
    docs.extend(crate::yaml::from_str::<Value>(&current).ok());
    docs.retain(|d| !d.is_null());
    docs
}

/// The facts from the release Secrets readable in the release's namespace.
pub fn facts_from_secrets(
    release: &str,
    namespace: &str,
    secrets: &[Value],
    kind: &str,
    name: &str,
) -> HelmFacts {
    let state = match read_state(release, secrets, kind, name) {
        Ok(s) => s,
        Err(e) => ReleaseState::Unreadable {
            reason: e.to_string(),
        },
    };
    HelmFacts {
        release: release.to_string(),
        namespace: namespace.to_string(),
        state,
    }
}

fn read_state(
    release: &str,
    secrets: &[Value],
    kind: &str,
    name: &str,
) -> Result<ReleaseState, ReleaseError> {
    let s = deployed(secrets, release).ok_or_else(|| ReleaseError::NoDeployedSecret {
        release: release.to_string(),
    })?;
    let secret = s
        .pointer("/metadata/name")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    let data = s
        .pointer("/data/release")
        .and_then(Value::as_str)
        .ok_or_else(|| ReleaseError::NoData {
            secret: secret.clone(),
        })?;
    let rel = decode_release(data).map_err(|e| ReleaseError::InSecret {
        secret: secret.clone(),
        error: Box::new(e),
    })?;
    let manifest = rel
        .get("manifest")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let replicas =
        replicas_in_manifest(manifest, kind, name).ok_or_else(|| ReleaseError::NotRendered {
            secret: secret.clone(),
            kind: kind.to_string(),
            name: name.to_string(),
        })?;
    Ok(ReleaseState::Read {
        revision: rel
            .get("version")
            .and_then(Value::as_i64)
            .unwrap_or_else(|| label(&s, "version").parse().unwrap_or(0)),
        secret,
        replicas,
        apply_method: rel
            .get("apply_method")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::io::Write;

    /// What Helm stores, as the API returns it.
    pub fn encode(release: &Value) -> String {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(release.to_string().as_bytes()).unwrap();
        let helm = base64::engine::general_purpose::STANDARD.encode(gz.finish().unwrap());
        base64::engine::general_purpose::STANDARD.encode(helm)
    }

    fn secret(version: i64, status: &str, manifest: &str) -> Value {
        let rel = json!({"name": "web", "version": version, "manifest": manifest});
        json!({"metadata": {"name": format!("sh.helm.release.v1.web.v{version}"),
            "labels": {"owner": "helm", "name": "web", "status": status, "version": version.to_string()}},
            "data": {"release": encode(&rel)}})
    }

    const WITH: &str = "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n";
    const WITHOUT: &str =
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  selector: {}\n";

    #[test]
    fn the_deployed_revision_decides() {
        let s = [
            secret(1, "superseded", WITHOUT),
            secret(2, "deployed", WITH),
        ];
        let f = facts_from_secrets("web", "shop", &s, "Deployment", "web");
        assert_eq!(f.rendered_replicas(), Some(true));
        let s = [
            secret(1, "superseded", WITH),
            secret(2, "deployed", WITHOUT),
        ];
        let f = facts_from_secrets("web", "shop", &s, "Deployment", "web");
        assert_eq!(f.rendered_replicas(), Some(false));
        assert!(matches!(f.state, ReleaseState::Read { revision: 2, .. }));
    }

    #[test]
    fn unreadable_releases_say_why() {
        let f = facts_from_secrets("web", "shop", &[], "Deployment", "web");
        assert_eq!(f.rendered_replicas(), None);
        let mut bad = secret(1, "deployed", WITH);
        bad["data"]["release"] = json!("!!!");
        let f = facts_from_secrets("web", "shop", &[bad], "Deployment", "web");
        assert!(
            matches!(&f.state, ReleaseState::Unreadable { reason } if reason.contains("not base64")),
            "{f:?}"
        );
    }
}
