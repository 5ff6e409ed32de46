# benchledger — public targets: build, demo, test, bench, fuzz (DESIGN.md).
# One cgo configuration for every target, so the SQLite build is compiled once.
export CGO_ENABLED := 1
GO      ?= go
BIN     := bin/benchledger
VERSION := $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
DEMO_DB := out/demo.db
SHARED  ?= ../shared

.PHONY: all assets build demo test vet bench pgo fuzz clean

all: build

# ECharts from the npm registry, pinned by version and SHA-256, into the
# git-ignored render/assets/echarts/ that go:embed reads (DESIGN.md). No
# network when the checked files are already there.
assets:
	./scripts/fetch-echarts.sh

# The build is optimised with cmd/benchledger/default.pgo, a CPU profile of
# the work make bench times, which go build reads by itself (make pgo).
build: assets
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/benchledger

# The example campaign: generate its result files (deterministic), ingest them
# into a fresh out/demo.db, list the runs, show the baseline and print the
# case study's headline figures with their confounders and caveat codes,
# then render the case study into out/ (HTML + Markdown, four languages,
# each with its audit page) and the archive browser into out/site/.
demo: build
	$(GO) run ./cmd/democampaign -out results/qwen3-batch
	@mkdir -p out
	@rm -f $(DEMO_DB) $(DEMO_DB)-wal $(DEMO_DB)-shm
	$(BIN) ingest --db $(DEMO_DB) results/qwen3-batch
	$(BIN) runs --db $(DEMO_DB)
	$(BIN) show --db $(DEMO_DB) $$($(BIN) runs --db $(DEMO_DB) --campaign qwen3-batch --role baseline -q)
	$(BIN) figures --db $(DEMO_DB) results/qwen3-batch/casestudy.yaml
	$(BIN) report --publish --db $(DEMO_DB) --out out results/qwen3-batch/casestudy.yaml
	@rm -rf out/site
	$(BIN) site --db $(DEMO_DB) --out out/site results/qwen3-batch/casestudy.yaml

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l .)" || { gofmt -l .; echo "gofmt needed"; exit 1; }

# The fuzz targets (one per parser) also run, bounded by a count of inputs
# (a time bound can end in a spurious "context deadline exceeded" on a loaded machine).
# scripts/test.sh runs the command's tests first, at normal priority (they
# are the critical path), and the other packages' tests (four packages at a
# time) and the fuzz targets beside them at a lower priority, in the cores
# the command's tests leave idle while they wait on Chromium, LibreOffice
# and PostgreSQL; the others' output follows, and any failing fails the target.
# Minimising a new input is bounded by a count too (see scripts/fuzz.sh).
# 3,000 inputs a target keep the loop short; CI fuzzes again at 10,000
# (.ci/run), and `make fuzz` for as long as FUZZTIME says.
# GOGC=200: the test binaries (the command's above all: one demo archive,
# many reports and sites in one process) collect half as often as by
# default; it saves about a twentieth of the run's CPU time.
FUZZTIME_TEST ?= 3000x
FUZZMINIMIZE_TEST ?= 200x
TEST_GOGC ?= 200
test: assets vet
	@GO=$(GO) TEST_GOGC=$(TEST_GOGC) ./scripts/test.sh $(FUZZTIME_TEST) $(FUZZMINIMIZE_TEST)

# Side-by-side speed figures against the fixed yardsticks in ../shared/bench.
bench: build
	./scripts/bench.sh $(SHARED)

# cmd/benchledger/default.pgo again, from the archives and files a make bench
# left in BENCH_DIR (scripts/pgo.sh).
pgo: assets
	GO=$(GO) ./scripts/pgo.sh

FUZZTIME ?= 60s
FUZZMINIMIZE ?= 60s
fuzz:
	GO=$(GO) ./scripts/fuzz.sh $(FUZZTIME) $(FUZZMINIMIZE)

clean:
	rm -rf bin out
