# difftrace — build, test and demo. See README.md.
GO      ?= go
BIN     := bin/difftrace
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
FUZZTIME ?= 10s

.PHONY: all build test lint fuzz demo bench examples clean

all: build

# difftrace and its Graphviz helper difftrace-draw, side by side.
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/ ./cmd/difftrace ./cmd/difftrace-draw

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# The whole test suite, then a short run of every fuzz target.
test: lint
	$(GO) test ./...
	$(MAKE) fuzz

fuzz:
	$(GO) test ./decode -run '^$$' -fuzz '^FuzzReader$$' -fuzztime $(FUZZTIME)
	$(GO) test ./capture -run '^$$' -fuzz '^FuzzRoundTrip$$' -fuzztime $(FUZZTIME)
	$(GO) test ./filters -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./nlr -run '^$$' -fuzz '^FuzzNLR$$' -fuzztime $(FUZZTIME)

# Until the analysis exists, the demo shows the trace reader on the example
# run in testdata/ (the 4-process MPI odd/even sort).
demo: build
	$(BIN) info testdata/parlot/oddeven4
	@echo
	$(BIN) stats testdata/parlot/oddeven4 --by program --edges
	@echo
	$(BIN) decode testdata/parlot/oddeven4 --trace 1.0

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Rebuild the example programs and recapture every run under testdata/runs
# (needs Open MPI, uftrace and elfutils).
examples: build
	$(MAKE) -C examples
	examples/record-runs.sh $(BIN) examples testdata/runs

clean:
	rm -rf bin
