# difftrace — build, test and demo. See README.md.
GO      ?= go
BIN     := bin/difftrace
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)
# Fuzz budgets are counts of inputs, not durations: with a duration, Go 1.26's
# fuzzing coordinator can fail a target with a bare "context deadline exceeded"
# (no crasher) when the time runs out on a loaded machine.
FUZZTIME ?= 50000x

.PHONY: all build test lint fuzz safety demo bench examples mutation mutation-runs trial clean

all: build

# difftrace and its Graphviz helper difftrace-draw, side by side. Without
# cgo: then the Go runtime makes its own small thread stacks instead of
# libc's 8 MB ones, and difftrace runs under a 1 GB address-space limit
# (ulimit -v) where a cgo build cannot start its threads.
export CGO_ENABLED ?= 0
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/ ./cmd/difftrace ./cmd/difftrace-draw

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) tool staticcheck ./...   # pinned in go.mod

# The whole test suite, then a short run of every fuzz target.
test: lint
	$(GO) test ./...
	$(MAKE) fuzz

# The adversarial pass on its own (README, "Safety on shared machines"):
# outputs through links, pipes and devices another user planted, planted
# caches, libraries and sessions, names with terminal escapes, run
# directories and summaries that lie about themselves, memory limits and
# interrupts. make test runs these tests too, with everything else.
SAFETY := Planted|Private|Refuse|Fifo|Devices|Descriptors|TrustedLinks|ControlCharacters|Printable|HelperWarning|Foreign|ManifestContradictions|ClaimedParts|ClaimsManyParts|LargeFunctionTable|AddressSpace|LowMemory|Interrupt|DrawCache|Session|Peers
safety:
	$(GO) test -count=1 -run '$(SAFETY)' ./...

# Every fuzz target of every package (found with go test -list, so a new one
# is never left out), each for FUZZTIME.
fuzz:
	@set -e; for pkg in $$($(GO) list ./...); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "$(GO) test $$pkg -run '^$$' -fuzz '^$$f$$' -fuzztime $(FUZZTIME)"; \
	    $(GO) test $$pkg -run '^$$' -fuzz "^$$f\$$" -fuzztime $(FUZZTIME); \
	  done; \
	done

# The analysis on the committed example runs (testdata/runs): rank the traces
# the bug changed, then draw how the top one changed (diffNLR), for the
# odd/even sort with swapBug (seeds/002 Fig. 3.5b), ILCS with its
# unprotected critical section (Fig. 3.7a) and the C++ stencil whose rank 3
# skips its halo exchange in step 6 and hangs, whose whole comparison
# report writes on one page (demo-out/report.html); then a task farm that
# varies by itself, with two normal runs, whose worker 3 skips one
# verify(). Each pair works in its own directory of demo-out/, where rank
# leaves its session for diffnlr.
DEMO := demo-out
DT   := ../../$(BIN)
RUNS := ../../testdata/runs
NOISE := ../../testdata/noise
demo: build
	@mkdir -p $(DEMO)/oddeven $(DEMO)/ilcs $(DEMO)/stencil $(DEMO)/farm
	cd $(DEMO)/oddeven && $(DT) rank $(RUNS)/oddeven-normal $(RUNS)/oddeven-swapbug --rows 8
	cd $(DEMO)/oddeven && $(DT) diffnlr 5 -o diffnlr-5.svg -o diffnlr-5.png
	cd $(DEMO)/ilcs && $(DT) rank $(RUNS)/ilcs-normal $(RUNS)/ilcs-critbug --rows 8
	cd $(DEMO)/ilcs && $(DT) diffnlr 6.4 -o diffnlr-6.4.svg -o diffnlr-6.4.png
	cd $(DEMO)/stencil && $(DT) rank $(RUNS)/stencil-normal $(RUNS)/stencil-skipbug --rows 8
	cd $(DEMO)/stencil && $(DT) diffnlr 3 -o diffnlr-3.svg -o diffnlr-3.png
	cd $(DEMO)/stencil && $(DT) report $(RUNS)/stencil-normal $(RUNS)/stencil-skipbug -o ../report.html
	cd $(DEMO)/farm && $(DT) rank $(NOISE)/farm-1 $(NOISE)/farm-skipverify --also-normal $(NOISE)/farm-2 --rows 8
	cd $(DEMO)/farm && $(DT) diffnlr 3 -o diffnlr-3.svg -o diffnlr-3.png
	@echo; echo "pictures: $$(ls $(DEMO)/*/*.svg $(DEMO)/*/*.png | tr '\n' ' ')"
	@echo "the stencil pair on one page (open it in a browser): $(DEMO)/report.html"

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# Rebuild the example programs and recapture every run under testdata/runs
# (needs Open MPI, uftrace and elfutils).
examples: build
	$(MAKE) -C examples
	examples/record-runs.sh $(BIN) examples testdata/runs

# How often diffnlr's first-difference sentence is right about known
# mutations of real traces (internal/mutation): 20,000 in memory under the
# filters all and mpi, and 4 of each kind per run through run directories
# under the view rank suggests. go test ./... runs a few thousand.
mutation:
	$(GO) test ./internal/mutation -run Accuracy -mutations 20000 -mutation.suggested 4 -v

# The new-user trial (README, "How often the first difference is right"):
# 25 bugs planted in four programs (examples/trial), each recorded, ranked,
# and diffed with exactly the diffnlr rank suggests; results in
# examples/trial/results (summary.tsv). About two minutes; needs Open MPI,
# gfortran and uftrace.
trial: build
	examples/trial/run-all.sh $(BIN)

# Records the normal runs the mutation tests take (testdata/mutation) again.
mutation-runs: build
	$(MAKE) -C examples mutation
	examples/record-mutation-runs.sh $(BIN) examples testdata/mutation

clean:
	rm -rf bin $(DEMO)
