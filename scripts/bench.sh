#!/usr/bin/env bash
# Side-by-side speed and memory figures for ingest, against the fixed
# yardsticks in ../shared/bench (used as they are): the sqlite3 shell importing
# the same per-request rows with readfile() + json_each().
#
#   scripts/bench.sh [SHARED_DIR]        (make bench)
# Environment: BENCH_DIR (scratch folder, default a new temp dir),
#              LARGE_SIZE (default 950MB), HUGE=1 also ingests a 1.2 GB file
#              (over SQLite's 1e9-byte value limit, which the shell cannot import).
set -euo pipefail
shared=${1:-../shared}
here=$(cd "$(dirname "$0")/.." && pwd)
bl=$here/bin/benchledger
[ -x "$bl" ] || { echo "bench: build first (make build)" >&2; exit 1; }
[ -d "$shared/bench/gen" ] || { echo "bench: $shared/bench not found: the yardsticks live in ../shared" >&2; exit 1; }
command -v sqlite3 >/dev/null || { echo "bench: needs the sqlite3 shell (apt-get install sqlite3)" >&2; exit 1; }
work=${BENCH_DIR:-$(mktemp -d)}
mkdir -p "$work"
trap '[ -z "${BENCH_DIR:-}" ] && rm -rf "$work"' EXIT

(cd "$shared/bench/gen" && go build -o "$work/gen" .)
large=$work/large.json
[ -f "$large" ] || "$work/gen" -size "${LARGE_SIZE:-950MB}" -o "$large" -q
[ -d "$work/runs" ] || "$work/gen" -runs 1000 -n 100 -out-dir "$work/runs" -q

# measure LABEL CMD...: wall seconds and peak RSS (MB) of one command.
measure() {
  local label=$1; shift
  local t=$work/time.$$
  /usr/bin/time -f "%e %M" -o "$t" "$@" >/dev/null 2>"$work/stderr.$$" || { cat "$work/stderr.$$" >&2; echo "bench: $label failed" >&2; exit 1; }
  read -r secs kb <"$t"
  echo "$secs $((kb / 1024))"
}

sync
printf '%-44s %10s %10s\n' "case" "seconds" "peak MB"
row() { printf '%-44s %10s %10s\n' "$1" "$2" "$3"; }

rm -f "$work"/*.db*
read -r s_large m_large < <(measure "shell large" "$shared/bench/sqlite_import.sh" "$work/shell-large.db" "$large")
row "sqlite3 shell, $(du -m "$large" | cut -f1) MB detailed file" "$s_large" "$m_large"
read -r b_large mb_large < <(measure "ingest large" "$bl" ingest --db "$work/bl-large.db" "$large")
row "benchledger ingest, same file" "$b_large" "$mb_large"

read -r s_many m_many < <(measure "shell 1000" "$shared/bench/sqlite_import.sh" "$work/shell-many.db" "$work"/runs/*.json)
row "sqlite3 shell, 1,000 files" "$s_many" "$m_many"
read -r b_many mb_many < <(measure "ingest 1000" "$bl" ingest --db "$work/bl-many.db" "$work/runs")
row "benchledger ingest, 1,000 files" "$b_many" "$mb_many"

read -r b_audit mb_audit < <(measure "audit 1000" "$bl" audit --db "$work/bl-many.db")
row "benchledger audit, those 1,000 runs" "$b_audit" "$mb_audit"

# Export of 1,000,000 request rows x 10 columns against excelize's own
# StreamWriter writing the same cells (scripts/xlsxbare, reading them from
# the same archive with one plain query).
m1=$work/m1.json
[ -f "$m1" ] || "$work/gen" -n 1000000 -out-len 64 -o "$m1" -q
[ -f "$work/bl-m1.db" ] || "$bl" ingest --db "$work/bl-m1.db" "$m1" >/dev/null 2>&1
(cd "$here" && go build -o "$work/xlsxbare" ./scripts/xlsxbare)
read -r s_bare mb_bare < <(measure "xlsxbare" "$work/xlsxbare" -db "$work/bl-m1.db" -o "$work/bare.xlsx")
row "excelize StreamWriter alone, 1M rows x 10" "$s_bare" "$mb_bare"
read -r b_xlsx mb_xlsx < <(measure "export xlsx" "$bl" export --db "$work/bl-m1.db" --xlsx "$work/export.xlsx")
row "benchledger export --requests --xlsx" "$b_xlsx" "$mb_xlsx"
read -r b_csv mb_csv < <(measure "export csv" "$bl" export --db "$work/bl-m1.db" --csv "$work/export-csv")
row "benchledger export --requests --csv" "$b_csv" "$mb_csv"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1fx", a / b }'; }
echo
echo "large file: benchledger is $(ratio "$s_large" "$b_large") faster than the shell (target >= 6x), peak ${mb_large} MB (target < 128 MB)"
echo "1,000 files: benchledger is $(ratio "$s_many" "$b_many") faster than the shell (target >= 3x)"
echo "audit of 1,000 runs (integrity + recomputation): ${b_audit} s (target: well under a minute)"
echo "xlsx export of 1M request rows: $(ratio "$b_xlsx" "$s_bare") the time of excelize's StreamWriter alone (target <= 1.5x), peak ${mb_xlsx} MB (the bare program: ${mb_bare} MB)"

if [ "${HUGE:-0}" = 1 ]; then
  huge=$work/huge.json
  [ -f "$huge" ] || "$work/gen" -size 1200MB -o "$huge" -q
  read -r b_huge mb_huge < <(measure "ingest huge" "$bl" ingest --db "$work/bl-huge.db" "$huge")
  row "benchledger ingest, $(du -m "$huge" | cut -f1) MB file" "$b_huge" "$mb_huge"
fi

echo
echo "Go benchmarks (parser, store, figures, audit):"
cd "$here" && go test -run '^$' -bench . -benchtime 3x ./ingest/... ./store ./figures 2>&1 | grep -E '^(Benchmark|ok|FAIL|---)' || true
cd "$here" && go test -run '^$' -bench Audit1000Runs -benchtime 1x ./audit 2>&1 | grep -E '^(Benchmark|ok|FAIL|---)' || true
