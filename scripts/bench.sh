#!/usr/bin/env bash
# Side-by-side speed and memory figures for ingest, against the fixed
# yardsticks in ../shared/bench (used as they are): the sqlite3 shell importing
# the same per-request rows with readfile() + json_each().
#
#   scripts/bench.sh [SHARED_DIR]        (make bench)
# Environment: BENCH_DIR (scratch folder, default a new temp dir),
#              LARGE_SIZE (default 950MB), HUGE=1 also ingests a 1.2 GB file
#              (over SQLite's 1e9-byte value limit, which the shell cannot import),
#              SITE_ONLY=1 runs only the report sizes and the site figures
#              (skips ingest, audit, export and the Go benchmarks),
#              INGEST_ONLY=1 only the two ingest rows against the shell,
#              TEAM_ONLY=1 only the 1,000 files against the shell and into
#              PostgreSQL,
#              INGEST_ROUNDS (default 3) alternating rounds of each of those
#              two, best of them kept.
# The site figures (benchledger site over 10,000 runs, one language, against
# Hugo building 10,000 simple pages; then a rebuild after one new run) need
# Debian's hugo on PATH, and are skipped with a note when it is missing.
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
if [ "${SITE_ONLY:-0}" != 1 ]; then
  [ -f "$large" ] || "$work/gen" -size "${LARGE_SIZE:-950MB}" -o "$large" -q
  [ -d "$work/runs" ] || "$work/gen" -runs 1000 -n 100 -out-dir "$work/runs" -q
fi

# settle: flush what is written, then wait (two minutes at most) until no
# task has stalled on the disk for two seconds, as /proc/pressure/io counts
# it. Writeback of earlier work and the discards that follow deletes
# otherwise land in whichever measurement runs next, and on this kind of
# machine they can double it. Then wait (seven minutes at most) until
# creating files costs what it normally does: ext4 passes over inodes freed
# in the last minutes when it allocates new ones, so for a while after a
# tree of thousands of files is deleted nearby (an earlier bench's output),
# every file created costs a scan of them, and a build of 10,000 pages takes
# seconds more, Hugo's as well as benchledger's.
settle() {
  sync
  if [ -r /proc/pressure/io ]; then
    local i prev now
    stalled() { awk '/^some/ { sub("total=", "", $5); print $5 }' /proc/pressure/io; }
    prev=$(stalled)
    for ((i = 0; i < 60; i++)); do
      sleep 2
      now=$(stalled)
      ((now - prev < 20000)) && break # under 1% of the two seconds
      prev=$now
    done
  fi
  local ms tries
  for ((tries = 0; tries < 21; tries++)); do
    ms=$(creation_probe)
    ((ms < 100)) && return 0
    ((tries == 0)) && echo "bench: creating 1,000 files in $work takes ${ms} ms (files deleted there in the last minutes); waiting for that to pass" >&2
    sleep 20
  done
  echo "bench: creating 1,000 files still takes ${ms} ms; measuring anyway" >&2
}

# creation_probe: milliseconds to create 1,000 empty files in a new folder
# of $work (kept until the end: deleting them would slow the next builds).
creation_probe() {
  local d t0 t1
  mkdir -p "$work/site-trash"
  d=$(mktemp -d "$work/site-trash/probe.XXXXXX")
  t0=$(date +%s%N)
  seq -f "$d/%g" 1000 | xargs touch
  t1=$(date +%s%N)
  echo $(((t1 - t0) / 1000000))
}

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
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1fx", a / b }'; }
# keep_best NAME SECONDS: NAME becomes SECONDS when it is empty or more.
keep_best() { if [ -z "${!1}" ] || awk -v a="$2" -v b="${!1}" 'BEGIN { exit !(a < b) }'; then printf -v "$1" '%s' "$2"; fi; }
# site_round ALL BEST PEAK WHAT ARGS...: after settle, times benchledger
# site of the 10,000-run archive into $work/site10k (one language) with
# ARGS, adds the seconds to the list ALL, keeps the best in BEST and the
# largest peak MB in PEAK (names of the caller's variables).
site_round() {
  local all_=$1 best_=$2 peak_=$3 what_=$4 t_ mb_
  shift 4
  settle
  read -r t_ mb_ < <(measure "benchledger site ($what_)" "$bl" site --db "$work/bl-10k.db" --out "$work/site10k" --lang en "$@") || {
    echo "bench: benchledger site failed on the $what_ (its error is above)" >&2
    exit 1
  }
  printf -v "$all_" '%s %s' "${!all_}" "$t_"
  keep_best "$best_" "$t_"
  ((mb_ <= ${!peak_})) || printf -v "$peak_" '%s' "$mb_"
}

# site_bench: a static site of 10,000 runs (one language; the other three
# scale alike) against Hugo building 10,000 simple pages, then the rebuild
# after one new run (the site's manifest rewrites only what changed).
site_bench() {
  command -v hugo >/dev/null || {
    echo "bench: the site yardstick needs Debian's hugo (apt-get install hugo); skipping the site figures" >&2
    return 0
  }
  # Earlier outputs are moved aside, not deleted, until the end: ext4 passes
  # over inodes freed in the last minutes when it allocates new ones, so once
  # a tree of 10,000 files is deleted, creating the next 10,000 in the same
  # place takes seconds of system time, Hugo's as well as benchledger's (perf
  # shows the kernel in ext4's recently_deleted). For the same reason a
  # second bench soon after a first in the same BENCH_DIR measures slower.
  local trash=$work/site-trash n=0
  aside() { mkdir -p "$trash"; local p; for p; do [ ! -e "$p" ] || mv "$p" "$trash/$((n += 1)).$$"; done; }
  # 10,000 run files (cached in $work), ingested into a fresh archive.
  if [ ! -d "$work/runs10k" ]; then
    rm -rf "$work/runs10k.tmp"
    "$work/gen" -runs 10000 -n 100 -out-dir "$work/runs10k.tmp" -q
    mv "$work/runs10k.tmp" "$work/runs10k"
  fi
  aside "$work"/bl-10k.db*
  read -r b_in10k mb_in10k < <(measure "ingest 10000" "$bl" ingest --db "$work/bl-10k.db" "$work/runs10k")
  row "benchledger ingest, 10,000 files" "$b_in10k" "$mb_in10k"

  # The yardstick: Hugo building 10,000 simple pages, each a title, a date,
  # a short paragraph and a table of ten key/value lines, plus the section
  # list of all of them and a home page.
  local hs=$work/hugo-site
  if [ ! -d "$hs/content/runs" ]; then
    rm -rf "$hs/content.tmp"
    mkdir -p "$hs/content.tmp/runs"
    local i id date
    local -a models=(Llama-3.1-8B-Instruct Llama-3.3-70B-Instruct Qwen2.5-7B-Instruct DeepSeek-R1-Distill-Qwen-32B Mistral-7B-Instruct-v0.3)
    local -a gpus=(H100 H200 A100-80G L40S MI300X)
    for ((i = 1; i <= 10000; i++)); do
      printf -v id '%05d' "$i"
      printf -v date '2025-%02d-%02dT%02d:%02d:00Z' $((i % 12 + 1)) $((i % 28 + 1)) $((i % 24)) $((i % 60))
      printf -- '---\ntitle: "Run %s"\ndate: %s\n---\n\n%s\n\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n' \
        "$id" "$date" \
        "A serving benchmark of ${models[i % 5]} on ${gpus[i % 5]}: 100 requests, $((i % 9 + 1)) of them with long prompts, archived with its provenance." \
        "| Key | Value |" "|---|---|" \
        "| Model | ${models[i % 5]} |" "| GPU | ${gpus[i % 5]} |" "| Tensor parallel | $((1 << (i % 4))) |" \
        "| Concurrency | $((1 << (i % 9))) |" "| Requests | 100 |" "| Completed | $((100 - i % 3)) |" \
        "| Output tokens/s | $((1000 + i * 37 % 9000)).$((i % 10)) |" "| Mean TTFT (ms) | $((20 + i * 13 % 400)).$((i % 7)) |" \
        "| Mean TPOT (ms) | $((5 + i * 7 % 60)).$((i % 5)) |" "| Date | ${date%T*} |" \
        >"$hs/content.tmp/runs/run-$id.md"
    done
    rm -rf "$hs/content"
    mv "$hs/content.tmp" "$hs/content"
  fi
  mkdir -p "$hs/layouts/_default"
  cat >"$hs/config.toml" <<'TOML'
baseURL = "https://example.org/"
title = "Benchmark runs"
languageCode = "en"
disableKinds = ["taxonomy", "term", "RSS", "sitemap"]
TOML
  cat >"$hs/layouts/_default/single.html" <<'HTML'
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{ .Title }} | {{ .Site.Title }}</title></head>
<body><h1>{{ .Title }}</h1><p>{{ .Date.Format "2006-01-02 15:04" }}</p>
{{ .Content }}
<p><a href="{{ "runs/" | relURL }}">All runs</a></p></body></html>
HTML
  cat >"$hs/layouts/_default/list.html" <<'HTML'
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{ .Title }} | {{ .Site.Title }}</title></head>
<body><h1>{{ .Title }}</h1>
<table><tr><th>Run</th><th>Date</th></tr>
{{ range .Pages }}<tr><td><a href="{{ .RelPermalink }}">{{ .Title }}</a></td><td>{{ .Date.Format "2006-01-02 15:04" }}</td></tr>
{{ end }}</table>
<p><a href="{{ "/" | relURL }}">Home</a></p></body></html>
HTML
  cat >"$hs/layouts/index.html" <<'HTML'
<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{ .Site.Title }}</title></head>
<body><h1>{{ .Site.Title }}</h1>
<p>{{ len (where .Site.RegularPages "Section" "runs") }} runs. <a href="{{ "runs/" | relURL }}">All runs</a></p></body></html>
HTML
  "$bl" site --help >/dev/null 2>&1 || {
    echo "bench: $bl has no working 'site' command ('$bl site --help' fails); build it first (make build)" >&2
    exit 1
  }
  # Hugo's pages against benchledger's pages alone (--raw=false), each into
  # an empty folder, in SITE_ROUNDS rounds (default 3) of Hugo then
  # benchledger, so that both meet the same state of the disk. The ratio is
  # of each one's best time: the file system's noise (writeback of earlier
  # work, a discard after deletes) only ever adds time. Every round is
  # printed.
  local rounds=${SITE_ROUNDS:-3} r t mb s_hugo="" mb_hugo=0 b_site="" mb_site=0 h_all="" b_all=""
  for ((r = 1; r <= rounds; r++)); do
    aside "$work/hugo-public"
    settle
    read -r t mb < <(measure "hugo 10000" hugo --quiet -s "$hs" -d "$work/hugo-public")
    h_all+=" $t"
    keep_best s_hugo "$t"
    ((mb > mb_hugo)) && mb_hugo=$mb
    aside "$work/site10k"
    mkdir -p "$work/site10k"
    site_round b_all b_site mb_site "full build of 10,000 runs, pages" --raw=false
  done
  row "Hugo, 10,000 simple pages (best of $rounds)" "$s_hugo" "$mb_hugo"
  row "benchledger site, 10,000 runs (en), pages" "$b_site" "$mb_site"
  echo "  each round, Hugo:${h_all} s; benchledger:${b_all} s"
  # The same build with the raw files copied in, which is the default: their
  # bytes (the evidence, about 290 KB a run here) are written once and kept
  # by rebuilds. Then one new run (ingested untimed) and the rebuild.
  aside "$work/site10k"
  mkdir -p "$work/site10k"
  local raw_all="" b_siteraw="" mb_siteraw=0
  site_round raw_all b_siteraw mb_siteraw "full build of 10,000 runs with the raw files"
  row "  the same with the raw files ($(du -sm "$work/site10k/raw" | cut -f1) MB)" "$b_siteraw" "$mb_siteraw"
  # The rebuild after one new run, in SITE_ROUNDS rounds: each round
  # ingests one more new run (untimed) and times the rebuild; the best
  # round counts, as above, and every round is printed.
  mkdir -p "$work/run-new"
  local new b_resite="" mb_resite=0 re_all=""
  for ((r = 1; r <= rounds; r++)); do
    new=$work/run-new/openai-infqps-concurrency64-Llama-3.1-8B-Instruct-20251231-12000$r.json
    [ -f "$new" ] || "$work/gen" -n 100 -seed $((10000 + r)) -date "20251231-12000$r" -o "$new" -q
    "$bl" ingest --db "$work/bl-10k.db" "$new" >/dev/null 2>"$work/stderr.$$" || {
      cat "$work/stderr.$$" >&2
      echo "bench: ingesting the one new run for the site rebuild failed" >&2
      exit 1
    }
    site_round re_all b_resite mb_resite "rebuild after one new run"
  done
  row "site rebuild after one new run (best of $rounds)" "$b_resite" "$mb_resite"
  echo "  each round:${re_all} s"
  rm -rf "$trash"
  echo
  echo "site of 10,000 runs (en), pages: ${b_site} s vs Hugo 10,000 pages ${s_hugo} s: $(ratio "$s_hugo" "$b_site") Hugo's pages/s (target >= 1.5x); with the raw files copied: ${b_siteraw} s"
  echo "site rebuild after one new run: ${b_resite} s (target < 0.5 s)"
}

# report_sizes: the demo campaign's HTML report, one self-contained file per
# language (issue 21: at most 300 KB each, charts with tooltips). The
# campaign is generated and ingested into $work once; the report is written
# afresh each time.
report_sizes() {
  local d=$work/demo f kb max=0
  if [ ! -f "$d/demo.db" ]; then
    rm -rf "$d"
    mkdir -p "$d/results"
    cp -R "$here/results/qwen3-batch/campaign.yaml" "$here/results/qwen3-batch/casestudy.yaml" "$here/results/qwen3-batch/narrative" "$d/results/"
    (cd "$here" && go run ./cmd/democampaign -out "$d/results" 2>/dev/null)
    "$bl" ingest --db "$d/demo.db.tmp" "$d/results" >/dev/null 2>"$work/stderr.$$" || { cat "$work/stderr.$$" >&2; echo "bench: ingesting the demo campaign failed" >&2; exit 1; }
    mv "$d/demo.db.tmp" "$d/demo.db"
  fi
  rm -rf "$d/report"
  "$bl" report --db "$d/demo.db" --out "$d/report" --format html --no-audit "$d/results/casestudy.yaml" >/dev/null 2>"$work/stderr.$$" || {
    cat "$work/stderr.$$" >&2
    echo "bench: the demo report failed" >&2
    exit 1
  }
  printf '%-44s %10s\n' "HTML report of the demo campaign" "KB"
  for f in "$d"/report/*.html; do
    kb=$((($(wc -c <"$f") + 1023) / 1024))
    ((kb > max)) && max=$kb
    printf '%-44s %10s\n' "  $(basename "$f")" "$kb"
  done
  echo "HTML report per language: at most ${max} KB (target <= 300 KB)"
}

# pg_site_bench: the same site of 10,000 runs (pages, one language) from a
# copy of the archive on PostgreSQL against the SQLite build, alternating,
# best of two each (target: within 2x). Needs site_bench's archive and the
# PostgreSQL server started above.
pg_site_bench() {
  [ -n "${pg_url10k:-}" ] && [ -f "$work/bl-10k.db" ] || return 0
  local pg10k=$pg_url10k r t mb best_s="" best_p=""
  "$bl" archive copy "$work/bl-10k.db" "$pg10k" >/dev/null 2>"$work/stderr.$$" || {
    cat "$work/stderr.$$" >&2
    echo "bench: copying the 10,000-run archive to PostgreSQL failed" >&2
    return 0
  }
  for ((r = 1; r <= 2; r++)); do
    rm -rf "$work/site-s" "$work/site-p"
    settle
    read -r t mb < <(measure "site sqlite" "$bl" site --db "$work/bl-10k.db" --out "$work/site-s" --lang en --raw=false --no-audit)
    keep_best best_s "$t"
    settle
    read -r t mb < <(measure "site postgres" "$bl" site --db "$pg10k" --out "$work/site-p" --lang en --raw=false --no-audit)
    keep_best best_p "$t"
  done
  row "site of 10,000 runs from SQLite (best of 2)" "$best_s" ""
  row "site of 10,000 runs from PostgreSQL (best of 2)" "$best_p" "$mb"
  echo "site of 10,000 runs from PostgreSQL: $(ratio "$best_p" "$best_s") the time from SQLite (target <= 2x)"
}

if [ "${SITE_ONLY:-0}" = 1 ]; then
  report_sizes
  echo
  site_bench
  exit 0
fi

# ingest_pair SHELL_BEST SHELL_PEAK BL_BEST BL_PEAK NAME BL_INPUT SHELL_INPUT...:
# benchledger ingest of BL_INPUT (a file or a folder it walks) and the sqlite3
# shell's import of SHELL_INPUT (the same files), each into a fresh database
# ($work/bl-NAME.db, $work/shell-NAME.db), alternating for $INGEST_ROUNDS
# rounds (default 3), each after settle. The best seconds and the largest
# peak of each go to the caller's variables, every round's seconds to
# shell_rounds[NAME] and bl_rounds[NAME] (each_round prints them: the
# shell's time varies much more than benchledger's from one hour to the
# next on these machines). benchledger's last database is kept for the rows
# that read it.
declare -A shell_rounds bl_rounds
ingest_pair() {
  local sb_=$1 sp_=$2 bb_=$3 bp_=$4 name_=$5 in_=$6 r_ t_ mb_
  shift 6
  for ((r_ = 1; r_ <= ${INGEST_ROUNDS:-3}; r_++)); do
    rm -f "$work/shell-$name_.db"
    settle
    read -r t_ mb_ < <(measure "shell $name_" "$shared/bench/sqlite_import.sh" "$work/shell-$name_.db" "$@")
    keep_best "$sb_" "$t_"
    shell_rounds[$name_]+=" $t_"
    ((mb_ <= ${!sp_})) || printf -v "$sp_" '%s' "$mb_"
    rm -f "$work/bl-$name_.db" "$work/bl-$name_.db-wal" "$work/bl-$name_.db-shm" "$work/bl-$name_.db-journal"
    settle
    read -r t_ mb_ < <(measure "ingest $name_" "$bl" ingest --db "$work/bl-$name_.db" "$in_")
    keep_best "$bb_" "$t_"
    bl_rounds[$name_]+=" $t_"
    ((mb_ <= ${!bp_})) || printf -v "$bp_" '%s' "$mb_"
  done
}

# each_round NAME prints every round's seconds of ingest_pair NAME.
each_round() { echo "  each round, shell:${shell_rounds[$1]} s; benchledger:${bl_rounds[$1]} s"; }

rm -f "$work"/*.db*
rounds=${INGEST_ROUNDS:-3}
s_large="" m_large=0 b_large="" mb_large=0
if [ "${TEAM_ONLY:-0}" != 1 ]; then
  ingest_pair s_large m_large b_large mb_large large "$large" "$large"
  row "sqlite3 shell, $(du -mL "$large" | cut -f1) MB file (best of $rounds)" "$s_large" "$m_large"
  row "benchledger ingest, same (best of $rounds)" "$b_large" "$mb_large"
  each_round large
fi

s_many="" m_many=0 b_many="" mb_many=0
ingest_pair s_many m_many b_many mb_many many "$work/runs" "$work"/runs/*.json
row "sqlite3 shell, 1,000 files (best of $rounds)" "$s_many" "$m_many"
row "benchledger ingest, 1,000 files (best of $rounds)" "$b_many" "$mb_many"
each_round many

if [ "${INGEST_ONLY:-0}" = 1 ]; then
  echo
  echo "large file: benchledger is $(ratio "$s_large" "$b_large") faster than the shell (target >= 9x), peak ${mb_large} MB (target <= 128 MB)"
  echo "1,000 files: benchledger is $(ratio "$s_many" "$b_many") faster than the shell (target >= 4x)"
  exit 0
fi

# The team archive: the same 1,000 files into PostgreSQL on this machine, a
# throw-away server with PostgreSQL's durable defaults (scripts/pgserve),
# against the SQLite ingest just measured: as that one, best of $rounds
# rounds (each into a database of its own), each after settle. Skipped with
# a note where no server can be started.
pg_dir="" pg_url10k="" pg_urls=()
pg_dbs=$(seq -f 'bench%g' -s , "$rounds")
if read -r pg_dir pg_line < <(cd "$here" && go run ./scripts/pgserve -db "$pg_dbs,site10k" 2>"$work/pg.err"); then
  trap '[ -n "$pg_dir" ] && (cd "$here" && go run ./scripts/pgserve -stop "$pg_dir"); [ -z "${BENCH_DIR:-}" ] && rm -rf "$work"' EXIT
  read -r -a pg_urls <<<"$pg_line"
  pg_url10k=${pg_urls[$rounds]}
  b_pg="" mb_pg=0
  for ((r = 0; r < rounds; r++)); do
    settle
    read -r t mb < <(measure "ingest 1000 postgres" "$bl" ingest --db "${pg_urls[$r]}" "$work/runs")
    keep_best b_pg "$t"
    ((mb <= mb_pg)) || mb_pg=$mb
  done
  row "into PostgreSQL, same files (best of $rounds)" "$b_pg" "$mb_pg"
else
  echo "bench: no PostgreSQL server could be started ($(head -c 300 "$work/pg.err")); skipping the team-archive figures" >&2
fi
if [ "${TEAM_ONLY:-0}" = 1 ]; then
  echo
  echo "1,000 files: benchledger is $(ratio "$s_many" "$b_many") faster than the shell (target >= 4x)"
  [ -n "${b_pg:-}" ] && echo "1,000 files into PostgreSQL: $(ratio "$b_pg" "$b_many") the time of the SQLite ingest (target <= 2x)"
  exit 0
fi

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
# The audit of that one run: its raw file parsed again and compared with
# the 1,000,000 stored records, every figure recomputed.
read -r b_audit1m mb_audit1m < <(measure "audit 1M" "$bl" audit --db "$work/bl-m1.db")
row "benchledger audit, one run of 1M requests" "$b_audit1m" "$mb_audit1m"

echo
echo "large file: benchledger is $(ratio "$s_large" "$b_large") faster than the shell (target >= 9x), peak ${mb_large} MB (target <= 128 MB)"
echo "1,000 files: benchledger is $(ratio "$s_many" "$b_many") faster than the shell (target >= 4x)"
[ -n "${b_pg:-}" ] && echo "1,000 files into PostgreSQL: $(ratio "$b_pg" "$b_many") the time of the SQLite ingest (target <= 2x)"
echo "audit of 1,000 runs (integrity + recomputation): ${b_audit} s (target: well under a minute)"
echo "audit of one run of 1M requests: ${b_audit1m} s, peak ${mb_audit1m} MB (target <= 128 MB)"
echo "xlsx export of 1M request rows: $(ratio "$b_xlsx" "$s_bare") the time of excelize's StreamWriter alone (target <= 1.5x), peak ${mb_xlsx} MB (the bare program: ${mb_bare} MB)"

if [ "${HUGE:-0}" = 1 ]; then
  huge=$work/huge.json
  [ -f "$huge" ] || "$work/gen" -size 1200MB -o "$huge" -q
  read -r b_huge mb_huge < <(measure "ingest huge" "$bl" ingest --db "$work/bl-huge.db" "$huge")
  row "benchledger ingest, $(du -m "$huge" | cut -f1) MB file" "$b_huge" "$mb_huge"
fi

echo
report_sizes
echo
site_bench
pg_site_bench

echo
echo "Go benchmarks (parser, store, figures, audit):"
cd "$here" && go test -run '^$' -bench . -benchtime 3x ./ingest/... ./store ./figures 2>&1 | grep -E '^(Benchmark|ok|FAIL|---)' || true
cd "$here" && go test -run '^$' -bench 'Audit1000Runs|AuditLargeRun' -benchtime 1x ./audit 2>&1 | grep -E '^(Benchmark|ok|FAIL|---)' || true
