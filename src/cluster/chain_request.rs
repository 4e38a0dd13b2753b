//! One read of the metrics chain (see [`super::chain`]): a leaf the plan names its requests
//! with.

use crate::snapshot::CHAIN_KEY_PREFIX;

/// The APIServices' collection (cluster-scoped).
pub const APISERVICES: &str = "/apis/apiregistration.k8s.io/v1/apiservices";

/// One read of the chain.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ChainRequest {
    /// LIST the APIServices (cluster-scoped; the metrics groups' are kept).
    ApiServices,
    /// GET the Service an APIService points to.
    Service { namespace: String, name: String },
    /// LIST the Deployments of that Service's namespace (the one behind it is picked by the
    /// Service's selector).
    Deployments { namespace: String },
    /// GET the ConfigMap an adapter's `--config` names; only `key` is kept.
    ConfigMap {
        namespace: String,
        name: String,
        key: String,
    },
}

impl ChainRequest {
    /// The request as the plan tests print it.
    #[cfg(test)]
    pub fn show(&self) -> String {
        match self {
            ChainRequest::ApiServices => format!("list {APISERVICES} (optional)"),
            ChainRequest::Service { namespace, name } => {
                format!("get /api/v1/namespaces/{namespace}/services/{name} (optional)")
            }
            ChainRequest::Deployments { namespace } => {
                // page: plan::PAGE_ONE
                format!("list /apis/apps/v1/namespaces/{namespace}/deployments page=Some(500) (optional)")
            }
            ChainRequest::ConfigMap {
                namespace,
                name,
                key,
            } => {
                format!("get /api/v1/namespaces/{namespace}/configmaps/{name} [{key}] (optional)")
            }
        }
    }

    /// The fetch-errors key of a failure.
    pub fn key(&self) -> String {
        let k = match self {
            ChainRequest::ApiServices => "apiservices".to_string(),
            ChainRequest::Service { namespace, name } => format!("service/{namespace}/{name}"),
            ChainRequest::Deployments { namespace } => format!("deployments/{namespace}"),
            ChainRequest::ConfigMap {
                namespace, name, ..
            } => format!("configmap/{namespace}/{name}"),
        };
        format!("{CHAIN_KEY_PREFIX}{k}")
    }
}

impl ChainRequest {
    /// The RBAC verb and resource a read needs.
    pub fn rbac(&self) -> (&'static str, &'static str) {
        match self {
            ChainRequest::ApiServices => ("list", "apiservices.apiregistration.k8s.io"),
            ChainRequest::Service { .. } => ("get", "services"),
            ChainRequest::Deployments { .. } => ("list", "deployments.apps"),
            ChainRequest::ConfigMap { .. } => ("get", "configmaps"),
        }
    }
}
