#!/usr/bin/env bash
# Build the release archive of kubectl-hpa for one platform and record its sha256 in
# krew-manifest.yaml.
#
#   scripts/release.sh                          build for this machine, package, update the manifest
#   scripts/release.sh --target aarch64-apple-darwin     cross-build (the Rust target must be installed)
#   scripts/release.sh --no-build               package the binary already in target/.../release
#
# Output: dist/kubectl-hpa_v<version>_<os>_<arch>.tar.gz with, at its root,
#   kubectl-hpa (kubectl-hpa.exe on windows), kubectl_complete-hpa, LICENSE, README.md
# and the platform's `uri` and `sha256` in krew-manifest.yaml rewritten. If the manifest's
# spec.version differs from Cargo.toml's, spec.version and every uri are moved to the new version
# and the other platforms' sha256 reset to the placeholder (their archives are for the old one).
# Upload the archive to the GitHub release named by the uri, for every platform, before
# submitting the manifest to krew-index.
#
# Needs: cargo, tar, gzip, awk, and sha256sum or shasum. No network beyond what cargo needs.
set -euo pipefail

PLACEHOLDER=PLACEHOLDER_SHA256
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

target=""
build=1
manifest=krew-manifest.yaml
outdir=dist

usage() { awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; }

while [ $# -gt 0 ]; do
  case "$1" in
    --target) target=${2:?--target needs a Rust target triple}; shift 2 ;;
    --target=*) target=${1#--target=}; shift ;;
    --no-build) build=0; shift ;;
    --manifest) manifest=${2:?--manifest needs a file}; shift 2 ;;
    --out) outdir=${2:?--out needs a directory}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "release.sh: unknown argument: $1" >&2; usage >&2; exit 2 ;;
  esac
done

die() { echo "release.sh: $*" >&2; exit 1; }

# --- version: [package] version in Cargo.toml ---------------------------------------------------
version=$(awk '
  /^\[/ { in_pkg = ($0 == "[package]") }
  in_pkg && /^version[[:space:]]*=/ { gsub(/^version[[:space:]]*=[[:space:]]*"|"[[:space:]]*$/, ""); print; exit }
' Cargo.toml)
[ -n "$version" ] || die "cannot read the [package] version from Cargo.toml"
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

# --- build ---------------------------------------------------------------------------------------
target_dir=${CARGO_TARGET_DIR:-target}
if [ -n "$target" ]; then
  bin_path="$target_dir/$target/release/$bin"
  target_args=(--target "$target")
else
  bin_path="$target_dir/release/$bin"
  target_args=()
fi
if [ "$build" = 1 ]; then
  cargo build --release --locked ${target_args[@]+"${target_args[@]}"}
fi
[ -f "$bin_path" ] || die "no binary at $bin_path (build it, or drop --no-build)"

for f in LICENSE README.md completions/kubectl_complete-hpa "$manifest"; do
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

if command -v sha256sum >/dev/null 2>&1; then
  sha=$(sha256sum "$outdir/$archive" | awk '{print $1}')
else
  sha=$(shasum -a 256 "$outdir/$archive" | awk '{print $1}')
fi

# --- manifest ------------------------------------------------------------------------------------
homepage=$(awk '/^  homepage:/ { print $2; exit }' "$manifest")
[ -n "$homepage" ] || die "no spec.homepage in $manifest"
uri="$homepage/releases/download/$tag/$archive"

tmp=$(mktemp "$manifest.XXXXXX")
awk -v tag="$tag" -v os="$os" -v arch="$arch" -v uri="$uri" -v sha="$sha" -v ph="$PLACEHOLDER" '
  function here() { return cur_os == os && cur_arch == arch }
  /^  version:/ { old = $2; if (old != tag) reset = 1; print "  version: " tag; next }
  /^  - selector:/ { cur_os = ""; cur_arch = "" }
  /^        os:/ { cur_os = $2 }
  /^        arch:/ { cur_arch = $2 }
  /^    uri:/ {
    if (here()) { print "    uri: " uri; found++; next }
    if (reset) { line = $0; while ((i = index(line, old)) > 0) line = substr(line, 1, i - 1) tag substr(line, i + length(old)); print line; next }
  }
  /^    sha256:/ {
    if (here()) { print "    sha256: " sha; next }
    if (reset) { print "    sha256: " ph; next }
  }
  { print }
  END { if (found != 1) exit 3 }
' "$manifest" > "$tmp" || { rm -f "$tmp"; die "no platform os=$os arch=$arch in $manifest"; }
mv "$tmp" "$manifest"

echo "archive: $outdir/$archive"
echo "sha256:  $sha"
echo "uri:     $uri"
echo "updated $manifest ($os/$arch); upload the archive to the $tag release"
