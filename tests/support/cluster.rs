//! A fake cluster with a kubeconfig for it, and the one `explain` each test file runs against
//! it and against a snapshot file: what tests/it/{live,keda,blockers,chain,faults,fleet}.rs each
//! wrote again.

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::Value;

use super::binary::{example, ok_json, run, tmpdir, NOW};
use super::fake_apiserver::FakeApiServer;

/// A fake API server serving some objects, and a kubeconfig (in its own temporary directory)
/// that points at it.
pub struct FakeCluster {
    pub server: FakeApiServer,
    pub kubeconfig: PathBuf,
}

impl FakeCluster {
    /// A cluster serving `objects`; `tag` names the kubeconfig's directory.
    pub fn with(objects: Vec<Value>, tag: &str) -> FakeCluster {
        FakeCluster::serving(FakeApiServer::start(objects), tag)
    }

    /// A cluster serving an example snapshot (examples/FILE).
    pub fn example(file: &str, tag: &str) -> FakeCluster {
        FakeCluster::serving(FakeApiServer::from_snapshot_file(example(file)), tag)
    }

    /// A kubeconfig for a server already started (with options, or faults set before).
    pub fn serving(server: FakeApiServer, tag: &str) -> FakeCluster {
        let kubeconfig = server.write_kubeconfig(&tmpdir(tag));
        FakeCluster { server, kubeconfig }
    }

    /// A kubeconfig (in its own directory, `tag`) with two contexts `a` and `b`, both on this
    /// server and in namespace `shop`.
    pub fn two_contexts(&self, tag: &str) -> PathBuf {
        let contexts = [("a", "shop", "a-user"), ("b", "shop", "b-user")];
        self.server
            .write_kubeconfig_contexts(&tmpdir(tag), &contexts)
    }

    /// The binary with these arguments, against this cluster.
    pub fn run(&self, args: &[&str]) -> Output {
        run(args, Some(&self.kubeconfig))
    }

    /// `explain NAME -n shop --now NOW -o json` against this cluster (it must succeed).
    pub fn explain_json(&self, name: &str) -> Value {
        ok_json(
            &self.run(&["explain", name, "-n", "shop", "--now", NOW, "-o", "json"]),
            &format!("live explain {name}"),
        )
    }
}

/// `explain NAME -n shop --snapshot FILE --now NOW -o json` (it must succeed).
pub fn offline_explain_json(file: &Path, name: &str) -> Value {
    let f = file.to_string_lossy();
    let args = [
        "explain",
        name,
        "-n",
        "shop",
        "--snapshot",
        &f,
        "--now",
        NOW,
    ];
    let mut args = args.to_vec();
    args.extend(["-o", "json"]);
    ok_json(&run(&args, None), &format!("offline explain {name} {f}"))
}
