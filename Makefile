# gpucrypto — build, test and benchmark.
#   make test        install OpenCL (PoCL) if no platform exists and fetch NVRTC, vet, build
#                    without cgo (with and without -tags cuda), run every test, and compile
#                    every kernel program as CUDA C through NVRTC, and every fuzz target for 1000 executions
#   make fuzz        every fuzz target for FUZZTIME (default 10m) each
#   make bench       install OpenCL if needed, then run the CLI benchmark on the best GPU (else a CPU device) beside Go
#   make gpu-bundle  test binaries + CLI (-tags cuda) + run script in bundle/, to copy to a GPU machine
#   make tidy        go mod tidy in both modules
#
# Two modules: the library (this directory, go.mod) and the CLI (cmd/gpucrypto,
# its own go.mod, which adds the plotting dependencies and requires the library
# at a released version, so that "go install .../cmd/gpucrypto@VERSION" works).
# The committed go.work makes both modules one workspace: inside this checkout
# the CLI builds against the library in the working tree ("go -C cmd/gpucrypto"
# finds the go.work in the parent directory). The root's ./... does not reach
# into cmd/gpucrypto (a module of its own), so every target below runs the
# CLI module's commands explicitly, through "go -C cmd/gpucrypto".
GO       ?= go
PKGS     := ./...
# the CLI module's directory, and the go command run inside it
CLI      := cmd/gpucrypto
GOCLI    := $(GO) -C $(CLI)
BUILDVCS := $(if $(wildcard .git),true,false)
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# the algorithms' packages, from the registry (internal/registry: an
# algorithm is registered there alone), and the packages whose tests run
# kernels (the others need no GPU and stay out of the bundle, which must
# stay small enough to copy)
ALGORITHMS    := $(shell $(GO) run ./internal/registry/lists packages)
GPU_TEST_PKGS := ./cl ./device $(ALGORITHMS) ./internal/aesvariant
# where scripts/fetch-nvrtc.sh puts NVRTC (Debian's libnvrtc, CUDA 11.8)
NVRTC_DIR ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/gpucrypto/nvrtc

.PHONY: all deps nvrtc test fuzz bench build gpu-bundle tidy clean

all: build

build:
	CGO_ENABLED=0 $(GOCLI) build -buildvcs=$(BUILDVCS) -o $(CURDIR)/bin/gpucrypto .

# deps installs the OpenCL ICD loader and PoCL (an OpenCL CPU device) with
# apt-get, but only when no OpenCL platform with a device is found.
deps:
	@if CGO_ENABLED=0 $(GOCLI) run . devices >/dev/null 2>&1; then \
		echo "deps: a device is present; nothing to install"; \
	else \
		echo "deps: no OpenCL platform found; installing ocl-icd-libopencl1 and pocl-opencl-icd"; \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ocl-icd-libopencl1 pocl-opencl-icd >/dev/null && \
		CGO_ENABLED=0 $(GOCLI) run . devices; \
	fi

# nvrtc fetches NVRTC (no GPU needed) into NVRTC_DIR, without touching the
# machine's apt sources: the CUDA build tests compile every kernel program
# with it.
nvrtc:
	scripts/fetch-nvrtc.sh $(NVRTC_DIR)

test: deps nvrtc
	$(GO) vet $(PKGS)
	$(GO) vet -tags cuda $(PKGS)
	$(GOCLI) vet ./...
	$(GOCLI) vet -tags cuda ./...
	CGO_ENABLED=0 $(GO) build $(PKGS)
	CGO_ENABLED=0 $(GO) build -tags cuda $(PKGS)
	CGO_ENABLED=0 $(GOCLI) build -o /dev/null ./...
	CGO_ENABLED=0 $(GOCLI) build -tags cuda -o /dev/null ./...
	GPUCRYPTO_REQUIRE_DEVICE=1 $(GO) test -timeout 30m $(PKGS)
	@# the CLI module's tests (the root's ./... does not include them)
	GPUCRYPTO_REQUIRE_DEVICE=1 $(GOCLI) test -timeout 30m ./...
	@# every kernel program compiled as CUDA C by NVRTC (no GPU needed; a missing NVRTC fails)
	GPUCRYPTO_NVRTC_DIR=$(NVRTC_DIR)/lib GPUCRYPTO_REQUIRE_NVRTC=1 $(GO) test -tags cuda -timeout 20m -run 'CUDA|NVRTC' ./cuda ./device ./kernels $(ALGORITHMS) ./internal/aesvariant
	@# the concurrent parts again under the race detector
	GPUCRYPTO_REQUIRE_DEVICE=1 $(GO) test -race -timeout 10m -run 'Server|Fallback|Flush|BackPressure|Errors|Concurrent|Signer|Blinding|Pipeline|Pool|Queues|Resident' ./batch ./ecdh ./device ./rsa ./ed25519 ./ecdsa
	@# every fuzz target briefly (make fuzz: for longer)
	$(MAKE) fuzz FUZZTIME=$(FUZZTIME_TEST)

# fuzz runs every fuzz target for FUZZTIME each (package:target pairs in
# FUZZ_TARGETS, from the registry); a finding is written under the package's testdata/fuzz and
# fails the run.
# make test fuzzes each target for a number of executions, not a time: a
# -fuzztime duration can fail a target with "context deadline exceeded"
# and no finding (a race in Go 1.26's fuzz coordinator, go.dev/issue/75804,
# fixed in Go 1.27), which a count cannot
FUZZTIME      ?= 10m
FUZZTIME_TEST ?= 1000x
FUZZ_TARGETS  := $(shell $(GO) run ./internal/registry/lists fuzz-targets)
fuzz: deps
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t#*:}; \
		echo "fuzz $$pkg $$name ($(FUZZTIME))"; \
		GPUCRYPTO_REQUIRE_DEVICE=1 $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) ./$$pkg || exit 1; \
	done

bench: deps
	$(GOCLI) run -buildvcs=$(BUILDVCS) . bench

# gpu-bundle: everything a GPU machine without Go needs, in bundle/, built
# with -tags cuda (both backends in every binary).
gpu-bundle:
	rm -rf bundle && mkdir -p bundle
	CGO_ENABLED=0 $(GOCLI) build -tags cuda -buildvcs=$(BUILDVCS) -ldflags="-s -w" -o $(CURDIR)/bundle/gpucrypto .
	@for p in $(GPU_TEST_PKGS); do \
		n=$$(basename $$p); \
		CGO_ENABLED=0 $(GO) test -tags cuda -c -ldflags="-s -w" -o bundle/$$n.test $$p || exit 1; \
	done
	cp -r rsa/testdata bundle/testdata   # the rsa test keys, read from the working directory
	cp scripts/gpu-run.sh bundle/run.sh
	git rev-parse --short HEAD > bundle/COMMIT 2>/dev/null || echo unknown > bundle/COMMIT
	@ls -la bundle

# tidy keeps both go.mod files to what each module imports (the library's
# must not list the CLI's plotting dependencies). go mod tidy ignores go.work
# (go.dev/issue/50750): in the CLI module it resolves the library at the
# version the CLI's go.mod requires, from the module proxy. Until that version
# is published, the CLI is tidied against this working tree through a replace
# that lasts for the tidy alone.
LIBRARY         := github.com/gpucrypto/gpucrypto
LIBRARY_VERSION  = $(shell awk '$$1 == "$(LIBRARY)" { print $$2 }' $(CLI)/go.mod)
tidy:
	$(GO) mod tidy
	@if GOWORK=off $(GOCLI) mod download $(LIBRARY)@$(LIBRARY_VERSION) >/dev/null 2>&1; then \
		echo "GOWORK=off $(GOCLI) mod tidy"; GOWORK=off $(GOCLI) mod tidy; \
	else \
		echo "tidy: $(LIBRARY)@$(LIBRARY_VERSION) is not published: $(CLI) is tidied against this working tree"; \
		$(GOCLI) mod edit -replace=$(LIBRARY)@$(LIBRARY_VERSION)=../.. && \
		GOWORK=off $(GOCLI) mod tidy; status=$$?; \
		$(GOCLI) mod edit -dropreplace=$(LIBRARY)@$(LIBRARY_VERSION); exit $$status; \
	fi

clean:
	rm -rf bin bundle
