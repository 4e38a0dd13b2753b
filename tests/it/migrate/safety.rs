//! `migrate --write` safe by construction (issue 25): real symbolic links, hard links,
//! permissions, owners and a concurrent writer in a scratch directory; paths named inside
//! inputs confined and bounded; deep nesting and byte order marks.

use super::*;

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::time::{Duration, Instant};

fn web_repo(tag: &str) -> Repo {
    let r = Repo::new(tag);
    r.file("k8s/web.yaml", WEB).file("k8s/hpa.yaml", WEB_HPA);
    r
}

fn edited_web() -> String {
    WEB.replace("  replicas: 3 # three pods\n", "")
}

/// The names in a directory (hidden ones too).
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn the_temporary_file_never_follows_a_planted_link() {
    let r = web_repo("templink");
    r.file("home/bashrc", "echo hi\n");
    // the name the old code used, planted as a link to a file outside the repository
    let planted = r.dir.join("k8s/.web.yaml.kubectl-hpa-migrate.tmp");
    std::os::unix::fs::symlink(r.dir.join("home/bashrc"), &planted).unwrap();
    let out = r.run(&["-f", "k8s", "--write"]);
    let text = ok_text(&out);
    assert_eq!(
        r.read("home/bashrc"),
        "echo hi\n",
        "the link's target is untouched"
    );
    let meta = std::fs::symlink_metadata(r.dir.join("k8s/web.yaml")).unwrap();
    assert!(meta.file_type().is_file(), "web.yaml stays a regular file");
    assert_eq!(r.read("k8s/web.yaml"), edited_web());
    assert!(std::fs::symlink_metadata(&planted)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(
        names(&r.dir.join("k8s")),
        [".web.yaml.kubectl-hpa-migrate.tmp", "hpa.yaml", "web.yaml"],
        "no temporary file left"
    );
    assert!(
        text.replace("\n  ", " ").contains("Files: --write replaced 1 file: k8s/web.yaml (each through a new file beside it, owner, group and mode kept)"),
        "{text}"
    );
}

#[test]
fn a_kustomize_patch_loses_its_emptied_spec_not_just_replicas() {
    let r = Repo::new("kpatch");
    r.file("base/web.yaml", WEB)
        .file("base/hpa.yaml", WEB_HPA)
        .file("base/kustomization.yaml", "resources:\n- web.yaml\n- hpa.yaml\n")
        .file(
            "overlay/kustomization.yaml",
            "resources:\n- ../base\npatches:\n- path: replicas.yaml\n- path: replicas.json\n",
        )
        .file(
            "overlay/replicas.yaml",
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  # fixed size in this overlay\n  replicas: 4\n",
        )
        .file(
            "overlay/replicas.json",
            "{\n  \"apiVersion\": \"apps/v1\",\n  \"kind\": \"Deployment\",\n  \"metadata\": {\"name\": \"web\"},\n  \"spec\": {\n    \"replicas\": 4\n  }\n}\n",
        );
    let text = ok_text(&r.run(&["-f", ".", "-R", "--write"]));
    assert!(
        text.contains("overlay/replicas.yaml:5 (document 1): remove spec.replicas (lines 5-7)"),
        "{text}"
    );
    let yaml = r.read("overlay/replicas.yaml");
    assert_eq!(
        yaml,
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n"
    );
    let json: Value = serde_json::from_str(&r.read("overlay/replicas.json")).unwrap();
    assert_eq!(
        json,
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}}),
        "no `spec: {{}}` or null left: a strategic merge patch's null spec deletes the whole spec"
    );
    // a spec with other fields keeps them (only replicas goes)
    assert_eq!(r.read("base/web.yaml"), edited_web());
}

#[test]
fn recursion_follows_no_directory_link_and_refuses_files_leaving_the_tree() {
    let r = web_repo("links");
    r.file("outside/web.yaml", WEB)
        .file("outside/other.yaml", WORKER);
    let k8s = r.dir.join("k8s");
    std::os::unix::fs::symlink(".", k8s.join("loop")).unwrap();
    std::os::unix::fs::symlink("..", k8s.join("up")).unwrap();
    std::os::unix::fs::symlink(r.dir.join("outside"), k8s.join("ext")).unwrap();
    let started = Instant::now();
    let out = r.run(&["-f", "k8s", "-R", "--write"]);
    assert!(started.elapsed() < Duration::from_secs(20), "no loop");
    let text = ok_text(&out);
    assert_eq!(
        r.read("outside/web.yaml"),
        WEB,
        "nothing outside the tree is edited"
    );
    assert_eq!(r.read("k8s/web.yaml"), edited_web());
    assert!(
        text.replace("\n  ", " ")
            .contains("Files: --write replaced 1 file: k8s/web.yaml"),
        "{text}"
    );

    // a link to a file outside the tree is refused (and blocks the write); inside, it is read
    std::os::unix::fs::symlink(r.dir.join("outside/other.yaml"), k8s.join("other.yaml")).unwrap();
    let out = r.run(&["-f", "k8s", "-R"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("k8s/other.yaml: a symbolic link to a file outside"),
        "{}",
        stderr(&out)
    );
    std::fs::remove_file(k8s.join("other.yaml")).unwrap();
}

#[test]
fn a_symbolic_link_to_a_manifest_is_read_but_never_replaced() {
    let r = Repo::new("filelink");
    r.file("k8s/zz/web.yaml", WEB).file("k8s/hpa.yaml", WEB_HPA);
    std::os::unix::fs::symlink("zz/web.yaml", r.dir.join("k8s/web.yaml")).unwrap();
    let out = r.run(&["-f", "k8s/web.yaml", "-f", "k8s/hpa.yaml", "--write"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("--write: nothing written: k8s/web.yaml: is a symbolic link (to zz/web.yaml): --write replaces only regular files; name the file it points to with -f"),
        "{}",
        stderr(&out)
    );
    assert!(stdout(&out).contains("Files: none written (see the errors)"));
    assert!(std::fs::symlink_metadata(r.dir.join("k8s/web.yaml"))
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(r.read("k8s/zz/web.yaml"), WEB);

    // reached by its own name too (-R): edited under that name, the link left alone
    let text = ok_text(&r.run(&["-f", "k8s", "-R", "--write"]));
    assert!(
        text.contains("Files: --write replaced 1 file: k8s/zz/web.yaml"),
        "{text}"
    );
    assert_eq!(r.read("k8s/zz/web.yaml"), edited_web());
    let link = std::fs::symlink_metadata(r.dir.join("k8s/web.yaml")).unwrap();
    assert!(link.file_type().is_symlink());
}

#[test]
fn hard_links_and_read_only_files_are_refused_and_nothing_is_half_written() {
    let r = web_repo("hardlink");
    // a second workload in another file, edited in the same run
    r.file("k8s/api.yaml", &WEB.replace("name: web", "name: api"))
        .file("k8s/api-hpa.yaml", &WEB_HPA.replace("web", "api"));
    std::fs::hard_link(r.dir.join("k8s/web.yaml"), r.dir.join("web.copy")).unwrap();
    let out = r.run(&["-f", "k8s", "--write"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("--write: nothing written: k8s/web.yaml: has 2 hard links: replacing it would split them"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        r.read("k8s/api.yaml"),
        WEB.replace("name: web", "name: api"),
        "all or nothing"
    );
    assert_eq!(r.read("web.copy"), WEB);
    std::fs::remove_file(r.dir.join("web.copy")).unwrap();

    let web = r.dir.join("k8s/web.yaml");
    std::fs::set_permissions(&web, std::fs::Permissions::from_mode(0o444)).unwrap();
    let out = r.run(&["-f", "k8s", "--write"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(
            "k8s/web.yaml: is read-only (mode 0444): not written; make it writable (chmod u+w)"
        ),
        "{}",
        stderr(&out)
    );
    assert_eq!(r.read("k8s/web.yaml"), WEB);
    assert_eq!(
        r.read("k8s/api.yaml"),
        WEB.replace("name: web", "name: api")
    );
    assert_eq!(names(&r.dir.join("k8s")).len(), 4, "no temporary file left");
}

#[test]
fn owner_group_and_mode_are_kept() {
    let r = web_repo("owner");
    let web = r.dir.join("k8s/web.yaml");
    std::fs::set_permissions(&web, std::fs::Permissions::from_mode(0o640)).unwrap();
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let m = std::fs::metadata(&web).unwrap();
    // as root, a foreign owner and group (kept, not turned into root's); else our own
    let (uid, gid) = if root {
        (4321, 8765)
    } else {
        (m.uid(), m.gid())
    };
    if root {
        std::os::unix::fs::chown(&web, Some(uid), Some(gid)).unwrap();
    }
    ok_text(&r.run(&["-f", "k8s", "--write"]));
    let m = std::fs::metadata(&web).unwrap();
    assert_eq!(r.read("k8s/web.yaml"), edited_web());
    assert_eq!((m.uid(), m.gid(), m.mode() & 0o7777), (uid, gid, 0o640));
}

/// A concurrent writer: the file is edited after migrate read it (its first request to the
/// API server comes after every file was read) and before it writes; the edit survives.
#[test]
fn a_file_changed_between_read_and_write_is_not_overwritten() {
    let c = cluster("concurrent", csa_cluster());
    c.manifest("manifests/comments.yaml", "web.yaml");
    c.server.set_latency(Duration::from_millis(300));
    let child = crate::support::binary::bare()
        .args([
            "migrate", "web", "-n", "shop", "-f", "web.yaml", "--apply", "--write",
        ])
        .arg("--kubeconfig")
        .arg(&c.kubeconfig)
        .current_dir(&c.dir)
        .env("NO_COLOR", "1")
        .env_remove("KUBECONFIG")
        .env("HOME", &c.dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while c.server.requests().is_empty() {
        assert!(t0.elapsed() < Duration::from_secs(30), "no request");
        std::thread::sleep(Duration::from_millis(5));
    }
    // same size, same mtime: only the content hash tells
    let path = c.dir.join("web.yaml");
    let before = std::fs::metadata(&path).unwrap();
    let theirs = c.read("web.yaml").replace("nginx:1.27", "nginx:1.28");
    std::fs::write(&path, &theirs).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(before.modified().unwrap())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("--write: nothing written: web.yaml: changed since it was read (another writer?): not overwritten"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        c.read("web.yaml"),
        theirs,
        "the other writer's edit survives"
    );
}

/// The last check happens just before each rename: a file changed after the first was
/// replaced stops the run, and the first is put back.
#[test]
fn a_late_change_puts_back_the_files_already_replaced() {
    use kubectl_hpa::{read_manifests, write_edits_with, FileReport};
    let r = web_repo("late");
    r.file("k8s/api.yaml", &WEB.replace("name: web", "name: api"));
    let src = read_manifests(&[r.dir.join("k8s")], false, &mut std::io::empty());
    let targets = ["api", "web"].map(|n| ObjectRef {
        group: "apps".into(),
        kind: "Deployment".into(),
        namespace: String::new(),
        name: n.into(),
    });
    let mut reports: Vec<FileReport> = src
        .manifests
        .iter()
        .map(|m| FileReport {
            edit: m.plan(&targets),
            written: false,
        })
        .collect();
    let web = r.dir.join("k8s/web.yaml");
    let theirs = format!("{WEB}# theirs\n");
    let done = write_edits_with(&mut reports, &src.origins, &mut |target| {
        if target == web {
            std::fs::write(target, &theirs).unwrap();
        }
    });
    let err = done.error.expect("stopped");
    assert!(done.written.is_empty());
    assert!(
        err.contains("web.yaml: changed since it was read") && err.ends_with("api.yaml"),
        "{err}"
    );
    assert!(err.starts_with("--write: nothing written: "), "{err}");
    assert_eq!(
        r.read("k8s/api.yaml"),
        WEB.replace("name: web", "name: api"),
        "put back"
    );
    assert_eq!(r.read("k8s/web.yaml"), theirs);
    assert_eq!(
        names(&r.dir.join("k8s")),
        ["api.yaml", "hpa.yaml", "web.yaml"]
    );
}

#[test]
fn paths_inside_a_kustomization_are_confined_regular_and_bounded() {
    let r = Repo::new("kpaths");
    r.file("base/web.yaml", WEB).file("base/hpa.yaml", WEB_HPA);
    r.file("secret.yaml", "apiVersion: v1\nkind: Secret\n");
    r.file(
        "overlay/kustomization.yaml",
        "resources:\n- ../base\npatches:\n- path: /dev/zero\n- path: ../secret.yaml\n- path: fifo.yaml\n- path: missing.yaml\n",
    );
    let fifo = std::ffi::CString::new(r.dir.join("overlay/fifo.yaml").to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let started = Instant::now();
    let out = r.run(&["-f", "overlay/kustomization.yaml", "-f", "base"]);
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "/dev/zero and the FIFO are not read"
    );
    let err = stderr(&out);
    for want in [
        "overlay/kustomization.yaml: patch /dev/zero: outside the kustomization's directory: not read",
        "overlay/kustomization.yaml: patch ../secret.yaml: outside the kustomization's directory: not read",
        "overlay/kustomization.yaml: patch fifo.yaml: cannot read: not a regular file (a FIFO)",
        "overlay/kustomization.yaml: patch missing.yaml: cannot read",
    ] {
        assert!(err.contains(want), "missing {want:?} in {err}");
    }
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn a_load_csv_must_be_a_bounded_regular_file() {
    let started = Instant::now();
    let out = crate::support::binary::bare()
        .args([
            "simulate",
            "--hpa",
            "tests/simulate_data/cpu.yaml",
            "--requests",
            "cpu=500m",
        ])
        .args(["--duration", "2m", "--demand", "cpu=csv:/dev/zero"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("cannot read /dev/zero: not a regular file (a device)"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn deep_nesting_is_refused_at_once_and_a_byte_order_mark_is_kept() {
    let r = Repo::new("deep");
    let n = 100_000;
    r.file(
        "deep.yaml",
        &format!("a: {}{}\n", "[".repeat(n), "]".repeat(n)),
    );
    let started = Instant::now();
    let out = r.run(&["-f", "deep.yaml"]);
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert!(
        stderr(&out).contains(
            "deep.yaml:1: nesting deeper than 64 levels of mappings and sequences; no manifest is that deep"
        ),
        "{}",
        stderr(&out)
    );
    r.file("bom.yaml", &format!("\u{feff}{WEB}---\n{WEB_HPA}"));
    ok_text(&r.run(&["-f", "bom.yaml", "--write"]));
    assert_eq!(
        r.read("bom.yaml"),
        format!("\u{feff}{}---\n{WEB_HPA}", edited_web())
    );
}

#[test]
fn write_from_stdin_writes_the_edited_stream_to_stdout_and_says_so_on_stderr() {
    let r = Repo::new("stdinwrite");
    r.file("hpa.yaml", WEB_HPA);
    let out = r.run_with(&["-f", "-", "--hpa", "hpa.yaml", "--write"], Some(WEB));
    assert!(out.status.success(), "{}", stderr(&out));
    // stdout is the edited stream alone, ready for `> app.yaml` or `| kubectl apply -f -`
    assert_eq!(stdout(&out), edited_web());
    let report = stderr(&out);
    assert!(
        report.contains("Files: the edited <stdin> is written to standard output (this report goes to standard error)"),
        "{report}"
    );
    assert!(report.contains("-  replicas: 3 # three pods\n"), "{report}");
    // a stream with nothing to edit passes through unchanged
    let plain = edited_web();
    let out = r.run_with(&["-f", "-", "--hpa", "hpa.yaml", "--write"], Some(&plain));
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out), plain);
    // without --write, stdout is the report and nothing else
    let out = r.run_with(&["-f", "-", "--hpa", "hpa.yaml"], Some(WEB));
    assert!(
        stdout(&out).contains("would change (use --write)"),
        "{}",
        stdout(&out)
    );
}
