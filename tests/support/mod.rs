//! What every integration test shares: running the binary ([`binary`]) and the fake Kubernetes
//! API server ([`fake_apiserver`]) the tests start on 127.0.0.1.

pub mod binary;
pub mod fake_apiserver;
