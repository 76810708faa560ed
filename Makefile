# dra-scheduler — see README.md.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -eu -o pipefail -c

GO            ?= go
BIN           := bin
comma         := ,
MODULE        := github.com/dra-scheduler/dra-scheduler
VERSION       ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
KUBE_VERSION  := $(shell $(GO) list -m -f '{{.Version}}' k8s.io/kubernetes)
KUBE_MINOR    := $(word 2,$(subst ., ,$(KUBE_VERSION)))
BUILD_DATE    := $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
# The embedded Kubernetes version must stay Kubernetes': the scheduler
# derives its effective version (and feature-gate defaults) from it.
LDFLAGS := -X $(MODULE)/pkg/version.version=$(VERSION) \
	-X $(MODULE)/pkg/version.commit=$(shell git rev-parse --short HEAD 2>/dev/null || echo unknown) \
	-X k8s.io/component-base/version.gitVersion=$(KUBE_VERSION) \
	-X k8s.io/component-base/version.gitMajor=1 \
	-X k8s.io/component-base/version.gitMinor=$(KUBE_MINOR) \
	-X k8s.io/component-base/version.gitTreeState=clean \
	-X k8s.io/component-base/version.buildDate=$(BUILD_DATE)
# Test timeout per package; the integration package starts a control plane
# per test.
TEST_TIMEOUT  ?= 20m

.PHONY: all build test test-race test-race-core test-unit test-integration test-chaos test-preemption-retry test-perf-smoke smoke verify clean

all: build

include $(wildcard hack/make/*.mk)

## build: bin/dra-scheduler and bin/kubectl-dra (the kubectl plugin: put
## it on PATH for `kubectl dra`)
build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/dra-scheduler ./cmd/dra-scheduler
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/kubectl-dra ./cmd/kubectl-dra

## test: unit and integration tests (real kube-apiserver and etcd), the
## scheduler_perf smoke test, then a smoke test of the built binary. This is
## what CI runs.
test: build $(BIN)/etcd
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) $$($(GO) list ./... | grep -v /test/perf)
	$(MAKE) test-perf-smoke
	$(MAKE) smoke

## bin/etcd: the etcd server k8s.io/kubernetes pins (go.mod); scheduler_perf
## (test/perf) starts one from PATH for every workload.
$(BIN)/etcd: go.mod go.sum
	$(GO) build -o $@ go.etcd.io/etcd/server/v3

## test-perf-smoke: upstream's smallest DRA scheduler_perf workloads (the
## "fast" ones of the main dra file, of extendedresource, listattributes,
## compatibilitygroups and workloadresourceclaims; every topic's:
## PERF_SMOKE_RUN='Test.*/.*/.*/.*/fast') with the in-tree plugin and with
## DRAAllocator, plus test/perf's own unit tests. Kept small: every workload
## starts its own etcd and kube-apiserver.
PERF_SMOKE_RUN ?= Test.*/^(dra|dra_extendedresource|dra_listattributes|dra_compatibilitygroups|dra_workloadresourceclaims)$$/.*/.*/fast
test-perf-smoke: $(BIN)/etcd
	PATH="$(CURDIR)/$(BIN):$$PATH" $(GO) test -count=1 -timeout $(TEST_TIMEOUT) -run '$(PERF_SMOKE_RUN)' ./test/perf

## smoke: the built binaries answer --version and --help.
smoke:
	hack/smoke.sh $(BIN)/dra-scheduler $(KUBE_VERSION) $(BIN)/kubectl-dra

## test-race: the race detector over RACE_PKGS, by default every package
## whose tests start no kube-apiserver and do not link kube-scheduler's
## command (hack/race-packages.sh: the allocator, inventory, CEL matcher,
## bit sets, the plugin and its harness, ...; ~18 min with a cold build
## cache on 2 cores, mostly instrumenting the scheduler framework).
## test-race-core: the same over the allocator's own packages, whose
## lock-free and copy-on-write structures the race detector must see
## (~7 min cold); CI runs it next to make test.
RACE_PKGS ?= $$(hack/race-packages.sh)
RACE_CORE := ./pkg/allocator ./pkg/inventory ./pkg/celmatch ./pkg/bitset ./pkg/cowbits ./pkg/taintrules ./pkg/allocationcheck
test-race:
	$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) $(RACE_PKGS)

test-race-core:
	$(MAKE) test-race RACE_PKGS="$(RACE_CORE)"

## test-unit: everything but the integration package (fast).
test-unit:
	$(GO) test -count=1 $$($(GO) list ./... | grep -v -e /test/integration -e /test/perf)

## test-integration: only the integration package.
test-integration:
	$(GO) test -count=1 -timeout $(TEST_TIMEOUT) -v ./test/integration

## test-chaos: the chaos scenarios of issue 41 (test/integration/chaos_*_test.go,
## build tag chaos) against a real kube-apiserver: informers relisting while
## etcd compacts and connections drop, pools replaced by new generations,
## claims released by the resourceclaim controller at full occupancy, the
## scheduler killed mid-burst and a leader handover, a start on 10,000
## allocated claims. Each ends with the plugin's consistency check finding
## nothing, no device held twice and every pod that can run bound. About 4
## minutes a round on 2 cores (CHAOS_COUNT rounds); not part of make test.
CHAOS_COUNT   ?= 1
CHAOS_RUN     ?= ^TestChaos
CHAOS_TIMEOUT ?= 60m
test-chaos:
	$(GO) test -tags chaos -count=$(CHAOS_COUNT) -timeout $(CHAOS_TIMEOUT) -v -run '$(CHAOS_RUN)' ./test/integration

## test-preemption-retry: issue 53's matrix in full. Each of four setups
## (the shipped plugin order; with async API calls; DRAAllocator enabled
## alone; alone, in its own process) runs every pair of claim kinds for
## victims and preemptor (from a template, pre-created, a DRA-backed
## extended resource) with every way the victim leaves: 45 cases each, 180
## a round; at the 5-6 s a case make test's 9 per setup take, about 18
## minutes on 2 cores.
RETRY_COUNT ?= 1
test-preemption-retry: $(BIN)/etcd
	DRA_PREEMPTION_RETRY=all $(GO) test -count=$(RETRY_COUNT) -timeout 3h -v -run '^TestPreemptorRetriedWhileItsVictimLeaves$$' ./test/integration

## verify: gofmt, the license header on every Go file (hack/boilerplate.sh
## adds it), no tracked file over 1 MiB (hack/verify-file-sizes.sh: no
## built binary in history), no non-test Go file over 450 lines
## (hack/verify-go-file-lines.sh), pkg/allocator's exported identifiers
## within hack/apisurface/allocator.limit (raise it, with the reason, in
## the commit that adds API), relative links in Markdown files resolve
## (hack/mdlinks), go vet, generated code current (hack/update-codegen.sh;
## run it after changing the plugin args' types), and go.mod/go.sum tidy.
verify:
	@out="$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))"; \
	  if [[ -n "$$out" ]]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	hack/boilerplate.sh --verify
	hack/verify-file-sizes.sh
	hack/verify-go-file-lines.sh
	$(GO) run ./hack/apisurface pkg/allocator hack/apisurface/allocator.limit
	$(GO) run ./hack/mdlinks
	$(GO) vet ./...
	hack/update-codegen.sh --verify
	@cp go.mod /tmp/dra-go.mod.bak; cp go.sum /tmp/dra-go.sum.bak; \
	  $(GO) mod tidy; \
	  if ! diff -q go.mod /tmp/dra-go.mod.bak >/dev/null || ! diff -q go.sum /tmp/dra-go.sum.bak >/dev/null; then \
	    echo "go mod tidy changed go.mod/go.sum; commit the result"; git --no-pager diff -- go.mod go.sum || true; exit 1; fi
	$(MAKE) verify-chart

clean:
	rm -rf $(BIN)
	$(GO) clean -testcache

## run: a throw-away cluster in one process with dra-scheduler, sample GPU
## nodes and workloads; prints where pods landed, then stays up until
## Ctrl-C (RUN_FLAGS=-exit to stop after the report).
RUN_FLAGS ?=
.PHONY: run
run:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/dra-demo ./cmd/dra-demo
	$(BIN)/dra-demo $(RUN_FLAGS)

## bench: bin/dra-bench, then every allocator scenario at BENCH_SIZES nodes,
## ours vs upstream interleaved: table on stdout, JSON and an SVG chart in
## BENCH_OUT (see cmd/dra-bench/README.md).
BENCH_SIZES    ?= 100,1000
BENCH_DURATION ?= 1s
BENCH_OUT      ?= _output/bench
BENCH_FLAGS    ?=
.PHONY: bench
bench:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/dra-bench ./cmd/dra-bench
	mkdir -p $(BENCH_OUT)
	$(BIN)/dra-bench allocator --nodes $(BENCH_SIZES) --duration $(BENCH_DURATION) \
	  --json-out $(BENCH_OUT)/allocator.json --chart $(BENCH_OUT)/allocator.svg $(BENCH_FLAGS) \
	  | tee $(BENCH_OUT)/allocator.txt

## soak: dra-scheduler under churn for SOAK_DURATION on an in-process
## control plane (pods from rotating claim templates created and deleted,
## ResourceSlices republished, a DeviceTaintRule added and removed); fails
## on a device held by two claims, a claim still allocated after every pod
## is gone, a difference the plugin's consistency check (every 10 s) finds
## between its state and the API, or heap or goroutines growing after
## warm-up (cmd/dra-bench/README.md). Report and samples in SOAK_OUT.
SOAK_DURATION ?= 10m
SOAK_OUT      ?= _output/soak
SOAK_FLAGS    ?=
.PHONY: soak
soak:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/dra-bench ./cmd/dra-bench
	mkdir -p $(SOAK_OUT)
	$(BIN)/dra-bench soak --duration $(SOAK_DURATION) --json-out $(SOAK_OUT)/soak.json $(SOAK_FLAGS) | tee $(SOAK_OUT)/soak.txt

## image: the container image manifests/install/deployment.yaml runs, for
## this machine's platform (needs docker). image-multiarch: one image for
## PLATFORMS, pushed to IMAGE (needs docker buildx and a registry login).
## build-cross: the binary for each of PLATFORMS under bin/<os>-<arch>/, no
## docker needed. pin-images: the current digests of the Dockerfile's base
## image tags (needs crane), to update its FROM lines.
IMAGE     ?= ghcr.io/dra-scheduler/dra-scheduler:$(VERSION)
PLATFORMS ?= linux/amd64,linux/arm64
.PHONY: image image-multiarch build-cross pin-images
image:
	docker build --build-arg VERSION=$(VERSION) -t $(IMAGE) .

image-multiarch:
	docker buildx build --platform $(PLATFORMS) --build-arg VERSION=$(VERSION) -t $(IMAGE) --push .

build-cross:
	@for p in $(subst $(comma), ,$(PLATFORMS)); do \
		os=$${p%/*}; arch=$${p#*/}; \
		echo "$$os/$$arch -> $(BIN)/$$os-$$arch/dra-scheduler"; \
		CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/$$os-$$arch/dra-scheduler ./cmd/dra-scheduler || exit 1; \
	done

pin-images:
	@for ref in $$(sed -n 's/^FROM \(--platform=[^ ]* \)\{0,1\}\([^ @]*\)@.*/\2/p' Dockerfile); do \
		echo "$$ref@$$(crane digest $$ref)"; \
	done

## diff: the allocator's differential test against upstream over many more
## random cases than make test runs (DIFF_CASES from DIFF_SEED on).
DIFF_CASES ?= 20000
DIFF_SEED  ?= 1
.PHONY: diff fuzz bench-allocator
diff:
	DRA_DIFF_CASES=$(DIFF_CASES) DRA_DIFF_SEED=$(DIFF_SEED) $(GO) test -count=1 -timeout 2h -v -run 'TestDifferentialRandom' ./pkg/allocator

## fuzz: coverage-guided fuzzing of the allocator against upstream and the
## independent checker (FUZZ_TIME).
FUZZ_TIME ?= 10m
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzAllocator -fuzztime $(FUZZ_TIME) ./pkg/allocator

## bench-allocator: ours vs upstream per (pod, node) and per pod, on
## realistic inventories (BENCH_NODES cluster sizes, BENCH_SHAPES shapes, all
## if empty); benchstat-readable, BENCH_COUNT samples of each benchmark so
## that benchstat can tell a change from noise (save two runs, then
## `benchstat old.txt new.txt`).
BENCH_NODES ?= 100,5000
BENCH_TIME  ?= 1s
BENCH_SHAPES ?=
BENCH_COUNT ?= 6
bench-allocator:
	$(GO) test -run '^$$' -bench 'NodeCheck|PodTotal|InventoryMemory' -benchtime $(BENCH_TIME) -count $(BENCH_COUNT) -timeout 4h ./pkg/allocator -args -dra.nodes=$(BENCH_NODES) -dra.shapes=$(BENCH_SHAPES)

## perf: upstream's DRA scheduler_perf performance workloads
## (k8s.io/kubernetes test/integration/scheduler_perf/dra, label PERF_LABELS,
## benchmark names matching PERF_BENCH: the 500-node ones), in-tree
## DynamicResources and DRAAllocator side by side; prints a table at the end.
## DataItems JSON and the table go to PERF_OUT; per-workload logs of failed
## workloads to PERF_LOGS (empty: all logs inline, very long).
PERF_BENCH   ?= BenchmarkPerfScheduling/.*/.*/.*/500nodes
PERF_LABELS  ?= performance
PERF_OUT     ?= _output/perf
PERF_TIMEOUT ?= 6h
PERF_LOGS    ?= $(abspath $(PERF_OUT))/logs
PERF_FLAGS   ?=
.PHONY: perf
perf: $(BIN)/etcd
	mkdir -p $(PERF_OUT) $(PERF_LOGS)
	PATH="$(CURDIR)/$(BIN):$$PATH" $(if $(PERF_LOGS),ARTIFACTS="$(PERF_LOGS)") \
	  $(GO) test -count=1 -timeout $(PERF_TIMEOUT) -run '^$$' -bench '$(PERF_BENCH)' -benchtime 1x ./test/perf \
	  -args -perf-scheduling-label-filter=$(PERF_LABELS) -data-items-dir=$(abspath $(PERF_OUT)) $(PERF_FLAGS)
