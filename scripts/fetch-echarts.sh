#!/usr/bin/env bash
# Fetches the ECharts library that the SVG renderer runs (DESIGN.md,
# "Settled details": ECharts) and builds the smaller one the site's run
# pages load. Third-party code is
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

# The site's smaller build (echarts.site.js, 0.6 MB instead of 1 MB): the
# chart types and components scripts/echarts-site.js names, bundled by
# esbuild from the npm tarballs of echarts and its two dependencies (the
# versions echarts@5.6.0 asks for), each pinned by SHA-256, as is the
# result: esbuild's output is deterministic, so a different hash means
# different inputs. esbuild-wasm runs on node alone, on any platform.
ZRENDER_VERSION=5.6.1
TSLIB_VERSION=2.3.0
ESBUILD_VERSION=0.28.2
SHA256_TGZ_ECHARTS=e1b82487dd7f8d9f0438eec1f1433051148e0095ac7a15d4db890afda45cf610
SHA256_TGZ_ZRENDER=0a2228b558e1a4bd8f1c74d67bb492923e3f5807d03c83d1665fb97af180dc26
SHA256_TGZ_TSLIB=ae285639feff7e3c39de4626352181a5d73b815725e42639b411c43848abffdb
SHA256_TGZ_ESBUILD=61594de12ce998652be2aa0ab72dda54bfa49407fb37ee3464468a2aac306baa
SHA256_SITE_JS=21a2f0b31691145f22c6c84da40f1367ba6904e1775519262ae3778c40a26429

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
  [ -f "$1/echarts.min.js" ] && [ -f "$1/echarts.site.js" ] && [ -f "$1/LICENSE" ] && [ -f "$1/NOTICE" ] || return 1
  [ "$(sha256 "$1/echarts.min.js")" = "$SHA256_MIN_JS" ] &&
    [ "$(sha256 "$1/echarts.site.js")" = "$SHA256_SITE_JS" ] &&
    [ "$(sha256 "$1/LICENSE")" = "$SHA256_LICENSE" ] &&
    [ "$(sha256 "$1/NOTICE")" = "$SHA256_NOTICE" ]
}

# pack NAME VERSION SHA256: the npm tarball of NAME@VERSION into $tmp,
# checked against its pinned hash, unpacked into $tmp/node_modules/NAME.
pack() {
  local tgz
  tgz=$(cd "$tmp" && npm pack "$1@$2" --silent --ignore-scripts)
  if [ "$(sha256 "$tmp/$tgz")" != "$3" ]; then
    echo "fetch-echarts: $1@$2 from the registry does not match the pinned SHA-256: $(sha256 "$tmp/$tgz")" >&2
    exit 1
  fi
  mkdir -p "$tmp/node_modules/$1"
  tar -xzf "$tmp/$tgz" -C "$tmp/node_modules/$1" --strip-components=1
}

if check "$dest"; then
  exit 0
fi

command -v npm >/dev/null 2>&1 && command -v node >/dev/null 2>&1 || {
  echo "fetch-echarts: npm and node are needed to fetch echarts@$VERSION from the npm registry and build the site's ECharts (apt-get install npm)" >&2
  exit 1
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "fetch-echarts: fetching echarts@$VERSION with npm" >&2
# npm pack checks the tarball against the registry's integrity field; the
# pinned hashes below check it against what this project reviewed.
pack echarts "$VERSION" "$SHA256_TGZ_ECHARTS"
pack zrender "$ZRENDER_VERSION" "$SHA256_TGZ_ZRENDER"
pack tslib "$TSLIB_VERSION" "$SHA256_TGZ_TSLIB"
pack esbuild-wasm "$ESBUILD_VERSION" "$SHA256_TGZ_ESBUILD"
mkdir -p "$tmp/out"
p=$tmp/node_modules/echarts
cp "$p/dist/echarts.min.js" "$p/LICENSE" "$p/NOTICE" "$tmp/out/"
echo "fetch-echarts: building the site's ECharts with esbuild@$ESBUILD_VERSION" >&2
cp "$here/scripts/echarts-site.js" "$tmp/entry.js"
(cd "$tmp" && node -e '
const esbuild = require("./node_modules/esbuild-wasm");
esbuild.build({entryPoints: ["entry.js"], bundle: true, minify: true, format: "iife", globalName: "echarts",
  target: "es2017", legalComments: "none", outfile: "out/echarts.site.js", logLevel: "error",
  banner: {js: "/*! Apache ECharts 5.6.0 (Apache-2.0; see ECHARTS-LICENSE.txt and ECHARTS-NOTICE.txt), with zrender 5.6.1 (BSD-3-Clause) and tslib 2.3.0 (0BSD): the chart types and components of benchledger'"'"'s scripts/echarts-site.js */"}})
  .then(() => esbuild.stop(), (err) => { console.error(err.message); process.exit(1); });
')
if ! check "$tmp/out"; then
  echo "fetch-echarts: echarts@$VERSION (and the site's build of it) does not match the pinned SHA-256:" >&2
  for f in echarts.min.js echarts.site.js LICENSE NOTICE; do
    echo "  $f $(sha256 "$tmp/out/$f" 2>/dev/null)" >&2
  done
  exit 1
fi
mkdir -p "$dest"
# Each file is moved into place whole, so an interrupted run leaves no
# half-written asset for go:embed to pick up (the hash check would refetch).
for f in LICENSE NOTICE echarts.site.js echarts.min.js; do
  mv -f "$tmp/out/$f" "$dest/$f.tmp"
  mv -f "$dest/$f.tmp" "$dest/$f"
done
echo "fetch-echarts: echarts@$VERSION in $dest" >&2
