#!/usr/bin/env bash
# The test suite as `make test` runs it: every package's tests and the fuzz
# smoke (scripts/fuzz.sh), on a machine of two cores.
#
# The command's tests (./cmd/benchledger) take most of the time and are
# the suite's critical path: they start first, in their own go command,
# at the machine's normal priority. Everything else runs beside them at a
# lower one (nice): the other packages' tests (-p 4: four packages at a
# time, most of them short or waiting on PostgreSQL) and the fuzz
# targets. The command's tests often wait (on Chromium, LibreOffice,
# PostgreSQL, the shared fixtures) and leave a core idle, which the rest
# then uses; when both are busy, the rest yields instead of stretching the
# critical path. Both the other tests and the fuzzing had started at the
# same priority as the command's tests, whose package then only started
# after a quarter of a minute of linking the other test binaries. The
# priorities are only a little lower: on a machine others keep busy, a
# much lower one left the other tests and the fuzzing the little the
# others' processes did not take, and they ended well after the command's.
#
# The other packages' output and the fuzz smoke's follow the command's;
# any of the three failing fails the script.
#
#   scripts/test.sh FUZZTIME MINIMIZE
#
# GO names the go command; TEST_GOGC (the Makefile's, default 200) is the
# tests' GOGC. NICE_REST (default 2) is the lower priority's increment for
# the other tests, NICE_FUZZ (default 5) the fuzzing's.
set -uo pipefail
fuzztime=${1:?FUZZTIME}
minimize=${2:?MINIMIZE}
here=$(cd "$(dirname "$0")/.." && pwd)
cd "$here" || exit 1
go=${GO:-go}
cmdpkg=github.com/benchledger/benchledger/cmd/benchledger
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# go test starts the packages in the order given: the ones whose tests
# take longest go first (the store's mostly wait on PostgreSQL), so that
# they do not start last and end after everything else.
first="./store ./internal/democampaign ./ingest/pyjson ./render/svg ./internal/browser ./ingest/format/vllmjson"
rest=$($go list $first ./... | grep -vx "$cmdpkg") || { echo "test: go list failed" >&2; exit 1; }

gogc=${TEST_GOGC:-200}
# -pgo=off: the command's test binary would otherwise be built with
# cmd/benchledger/default.pgo, which compiles every package it imports (the
# SQLite amalgamation too) a second time, beside the other tests' builds.
# The profile changes how the compiler inlines, never what the code does.
GOGC=$gogc $go test -pgo=off -count=1 ./cmd/benchledger &
cmd=$!
GOGC=$gogc nice -n "${NICE_REST:-2}" $go test -pgo=off -count=1 -p 4 $rest >"$logs/rest" 2>&1 &
others=$!
GO=$go nice -n "${NICE_FUZZ:-5}" ./scripts/fuzz.sh "$fuzztime" "$minimize" >"$logs/fuzz" 2>&1 &
fuzz=$!

wait $cmd
cmdrc=$?
wait $others
othersrc=$?
cat "$logs/rest"
wait $fuzz
fuzzrc=$?
cat "$logs/fuzz"
test $cmdrc = 0 && test $othersrc = 0 && test $fuzzrc = 0
