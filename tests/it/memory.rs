//! The controller's memory inferred from the HPA's status and SuccessfulRescale Events: live
//! (the Events and status as the API server serves them) and offline (the same objects from
//! `kubectl hpa snapshot`) give the same answer.

use crate::support::binary;
use crate::support::fake_apiserver;

use binary::*;
use fake_apiserver::FakeApiServer;
use serde_json::{json, Value};

fn memory_fields(v: &Value) -> Value {
    json!({
        "desiredReplicas": v["desiredReplicas"],
        "desiredRange": v["desiredRange"],
        "memory": v["memory"],
        "nextChange": v["nextChange"],
        "lastSync": v["lastSync"],
        "verdict": v["verdict"],
    })
}

#[test]
fn live_and_snapshot_infer_the_same_memory_from_status_and_events() {
    let server = FakeApiServer::from_snapshot_file(example("held-by-window.yaml"));
    let dir = tmpdir("memory-live");
    let kc = server.write_kubeconfig(&dir);
    let live = ok_json(
        &run(
            &[
                "explain", "frontend", "-n", "shop", "--now", NOW, "-o", "json",
            ],
            Some(&kc),
        ),
        "live explain",
    );
    assert_eq!(live["desiredReplicas"], 8);
    assert_eq!(live["desiredRange"], json!({"min": 8, "max": 8}));
    assert_eq!(live["memory"]["source"], "inferred");
    assert_eq!(live["nextChange"]["earliest"], "2026-03-01T12:00:30Z");
    // The snapshot the live objects make replays the same memory and decision.
    let snap = ok(
        &run(&["snapshot", "frontend", "-n", "shop"], Some(&kc)),
        "snapshot",
    );
    let file = dir.join("snap.yaml");
    std::fs::write(&file, snap).unwrap();
    let offline = ok_json(
        &run(
            &[
                "explain",
                "frontend",
                "-n",
                "shop",
                "--snapshot",
                file.to_str().unwrap(),
                "--now",
                NOW,
                "-o",
                "json",
            ],
            None,
        ),
        "offline explain",
    );
    assert_eq!(memory_fields(&live), memory_fields(&offline));
}

#[test]
fn aggregated_events_from_the_api_server_are_read_with_their_count() {
    // The API server aggregated three `New size: 8` rescales into one Event (count 3).
    let mut objects = fake_apiserver::load_snapshot(example("held-by-window.yaml"));
    let mut changed = 0;
    let lists = objects
        .iter_mut()
        .filter_map(|doc| doc["items"].as_array_mut());
    for o in lists.flatten() {
        if o["kind"] == "Event"
            && o["message"]
                .as_str()
                .unwrap_or("")
                .starts_with("New size: 8")
        {
            o["count"] = json!(3);
            o["firstTimestamp"] = json!("2026-03-01T11:20:00Z");
            o["lastTimestamp"] = json!("2026-03-01T11:59:50Z");
            changed += 1;
        }
    }
    assert_eq!(changed, 1);
    let server = FakeApiServer::start(objects);
    let dir = tmpdir("memory-aggregated");
    let kc = server.write_kubeconfig(&dir);
    let v = ok_json(
        &run(
            &[
                "explain", "frontend", "-n", "shop", "--now", NOW, "-o", "json",
            ],
            Some(&kc),
        ),
        "live explain",
    );
    // The last occurrence (11:59:50) follows the 4 of 11:40: a scale-up dated inside the window.
    assert_eq!(v["desiredRange"], json!({"min": 8, "max": 8}));
    let evidence = v["memory"]["evidence"].to_string();
    assert!(evidence.contains("scaled up 4 → 8"), "{evidence}");
    // The third occurrence has no time of its own and may fall inside the 15 s policy period.
    assert!(evidence.contains("was aggregated"), "{evidence}");
    assert!(!v["memory"]["high"]["scaleDownEvents"]
        .as_array()
        .unwrap()
        .is_empty());
}

#[test]
fn watch_starts_from_the_inferred_memory_and_ends_when_its_reader_goes() {
    use std::io::BufRead;
    let server = FakeApiServer::from_snapshot_file(example("held-by-window.yaml"));
    let dir = tmpdir("memory-watch");
    let kc = server.write_kubeconfig(&dir);
    let mut child = cmd(
        &[
            "explain",
            "frontend",
            "-n",
            "shop",
            "--watch",
            "--sync-period",
            "1s",
            "-o",
            "json",
        ],
        Some(&kc),
    )
    .stdout(std::process::Stdio::piped())
    .stderr(std::process::Stdio::piped())
    .spawn()
    .unwrap();
    let mut first = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let line: Value = serde_json::from_str(&first).unwrap();
    assert_eq!(line["memorySource"], "inferred", "{line}");
    // The reader is gone (as with `| head -1`): the watch must end by itself, not poll forever.
    let started = std::time::Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "{status:?}");
            break;
        }
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "the watch kept running after its reader closed"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}
