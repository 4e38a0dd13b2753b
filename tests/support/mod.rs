//! What every integration test shares: running the binary ([`binary`]), the fake Kubernetes
//! API server ([`fake_apiserver`]) the tests start on 127.0.0.1 (with a kubeconfig for it:
//! [`cluster`]), the stand-in of Prometheus'
//! HTTP API serving recorded answers ([`prometheus`]), and the golden files ([`golden`]).

pub mod binary;
pub mod cluster;
pub mod fake_apiserver;
pub mod golden;
pub mod prometheus;
