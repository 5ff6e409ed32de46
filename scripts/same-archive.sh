#!/usr/bin/env bash
# Checks that a speed change to ingest left every output as it was: two
# builds of benchledger ingest the same inputs into two new archives, and the
# archives must say the same things: what ingest printed (rejections at the
# same places), runs --json, show --json and trace of every run, audit --json
# (which re-reads every raw file from its chunks and compares the records),
# the raw files' SHA-256 and sizes, and every request row. Times of day are
# masked (each ingest has its own); how the archives lay the bytes out inside
# (chunk sizes, pages) may differ.
#
#   scripts/same-archive.sh OLD_BINARY NEW_BINARY INPUT...
#
# For example, with main's build in /tmp/bl-main and the inputs from
# ../shared/bench/gen: scripts/same-archive.sh /tmp/bl-main bin/benchledger runs/ large.json
# Needs the sqlite3 shell. Exit status 0 when everything is the same, 1 when
# something differs (the first lines of each difference are printed).
set -uo pipefail
[ $# -ge 3 ] || { echo "usage: $0 OLD_BINARY NEW_BINARY INPUT..." >&2; exit 2; }
old=$1 new=$2
shift 2
command -v sqlite3 >/dev/null || { echo "same-archive: needs the sqlite3 shell" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

mask() { sed -E 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+(Z|[+-][0-9:]+)/<TIME>/g'; }

for side in old new; do
  bin=${!side} db=$work/$side.db
  "$bin" ingest --db "$db" "$@" 2>&1 | sed -E 's/^[0-9a-f]{12}  //' | mask | sort >"$work/$side.ingest"
  "$bin" runs --db "$db" --json | mask >"$work/$side.runs"
  for id in $("$bin" runs --db "$db" -q); do
    echo "== $id"
    "$bin" show --db "$db" --json "$id" | mask
    "$bin" trace --db "$db" "$id" 2>&1 | mask | sha256sum
  done >"$work/$side.show"
  "$bin" audit --db "$db" --json 2>&1 | mask >"$work/$side.audit"
  sqlite3 "$db" "SELECT sha256, size, name FROM blobs ORDER BY 1" >"$work/$side.blobs"
  sqlite3 "$db" "SELECT run_id, idx, start, queue_time, ttft, latency, input_tokens, output_tokens, error,
    gap_count, gap_sum, gap_min, gap_max FROM requests ORDER BY 1, 2" | sha256sum >"$work/$side.requests"
done

rc=0
for f in ingest runs show audit blobs requests; do
  if cmp -s "$work/old.$f" "$work/new.$f"; then
    echo "same $f ($(wc -l <"$work/old.$f") lines)"
  else
    echo "DIFFERENT $f"
    diff "$work/old.$f" "$work/new.$f" | head -10
    rc=1
  fi
done
exit $rc
