#!/usr/bin/env bash
# Runs every parser's fuzz target (one per format, in the format packages
# under ingest/format and in ingest/trace) for FUZZTIME each: `make test`
# for a few seconds, `make fuzz` for longer. Each package's test binary is
# built once with the fuzzing instrumentation go test -fuzz would add (on
# every ingest package, so the shared readers are covered too), instead of
# once per target.
#
#   scripts/fuzz.sh [FUZZTIME]      (default 60s)
set -euo pipefail
fuzztime=${1:-60s}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go=${GO:-go}
module=github.com/benchledger/benchledger
cache=${FUZZCACHE:-$($go env GOCACHE)/fuzz}
dirs=$(cd "$here" && grep -rl --include='*_test.go' '^func Fuzz' ingest/format ingest/trace | xargs -n1 dirname | sort -u)
[ -n "$dirs" ] || { echo "fuzz: no fuzz targets found" >&2; exit 1; }
for dir in $dirs; do
  exe="$bin/$(echo "$dir" | tr / _).fuzz"
  (cd "$here" && $go test -c -gcflags="$module/ingest/...=-d=libfuzzer" -o "$exe" "./$dir")
  targets=$(cd "$here/$dir" && "$exe" -test.list '^Fuzz' | grep '^Fuzz' || true)
  for t in $targets; do
    printf 'fuzz %-44s %s\n' "$dir.$t" "$fuzztime"
    (cd "$here/$dir" && "$exe" -test.run '^$' -test.fuzz "^$t\$" -test.fuzztime "$fuzztime" -test.fuzzcachedir "$cache") >"$bin/out" 2>&1 || {
      cat "$bin/out"; echo "fuzz: $t failed (the failing input is under $dir/testdata/fuzz/$t)" >&2; exit 1; }
  done
done
