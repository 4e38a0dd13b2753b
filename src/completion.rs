//! Shell completion.
//!
//! One mechanism, driven by the clap definition in [`crate::cli::Cli`]:
//! `kubectl-hpa __complete -- WORDS...` (hidden) answers Cobra's `__complete` protocol, which
//! kubectl uses for plugins (kubectl >= 1.26 runs `kubectl_complete-hpa ARGS... WORD` for
//! `kubectl hpa ... <TAB>`, and `completions/kubectl_complete-hpa` forwards to this mode; the
//! `--` stops clap from taking a word such as `--` or `--help` for a flag of `__complete`
//! itself). The output is one candidate per line, optionally `candidate<TAB>description`,
//! then a last line `:<directive>` (a Cobra `ShellCompDirective` bit set, see [`directive`]).
//! It completes subcommands, flags, flag values (`-o` → text wide json yaml,
//! `--kubernetes-version` → 1.23..1.37, `--snapshot` → *.yaml/*.yml/*.json files, ...) and HPA
//! names: from the `--snapshot` (or simulate's `--hpa`) files on the line when there are any,
//! else from the cluster through `live_candidates`, and namespaces from the cluster.
//!
//! `kubectl hpa completion bash|zsh|fish|powershell` prints a small script (the committed
//! copies in `completions/`, embedded here) that calls `kubectl-hpa __complete` for every
//! completion, as kubectl's own scripts call `kubectl __complete`: names are the cluster's or
//! the file's, and the script never goes stale when a flag is added.

use std::collections::HashSet;

use clap::{Arg, ArgAction, Command, CommandFactory, ValueHint};
use std::path::PathBuf;

use crate::core::settings::{NEWEST_MINOR, OLDEST_MINOR};

pub use crate::cli::completion::{CompleteArgs, CompletionArgs, CompletionShell};

/// `kubectl hpa completion SHELL`: the completion script for `kubectl-hpa`.
pub fn run_completion(args: &CompletionArgs) -> anyhow::Result<String> {
    Ok(completion_script(args.shell).to_string())
}

/// The script of this shell (the committed file in `completions/`): it asks
/// `kubectl-hpa __complete` for the candidates.
pub fn completion_script(shell: CompletionShell) -> &'static str {
    match shell {
        CompletionShell::Bash => include_str!("../completions/kubectl-hpa.bash"),
        CompletionShell::Zsh => include_str!("../completions/_kubectl-hpa"),
        CompletionShell::Fish => include_str!("../completions/kubectl-hpa.fish"),
        CompletionShell::Powershell => include_str!("../completions/kubectl-hpa.ps1"),
    }
}

/// Cobra `ShellCompDirective` bits (github.com/spf13/cobra `completions.go`), the whole table:
/// `ERROR` and `NO_SPACE` are never sent, listed so the bits we send read against Cobra's.
#[allow(dead_code)]
pub mod directive {
    /// Let the shell do its default (file-name) completion when there is no candidate.
    pub const DEFAULT: u32 = 0;
    /// An error occurred; ignore the candidates.
    pub const ERROR: u32 = 1;
    /// Do not add a space after the completion.
    pub const NO_SPACE: u32 = 2;
    /// Do not fall back to file-name completion.
    pub const NO_FILE_COMP: u32 = 4;
    /// The candidates are file extensions to filter file names by.
    pub const FILTER_FILE_EXT: u32 = 8;
    /// Complete directory names only.
    pub const FILTER_DIRS: u32 = 16;
    /// Keep the candidates in the order given (do not sort).
    pub const KEEP_ORDER: u32 = 32;
}

/// What a live (cluster) lookup should list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LiveKind {
    /// HorizontalPodAutoscaler names in the namespace (`None`: the kubeconfig's current namespace).
    Hpa,
    /// Namespace names (the `namespace` argument is ignored).
    Namespace,
    /// The kubeconfig's context names, for `--context` (read from the file, no request).
    Context,
}

/// Names from the live cluster for `kind`, in `namespace` (HPAs only), through the cluster
/// layer with the default kubeconfig. The lookup is bounded (1.5 s) and every error
/// (unreachable cluster, no kubeconfig, RBAC) gives no candidates: a completion never prints
/// errors or hangs the shell.
fn live_candidates(
    rt: &tokio::runtime::Runtime,
    kind: LiveKind,
    namespace: Option<&str>,
) -> Vec<String> {
    if kind == LiveKind::Context {
        let default = crate::cluster::ConnectOptions::default();
        return crate::cluster::context_names(&default).unwrap_or_default();
    }
    crate::cluster::list_names(
        rt,
        kind == LiveKind::Hpa,
        namespace,
        std::time::Duration::from_millis(1500),
    )
}

/// `kubectl hpa __complete WORDS...`: Cobra-format candidates and a final `:<directive>` line.
pub fn run_complete(args: &CompleteArgs, rt: &tokio::runtime::Runtime) -> anyhow::Result<String> {
    let (candidates, directive) = complete(&args.words, &|kind, namespace| {
        live_candidates(rt, kind, namespace)
    });
    let mut out = String::new();
    for c in candidates {
        out.push_str(&c);
        out.push('\n');
    }
    out.push_str(&format!(":{directive}\n"));
    Ok(out)
}

/// What the words typed so far say: the subcommand reached, the flags seen, how many
/// positionals were given, the namespace named, and the flag whose value comes next.
struct Walk<'a> {
    cmd: &'a Command,
    seen: HashSet<String>,
    positionals: usize,
    namespace: Option<String>,
    /// The `--snapshot` (and simulate's `--hpa`) files given: the HPA names come from them.
    files: Vec<PathBuf>,
    after_dashdash: bool,
    pending: Option<&'a Arg>,
}

impl<'a> Walk<'a> {
    /// Walk `typed` from the root: descend into subcommands, note flags and positionals.
    fn new(root: &'a Command, typed: &[String]) -> Walk<'a> {
        let mut walk = Walk {
            cmd: root,
            seen: HashSet::new(),
            positionals: 0,
            namespace: None,
            files: Vec::new(),
            after_dashdash: false,
            pending: None,
        };
        for word in typed {
            walk.step(word);
        }
        walk
    }

    fn step(&mut self, word: &str) {
        if let Some(arg) = self.pending.take() {
            self.value(arg, word);
        } else if self.after_dashdash {
            self.positionals += 1;
        } else if word == "--" {
            self.after_dashdash = true;
        } else if let Some(long) = word.strip_prefix("--") {
            self.long_flag(long);
        } else if word.len() > 1 && word.starts_with('-') {
            self.short_flags(&word[1..]);
        } else if let Some(sub) = self.subcommand(word) {
            self.cmd = sub;
            self.seen.clear();
        } else {
            self.positionals += 1;
        }
    }

    /// The value of a flag: the namespace and the files that hold the HPAs are kept.
    fn value(&mut self, arg: &Arg, word: &str) {
        match arg.get_id().as_str() {
            "namespace" => self.namespace = Some(word.to_string()),
            "snapshot" | "hpa" if word != "-" => self.files.push(PathBuf::from(word)),
            _ => {}
        }
    }

    fn subcommand(&self, word: &str) -> Option<&'a Command> {
        let cmd: &'a Command = self.cmd;
        (self.positionals == 0 && cmd.has_subcommands())
            .then(|| find_subcommand(cmd, word))
            .flatten()
    }

    /// `--name` or `--name=value`.
    fn long_flag(&mut self, long: &str) {
        let (name, inline) = match long.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (long, None),
        };
        let cmd: &'a Command = self.cmd;
        let Some(arg) = find_long(cmd, name) else {
            return;
        };
        self.seen.insert(arg.get_id().to_string());
        if takes_value(arg) {
            match inline {
                Some(v) => self.value(arg, v),
                None => self.pending = Some(arg),
            }
        }
    }

    /// A cluster of short flags: -A, -n web, -nweb, -n=web, -Ao json.
    fn short_flags(&mut self, cluster: &str) {
        let chars: Vec<char> = cluster.chars().collect();
        let cmd: &'a Command = self.cmd;
        for (i, c) in chars.iter().enumerate() {
            let Some(arg) = find_short(cmd, *c) else {
                continue;
            };
            self.seen.insert(arg.get_id().to_string());
            if takes_value(arg) {
                let rest: String = chars[i + 1..].iter().collect();
                let rest = rest.strip_prefix('=').unwrap_or(&rest).to_string();
                if rest.is_empty() {
                    self.pending = Some(arg);
                } else {
                    self.value(arg, &rest);
                }
                return;
            }
        }
    }
}

type Completion = (Vec<String>, u32);

/// `--output=<TAB>` and `-n=<TAB>`: the shell scripts put the `--flag=` prefix back.
fn complete_inline_value(
    walk: &Walk,
    to_complete: &str,
    live: &dyn Fn(LiveKind, Option<&str>) -> Vec<String>,
) -> Option<Completion> {
    let (arg, value) = if let Some(long) = to_complete.strip_prefix("--") {
        let (name, value) = long.split_once('=')?;
        (find_long(walk.cmd, name), value)
    } else {
        let mut it = to_complete.strip_prefix('-')?.chars();
        match (it.next(), it.next()) {
            (Some(c), Some('=')) => (find_short(walk.cmd, c), it.as_str()),
            _ => return None,
        }
    };
    Some(match arg {
        Some(arg) if takes_value(arg) => {
            complete_value(arg, value, walk.namespace.as_deref(), live)
        }
        _ => (Vec::new(), directive::NO_FILE_COMP),
    })
}

/// The visible subcommands (and aliases) of `cmd` starting with `prefix`.
fn subcommand_candidates(cmd: &Command, prefix: &str) -> Vec<String> {
    cmd.get_subcommands()
        .filter(|s| !s.is_hide_set())
        .flat_map(|s| {
            let about = first_line(s.get_about().map(|a| a.to_string()));
            std::iter::once(s.get_name())
                .chain(s.get_visible_aliases())
                .filter(|n| n.starts_with(prefix))
                .map(move |n| with_description(n, &about))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// Complete the last of `words` (the words after `kubectl hpa`; the last one may be empty).
///
/// Returns the candidates (`value` or `value\tdescription`) and the Cobra directive.
pub fn complete(
    words: &[String],
    live: &dyn Fn(LiveKind, Option<&str>) -> Vec<String>,
) -> Completion {
    let mut root = crate::cli::Cli::command();
    root.build();

    let (to_complete, typed) = match words.split_last() {
        Some((last, rest)) => (last.as_str(), rest),
        None => ("", &[][..]),
    };
    let walk = Walk::new(&root, typed);
    let namespace = walk.namespace.as_deref();

    let from_files = |kind: LiveKind, ns: Option<&str>| match kind {
        LiveKind::Hpa if !walk.files.is_empty() => file_hpa_names(&walk.files, ns),
        _ => live(kind, ns),
    };
    let live: &dyn Fn(LiveKind, Option<&str>) -> Vec<String> = &from_files;
    // The value of a flag given as the previous word (`-o <TAB>`, `-n <TAB>`).
    if let Some(arg) = walk.pending {
        return complete_value(arg, to_complete, namespace, live);
    }
    if !walk.after_dashdash {
        if let Some(done) = complete_inline_value(&walk, to_complete, live) {
            return done;
        }
        if to_complete.starts_with('-') {
            return (
                flag_candidates(walk.cmd, to_complete, &walk.seen),
                directive::NO_FILE_COMP,
            );
        }
        if walk.positionals == 0 && walk.cmd.has_subcommands() {
            return (
                subcommand_candidates(walk.cmd, to_complete),
                directive::NO_FILE_COMP,
            );
        }
    }

    // A positional argument.
    let positional = walk
        .cmd
        .get_positionals()
        .filter(|a| !a.is_hide_set())
        .nth(walk.positionals)
        .or_else(|| {
            walk.cmd
                .get_positionals()
                .last()
                .filter(|a| matches!(a.get_action(), ArgAction::Append))
        });
    match positional {
        Some(arg) => complete_value(arg, to_complete, namespace, live),
        None => (Vec::new(), directive::NO_FILE_COMP),
    }
}

/// The HPA names of these snapshot or manifest files, in `namespace` when given. A file that
/// cannot be read gives none: a completion never prints errors.
fn file_hpa_names(files: &[PathBuf], namespace: Option<&str>) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for f in files {
        let Ok(snap) = crate::snapshot::Snapshot::from_file(f) else {
            continue;
        };
        for n in snap.hpa_names(namespace) {
            let name = n.split_once('/').map_or(n.as_str(), |(_, n)| n).to_string();
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names
}

/// Candidates for the value of `arg`, given the prefix typed so far.
fn complete_value(
    arg: &Arg,
    prefix: &str,
    namespace: Option<&str>,
    live: &dyn Fn(LiveKind, Option<&str>) -> Vec<String>,
) -> (Vec<String>, u32) {
    let filter = |values: Vec<String>| -> Vec<String> {
        values
            .into_iter()
            .filter(|v| v.starts_with(prefix))
            .collect()
    };
    let possible = arg.get_possible_values();
    if !possible.is_empty() {
        let values = possible
            .iter()
            .filter(|v| !v.is_hide_set())
            .filter(|v| v.get_name().starts_with(prefix))
            .map(|v| {
                with_description(
                    v.get_name(),
                    &first_line(v.get_help().map(|h| h.to_string())),
                )
            })
            .collect();
        return (values, directive::NO_FILE_COMP);
    }
    match arg.get_id().as_str() {
        // Positional HPA names (explain NAME, simulate NAME, ...).
        "name" if arg.is_positional() => (
            filter(live(LiveKind::Hpa, namespace)),
            directive::NO_FILE_COMP,
        ),
        "namespace" => (
            filter(live(LiveKind::Namespace, None)),
            directive::NO_FILE_COMP,
        ),
        "context" => (
            filter(live(LiveKind::Context, None)),
            directive::NO_FILE_COMP,
        ),
        "kubernetes_version" => {
            // Newest first, as a user most often wants a recent release.
            let versions = (OLDEST_MINOR..=NEWEST_MINOR)
                .rev()
                .map(|m| format!("1.{m}"))
                .collect();
            (
                filter(versions),
                directive::NO_FILE_COMP | directive::KEEP_ORDER,
            )
        }
        // Snapshot and history files are YAML or JSON.
        "snapshot" | "history" => (
            vec!["yaml".into(), "yml".into(), "json".into()],
            directive::FILTER_FILE_EXT,
        ),
        _ => match arg.get_value_hint() {
            ValueHint::AnyPath | ValueHint::FilePath | ValueHint::ExecutablePath => {
                (Vec::new(), directive::DEFAULT)
            }
            ValueHint::DirPath => (Vec::new(), directive::FILTER_DIRS),
            _ => (Vec::new(), directive::NO_FILE_COMP),
        },
    }
}

/// Flags of `cmd` starting with `prefix`, as Cobra lists them (`--long` and `-s`, with help).
fn flag_candidates(cmd: &Command, prefix: &str, seen: &HashSet<String>) -> Vec<String> {
    let mut out = Vec::new();
    for arg in cmd.get_arguments() {
        if arg.is_positional() || arg.is_hide_set() {
            continue;
        }
        let repeatable = matches!(arg.get_action(), ArgAction::Append | ArgAction::Count);
        if seen.contains(arg.get_id().as_str()) && !repeatable {
            continue;
        }
        let help = first_line(arg.get_help().map(|h| h.to_string()));
        for long in arg.get_long_and_visible_aliases().unwrap_or_default() {
            let flag = format!("--{long}");
            if flag.starts_with(prefix) {
                out.push(with_description(&flag, &help));
            }
        }
        for short in arg.get_short_and_visible_aliases().unwrap_or_default() {
            let flag = format!("-{short}");
            if flag.starts_with(prefix) {
                out.push(with_description(&flag, &help));
            }
        }
    }
    out
}

fn takes_value(arg: &Arg) -> bool {
    arg.get_action().takes_values()
}

fn find_long<'a>(cmd: &'a Command, name: &str) -> Option<&'a Arg> {
    cmd.get_arguments().find(|a| {
        a.get_long() == Some(name) || a.get_all_aliases().is_some_and(|al| al.contains(&name))
    })
}

fn find_short(cmd: &Command, c: char) -> Option<&Arg> {
    cmd.get_arguments().find(|a| {
        a.get_short() == Some(c) || a.get_all_short_aliases().is_some_and(|al| al.contains(&c))
    })
}

fn find_subcommand<'a>(cmd: &'a Command, name: &str) -> Option<&'a Command> {
    cmd.get_subcommands()
        .find(|s| s.get_name() == name || s.get_all_aliases().any(|a| a == name))
}

fn first_line(text: Option<String>) -> String {
    text.and_then(|t| t.lines().next().map(|l| l.trim().to_string()))
        .unwrap_or_default()
}

/// `value<TAB>description` (Cobra strips the description for shells that do not show them).
fn with_description(value: &str, description: &str) -> String {
    if description.is_empty() {
        value.to_string()
    } else {
        format!("{value}\t{description}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    fn words(s: &[&str]) -> Vec<String> {
        s.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn hpa_names_are_looked_up_in_the_namespace_given_with_n() {
        let calls = RefCell::new(Vec::new());
        let live = |kind: LiveKind, ns: Option<&str>| {
            calls.borrow_mut().push((kind, ns.map(str::to_string)));
            match kind {
                LiveKind::Hpa => vec!["web".to_string(), "worker".to_string(), "api".to_string()],
                LiveKind::Namespace => vec!["shop".to_string(), "default".to_string()],
                LiveKind::Context => vec!["prod".to_string()],
            }
        };
        let (c, d) = complete(&words(&["explain", "-n", "shop", "w"]), &live);
        assert_eq!(c, vec!["web", "worker"]);
        assert_eq!(d, directive::NO_FILE_COMP);
        let (c, _) = complete(
            &words(&["explain", "--namespace=shop", "--kubeconfig", "k.yaml", ""]),
            &live,
        );
        assert_eq!(c.len(), 3);
        let (c, _) = complete(&words(&["explain", "-nshop", "a"]), &live);
        assert_eq!(c, vec!["api"]);
        let (c, d) = complete(&words(&["explain", "-n", "s"]), &live);
        assert_eq!(c, vec!["shop"]);
        assert_eq!(d, directive::NO_FILE_COMP);
        let (c, _) = complete(&words(&["explain", "--namespace=d"]), &live);
        assert_eq!(c, vec!["default"]);
        let (c, _) = complete(&words(&["explain", "-n", "shop", "web", "a"]), &live);
        assert_eq!(c, vec!["api"], "several NAMEs");
        assert_eq!(
            *calls.borrow(),
            vec![
                (LiveKind::Hpa, Some("shop".to_string())),
                (LiveKind::Hpa, Some("shop".to_string())),
                (LiveKind::Hpa, Some("shop".to_string())),
                (LiveKind::Namespace, None),
                (LiveKind::Namespace, None),
                (LiveKind::Hpa, Some("shop".to_string())),
            ]
        );
    }

    #[test]
    fn hpa_names_after_snapshot_come_from_the_file_not_the_cluster() {
        let root = env!("CARGO_MANIFEST_DIR");
        let file = format!("{root}/examples/scale-up-cpu.yaml");
        let other = format!("{root}/examples/hold-within-tolerance.yaml");
        let live = |_: LiveKind, _: Option<&str>| vec!["from-the-cluster".to_string()];
        let (c, d) = complete(&words(&["explain", "--snapshot", &file, ""]), &live);
        assert_eq!(c, vec!["web"]);
        assert_eq!(d, directive::NO_FILE_COMP);
        let snap = format!("--snapshot={other}");
        let (c, _) = complete(
            &words(&["explain", "-n", "shop", "--snapshot", &file, &snap, ""]),
            &live,
        );
        assert_eq!(c, vec!["web", "api"]);
        let (c, _) = complete(
            &words(&["explain", "-n", "other", "--snapshot", &file, ""]),
            &live,
        );
        assert!(c.is_empty(), "{c:?}");
        let hpa = format!("{root}/examples/simulate/hpa.yaml");
        let (c, _) = complete(&words(&["simulate", "--hpa", &hpa, ""]), &live);
        assert_eq!(c, vec!["web"]);
        // Without a file: the cluster's.
        let (c, _) = complete(&words(&["explain", ""]), &live);
        assert_eq!(c, vec!["from-the-cluster"]);
    }
}
