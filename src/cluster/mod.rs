//! Live mode: everything the HPA controller reads, fetched read-only (GET and LIST; the only
//! writes are `migrate --apply`'s PATCHes, [`Conn::patch_raw`]) and assembled into the same
//! `v1 List` a `--snapshot` file holds.
//!
//! One path for one HPA and for many: [`plan`] decides the requests (pure), [`fetch`] sends
//! them round by round, concurrently, paging LISTs, and [`assemble`] turns the answers into
//! Lists (pure). `explain NAME` is the fleet path with one HPA. A failed call on a metrics
//! source or on the target does not fail the fetch: it is recorded in the List's
//! [`crate::snapshot::FETCH_ERRORS_ANNOTATION`] as the controller's clients word it.

mod answers;
mod assemble;
mod auth;
mod chain;
mod chain_request;
mod connect;
mod discovery;
mod failure;
mod fetch;
mod incluster;
mod obj;
mod options;
mod plan;
mod progress;
mod shape;
mod slim;
mod tls;
mod transport;
mod words;
mod writes;

use jiff::Timestamp;
use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;

pub use connect::{connect, context_names, list_names};
pub use discovery::metrics_apiservice;
pub use failure::{ApiFailure, Error, Failure};
pub use options::ConnectOptions;
pub use plan::Scope;
pub use progress::Progress;
pub use transport::Conn;

pub use assemble::Closed;
use assemble::{Assembled, Origin};

use crate::metrics_api::{MetricsApi, MetricsGroup};

/// Everything fetched for one HPA.
pub struct Fetched {
    /// The `v1 List` as JSON text (what `kubectl hpa snapshot` prints; what
    /// [`crate::snapshot::Snapshot::from_text`] reads, as from a file).
    pub list: String,
    /// The HPA as the server returned it.
    pub hpa: HorizontalPodAutoscaler,
    /// What could not be read besides the metrics sources, and denied requests, in words.
    pub notes: Vec<String>,
    pub server_version: Option<String>,
    /// The resource metrics APIService the controller reads through, by name, read only when
    /// the PodMetrics LIST failed.
    pub metrics_api: Option<(String, MetricsApi)>,
}

/// Everything fetched for the HPAs of a namespace or of the cluster.
pub struct FleetFetched {
    /// One `v1 List` per namespace that has HPAs, namespaces in order, closed for reading.
    pub lists: Vec<(String, Closed)>,
    /// What could not be read besides metrics, in words.
    pub notes: Vec<String>,
    /// The resource metrics APIService the controller reads through, by name, read only when
    /// the PodMetrics LIST failed.
    pub metrics_api: Option<(String, MetricsApi)>,
}

/// Plan, fetch and assemble one scope (the Lists not yet closed); the APIService of the
/// resource metrics when their LIST failed.
async fn run(
    conn: &Conn,
    scope: &Scope,
    progress: &Progress,
) -> Result<(Assembled, Option<(String, MetricsApi)>, Origin), Error> {
    let fetch = fetch::fetch(conn, scope, progress);
    tokio::pin!(fetch);
    let answers = loop {
        tokio::select! {
            a = &mut fetch => break a,
            _ = progress.ticker() => {}
        }
    };
    progress.finish();
    let (answers, hpas) = answers?;
    if let Scope::One { namespace, name } = scope {
        if !hpas.iter().any(|h| &h.name == name) {
            return Err(Error::HpaNotFound {
                namespace: namespace.clone(),
                name: name.clone(),
                context: conn.context.clone(),
                others: hpas.iter().map(|h| h.name.clone()).collect(),
            });
        }
    }
    let origin = Origin {
        source: format!("cluster {} ({})", conn.context, conn.server),
        taken_at: Timestamp::now().to_string(),
        taken_for: match scope {
            Scope::One { namespace, name } => Some(format!("{namespace}/{name}")),
            _ => None,
        },
    };
    // perf: off the runtime's thread, so the contexts of a multi-context run assemble side by
    // side (`cargo bench --bench fleet`, five contexts) while the runtime goes on reading.
    let assembly_scope = scope.clone();
    let mut assembled =
        tokio::task::spawn_blocking(move || assemble::assemble(&assembly_scope, &hpas, answers))
            .await
            .map_err(|e| Error::Other(format!("assembling the answers: {e}")))??;
    let api = match assembled.resource_metrics_failed {
        true => {
            let name = crate::metrics_api::resource_apiservice(
                matches!(
                    assembled.resource_metrics,
                    Some(answers::Negotiated::V1 { .. })
                ),
                assemble::negotiates(&assembled),
            );
            // the metrics chain's LIST holds it (one request saved); a GET when that LIST failed
            let api = match &assembled.apiservices {
                Some(listed) => chain::listed_apiservice(listed, name).0,
                None => metrics_apiservice(conn, name).await,
            };
            Some((name.to_string(), api))
        }
        false => None,
    };
    // An APIService that is not available fails the controller's reads too.
    if let Some((_, MetricsApi::Unavailable { .. })) = &api {
        assemble::not_ours(&mut assembled.lists, "resource-metrics");
    }
    unavailable_metrics_apis(conn, &mut assembled).await;
    Ok((assembled, api, origin))
}

/// Custom or external metrics that failed for us while their APIService is not `Available`:
/// the controller's reads fail the same way (the aggregator answers 503), so the failure is
/// its verdict, not ours. The APIService object joins the Lists that read the API (the
/// diagnosis and a replay of the snapshot see it), with a note. Looked up in the metrics
/// chain's APIServices LIST; one GET per API at most when that LIST failed.
async fn unavailable_metrics_apis(conn: &Conn, a: &mut Assembled) {
    for group in [MetricsGroup::Custom, MetricsGroup::External] {
        let keys: Vec<Vec<String>> = a
            .lists
            .iter()
            .map(|(_, l)| {
                l.own_failure_keys()
                    .filter(|k| MetricsGroup::of_key(k) == Some(group))
                    .cloned()
                    .collect()
            })
            .collect();
        if keys.iter().all(Vec::is_empty) {
            continue;
        }
        let found = match &a.apiservices {
            Some(listed) => chain::listed_group_apiservice(listed, group),
            None => discovery::group_apiservice(conn, group).await,
        };
        let Some((name, MetricsApi::Unavailable { reason, message }, obj)) = found else {
            continue;
        };
        for ((_, list), keys) in a.lists.iter_mut().zip(&keys) {
            if keys.is_empty() {
                continue;
            }
            if let Some(obj) = obj.as_ref() {
                list.push(obj);
            }
        }
        for k in keys.iter().flatten() {
            assemble::not_ours(&mut a.lists, k);
        }
        a.notes.push(format!(
            "APIService {name} is not available ({reason}: {message}): the controller's reads of {} fail too",
            group.words()
        ));
    }
}

/// Fetch everything the controller reads for HPA `ns/name` (GET/LIST only) and build the List.
pub async fn fetch_hpa(conn: &Conn, ns: &str, name: &str) -> Result<Fetched, Error> {
    fetch_hpa_with(conn, ns, name, &Progress::off()).await
}

/// [`fetch_hpa`] with progress on stderr.
pub async fn fetch_hpa_with(
    conn: &Conn,
    ns: &str,
    name: &str,
    progress: &Progress,
) -> Result<Fetched, Error> {
    let scope = Scope::One {
        namespace: ns.to_string(),
        name: name.to_string(),
    };
    let (mut a, metrics_api, origin) = run(conn, &scope, progress).await?;
    let list = a.lists.pop().map(|(_, l)| l).unwrap_or_default();
    let raw = list
        .first_object()
        .ok_or_else(|| Error::Other(format!("HPA {ns}/{name}: nothing fetched")))?;
    let hpa: HorizontalPodAutoscaler =
        serde_json::from_str(raw.get()).map_err(|e| Error::BadHpa {
            namespace: ns.to_string(),
            name: name.to_string(),
            error: e.to_string(),
        })?;
    Ok(Fetched {
        list: list.finish(&origin, a.server_version.as_deref()),
        hpa,
        notes: a.notes,
        server_version: a.server_version,
        metrics_api,
    })
}

/// Fetch the HPAs of `namespace` (`None`: every namespace) and what they read, with a number
/// of requests that does not grow with the number of HPAs: one LIST each of HPAs, pods,
/// PodMetrics, Deployments, StatefulSets, ReplicaSets and the HPAs' Events (per namespace, or
/// cluster-wide), plus one request per distinct custom/external metric query and a scale GET
/// per custom-resource target (after a discovery GET for its group).
pub async fn fetch_fleet(
    conn: &Conn,
    namespace: Option<&str>,
    progress: &Progress,
) -> Result<FleetFetched, Error> {
    let scope = match namespace {
        Some(ns) => Scope::Namespace(ns.to_string()),
        None => Scope::All,
    };
    let (a, metrics_api, origin) = run(conn, &scope, progress).await?;
    let version = a.server_version.as_deref();
    Ok(FleetFetched {
        lists: a
            .lists
            .into_iter()
            .map(|(ns, l)| (ns, l.close(&origin, version)))
            .collect(),
        notes: a.notes,
        metrics_api,
    })
}
