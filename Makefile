# gpucrypto — build, test and benchmark.
#   make test        install OpenCL (PoCL) if no platform exists, vet, build without cgo, run every test
#   make bench       install OpenCL if needed, then run the CLI benchmark on the default device
#   make gpu-bundle  test binaries + CLI + run script in bundle/, to copy to a GPU machine
GO       ?= go
PKGS     := ./...
BUILDVCS := $(if $(wildcard .git),true,false)
SUDO     := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# the packages whose tests run kernels (the others need no GPU and stay out
# of the bundle, which must stay small enough to copy)
GPU_TEST_PKGS := ./cl ./arith ./ecdh ./rsa

.PHONY: all deps test bench build gpu-bundle generate clean

all: build

build:
	CGO_ENABLED=0 $(GO) build -buildvcs=$(BUILDVCS) -o bin/gpucrypto ./cmd/gpucrypto

# deps installs the OpenCL ICD loader and PoCL (an OpenCL CPU device) with
# apt-get, but only when no OpenCL platform with a device is found.
deps:
	@if CGO_ENABLED=0 $(GO) run ./cmd/gpucrypto devices >/dev/null 2>&1; then \
		echo "deps: an OpenCL platform is present; nothing to install"; \
	else \
		echo "deps: no OpenCL platform found; installing ocl-icd-libopencl1 and pocl-opencl-icd"; \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
		$(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ocl-icd-libopencl1 pocl-opencl-icd >/dev/null && \
		CGO_ENABLED=0 $(GO) run ./cmd/gpucrypto devices; \
	fi

test: deps
	$(GO) vet $(PKGS)
	CGO_ENABLED=0 $(GO) build $(PKGS)
	GPUCRYPTO_REQUIRE_DEVICE=1 $(GO) test -timeout 30m $(PKGS)
	@# the concurrent parts again under the race detector
	GPUCRYPTO_REQUIRE_DEVICE=1 $(GO) test -race -timeout 10m -run 'Server|Fallback|Flush|BackPressure|Errors|Concurrent|Signer|Blinding|Pipeline' ./batch ./ecdh ./cl ./rsa

bench: deps
	$(GO) run -buildvcs=$(BUILDVCS) ./cmd/gpucrypto bench

generate:
	$(GO) generate ./...

# gpu-bundle: everything a GPU machine without Go needs, in bundle/.
gpu-bundle:
	rm -rf bundle && mkdir -p bundle
	CGO_ENABLED=0 $(GO) build -buildvcs=$(BUILDVCS) -ldflags="-s -w" -o bundle/gpucrypto ./cmd/gpucrypto
	@for p in $(GPU_TEST_PKGS); do \
		n=$$(basename $$p); \
		CGO_ENABLED=0 $(GO) test -c -ldflags="-s -w" -o bundle/$$n.test $$p || exit 1; \
	done
	cp -r rsa/testdata bundle/testdata   # the rsa test keys, read from the working directory
	cp scripts/gpu-run.sh bundle/run.sh
	git rev-parse --short HEAD > bundle/COMMIT 2>/dev/null || echo unknown > bundle/COMMIT
	@ls -la bundle

clean:
	rm -rf bin bundle
