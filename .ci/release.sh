#!/usr/bin/env bash
# Run by .ci/run: the release builds of .goreleaser.yaml, made by GoReleaser
# in snapshot mode (nothing is published), then checked the way a user
# would: one archive per platform with the expected name, a checksums file
# that verifies them, a CycloneDX SBOM per archive, and the Linux binary's
# `version` naming this commit. GoReleaser and cyclonedx-gomod are
# installed from the Go module proxy into a cache outside the repository
# ($MCPDECL_CI_BIN, default ~/.cache/mcpdecl-ci/bin), once per version.
#
# It builds HEAD (what is committed), leaves the archives in dist/ and prints the path of the linux/amd64
# binary on its last line, so that .ci/container.sh builds the image from
# the same build.
set -euo pipefail
cd "$(dirname "$0")/.."

goreleaser_version=v2.15.1 # v2.16 and later need a newer Go
cyclonedx_version=v1.10.0
bin=${MCPDECL_CI_BIN:-$HOME/.cache/mcpdecl-ci/bin}
mkdir -p "$bin"
export PATH="$bin:$PATH"

# install PACKAGE VERSION NAME: go install, unless the cached binary was
# built from that version (go version -m records it).
install() {
  if ! go version -m "$bin/$3" 2>/dev/null | grep -q "^[[:space:]]*mod[[:space:]].*[[:space:]]$2[[:space:]]"; then
    echo "installing $3 $2"
    GOBIN="$bin" GOFLAGS=-mod=mod go install "$1@$2" >&2
  fi
}
install github.com/goreleaser/goreleaser/v2 "$goreleaser_version" goreleaser
install github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod "$cyclonedx_version" cyclonedx-gomod

fail() { echo "FAIL: $*" >&2; exit 1; }

# GoReleaser builds a clone of HEAD (a whole one: cyclonedx-gomod reads
# it with go-git, which cannot follow a shared clone's alternates): the
# committed files alone, and a
# remote to read (GoReleaser stamps "none" for the commit of a repository
# without one).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone --quiet --no-hardlinks "$PWD" "$work/src"
(cd "$work/src" && goreleaser check) >&2 || fail "goreleaser check"
start=$SECONDS
if ! (cd "$work/src" && goreleaser release --snapshot --clean) >"$work/goreleaser.log" 2>&1; then
  cat "$work/goreleaser.log" >&2
  fail "goreleaser release --snapshot"
fi
echo "built the release archives in $((SECONDS - start))s" >&2
rm -rf dist
mv "$work/src/dist" dist

commit=$(git rev-parse HEAD)
date=$(date -u -d "@$(git log -1 --format=%ct HEAD)" +%Y-%m-%dT%H:%M:%SZ)
version=$(sed -n 's/.*"version":"\([^"]*\)".*/\1/p' dist/metadata.json)
[ -n "$version" ] || fail "dist/metadata.json names no version"

cd dist
for target in linux_amd64 linux_arm64 darwin_amd64 darwin_arm64 windows_amd64 windows_arm64; do
  archive=mcpdecl_${version}_$target.tar.gz
  [ "${target%%_*}" = windows ] && archive=mcpdecl_${version}_$target.zip
  [ -f "$archive" ] || fail "no archive $archive in dist/: $(ls)"
  grep -q "  $archive\$" checksums.txt || fail "checksums.txt does not list $archive"
  sbom=$archive.cdx.json
  [ -s "$sbom" ] || fail "no SBOM $sbom beside $archive"
  grep -q '"bomFormat": "CycloneDX"' "$sbom" || fail "$sbom is not a CycloneDX document"
  grep -q '"name": "github.com/spf13/cobra"' "$sbom" || fail "$sbom does not list the modules mcpdecl is built from"
done
sha256sum --quiet -c checksums.txt >&2 || fail "checksums.txt does not match the archives"

# Reproducible: every file in an archive carries the commit's time.
want=$(date -u -d "$date" '+%Y-%m-%d %H:%M')
got=$(TZ=UTC tar -tvzf "mcpdecl_${version}_linux_amd64.tar.gz" --full-time | awk '{print $4" "substr($5,1,5)}' | sort -u)
[ "$got" = "$want" ] || fail "the files of the linux archive are dated $got, not the commit's $want"

lin=$work/linux
mkdir "$lin"
tar -xzf "mcpdecl_${version}_linux_amd64.tar.gz" -C "$lin"
for f in mcpdecl README.md CHANGELOG.md docs/guide.md docs/language.md; do
  [ -f "$lin/$f" ] || fail "the linux archive holds no $f"
done
"$lin/mcpdecl" version >"$lin/version.txt"
grep -qx "mcpdecl $version" "$lin/version.txt" || fail "mcpdecl version printed $(cat "$lin/version.txt"), not the version $version"
grep -qx "commit: $commit" "$lin/version.txt" || fail "mcpdecl version does not name the commit $commit: $(cat "$lin/version.txt")"
grep -qx "date: $date" "$lin/version.txt" || fail "mcpdecl version does not give the commit's date $date: $(cat "$lin/version.txt")"
echo "ok: 6 archives with their SBOMs and checksums; the linux binary says $(head -1 "$lin/version.txt"), commit ${commit:0:12}" >&2
ls -d "$PWD"/mcpdecl_linux_amd64*/mcpdecl
