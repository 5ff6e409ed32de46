#!/usr/bin/env bash
# Runs every parser's fuzz target (one per format, in the format packages
# under ingest/format and in ingest/trace, and those of the shared readers
# ingest/pyjson and ingest/jsonread: their fast number paths against the
# plain ones, the archive's decoder of packed requests,
# store/internal/reqpack, and its chunk compressor, store/internal/huffdeflate,
# read back by two inflaters) for FUZZTIME each: `make test`
# for a few seconds, `make fuzz` for longer. Each package's test binary is
# built with the fuzzing instrumentation go test -fuzz would add (on every
# ingest package, so the shared readers are covered too), all in one go
# command and without symbol tables (-s -w: half the link's CPU; stacks keep
# their files and lines), instead of once per target.
#
# MINIMIZE bounds the minimising of each new input (go test's
# -fuzzminimizetime, default 60s): `make test` gives it a count, because
# minimising an input grown from a megabyte-sized seed (the vLLM sample)
# costs a parse of that megabyte per step and took up to a minute of the
# smoke's CPU.
#
#   scripts/fuzz.sh [FUZZTIME [MINIMIZE]]      (defaults 60s, 60s)
set -euo pipefail
fuzztime=${1:-60s}
minimize=${2:-60s}
here=$(cd "$(dirname "$0")/.." && pwd)
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go=${GO:-go}
module=github.com/benchledger/benchledger
cache=${FUZZCACHE:-$($go env GOCACHE)/fuzz}
dirs=$(cd "$here" && grep -rl --include='*_test.go' '^func Fuzz' ingest/format ingest/trace ingest/pyjson ingest/jsonread internal/jsonstr store/internal/reqpack store/internal/huffdeflate | xargs -n1 dirname | sort -u)
[ -n "$dirs" ] || { echo "fuzz: no fuzz targets found" >&2; exit 1; }
# go test -c names each binary after its package's folder.
dup=$(for dir in $dirs; do basename "$dir"; done | sort | uniq -d)
[ -z "$dup" ] || { echo "fuzz: two fuzzed packages named $dup" >&2; exit 1; }
(cd "$here" && $go test -c -ldflags='-s -w' -gcflags="$module/ingest/...=-d=libfuzzer" -gcflags="$module/store/internal/reqpack=-d=libfuzzer" -gcflags="$module/store/internal/huffdeflate=-d=libfuzzer" -gcflags="$module/internal/jsonstr=-d=libfuzzer" -o "$bin/" $(printf './%s ' $dirs))
for dir in $dirs; do
  exe="$bin/$(basename "$dir").test"
  targets=$(cd "$here/$dir" && "$exe" -test.list '^Fuzz' | grep '^Fuzz' || true)
  for t in $targets; do
    printf 'fuzz %-44s %s\n' "$dir.$t" "$fuzztime"
    (cd "$here/$dir" && "$exe" -test.run '^$' -test.fuzz "^$t\$" -test.fuzztime "$fuzztime" -test.fuzzminimizetime "$minimize" -test.fuzzcachedir "$cache") >"$bin/out" 2>&1 || {
      cat "$bin/out"; echo "fuzz: $t failed (the failing input is under $dir/testdata/fuzz/$t)" >&2; exit 1; }
  done
done
