#!/usr/bin/env bash
# Build and package kubectl-hpa's release archives, and render the krew manifest.
#
#   scripts/release.sh                          build for this machine, package, write its .sha256
#   scripts/release.sh --target aarch64-apple-darwin     cross-build (the Rust target must be installed)
#   scripts/release.sh --no-build               package the binary already in target/.../dist
#   scripts/release.sh manifest [--tag vX.Y.Z] [--dir DIR] [--template FILE] [--out FILE]
#                                               render the krew manifest from .krew.yaml with the
#                                               sha256 files of every platform's archive in DIR
#
# Package (the default): builds with `cargo build --profile dist` (fat LTO, one codegen unit),
# then writes dist/kubectl-hpa_v<version>_<os>_<arch>.tar.gz with, at its root,
#   kubectl-hpa (kubectl-hpa.exe on windows), kubectl_complete-hpa, LICENSE, README.md
# and beside it <archive>.sha256 in `sha256sum` format (`sha256sum -c` checks it).
#
# manifest: .krew.yaml is a krew-release-bot template: every platform's `uri:` and `sha256:` are
# one `{{addURIAndSha "URL" .TagName }}` line, and `{{ .TagName }}` is the release tag. This
# renders it offline with the sha256 recorded in DIR/<archive>.sha256 (krew-release-bot renders
# the same template by downloading the published archives). The tag must be v<Cargo.toml
# version>; a missing or malformed checksum fails: nothing is published with a placeholder.
#
# The release workflow (.github/workflows/release.yml) runs the package step on each platform
# and the manifest step once; run both by hand to check a release before tagging.
#
# Needs: cargo, tar, gzip, awk, and sha256sum or shasum. No network beyond what cargo needs.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }
die() { echo "release.sh: $*" >&2; exit 1; }

# --- version: [package] version in Cargo.toml; repository: its [package] repository ------------
package_field() {
  awk -v key="$1" '
    /^\[/ { in_pkg = ($0 == "[package]") }
    in_pkg && $0 ~ ("^" key "[[:space:]]*=") {
      sub("^" key "[[:space:]]*=[[:space:]]*\"", ""); sub(/"[[:space:]]*$/, ""); print; exit
    }
  ' Cargo.toml
}
version=$(package_field version)
[ -n "$version" ] || die "cannot read the [package] version from Cargo.toml"

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | awk '{print $1}'
  else
    shasum -a 256 "$1" | awk '{print $1}'
  fi
}

# --- manifest: render .krew.yaml ---------------------------------------------------------------
render_manifest() {
  local tag="v$version" dir=dist template=.krew.yaml out=""
  while [ $# -gt 0 ]; do
    case "$1" in
      --tag) tag=${2:?--tag needs a tag}; shift 2 ;;
      --dir) dir=${2:?--dir needs a directory}; shift 2 ;;
      --template) template=${2:?--template needs a file}; shift 2 ;;
      --out) out=${2:?--out needs a file}; shift 2 ;;
      -h|--help) usage; exit 0 ;;
      *) echo "release.sh manifest: unknown argument: $1" >&2; usage >&2; exit 2 ;;
    esac
  done
  [ "$tag" = "v$version" ] ||
    die "tag $tag is not v$version, Cargo.toml's version: bump the version or tag v$version"
  [ -f "$template" ] || die "missing $template"
  [ -d "$dir" ] || die "no directory $dir (build the archives first)"
  out=${out:-$dir/krew-manifest.yaml}
  local repository
  repository=$(package_field repository)
  [ -n "$repository" ] || die "no [package] repository in Cargo.toml"

  local tmp status=0
  tmp=$(mktemp)
  awk -v tag="$tag" -v dir="$dir" -v repo="$repository" '
    function fail(msg) { print "release.sh: " FILENAME ":" FNR ": " msg > "/dev/stderr"; bad = 1; exit 1 }
    function subst(s) { gsub(/\{\{ *\.TagName *\}\}/, tag, s); return s }
    /^[[:space:]]*#/ { if ($0 ~ /\{\{|\}\}/) fail("template syntax in a comment: " $0); print; next }
    /addURIAndSha/ {
      if (!match($0, /\{\{ *addURIAndSha +"[^"]*" +\.TagName *\}\}/))
        fail("expected {{addURIAndSha \"URL\" .TagName }}")
      indent = substr($0, 1, RSTART - 1)
      call = substr($0, RSTART, RLENGTH)
      url = call; sub(/^[^"]*"/, "", url); sub(/".*$/, "", url)
      url = subst(url)
      if (index(url, repo "/releases/download/" tag "/") != 1)
        fail("uri " url " is not on " repo "/releases/download/" tag "/ (Cargo.toml repository)")
      name = url; sub(/.*\//, "", name)
      file = dir "/" name ".sha256"
      if ((getline line < file) <= 0) fail("no " file ": build that platform (scripts/release.sh)")
      close(file)
      split(line, f, /[ \t]+/)
      sha = f[1]; listed = f[2]; sub(/^\*/, "", listed)
      if (sha !~ /^[0-9a-f]+$/ || length(sha) != 64) fail(file ": not a sha256: " line)
      if (listed != name) fail(file ": names " listed ", not " name)
      print indent "uri: " url
      print indent "sha256: " sha
      platforms++
      next
    }
    { line = subst($0); if (line ~ /\{\{|\}\}/) fail("unrendered template: " line); print line }
    END { if (!bad && platforms == 0) { print "release.sh: no addURIAndSha in " FILENAME > "/dev/stderr"; exit 1 } }
  ' "$template" > "$tmp" || status=$?
  if [ "$status" != 0 ]; then rm -f "$tmp"; exit 1; fi
  if grep -qi placeholder "$tmp"; then rm -f "$tmp"; die "$template renders a PLACEHOLDER"; fi
  mv "$tmp" "$out"
  echo "krew manifest: $out ($tag, $(grep -c '^ *sha256: ' "$out") platforms)"
}

if [ "${1:-}" = manifest ]; then
  shift
  render_manifest "$@"
  exit 0
fi

# --- package: arguments ------------------------------------------------------------------------
target=""
build=1
outdir=dist
while [ $# -gt 0 ]; do
  case "$1" in
    --target) target=${2:?--target needs a Rust target triple}; shift 2 ;;
    --target=*) target=${1#--target=}; shift ;;
    --no-build) build=0; shift ;;
    --out) outdir=${2:?--out needs a directory}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "release.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
  esac
done
tag="v$version"

# --- platform: krew os/arch (Go names) -----------------------------------------------------------
if [ -n "$target" ]; then
  case "$target" in
    *-linux-*) os=linux ;;
    *-apple-darwin) os=darwin ;;
    *-windows-*) os=windows ;;
    *) die "unsupported target $target" ;;
  esac
  triple_arch=${target%%-*}
else
  case "$(uname -s)" in
    Linux) os=linux ;;
    Darwin) os=darwin ;;
    MINGW*|MSYS*|CYGWIN*|Windows_NT) os=windows ;;
    *) die "unsupported OS $(uname -s)" ;;
  esac
  triple_arch=$(uname -m)
fi
case "$triple_arch" in
  x86_64|amd64) arch=amd64 ;;
  aarch64|arm64) arch=arm64 ;;
  *) die "unsupported architecture $triple_arch" ;;
esac
exe=""
[ "$os" = windows ] && exe=".exe"
bin="kubectl-hpa$exe"

# --- build: the dist profile (fat LTO, one codegen unit) -----------------------------------------
target_dir=${CARGO_TARGET_DIR:-target}
if [ -n "$target" ]; then
  bin_path="$target_dir/$target/dist/$bin"
  target_args=(--target "$target")
else
  bin_path="$target_dir/dist/$bin"
  target_args=()
fi
if [ "$build" = 1 ]; then
  cargo build --profile dist --locked ${target_args[@]+"${target_args[@]}"}
fi
[ -f "$bin_path" ] || die "no binary at $bin_path (build it, or drop --no-build)"

for f in LICENSE README.md completions/kubectl_complete-hpa; do
  [ -f "$f" ] || die "missing $f"
done

# --- archive -------------------------------------------------------------------------------------
archive="kubectl-hpa_${tag}_${os}_${arch}.tar.gz"
mkdir -p "$outdir"
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp "$bin_path" "$stage/$bin"
cp completions/kubectl_complete-hpa LICENSE README.md "$stage/"
chmod 0755 "$stage/$bin" "$stage/kubectl_complete-hpa"
chmod 0644 "$stage/LICENSE" "$stage/README.md"

tar_opts=()
if tar --version 2>/dev/null | grep -q 'GNU tar'; then
  # Reproducible: same inputs, same sha256 (member times from SOURCE_DATE_EPOCH, else the
  # last commit's time).
  epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || true)}
  tar_opts=(--owner=0 --group=0 --numeric-owner --sort=name)
  [ -n "$epoch" ] && tar_opts+=(--mtime="@$epoch")
else
  tar_opts=(--uid 0 --gid 0) # bsdtar (macOS)
fi
# Members at the archive root, no "./" prefix; gzip -n: no name/timestamp in the gzip header.
tar -C "$stage" "${tar_opts[@]}" -cf - "$bin" kubectl_complete-hpa LICENSE README.md \
  | gzip -n -9 > "$outdir/$archive"

sha=$(sha256_of "$outdir/$archive")
# sha256sum's format (two spaces, the file name), so `sha256sum -c` checks the download.
printf '%s  %s\n' "$sha" "$archive" > "$outdir/$archive.sha256"

echo "archive: $outdir/$archive"
echo "sha256:  $sha ($outdir/$archive.sha256)"
echo "upload both to the $tag release; then: scripts/release.sh manifest --dir $outdir"
