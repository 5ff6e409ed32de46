#!/usr/bin/env bash
# Fetches the ECharts library that the HTML reports inline and the SVG
# renderer runs (DESIGN.md, "Settled details": ECharts). Third-party code is
# never committed, so `make assets` gets it from the npm registry through the
# npm client, pinned by version and by the SHA-256 of each file taken.
#
#   scripts/fetch-echarts.sh [DEST]       (make assets; DEST defaults to
#                                          render/assets/echarts, git-ignored)
#
# Idempotent: when DEST already holds the pinned files, it checks their
# hashes and exits without touching the network.
set -euo pipefail

# 5.6.0 is the last 5.x: go-echarts' option structs follow ECharts 5, and 6
# moved default theme and legend placement (reference/GO-STACK.md §1.2).
# A version bump changes all three hashes; render/assets tests compare these
# pins with the Go constants.
VERSION=5.6.0
SHA256_MIN_JS=bf4a223524e40b77c304bec67e1222cf551f14880cf42c69dc046558e11c07b1
SHA256_LICENSE=634293835b43a6dd2094fa39182a3d9a6b9ca43b7fdb9ac354e8037af2a3093a
SHA256_NOTICE=fa99ac3af859d0e13166906dc53a73ad34a08898da7e8ae83407275496e9e30c

here=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-$here/render/assets/echarts}

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  else
    shasum -a 256 "$1" | cut -d' ' -f1
  fi
}

# check DIR: all pinned files are there with their pinned hashes.
check() {
  [ -f "$1/echarts.min.js" ] && [ -f "$1/LICENSE" ] && [ -f "$1/NOTICE" ] || return 1
  [ "$(sha256 "$1/echarts.min.js")" = "$SHA256_MIN_JS" ] &&
    [ "$(sha256 "$1/LICENSE")" = "$SHA256_LICENSE" ] &&
    [ "$(sha256 "$1/NOTICE")" = "$SHA256_NOTICE" ]
}

if check "$dest"; then
  exit 0
fi

command -v npm >/dev/null 2>&1 || {
  echo "fetch-echarts: npm is needed to fetch echarts@$VERSION from the npm registry (apt-get install npm)" >&2
  exit 1
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "fetch-echarts: fetching echarts@$VERSION with npm" >&2
# npm pack checks the tarball against the registry's integrity field; the
# pinned hashes below check it against what this project reviewed.
tgz=$(cd "$tmp" && npm pack "echarts@$VERSION" --silent --ignore-scripts)
tar -xzf "$tmp/$tgz" -C "$tmp" package/dist/echarts.min.js package/LICENSE package/NOTICE
mkdir -p "$tmp/out"
cp "$tmp/package/dist/echarts.min.js" "$tmp/package/LICENSE" "$tmp/package/NOTICE" "$tmp/out/"
if ! check "$tmp/out"; then
  echo "fetch-echarts: echarts@$VERSION from the registry does not match the pinned SHA-256:" >&2
  for f in echarts.min.js LICENSE NOTICE; do
    echo "  $f $(sha256 "$tmp/out/$f")" >&2
  done
  exit 1
fi
mkdir -p "$dest"
# Each file is moved into place whole, so an interrupted run leaves no
# half-written asset for go:embed to pick up (the hash check would refetch).
for f in LICENSE NOTICE echarts.min.js; do
  mv -f "$tmp/out/$f" "$dest/$f.tmp"
  mv -f "$dest/$f.tmp" "$dest/$f"
done
echo "fetch-echarts: echarts@$VERSION in $dest" >&2
