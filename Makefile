# kg — build, run and test. `make run` and `make test` are all a fresh machine needs.

GO        ?= go
BIN       := bin/kg
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
GOFILES    = $(shell git ls-files '*.go' 2>/dev/null)

.PHONY: all build run test vet fmt-check wire-check unit bench bench-ui bench-search bench-team-scale lint large-files staticcheck govulncheck fuzz e2e e2e-deps e2e-clients bench-clients ui ui-check cover clean soak peers bench-compare

all: build

## build: the kg binary in bin/
build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/kg

## run: build and start the server on the defaults (127.0.0.1:8765, ~/.knowledge-graph)
run: build
	./$(BIN) serve

## test: vet, formatting and every test with the race detector (wire freshness is in lint:
## docs/decisions/0046-keep-google-wire.md)
test: vet fmt-check unit

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $(GOFILES)); if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

# wire_gen.go must match wire.go: `wire diff` prints a diff and fails when stale.
wire-check:
	@if [ -f cmd/kg/wire.go ]; then $(GO) tool wire diff ./cmd/kg || { echo "cmd/kg/wire_gen.go is stale: run 'go tool wire ./cmd/kg'"; exit 1; }; fi

# A -race binary sleeps a second at exit (GORACE atexit_sleep_ms, so that
# goroutines still running can report a race); every test binary paid it,
# about 15 s of make test's 2 cores. GORACE from the caller wins.
GORACE ?= atexit_sleep_ms=0
# go test runs its packages a few at a time (-p, the cores), in the order
# named: the longest ones are named first, so that they start at once and
# the short ones fill the other cores beside them, rather than the longest
# starting last and running alone. ./... then names every package, these
# included once; the list only orders, it never selects.
SLOW_PKGS  := ./cmd/kg ./e2e/team ./e2e/reliability ./domain ./adapters/storage/bolt ./adapters/http/rest ./adapters/storage/jsonfile
TEST_FLAGS ?=
# The tests' temporary folders (t.TempDir, the throwaway PostgreSQL cluster,
# the kg binaries they build) go to the machine's tmpfs, /dev/shm, when it
# has one: the tests create and fsync many thousands of small files, whose
# cost on a disk is the kernel's, not kg's (make test went from 3 min 10 s to
# 2 min 48 s). Not a tmpfs mounted noexec: the tests run what they build.
# The kill -9 runs of make e2e keep the disk. TEST_TMPDIR= keeps the
# system's temporary folder.
TEST_TMPDIR ?= $(shell [ -d /dev/shm ] && [ -w /dev/shm ] && ! grep -qs ' /dev/shm [^ ]* [^ ]*noexec' /proc/mounts && echo /dev/shm)
unit:
	$(if $(TEST_TMPDIR),TMPDIR='$(TEST_TMPDIR)') GORACE='$(GORACE)' $(GO) test -race -count=1 $(TEST_FLAGS) $(SLOW_PKGS) ./...

## cover: statement coverage per package
cover:
	$(GO) test -count=1 -cover ./...

## bench: the Go benchmarks of every layer (never timed tests), in benchstat's format, shown and
## written to BENCH_OUT; BENCH selects (a -bench regexp), COUNT repeats (benchstat wants >= 6 for
## a confidence interval), BENCH_PKGS limits the packages, BENCHTIME sets -benchtime
BENCH ?= .
COUNT ?= 1
BENCH_PKGS ?= ./...
BENCHTIME ?= 1s
BENCH_OUT ?= bench/results/bench.txt
bench:
	@mkdir -p $(dir $(BENCH_OUT))
	@{ $(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -count=$(COUNT) -benchtime=$(BENCHTIME) $(BENCH_PKGS) 2>&1; \
	  echo $$? >$(BENCH_OUT).status; } | tee $(BENCH_OUT); \
	status=$$(cat $(BENCH_OUT).status); rm -f $(BENCH_OUT).status; \
	echo "benchmarks written to $(BENCH_OUT)"; exit $$status

## bench-compare: benchstat of two `make bench` outputs, OLD (the baseline) against NEW;
## e.g. make bench BENCH_OUT=bench/results/old.txt COUNT=6, change the code, make bench COUNT=6,
## then make bench-compare. benchstat comes from the Go module proxy, pinned here.
BENCHSTAT ?= $(GO) run golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
OLD ?= bench/results/old.txt
NEW ?= $(BENCH_OUT)
bench-compare:
	$(BENCHSTAT) $(OLD) $(NEW)

## bench-ui: the web page's benchmark (e2e/browser/bench.mjs): an agent's writes reaching the open page
## in headless Chromium at 150 and 3,000 nodes, with the page's long tasks (docs/performance.md#the-web-page);
## not part of test or e2e. UI_ARGS passes options, e.g. make bench-ui UI_ARGS='--nodes 3000 --writes 50'
UI_ARGS ?=
bench-ui: build ui-check
	e2e/browser/install.sh
	@mkdir -p bench/results
	KG_BIN=$(CURDIR)/$(BIN) node e2e/browser/bench.mjs --out bench/results/ui-bench.json $(UI_ARGS)

## bench-search: search recall on the public half of LoCoMo (docs/design/benchmarks.md#search-quality), read from
## LOCOMO at run time, through an in-process kg server (POST /api/import, kg_search over MCP); prints R@1/5/10/20
## clean and with one typo per question; exits 1 under RECALL_FLOOR (empty: no floor), as CI runs it
LOCOMO       ?= ../shared/data/locomo/locomo-public.json
RECALL_FLOOR ?=
bench-search:
	$(GO) run ./cmd/kgbench --recall $(LOCOMO) $(if $(RECALL_FLOOR),--floor $(RECALL_FLOOR))

## bench-team-scale: the team-scale figures (docs/performance.md#team-scale): TEAM_SCALE people x projects each x
## nodes (default the target's 50x20x2000) in a throwaway PostgreSQL, one kg serve process, 8 clients of mixed use
## for TEAM_SCALE_USE; the project list's p50/p99 and the server's RSS. Long, so not part of bench (which runs 5x4x2000)
TEAM_SCALE     ?= 50x20x2000
TEAM_SCALE_USE ?= 120s
bench-team-scale:
	KG_TEAM_SCALE=$(TEAM_SCALE) KG_TEAM_SCALE_USE=$(TEAM_SCALE_USE) $(GO) test -timeout 60m -run '^$$' \
		-bench '^BenchmarkScale$$' -benchtime=300x ./e2e/team/

## peers: the workload of docs/design/benchmarks.md#workload through the official TypeScript MCP client against kg (json, bolt)
## and @modelcontextprotocol/server-memory (bench/peers/README.md); long, so not part of test or e2e.
## ARGS passes options, e.g. make peers ARGS='--sizes 1000,5000 --reps 3'
ARGS ?=
peers:
	GO=$(GO) bench/peers/run.sh $(ARGS)

## fuzz: every fuzz target (scripts/fuzz.sh), one after another, each for FUZZTIME; then the
## executions of each. FUZZFLAGS go to go test (e.g. FUZZFLAGS=-parallel=1)
FUZZTIME         ?= 30s
FUZZMINIMIZETIME ?= 5s
FUZZFLAGS        ?=
fuzz:
	GO='$(GO)' FUZZTIME='$(FUZZTIME)' FUZZMINIMIZETIME='$(FUZZMINIMIZETIME)' FUZZFLAGS='$(FUZZFLAGS)' scripts/fuzz.sh

## e2e: the built binary driven by the official MCP TypeScript SDK client, on both backends,
## and the web page in Debian's chromium (e2e/browser); first, that the embedded page is fresh;
## then the real Claude Code, Codex and Gemini CLIs against mocks of their model APIs (e2e-clients);
## then the kill -9 test of the built binary, KILL_CYCLES kills per backend (docs/reliability.md)
KILL_CYCLES ?= 100
e2e: build e2e-deps ui-check
	e2e/run.sh $(BIN)
	$(GO) test -count=1 -v -timeout 15m ./e2e/clients -args -clients -kg=$(CURDIR)/$(BIN)
	$(GO) test -count=1 -v -timeout 60m -run '^TestKillServer$$' ./e2e/reliability -args -kg=$(CURDIR)/$(BIN) -kill.cycles=$(KILL_CYCLES)

## e2e-clients: only the real-client harness (docs/clients.md#the-real-client-harness): the pinned
## CLIs of e2e/clients/package.json, each against a mock of its model API and the built binary
e2e-clients: build
	e2e/clients/install.sh
	$(GO) test -count=1 -v -timeout 15m ./e2e/clients -args -clients -kg=$(CURDIR)/$(BIN)

## bench-clients: the time kg's hooks add to Claude Code's, Codex's and Gemini CLI's start and to a prompt, median of 10
## (docs/performance.md#real-agents); not part of test or e2e
bench-clients: build
	e2e/clients/install.sh
	$(GO) test -count=1 -run '^$$' -bench 'ClaudeCodeHooks|AgentHooks' -benchtime 1x ./e2e/clients -args -clients -kg=$(CURDIR)/$(BIN)

## soak: 32 sessions of mixed calls for SOAK per backend against a -race build (docs/reliability.md)
SOAK ?= 60s
soak:
	$(GO) test -count=1 -v -timeout 60m -run '^TestSoak$$' ./e2e/reliability -args -soak=$(SOAK)

## ui: rebuild the web page's embedded assets (adapters/http/ui/dist) from adapters/http/ui/web
ui:
	adapters/http/ui/web/build.sh

## ui-check: fail when the committed adapters/http/ui/dist is not what `make ui` builds
ui-check:
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	adapters/http/ui/web/build.sh "$$tmp/dist" >/dev/null && \
	diff -r adapters/http/ui/dist "$$tmp/dist" || { echo "adapters/http/ui/dist is stale: run 'make ui' and commit it"; exit 1; }

## e2e-deps: the e2e test's npm packages into e2e/node_modules (skipped when already installed),
## Node 22 with the conformance suite and the MCP Inspector into e2e/node22/node_modules, and the
## real agent CLIs into e2e/clients/node_modules
e2e-deps:
	e2e/install.sh
	e2e/node22/install.sh
	e2e/clients/install.sh

## lint: vet, formatting, wire freshness, no tracked file over 1 MiB outside the allow-list of
## scripts/large-files.sh, staticcheck (every check, staticcheck.conf) and govulncheck; the
## tools are pinned in go.mod and run with `go tool`
lint: vet fmt-check wire-check large-files staticcheck govulncheck

large-files:
	@scripts/large-files.sh

staticcheck:
	$(GO) tool staticcheck ./...

# govulncheck needs its database (vuln.go.dev, or a mirror named by GOVULNDB).
# When it cannot be reached the check is skipped with one line; a finding,
# or any other failure, fails the target.
govulncheck:
	@out=$$($(GO) tool govulncheck $${GOVULNDB:+-db "$$GOVULNDB"} ./... 2>&1); rc=$$?; \
	if [ $$rc -ne 0 ] && printf '%s\n' "$$out" | grep -q '^govulncheck: fetching vulnerabilities'; then \
		echo "govulncheck: skipped, its vulnerability database cannot be reached ($$(printf '%s\n' "$$out" | grep -o 'https://[^"]*' | head -n1)); set GOVULNDB to a mirror"; \
		exit 0; \
	fi; \
	printf '%s\n' "$$out"; exit $$rc

clean:
	rm -rf bin
