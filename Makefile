# ARTT: heterogeneity-aware autoscaling and traffic allocation for Kubernetes.
# `make test` runs every test; .ci/run installs the real components first.

GO        ?= go
BIN       ?= bin
PROTOC    ?= protoc
GOBIN_DIR := $(shell $(GO) env GOPATH)/bin

# Every build, vet and test here uses the flags of the images and of the real
# components' builds (static, -trimpath), so that the build cache compiles
# each dependency tree (KEDA's and kube-scheduler's among them) once for all.
# A plain `go test` outside make uses a cache of its own; `go env -w
# CGO_ENABLED=0 GOFLAGS=-trimpath` makes it share this one.
export CGO_ENABLED := 0
export GOFLAGS := -trimpath $(GOFLAGS)

# go test vets with a subset of go vet's analyzers, and the go command caches
# vet's facts per set of analyzers: a test after `go vet` of the same
# packages would vet every dependency a second time. Each target here vets a
# module with go vet's full set before testing it, so its tests do not vet.
VETTED := -vet=off

.PHONY: all build check demo results e2e test-mesh test-live live images test test-modules test-chart test-unit test-keda test-scheduler test-images vet fmt-check bench bench-scaler bench-fleet fuzz soak proto clean

all: build

build:
	$(GO) build -o $(BIN)/ ./cmd/...

## demo: ARTT and the baselines on an emulated cluster, no cluster needed (report and plots in out/demo)
demo:
	$(GO) run ./cmd/artt-lab run --out out demo

## results: every shipped scenario, and docs/results.md's table of results regenerated from them.
## TRACE_DIR holding nasdaq100_nq_futures_1min.csv adds artt-hpa-nasdaq (the trace is not shipped).
RESULTS := demo heart-pairwise heart-dag lata-chain-a lata-chain-b larp-dag-a larp-dag-b larp-bookinfo-a larp-bookinfo-b node-degradation node-contention node-quota mesh-20 artt-hpa-nasa nasa-unbound flash-crowd flash-crowd-behavior slow-ramp market-sessions market-sessions-history nasa-calendar
results:
	$(GO) run ./cmd/artt-lab run --quiet --out out/results --summary docs/results.md \
		$(if $(TRACE_DIR),--trace-dir $(TRACE_DIR)) $(RESULTS) $(if $(TRACE_DIR),artt-hpa-nasdaq)

## e2e: artt-scaler through the real KEDA operator, metrics adapter and HPA controller (test/e2e), then test-mesh;
## builds kube-apiserver, etcd, kube-controller-manager, kubectl and KEDA from the Go module proxy (cached)
e2e:
	KUBEBUILDER_ASSETS="$$(hack/build-test-binaries.sh | tail -n 1)" \
	ARTT_E2E_ASSETS="$$(hack/build-e2e-binaries.sh | tail -n 1)" \
	ARTT_REQUIRE_COMPONENTS=1 sh -c '$(GO) vet ./test/e2e && $(GO) test $(VETTED) -count=1 -v -timeout 20m ./test/e2e'
	$(MAKE) test-mesh
	$(MAKE) test-live

## test-mesh: what a sidecar receives from a real istiod for artt-traffic's rules (nested module test/mesh;
## istiod built from the Go module proxy by hack/build-istiod.sh and cached by version: about 13 minutes cold)
test-mesh:
	cd test/mesh && $(GO) vet ./... && \
	KUBEBUILDER_ASSETS="$$(../../hack/build-test-binaries.sh | tail -n 1)" \
	ARTT_ISTIOD="$$(../../hack/build-istiod.sh | tail -n 1)" \
	ARTT_REQUIRE_COMPONENTS=1 $(GO) test $(VETTED) -count=1 -v -timeout 10m ./...

## live-env: the components the live loop runs, built and cached (as make e2e builds them), as environment
LIVE_ENV = KUBEBUILDER_ASSETS="$$(hack/build-test-binaries.sh | tail -n 1)" \
	ARTT_ISTIOD="$$(hack/build-istiod.sh | tail -n 1)" \
	ARTT_E2E_ASSETS="$$(hack/build-e2e-binaries.sh | tail -n 1)"

## test-live: the live loop's short checks (nested module loadtest/live, about ten minutes): real istiod, gRPC's
## xDS balancers and backends under cgroup CPU quotas in a network namespace of its own, and KEDA scaling them on
## artt-scaler's answers after a step; needs root
test-live:
	cd loadtest/live && $(GO) vet ./...
	hack/install-components.sh
	$(LIVE_ENV) ARTT_REQUIRE_COMPONENTS=1 sh -c 'cd loadtest/live && $(GO) test $(VETTED) -count=1 -v -timeout 20m ./...'

## live: the live scenarios on real parts, each beside the lab's prediction (docs/live.md regenerated, reports in
## out/live; about 130 minutes); needs root
LIVE_SCENARIOS ?= live-demo live-lata-chain live-lata-chain-16 live-step live-ramp live-nasa live-sessions live-degradation
live:
	cd loadtest/live && $(GO) build -o ../../$(BIN)/artt-live ./cmd/artt-live
	hack/install-components.sh
	for s in $(LIVE_SCENARIOS); do $(LIVE_ENV) $(BIN)/artt-live run --out out/live --summary docs/live-results.md $$s || exit 1; done

## images: OCI layouts and tarballs of artt-scaler and artt-traffic in out/images, no Docker engine needed
VERSION ?= v0.1.0
images:
	cd deploy/images && $(GO) run . --source ../.. --out ../../out/images --version $(VERSION)

## test-images: build both images and check what a cluster relies on
test-images:
	cd deploy/images && $(GO) vet ./... && $(GO) test $(VETTED) -count=1 ./...

## check: the fast lane, to run before each commit: vet, gofmt and the main module's tests that need no real
## component (no root, no apt, nothing built beyond Go modules; about a minute warm). make test is the complete one.
check: vet fmt-check test-queries
	ARTT_SKIP_COMPONENTS=1 KUBEBUILDER_ASSETS= ARTT_REQUIRE_COMPONENTS= $(GO) test $(VETTED) -short -count=1 ./...

## test: every test of every module, none skipped: it first installs Prometheus (apt-get) and builds kube-apiserver
## and etcd from the Go module proxy (cached by version in ~/.cache/artt: about eight minutes the first time)
test:
	hack/install-components.sh
	KUBEBUILDER_ASSETS="$$(hack/build-test-binaries.sh | tail -n 1)" ARTT_REQUIRE_COMPONENTS=1 $(MAKE) test-modules

## test-modules: what make test runs once the components are there (without them, tests that need them skip)
test-modules: vet fmt-check test-unit test-queries test-keda test-scheduler test-images test-chart

test-unit: vet
	$(GO) test $(VETTED) -count=1 ./...

## test-queries: every query artt-scaler renders parsed by Prometheus' own parser (nested module
## scaler/querycheck, which keeps Prometheus' module out of the scaler's build)
test-queries:
	cd scaler/querycheck && $(GO) vet ./... && $(GO) test $(VETTED) -count=1 ./...

## test-chart: charts/artt rendered with Helm's Go SDK against the kustomize manifests, and installed,
## upgraded and uninstalled on envtest's kube-apiserver (nested module charts/charttest)
test-chart:
	cd charts/charttest && $(GO) vet ./... && $(GO) test $(VETTED) -count=1 ./...

## test-keda: artt-scaler against KEDA's own client (nested module, outside the workspace: it keeps KEDA's own
## versions, so it shares its build with KEDA's binaries; slow cold build)
test-keda:
	cd scaler/kedatest && GOWORK=off $(GO) vet ./... && GOWORK=off $(GO) test $(VETTED) -count=1 ./...

## test-scheduler: artt-scheduler (its own module: kube-scheduler and ARTT's plugin) built and run against
## envtest's kube-apiserver
test-scheduler:
	cd scheduler && $(GO) vet ./... && $(GO) test $(VETTED) -count=1 ./...

vet:
	$(GO) vet ./...
	cd internal/promtest && $(GO) vet ./...
	cd deploy/images && $(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '\.pb\.go$$')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

## bench: the benchmarks quoted in docs/
bench:
	mkdir -p out
	$(GO) test -run '^$$' -bench . -benchmem ./threshold ./scaler ./scaler/metric ./traffic/flow ./traffic/ntam ./traffic/allocate ./loadtest/emulator > out/bench.txt
	$(GO) run ./hack/benchtable < out/bench.txt
	@echo "(raw output: out/bench.txt)"

## fuzz: every fuzz target for a fixed number of executions (CI runs it; about ten seconds each on a
## 2-core machine); new inputs that fail are written under the package's testdata/fuzz and then replayed by
## every go test. A count, not a duration: Go 1.26's coordinator can report a bare "context deadline
## exceeded" when a duration ends while a starved worker is mid-input (go.dev/issue/75804, fixed in 1.27).
## FUZZ_TIME=30s (or 1000x) sets one budget for every target.
FUZZ_TIME ?=
FUZZ_TARGETS := threshold:FuzzReplay:10000x traffic/flow:FuzzMinCostFlow:200000x traffic/flow:FuzzTransport:70000x traffic/ntam:FuzzKeptUpTo:30000x \
	internal/promvector:FuzzDecode:70000x \
	traffic/istio:FuzzRoundToPercent:200000x traffic/allocate:FuzzAllocate:20000x traffic/allocate:FuzzAllocateOverCycles:4000x \
	scaler:FuzzParseMetadata:20000x scaler:FuzzEvaluate:20000x scaler:FuzzPrometheusResponse:30000x \
	scaler/querycheck:FuzzRenderedQueriesParse:20000x traffic/allocate:FuzzResume:10000x \
	loadtest/scenario:FuzzParse:200000x loadtest:FuzzCheck:10000x placement/larp:FuzzGreedy:200000x threshold:FuzzCalendar:20000x
fuzz:
	@for t in $(FUZZ_TARGETS); do pkg=$${t%%:*}; rest=$${t#*:}; fn=$${rest%%:*}; budget=$${rest#*:}; \
		if [ -n "$(FUZZ_TIME)" ]; then budget=$(FUZZ_TIME); fi; echo "fuzz $$fn in ./$$pkg for $$budget"; \
		(cd ./$$pkg && $(GO) test $(VETTED) -run '^$$' -fuzz "^$$fn$$" -fuzztime $$budget .) || exit 1; done

## soak: artt-scaler polled for 1,000 ScaledObjects for SOAK (30m), the heap sampled; then artt-traffic for SOAK on
## envtest with Prometheus, an application created and one deleted every minute, the leader changed every 5 minutes;
## prints the slopes of heap and goroutines and each new leader's largest share step
SOAK ?= 30m
soak:
	ARTT_SOAK=$(SOAK) $(GO) test -count=1 -run TestSoak -v -timeout 2h ./scaler
	KUBEBUILDER_ASSETS="$$(hack/build-test-binaries.sh | tail -n 1)" ARTT_SOAK=$(SOAK) \
		$(GO) test -count=1 -run TestTrafficSoak -v -timeout 2h ./traffic/controller

## bench-scaler: artt-scaler polling 1,000 ScaledObjects against a real Prometheus holding 90 minutes of their
## history (promtool backfill), whole ranges beside reused ones: queries, GetMetrics P50/P99, CPU, heap per round
bench-scaler:
	ARTT_SCALER_FLEET=1 ARTT_REQUIRE_COMPONENTS=1 $(GO) test -count=1 -run TestScalerFleet -v -timeout 30m ./scaler

## bench-fleet: artt-traffic at 10,000 pods on 500 nodes on envtest's kube-apiserver, with its own Prometheus;
## kwok runs the nodes and artt-scheduler places the pods (builds the fleet through the API: several minutes)
bench-fleet:
	KUBEBUILDER_ASSETS="$$(hack/build-test-binaries.sh | tail -n 1)" \
	ARTT_E2E_ASSETS="$$(hack/build-e2e-binaries.sh | tail -n 1)" ARTT_FLEET=1 ARTT_REQUIRE_COMPONENTS=1 \
		$(GO) test -count=1 -run TestFleetScale -v -timeout 45m ./traffic/controller

## proto: regenerate the KEDA external scaler stubs from proto/
proto:
	$(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
	$(GO) install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
	cd proto/externalscaler && PATH=$(GOBIN_DIR):$$PATH $(PROTOC) --go_out=. --go_opt=paths=source_relative \
		--go-grpc_out=. --go-grpc_opt=paths=source_relative externalscaler.proto

clean:
	rm -rf $(BIN) out
