//! A stand-in for Prometheus' HTTP API on 127.0.0.1 that answers `GET /api/v1/query_range`
//! with answers recorded from a real server, so the backtest tests run on any machine.
//!
//! Recording: [`PromStandin::recording`] puts the same server in front of a real Prometheus; it
//! forwards every request, answers with the real answer and, with `RECORD_PROMETHEUS=1`, writes
//! what it saw to `tests/support/prometheus/<name>.json` when dropped (`scripts/record-prometheus.sh`
//! runs the real-Prometheus tests that way). A request with no recorded answer gets a 500 whose
//! error says to re-record, so a test whose queries changed fails instead of passing on stale data.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use std::time::Instant;

use serde_json::{json, Value};

use super::fake_apiserver::raw_http;

/// One recorded exchange: the request target (path and query string, as sent) and the answer.
type Answers = BTreeMap<String, (u16, String)>;

pub struct PromStandin {
    pub url: String,
    name: String,
    answers: Arc<Mutex<Answers>>,
    /// The real server requests are forwarded to, when recording.
    upstream: Option<SocketAddr>,
    /// Requests without a recorded answer.
    misses: Arc<Mutex<Vec<String>>>,
}

/// `tests/support/prometheus/<name>.json`.
pub fn recording_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/support/prometheus")
        .join(format!("{name}.json"))
}

/// Whether the real-Prometheus tests record what they see (`RECORD_PROMETHEUS=1`).
pub fn recording_requested() -> bool {
    std::env::var("RECORD_PROMETHEUS").is_ok_and(|v| v == "1")
}

impl PromStandin {
    /// Serves the answers recorded under `name`.
    pub fn replay(name: &str) -> PromStandin {
        let path = recording_path(name);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e}; record it with scripts/record-prometheus.sh",
                path.display()
            )
        });
        let doc: Value = serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{}: not JSON: {e}", path.display()));
        let mut answers = Answers::new();
        for a in doc["answers"].as_array().expect("answers: a list") {
            let request = a["request"].as_str().expect("answers[].request");
            let status = a["status"].as_u64().expect("answers[].status") as u16;
            let body = a["body"].as_str().expect("answers[].body");
            answers.insert(request.to_string(), (status, body.to_string()));
        }
        assert!(!answers.is_empty(), "{}: no answers", path.display());
        Self::start(name, answers, None)
    }

    /// Forwards to the real Prometheus at `upstream` and remembers its answers.
    pub fn recording(name: &str, upstream: SocketAddr) -> PromStandin {
        Self::start(name, Answers::new(), Some(upstream))
    }

    fn start(name: &str, answers: Answers, upstream: Option<SocketAddr>) -> PromStandin {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let port = listener.local_addr().unwrap().port();
        let answers = Arc::new(Mutex::new(answers));
        let misses = Arc::new(Mutex::new(Vec::new()));
        let (a, m) = (answers.clone(), misses.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (a, m) = (a.clone(), m.clone());
                std::thread::spawn(move || serve(stream, &a, &m, upstream));
            }
        });
        PromStandin {
            url: format!("http://127.0.0.1:{port}"),
            name: name.to_string(),
            answers,
            upstream,
            misses,
        }
    }

    /// Panics naming the requests that had no recorded answer.
    pub fn assert_every_request_answered(&self) {
        let misses = self.misses.lock().unwrap();
        assert!(
            misses.is_empty(),
            "no recorded answer in {} for {misses:?}: re-record with scripts/record-prometheus.sh",
            recording_path(&self.name).display()
        );
    }

    /// Writes the exchanges seen while recording to [`recording_path`].
    fn write_recording(&self) {
        let answers = self.answers.lock().unwrap();
        let list: Vec<Value> = answers
            .iter()
            .map(|(request, (status, body))| {
                json!({ "request": request, "status": status, "body": body })
            })
            .collect();
        let doc = json!({
            "recordedFrom": prometheus_version(),
            "recordedBy": "scripts/record-prometheus.sh",
            "answers": list,
        });
        let path = recording_path(&self.name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let text = serde_json::to_string_pretty(&doc).unwrap() + "\n";
        std::fs::write(&path, text).unwrap();
        eprintln!("recorded {} answers in {}", answers.len(), path.display());
    }
}

impl Drop for PromStandin {
    fn drop(&mut self) {
        if self.upstream.is_some() && recording_requested() && !std::thread::panicking() {
            self.write_recording();
        }
    }
}

fn prometheus_version() -> String {
    std::process::Command::new("prometheus")
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| {
            let text = String::from_utf8_lossy(&o.stdout).into_owned()
                + &String::from_utf8_lossy(&o.stderr);
            text.lines().next().map(str::to_string)
        })
        .unwrap_or_else(|| "prometheus (unknown version)".into())
}

/// Reads one request head, answers it (recorded, forwarded or a 500 naming the miss).
fn serve(
    mut stream: TcpStream,
    answers: &Mutex<Answers>,
    misses: &Mutex<Vec<String>>,
    upstream: Option<SocketAddr>,
) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte) {
            Ok(1) => head.push(byte[0]),
            _ => return,
        }
    }
    let head = String::from_utf8_lossy(&head);
    let mut words = head.split_whitespace();
    let (method, target) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
    let key = target.to_string();
    let answer = if method != "GET" {
        (405, error_body(&format!("method {method} is not GET")))
    } else if let Some(up) = upstream {
        match raw_http::request(up, "GET", target, &[], None, Duration::from_secs(60)) {
            Ok(r) => {
                let a = (r.status, r.text());
                answers.lock().unwrap().insert(key, a.clone());
                a
            }
            Err(e) => (502, error_body(&format!("the real Prometheus: {e}"))),
        }
    } else if let Some(a) = answers.lock().unwrap().get(&key) {
        a.clone()
    } else {
        misses.lock().unwrap().push(key.clone());
        let msg = format!(
            "kubectl-hpa test stand-in: no recorded answer for GET {key}; \
             re-record with scripts/record-prometheus.sh"
        );
        (500, error_body(&msg))
    };
    let (status, body) = answer;
    let reason = match status {
        200 => "OK",
        400 => "Bad Request",
        422 => "Unprocessable Entity",
        _ => "Error",
    };
    let response = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes());
}

/// Prometheus' error shape.
fn error_body(msg: &str) -> String {
    json!({ "status": "error", "errorType": "internal", "error": msg }).to_string()
}

// The real server the `real::` tests start (simulate_backtest.rs, history/replay.rs).

/// A Prometheus server on 127.0.0.1 serving a backfilled TSDB; killed on drop.
pub struct Prometheus {
    child: Child,
    pub url: String,
}

impl Drop for Prometheus {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn have(binary: &str) -> bool {
    Command::new(binary)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Start Prometheus on `openmetrics` data; the binaries must be there (the test was asked for).
pub fn prometheus(tag: &str, openmetrics: &str) -> Prometheus {
    assert!(
        have("prometheus") && have("promtool"),
        "the prometheus and promtool binaries are missing (Debian: apt-get install prometheus; \
         macOS: brew install prometheus); .ci/run installs them"
    );
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("prometheus-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let om = dir.join("data.om");
    std::fs::write(&om, openmetrics).unwrap();
    let data = dir.join("data");
    let out = Command::new("promtool")
        .args(["tsdb", "create-blocks-from", "openmetrics"])
        .arg(&om)
        .arg(&data)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "promtool: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let config = dir.join("prometheus.yml");
    std::fs::write(&config, "global:\n  scrape_interval: 1m\n").unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let log = std::fs::File::create(dir.join("prometheus.log")).unwrap();
    let child = Command::new("prometheus")
        .arg(format!("--config.file={}", config.display()))
        .arg(format!("--storage.tsdb.path={}", data.display()))
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .arg("--storage.tsdb.retention.time=100y")
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .spawn()
        .expect("prometheus starts");
    let p = Prometheus {
        child,
        url: format!("http://127.0.0.1:{port}"),
    };
    wait_ready(port, &dir.join("prometheus.log"));
    p
}

fn wait_ready(port: u16, log: &Path) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        if let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) {
            let _ = s.write_all(b"GET /-/ready HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
            let mut buf = String::new();
            let _ = s.read_to_string(&mut buf);
            if buf.starts_with("HTTP/1.1 200") {
                return;
            }
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    panic!(
        "prometheus did not become ready: {}",
        std::fs::read_to_string(log).unwrap_or_default()
    );
}
