#!/usr/bin/env bash
# Runs every fuzz target of package ingest (one per parser) for FUZZTIME
# each: `make test` for a few seconds, `make fuzz` for longer. The test
# binary is built once with the fuzzing instrumentation go test -fuzz would
# add, instead of once per target.
#
#   scripts/fuzz.sh [FUZZTIME]      (default 60s)
set -euo pipefail
fuzztime=${1:-60s}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go=${GO:-go}
pkg=github.com/benchledger/benchledger/ingest
(cd "$here" && $go test -c -gcflags="$pkg=-d=libfuzzer" -o "$bin/ingest.fuzz" ./ingest)
cd "$here/ingest"
targets=$("$bin/ingest.fuzz" -test.list '^Fuzz' | grep '^Fuzz' || true)
[ -n "$targets" ] || { echo "fuzz: no fuzz targets found" >&2; exit 1; }
cache=${FUZZCACHE:-$(go env GOCACHE)/fuzz}
for t in $targets; do
  printf 'fuzz %-28s %s\n' "$t" "$fuzztime"
  "$bin/ingest.fuzz" -test.run '^$' -test.fuzz "^$t\$" -test.fuzztime "$fuzztime" -test.fuzzcachedir "$cache" >"$bin/out" 2>&1 || {
    cat "$bin/out"; echo "fuzz: $t failed (the failing input is under ingest/testdata/fuzz/$t)" >&2; exit 1; }
done
