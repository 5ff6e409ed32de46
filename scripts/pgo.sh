#!/usr/bin/env bash
# Makes cmd/benchledger/default.pgo again: the CPU profile with which the go
# command optimises the benchledger binary (profile-guided optimisation:
# `go build` reads a default.pgo beside the main package by itself, see
# `go help build`, -pgo). It is the merged profile of the work `make bench`
# times, on the archives and files a `make bench` left in BENCH_DIR:
#
#   site of 10,000 runs (one language, no raw files)  six builds
#   ingest of the 1,000 files                         three
#   ingest of the ~950 MB file                        one
#   audit of the 1,000 runs, audit of one run of 1M   one each
#   xlsx export of the 1M requests                    one
#
# The profile changes only how the compiler inlines (the program's results
# are the same; the site's pages byte for byte). Make it again when the hot
# code has moved: functions that are gone from the source no longer help.
# A profile taken from a build whose hot code moved inlines that code in
# the next build, which TestDefaultPGO may then count as gone: make pgo a
# second time (the profile of a build made with the first) settles it.
#
#   BENCH_DIR=DIR scripts/pgo.sh      (make pgo BENCH_DIR=DIR)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
work=${BENCH_DIR:?"pgo: set BENCH_DIR to a folder a make bench has filled (BENCH_DIR=DIR make bench)"}
for f in bl-10k.db runs large.json bl-many.db bl-m1.db; do
  [ -e "$work/$f" ] || { echo "pgo: $work/$f is missing: run BENCH_DIR=$work make bench first" >&2; exit 1; }
done
go=${GO:-go}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bl=$tmp/benchledger
(cd "$here" && CGO_ENABLED=1 $go build -o "$bl" ./cmd/benchledger)

n=0
# profile CMD...: runs one benchledger command with its CPU profile kept.
profile() {
  n=$((n + 1))
  echo "pgo: [$n] benchledger $*" >&2
  BENCHLEDGER_CPUPROFILE=$tmp/$n.prof "$bl" "$@" >/dev/null 2>"$tmp/stderr" || {
    cat "$tmp/stderr" >&2
    echo "pgo: benchledger $* failed" >&2
    exit 1
  }
}
for _ in 1 2 3 4 5 6; do
  rm -rf "$tmp/site"
  profile site --db "$work/bl-10k.db" --out "$tmp/site" --lang en --raw=false
done
rm -rf "$tmp/site"
for _ in 1 2 3; do
  rm -f "$tmp"/ingest.db*
  profile ingest --db "$tmp/ingest.db" "$work/runs"
done
rm -f "$tmp"/ingest.db*
profile ingest --db "$tmp/ingest.db" "$work/large.json"
rm -f "$tmp"/ingest.db*
profile audit --db "$work/bl-many.db"
profile audit --db "$work/bl-m1.db"
profile export --db "$work/bl-m1.db" --xlsx "$tmp/export.xlsx"

out=$here/cmd/benchledger/default.pgo
$go tool pprof -proto "$tmp"/[0-9]*.prof >"$out.tmp"
mv "$out.tmp" "$out"
echo "pgo: wrote $out ($(wc -c <"$out") bytes, $n profiles); rebuild with make build" >&2
