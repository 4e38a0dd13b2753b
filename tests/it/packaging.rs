//! Packaging: the krew manifest rendered from `.krew.yaml` by `scripts/release.sh manifest`,
//! the release archive and its checksum, the release workflow's pinned actions, the committed
//! completion scripts, the `__complete` protocol that `kubectl_complete-hpa` relies on, and
//! kubectl-style `--help`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::support::binary::{tmpdir, BIN};

#[cfg(unix)]
mod shells;

const VERSION: &str = env!("CARGO_PKG_VERSION");
const REPOSITORY: &str = env!("CARGO_PKG_REPOSITORY");
/// The platforms krew users get: (os, arch) in Go's names.
const PLATFORMS: [(&str, &str); 5] = [
    ("linux", "amd64"),
    ("linux", "arm64"),
    ("darwin", "amd64"),
    ("darwin", "arm64"),
    ("windows", "amd64"),
];

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

fn read(path: &str) -> String {
    std::fs::read_to_string(repo(path)).unwrap_or_else(|e| panic!("read {path}: {e}"))
}

fn archive_name(os: &str, arch: &str) -> String {
    format!("kubectl-hpa_v{VERSION}_{os}_{arch}.tar.gz")
}

/// A made-up sha256 per platform: 64 lowercase hex characters, different for each.
fn fake_sha256(os: &str, arch: &str) -> String {
    let seed = format!("{os}/{arch}");
    (0..64)
        .map(|i| {
            let b = seed.as_bytes()[i % seed.len()] as usize + i * 7;
            char::from_digit((b % 16) as u32, 16).unwrap()
        })
        .collect()
}

/// `scripts/release.sh manifest ARGS` run from the repository: (exit code, stdout, stderr).
fn release_sh(args: &[&str]) -> (i32, String, String) {
    let out = Command::new("bash")
        .arg(repo("scripts/release.sh"))
        .args(args)
        .current_dir(repo("."))
        .output()
        .expect("run scripts/release.sh");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A directory holding what the release workflow's build jobs upload: one `<archive>.sha256`
/// per platform (`sha256sum` format), with [`fake_sha256`] checksums.
fn fake_release_dir(tag: &str) -> PathBuf {
    let dir = tmpdir(tag);
    for (os, arch) in PLATFORMS {
        let name = archive_name(os, arch);
        let line = format!("{}  {name}\n", fake_sha256(os, arch));
        std::fs::write(dir.join(format!("{name}.sha256")), line).unwrap();
    }
    dir
}

/// `.krew.yaml` rendered by `scripts/release.sh manifest` for a fake release: (text, YAML).
fn rendered(tag: &str) -> (String, Value) {
    let dir = fake_release_dir(tag);
    let d = dir.to_string_lossy().to_string();
    let (code, out, err) = release_sh(&["manifest", "--dir", &d]);
    assert_eq!(code, 0, "scripts/release.sh manifest: {err}");
    assert!(out.contains("5 platforms"), "{out}");
    let text = std::fs::read_to_string(dir.join("krew-manifest.yaml")).expect("rendered");
    let yaml = kubectl_hpa::yaml::from_str(&text).expect("the rendered manifest is YAML");
    (text, yaml)
}

fn str_at<'a>(v: &'a Value, path: &[&str]) -> &'a str {
    let mut cur = v;
    for key in path {
        cur = cur
            .get(*key)
            .unwrap_or_else(|| panic!("krew manifest: missing {}", path.join(".")));
    }
    let s = cur
        .as_str()
        .unwrap_or_else(|| panic!("krew manifest: {} is not a string", path.join(".")));
    assert!(
        !s.trim().is_empty(),
        "krew manifest: {} is empty",
        path.join(".")
    );
    s
}

fn is_sha256(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// (os, arch, uri, sha256, bin, files-from) of every platform entry.
struct Platform {
    os: String,
    arch: String,
    uri: String,
    sha256: String,
    bin: String,
    files: Vec<String>,
}

fn platforms(m: &Value) -> Vec<Platform> {
    let list = m["spec"]["platforms"]
        .as_array()
        .expect("spec.platforms is a list");
    list.iter()
        .enumerate()
        .map(|(i, p)| {
            let at = |path: &[&str]| -> String {
                let mut cur = p;
                for key in path {
                    cur = cur.get(*key).unwrap_or_else(|| {
                        panic!("spec.platforms[{i}]: missing {}", path.join("."))
                    });
                }
                let s = cur.as_str().unwrap_or_else(|| {
                    panic!("spec.platforms[{i}].{} is not a string", path.join("."))
                });
                assert!(
                    !s.is_empty(),
                    "spec.platforms[{i}].{} is empty",
                    path.join(".")
                );
                s.to_string()
            };
            let files = p
                .get("files")
                .and_then(Value::as_array)
                .map(|fs| {
                    fs.iter()
                        .map(|f| {
                            assert_eq!(
                                f["to"].as_str(),
                                Some("."),
                                "spec.platforms[{i}].files: `to` must be ."
                            );
                            f["from"].as_str().expect("files[].from").to_string()
                        })
                        .collect()
                })
                .unwrap_or_default();
            Platform {
                os: at(&["selector", "matchLabels", "os"]),
                arch: at(&["selector", "matchLabels", "arch"]),
                uri: at(&["uri"]),
                sha256: at(&["sha256"]),
                bin: at(&["bin"]),
                files,
            }
        })
        .collect()
}

#[test]
fn krew_manifest_has_every_required_field() {
    let (_, m) = rendered("krew-fields");
    assert_eq!(
        str_at(&m, &["apiVersion"]),
        "krew.googlecontainertools.github.com/v1alpha2"
    );
    assert_eq!(str_at(&m, &["kind"]), "Plugin");
    assert_eq!(
        str_at(&m, &["metadata", "name"]),
        "hpa",
        "the plugin is invoked as `kubectl hpa`"
    );
    assert_eq!(
        str_at(&m, &["spec", "version"]),
        format!("v{VERSION}"),
        "spec.version must be Cargo.toml's version with a v prefix"
    );
    assert_eq!(
        str_at(&m, &["spec", "homepage"]),
        REPOSITORY,
        "homepage: Cargo.toml's repository"
    );
    let short = str_at(&m, &["spec", "shortDescription"]);
    assert!(
        short.len() <= 60 && !short.contains('\n'),
        "shortDescription should be a few words: {short:?}"
    );
    str_at(&m, &["spec", "description"]);
    let caveats = str_at(&m, &["spec", "caveats"]);
    assert!(
        caveats.contains("kubectl_complete-hpa"),
        "caveats explain the completion helper"
    );
}

#[test]
fn krew_manifest_platforms_have_uri_sha256_and_bin() {
    let (text, m) = rendered("krew-platforms");
    let ps = platforms(&m);
    let got: BTreeSet<(String, String)> =
        ps.iter().map(|p| (p.os.clone(), p.arch.clone())).collect();
    let want: BTreeSet<(String, String)> = PLATFORMS
        .iter()
        .map(|(o, a)| (o.to_string(), a.to_string()))
        .collect();
    assert_eq!(got, want, "platforms");
    assert_eq!(ps.len(), PLATFORMS.len(), "a platform is listed twice");
    for p in &ps {
        let what = format!("{}/{}", p.os, p.arch);
        let exe = if p.os == "windows" { ".exe" } else { "" };
        assert_eq!(p.bin, format!("kubectl-hpa{exe}"), "{what}: bin");
        // The archive scripts/release.sh makes, on the release named by the version tag.
        let archive = archive_name(&p.os, &p.arch);
        assert_eq!(
            p.uri,
            format!("{REPOSITORY}/releases/download/v{VERSION}/{archive}"),
            "{what}: uri"
        );
        assert!(is_sha256(&p.sha256), "{what}: sha256 {:?}", p.sha256);
        assert_eq!(
            p.sha256,
            fake_sha256(&p.os, &p.arch),
            "{what}: the sha256 of its own archive"
        );
        // The archive layout: binary at the root, plus the completion helper and the docs.
        let layout = [
            p.bin.as_str(),
            "kubectl_complete-hpa",
            "LICENSE",
            "README.md",
        ];
        assert_eq!(p.files, layout, "{what}: files");
    }
    for (name, body) in [
        ("the rendered manifest", text),
        (".krew.yaml", read(".krew.yaml")),
    ] {
        assert!(
            !body.to_ascii_lowercase().contains("placeholder"),
            "{name} holds a placeholder"
        );
    }
}

/// A release never publishes a manifest it could not fill: each failure is one line naming
/// what is wrong, and no manifest is written.
#[test]
fn krew_manifest_is_not_rendered_without_every_checksum() {
    let dir = fake_release_dir("krew-missing");
    let d = dir.to_string_lossy().to_string();
    let missing = dir.join(format!("{}.sha256", archive_name("darwin", "arm64")));
    std::fs::remove_file(&missing).unwrap();
    let (code, _, err) = release_sh(&["manifest", "--dir", &d]);
    assert_ne!(code, 0, "rendered without darwin/arm64's checksum");
    assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    assert!(
        err.contains(&missing.display().to_string()) && err.contains("build that platform"),
        "{err}"
    );
    assert!(!dir.join("krew-manifest.yaml").exists());
    // Not a sha256.
    std::fs::write(
        &missing,
        format!("abc  {}\n", archive_name("darwin", "arm64")),
    )
    .unwrap();
    let (code, _, err) = release_sh(&["manifest", "--dir", &d]);
    assert_ne!(code, 0);
    assert!(err.contains("not a sha256"), "{err}");
    // The checksum of another file.
    let other = format!(
        "{}  {}\n",
        fake_sha256("x", "y"),
        archive_name("linux", "amd64")
    );
    std::fs::write(&missing, other).unwrap();
    let (code, _, err) = release_sh(&["manifest", "--dir", &d]);
    assert_ne!(code, 0);
    assert!(err.contains("names kubectl-hpa_v"), "{err}");
    // A tag that is not Cargo.toml's version.
    let (code, _, err) = release_sh(&["manifest", "--dir", &d, "--tag", "v99.0.0"]);
    assert_ne!(code, 0);
    assert!(err.contains(&format!("is not v{VERSION}")), "{err}");
    assert!(!dir.join("krew-manifest.yaml").exists());
}

/// The package step as the release workflow runs it (`--no-build` on a stand-in binary): the
/// archive's members at its root and a `.sha256` file `sha256sum -c` accepts.
#[cfg(unix)]
#[test]
fn release_archive_and_checksum() {
    let have = |c: &str| {
        Command::new(c)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    // GNU coreutils' sha256sum, else Perl's shasum (macOS).
    let sha256sum: &[&str] = if have("sha256sum") {
        &["sha256sum"]
    } else {
        &["shasum", "-a", "256"]
    };
    assert!(have("tar"), "tar is needed to check the release archive");
    let dir = tmpdir("release-archive");
    let target = dir.join("target");
    std::fs::create_dir_all(target.join("dist")).unwrap();
    std::fs::write(target.join("dist/kubectl-hpa"), "#!/bin/sh\n").unwrap();
    let out_dir = dir.join("dist");
    let out = Command::new("bash")
        .arg(repo("scripts/release.sh"))
        .args(["--no-build", "--out"])
        .arg(&out_dir)
        .current_dir(repo("."))
        .env("CARGO_TARGET_DIR", &target)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let arch = if cfg!(target_arch = "aarch64") {
        "arm64"
    } else {
        "amd64"
    };
    let os = if cfg!(target_os = "macos") {
        "darwin"
    } else {
        "linux"
    };
    let archive = archive_name(os, arch);
    let check = Command::new(sha256sum[0])
        .args(&sha256sum[1..])
        .args(["-c", &format!("{archive}.sha256")])
        .current_dir(&out_dir)
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "sha256sum -c: {}",
        String::from_utf8_lossy(&check.stdout)
    );
    let list = Command::new("tar")
        .arg("-tzf")
        .arg(out_dir.join(&archive))
        .output()
        .unwrap();
    let mut members: Vec<String> = String::from_utf8_lossy(&list.stdout)
        .lines()
        .map(str::to_string)
        .collect();
    members.sort();
    assert_eq!(
        members,
        [
            "LICENSE",
            "README.md",
            "kubectl-hpa",
            "kubectl_complete-hpa"
        ],
        "the archive's members, at its root"
    );
    // Nothing the archive publishes carries a placeholder.
    for f in ["LICENSE", "README.md", "completions/kubectl_complete-hpa"] {
        assert!(
            !read(f).to_ascii_lowercase().contains("placeholder"),
            "{f} holds a placeholder"
        );
    }
}

#[test]
fn release_script_template_and_cargo_agree() {
    let script = read("scripts/release.sh");
    assert!(
        script.contains(r#"archive="kubectl-hpa_${tag}_${os}_${arch}.tar.gz""#),
        "archive name"
    );
    assert!(
        script.contains("cargo build --profile dist --locked"),
        "archives are built in the dist profile"
    );
    for f in ["LICENSE", "README.md", "kubectl_complete-hpa"] {
        assert!(script.contains(f), "the archive contains {f}");
    }
    let cargo: toml_like::Profiles = toml_like::profiles(&read("Cargo.toml"));
    assert_eq!(
        cargo.get("dist"),
        Some(&vec![
            ("inherits".into(), "\"release\"".into()),
            ("lto".into(), "\"fat\"".into()),
            ("codegen-units".into(), "1".into()),
        ]),
        "the dist profile: fat LTO and one codegen unit"
    );
    let release = cargo.get("release").expect("[profile.release]");
    assert!(
        !release
            .iter()
            .any(|(k, _)| k == "lto" || k == "codegen-units"),
        "the everyday release profile builds without fat LTO: {release:?}"
    );
    let template = read(".krew.yaml");
    assert!(template.contains(&format!("  homepage: {REPOSITORY}\n")));
    let license = read("LICENSE");
    assert!(license.contains("Apache License") && license.contains("Version 2.0, January 2004"));
}

/// The workflows: every action pinned by a full commit SHA with its version in a comment, the
/// release matrix covering every krew platform, and the archives made by scripts/release.sh.
#[test]
fn release_workflow_builds_every_platform_with_the_script() {
    let release = read(".github/workflows/release.yml");
    for wf in [".github/workflows/release.yml", ".github/workflows/ci.yml"] {
        for line in read(wf).lines().filter(|l| l.contains("uses:")) {
            let spec = line.split("uses:").nth(1).unwrap().trim();
            let (action, rest) = spec.split_once('@').expect("action@ref");
            let (sha, comment) = rest.split_once(" # ").unwrap_or((rest, ""));
            assert!(
                sha.len() == 40 && sha.bytes().all(|b| b.is_ascii_hexdigit()),
                "{wf}: {action} is not pinned by a full commit SHA: {line}"
            );
            assert!(
                comment.starts_with('v') || comment.starts_with(char::is_numeric),
                "{wf}: {action} has no version comment: {line}"
            );
        }
        assert!(
            read(wf).contains("\npermissions: {}\n"),
            "{wf}: no default permissions"
        );
    }
    for (os, arch) in PLATFORMS {
        assert!(
            release.contains(&format!("{{ os: {os}, arch: {arch}, ")),
            "release.yml builds {os}/{arch}"
        );
    }
    assert!(release.contains("run: scripts/release.sh --out dist"));
    assert!(release.contains("scripts/release.sh manifest --tag \"$GITHUB_REF_NAME\""));
    assert!(release.contains("rajatjindal/krew-release-bot@"));
    assert!(read(".github/workflows/ci.yml").contains("run: bash .ci/run"));
}

/// Just enough of TOML to read `[profile.NAME]` tables as (key, raw value) lines.
mod toml_like {
    use std::collections::BTreeMap;
    pub type Profiles = BTreeMap<String, Vec<(String, String)>>;
    pub fn profiles(text: &str) -> Profiles {
        let mut out = Profiles::new();
        let mut cur: Option<String> = None;
        for line in text.lines().map(str::trim) {
            if line.starts_with('[') {
                cur = line
                    .strip_prefix("[profile.")
                    .and_then(|l| l.strip_suffix(']'))
                    .map(str::to_string);
                continue;
            }
            if let (Some(p), Some((k, v))) = (&cur, line.split_once('=')) {
                if !line.starts_with('#') {
                    out.entry(p.clone())
                        .or_default()
                        .push((k.trim().to_string(), v.trim().to_string()));
                }
            }
        }
        out
    }
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(BIN)
        .args(args)
        .output()
        .expect("run kubectl-hpa");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).expect("UTF-8 stdout"),
        String::from_utf8(out.stderr).expect("UTF-8 stderr"),
    )
}

#[test]
fn committed_completion_scripts_are_what_the_binary_prints_and_call_back() {
    let mut stale = Vec::new();
    for (shell, file) in [
        ("bash", "completions/kubectl-hpa.bash"),
        ("zsh", "completions/_kubectl-hpa"),
        ("fish", "completions/kubectl-hpa.fish"),
        ("powershell", "completions/kubectl-hpa.ps1"),
    ] {
        let (code, generated, err) = run(&["completion", shell]);
        assert_eq!(code, 0, "completion {shell}: {err}");
        assert!(
            generated.contains("kubectl-hpa"),
            "completion {shell} names the binary"
        );
        // Dynamic, as kubectl's: the names come from the binary (cluster or --snapshot file).
        assert!(
            generated.contains("__complete --"),
            "completion {shell} asks kubectl-hpa __complete"
        );
        let committed = std::fs::read_to_string(repo(file)).unwrap_or_default();
        if committed != generated {
            stale.push(format!("cargo run -q -- completion {shell} > {file}"));
        }
    }
    assert!(
        stale.is_empty(),
        "completions/ differs from what the binary prints:\n  {}",
        stale.join("\n  ")
    );
}

#[test]
fn completion_rejects_an_unknown_shell() {
    let (code, out, err) = run(&["completion", "tcsh"]);
    assert_eq!(code, 2, "usage error");
    assert!(out.is_empty());
    assert!(
        err.contains("bash") && err.contains("zsh") && err.contains("fish"),
        "{err}"
    );
}

/// `kubectl-hpa __complete -- WORDS...` as kubectl_complete-hpa calls it: (candidates, directive).
fn complete(words: &[&str]) -> (Vec<String>, u32) {
    let mut args = vec!["__complete", "--"];
    args.extend_from_slice(words);
    let (code, out, err) = run(&args);
    assert_eq!(code, 0, "__complete {words:?}: {err}");
    assert!(err.is_empty(), "__complete writes nothing to stderr: {err}");
    let mut lines: Vec<&str> = out.lines().collect();
    let last = lines.pop().expect("a directive line");
    let directive = last
        .strip_prefix(':')
        .and_then(|d| d.parse().ok())
        .unwrap_or_else(|| panic!("__complete {words:?}: last line {last:?} is not :<directive>"));
    (
        lines
            .iter()
            .map(|l| l.split('\t').next().unwrap().to_string())
            .collect(),
        directive,
    )
}

const NO_FILE_COMP: u32 = 4;
const FILTER_FILE_EXT: u32 = 8;
const KEEP_ORDER: u32 = 32;

#[test]
fn complete_subcommands_with_descriptions() {
    let (c, d) = complete(&[""]);
    for sub in ["explain", "simulate", "completion"] {
        assert!(c.contains(&sub.to_string()), "{sub} in {c:?}");
    }
    assert!(
        !c.iter().any(|s| s.starts_with("__")),
        "hidden subcommand offered: {c:?}"
    );
    assert_eq!(d, NO_FILE_COMP);
    assert_eq!(
        complete(&["ex"]),
        (vec!["explain".to_string()], NO_FILE_COMP)
    );
    let (_, out, _) = run(&["__complete", "--", "ex"]);
    assert!(
        out.starts_with("explain\t"),
        "Cobra's value<TAB>description: {out:?}"
    );
}

#[test]
fn complete_flags_like_cobra() {
    let (c, d) = complete(&["explain", "-"]);
    for f in [
        "--output",
        "-o",
        "--namespace",
        "-n",
        "-A",
        "--all-namespaces",
        "--snapshot",
        "--kubernetes-version",
        "--context",
        "--kubeconfig",
    ] {
        assert!(c.contains(&f.to_string()), "{f} in {c:?}");
    }
    assert_eq!(d, NO_FILE_COMP);
    assert_eq!(complete(&["explain", "--out"]).0, vec!["--output"]);
    // A flag already given is not offered again; a repeatable one is.
    let (c, _) = complete(&["explain", "-o", "json", "--as-group", "g", "--"]);
    assert!(!c.contains(&"--output".to_string()), "{c:?}");
    assert!(c.contains(&"--as-group".to_string()), "{c:?}");
    // After `--`, words are arguments, not flags.
    assert_eq!(complete(&["explain", "--", "-"]).0, Vec::<String>::new());
    // At the top level.
    let (c, _) = complete(&["--"]);
    assert!(
        c.contains(&"--help".to_string()) && c.contains(&"--version".to_string()),
        "{c:?}"
    );
}

#[test]
fn complete_flag_values() {
    let formats = [
        "text",
        "wide",
        "json",
        "yaml",
        "name",
        "jsonpath=",
        "custom-columns=",
        "custom-columns-file=",
    ];
    assert_eq!(
        complete(&["explain", "-o", ""]),
        (
            formats.iter().map(|s| s.to_string()).collect(),
            NO_FILE_COMP
        )
    );
    assert_eq!(
        complete(&["explain", "--output", "j"]).0,
        vec!["json", "jsonpath="]
    );
    assert_eq!(complete(&["explain", "--output=y"]).0, vec!["yaml"]);
    assert_eq!(complete(&["explain", "-o=w"]).0, vec!["wide"]);
    let (versions, d) = complete(&["explain", "--kubernetes-version", ""]);
    let want: Vec<String> = (23..=37).rev().map(|m| format!("1.{m}")).collect();
    assert_eq!(versions, want);
    assert_eq!(d, NO_FILE_COMP | KEEP_ORDER);
    assert_eq!(
        complete(&["explain", "--kubernetes-version", "1.2"])
            .0
            .len(),
        7
    );
    assert_eq!(
        complete(&["completion", ""]).0,
        vec!["bash", "zsh", "fish", "powershell"]
    );
    // Snapshot and history files: YAML or JSON (Cobra's FilterFileExt, the candidates are extensions).
    assert_eq!(
        complete(&["explain", "--snapshot", ""]),
        (
            vec!["yaml".into(), "yml".into(), "json".into()],
            FILTER_FILE_EXT
        )
    );
    assert_eq!(complete(&["explain", "--history=h"]).1, FILTER_FILE_EXT);
    // Any file for --kubeconfig: the shell's default completion.
    assert_eq!(complete(&["explain", "--kubeconfig", ""]), (vec![], 0));
    // Free-form values: nothing, and no file names either.
    assert_eq!(
        complete(&["explain", "--tolerance", ""]),
        (vec![], NO_FILE_COMP)
    );
}

#[test]
fn complete_hpa_names_and_namespaces_without_a_cluster() {
    // The live lookup is not wired yet (and there is no cluster here): no candidates, no file
    // names, no error, no output on stderr.
    assert_eq!(complete(&["explain", ""]), (vec![], NO_FILE_COMP));
    assert_eq!(
        complete(&["explain", "-n", "shop", "w"]),
        (vec![], NO_FILE_COMP)
    );
    assert_eq!(complete(&["explain", "-n", ""]), (vec![], NO_FILE_COMP));
    assert_eq!(
        complete(&["explain", "--namespace=s"]),
        (vec![], NO_FILE_COMP)
    );
    // Several NAMEs, as kubectl get takes them.
    assert_eq!(complete(&["explain", "web", ""]), (vec![], NO_FILE_COMP));
    // After --snapshot FILE: the file's HPAs, not the cluster's.
    assert_eq!(
        complete(&["explain", "--snapshot", "examples/scale-up-cpu.yaml", ""]),
        (vec!["web".to_string()], NO_FILE_COMP)
    );
}

#[cfg(unix)]
#[test]
fn kubectl_complete_hpa_forwards_to_complete() {
    use std::os::unix::fs::PermissionsExt;
    let script = repo("completions/kubectl_complete-hpa");
    let mode = std::fs::metadata(&script)
        .expect("completions/kubectl_complete-hpa")
        .permissions()
        .mode();
    assert!(
        mode & 0o111 != 0,
        "kubectl_complete-hpa must be executable (mode {mode:o})"
    );
    // kubectl runs it with the plugin's arguments and the word being completed.
    let bin_dir = Path::new(BIN).parent().unwrap();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new(&script)
        .args(["explain", "--output", ""])
        .env("PATH", &path)
        .output()
        .expect("run kubectl_complete-hpa");
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "text\nwide\njson\nyaml\nname\njsonpath=\ncustom-columns=\ncustom-columns-file=\n:4\n"
    );
    // A word that looks like one of our own flags still reaches the completer.
    let out = Command::new(&script)
        .arg("--")
        .env("PATH", &path)
        .output()
        .unwrap();
    let out = String::from_utf8(out.stdout).unwrap();
    assert!(out.contains("--help\t") && out.ends_with(":4\n"), "{out:?}");
}

/// The committed bash script works (guards the workaround for clap-rs/clap#6421, where a
/// hyphenated bin name left every subcommand without completions).
#[cfg(unix)]
#[test]
fn bash_script_completes_after_a_subcommand() {
    // The script reads the line as bash gives it (COMP_LINE up to COMP_POINT) and asks the
    // binary on PATH.
    let probe = r#"
source "$1"
t() { COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMP_WORDS=("$@")
      COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); COMPREPLY=()
      _kubectl_hpa; echo "${COMPREPLY[*]}"; }
t kubectl-hpa ex
t kubectl-hpa explain -o ""
t kubectl-hpa explain --kubernetes-v
t kubectl-hpa completion ""
t kubectl-hpa explain --snapshot examples/scale-up-cpu.yaml ""
t kubectl-hpa explain --output=j
"#;
    let bin_dir = Path::new(BIN).parent().unwrap();
    let out = Command::new("bash")
        .args(["-c", probe, "probe"])
        .arg(repo("completions/kubectl-hpa.bash"))
        .current_dir(repo("."))
        .env(
            "PATH",
            format!(
                "{}:{}",
                bin_dir.display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .output()
        .expect("bash");
    let out = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "explain",
            "text wide json yaml name jsonpath= custom-columns= custom-columns-file=",
            "--kubernetes-version",
            "bash zsh fish powershell",
            "web",
            "--output=json --output=jsonpath=",
        ]
    );
}

#[test]
fn help_follows_kubectl_style() {
    let (code, root, _) = run(&["--help"]);
    assert_eq!(code, 0);
    assert!(root.contains("Usage: kubectl hpa "), "{root}");
    assert!(root.contains("Examples:\n  # "), "{root}");
    assert!(
        root.contains(r#"Use "kubectl hpa <command> --help""#),
        "{root}"
    );
    let subs: Vec<String> = complete(&[""])
        .0
        .into_iter()
        .filter(|s| s != "help")
        .collect();
    assert!(!subs.is_empty());
    for sub in &subs {
        let (code, help, err) = run(&[sub, "--help"]);
        assert_eq!(code, 0, "{sub} --help: {err}");
        assert!(
            help.contains(&format!("Usage: kubectl hpa {sub}")),
            "{sub} --help:\n{help}"
        );
    }
    for sub in ["explain", "completion"] {
        let (_, help, _) = run(&[sub, "--help"]);
        assert!(
            help.contains("Examples:\n  # "),
            "{sub} --help has an examples section:\n{help}"
        );
        assert!(
            help.contains(&format!("\n  kubectl hpa {sub} ")),
            "{sub} examples use `kubectl hpa {sub}`"
        );
    }
    let (code, version, _) = run(&["--version"]);
    assert_eq!(code, 0);
    assert_eq!(version, format!("kubectl-hpa {VERSION}\n"));
}

/// Every `#[ignore]`d test that needs a real Prometheus sits in a `real` module, and `.ci/run`
/// runs `real::` with `--ignored`: a new real-Prometheus test cannot be left out of CI (four
/// were, before this check: tuning and offsets).
#[test]
fn ci_runs_every_ignored_real_prometheus_test() {
    let ci = read(".ci/run");
    assert!(
        ci.contains("cargo test --locked --test it real:: -- --ignored"),
        ".ci/run no longer runs the real:: tests"
    );
    let mut files = vec![repo("tests/it")];
    let mut checked = 0;
    while let Some(path) = files.pop() {
        if path.is_dir() {
            for e in std::fs::read_dir(&path).expect("tests dir") {
                files.push(e.expect("entry").path());
            }
            continue;
        }
        if path.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("test file");
        for (i, line) in text.lines().enumerate() {
            if !line.trim_start().starts_with("#[ignore") || !line.contains("prometheus") {
                continue;
            }
            checked += 1;
            let module = text
                .lines()
                .take(i)
                .filter(|l| l.trim_start().starts_with("mod "))
                .last()
                .map(str::trim_start);
            assert!(
                module.is_some_and(|m| m.starts_with("mod real ") || m.starts_with("mod real{")),
                "{}:{}: a real-Prometheus test outside a `real` module is not run by .ci/run",
                path.display(),
                i + 1
            );
        }
    }
    // Two declarations: the backtests' macro and the history tests' shared macro.
    assert!(
        checked >= 2,
        "found only {checked} real-Prometheus test declarations"
    );
}
