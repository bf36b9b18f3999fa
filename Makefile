# kg — build, run and test. `make run` and `make test` are all a fresh machine needs.

GO        ?= go
BIN       := bin/kg
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
GOFILES    = $(shell git ls-files '*.go' 2>/dev/null)

.PHONY: all build run test vet fmt-check wire-check unit bench lint e2e e2e-deps ui ui-check cover clean peers bench-compare

all: build

## build: the kg binary in bin/
build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/kg

## run: build and start the server on the defaults (127.0.0.1:8765, ~/.knowledge-graph)
run: build
	./$(BIN) serve

## test: vet, formatting, wire freshness and every test with the race detector
test: vet fmt-check wire-check unit

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $(GOFILES)); if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

# wire_gen.go must match wire.go: `wire diff` prints a diff and fails when stale.
wire-check:
	@if [ -f cmd/kg/wire.go ]; then $(GO) tool wire diff ./cmd/kg || { echo "cmd/kg/wire_gen.go is stale: run 'go tool wire ./cmd/kg'"; exit 1; }; fi

unit:
	$(GO) test -race -count=1 ./...

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

## peers: the benchmarks.md workload through the official TypeScript MCP client against kg (json, bolt)
## and @modelcontextprotocol/server-memory (bench/peers/README.md); long, so not part of test or e2e.
## ARGS passes options, e.g. make peers ARGS='--sizes 1000,5000 --reps 3'
ARGS ?=
peers:
	GO=$(GO) bench/peers/run.sh $(ARGS)

## e2e: the built binary driven by the official MCP TypeScript SDK client, on both backends,
## and the web page in Debian's chromium (e2e/browser); first, that the embedded page is fresh
e2e: build e2e-deps ui-check
	e2e/run.sh $(BIN)

## ui: rebuild the web page's embedded assets (adapters/http/ui/dist) from adapters/http/ui/web
ui:
	adapters/http/ui/web/build.sh

## ui-check: fail when the committed adapters/http/ui/dist is not what `make ui` builds
ui-check:
	@tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	adapters/http/ui/web/build.sh "$$tmp/dist" >/dev/null && \
	diff -r adapters/http/ui/dist "$$tmp/dist" || { echo "adapters/http/ui/dist is stale: run 'make ui' and commit it"; exit 1; }

## e2e-deps: the e2e test's npm packages into e2e/node_modules (skipped when already installed)
## and Node 22 with the conformance suite and the MCP Inspector into e2e/node22/node_modules
e2e-deps:
	e2e/install.sh
	e2e/node22/install.sh

## lint: vet and formatting
lint: vet fmt-check

clean:
	rm -rf bin
