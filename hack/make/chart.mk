# The Helm chart, charts/dra-scheduler (included by the Makefile).
#
## chart: package the chart into CHART_DIST with VERSION as its appVersion
## (the image tag it runs by default) and CHART_VERSION as its version:
## VERSION without its v when that is SemVer (a release tag, v0.2.0 ->
## 0.2.0), else Chart.yaml's version with VERSION as pre-release
## (0.1.0-abf498f-dirty). chart-push: push that package to CHART_REGISTRY
## (after `go tool helm registry login ghcr.io`); users then
## `helm install dra-scheduler oci://ghcr.io/dra-scheduler/charts/dra-scheduler --version <CHART_VERSION>`.
## verify-chart: helm lint --strict with the defaults, the in-tree mode and
## monitoring (make verify runs it; go test ./charts compares the
## rendering with manifests/).
CHART_DIR          := charts/dra-scheduler
CHART_DIST         ?= dist
CHART_REGISTRY     ?= oci://ghcr.io/dra-scheduler/charts
CHART_BASE_VERSION := $(shell sed -n 's/^version: *//p' $(CHART_DIR)/Chart.yaml)
CHART_VERSION      ?= $(shell v=$$(echo '$(VERSION)' | sed 's/^v//'); \
	if echo "$$v" | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.+-]+)?$$'; then echo "$$v"; \
	else echo "$(CHART_BASE_VERSION)-$(VERSION)"; fi)
HELM               ?= $(GO) tool helm
# The release namespace the README installs into: the chart refuses to
# take over default.
CHART_LINT         := $(HELM) lint --strict --namespace dra-scheduler

.PHONY: chart chart-push verify-chart

chart:
	mkdir -p $(CHART_DIST)
	$(HELM) package $(CHART_DIR) --app-version $(VERSION) --version $(CHART_VERSION) --destination $(CHART_DIST)

chart-push: chart
	$(HELM) push $(CHART_DIST)/dra-scheduler-$(CHART_VERSION).tgz $(CHART_REGISTRY)

verify-chart:
	$(CHART_LINT) $(CHART_DIR)
	$(CHART_LINT) --set inTree.enabled=true $(CHART_DIR)
	$(CHART_LINT) --set monitoring.enabled=true $(CHART_DIR)
	$(CHART_LINT) --set inTree.enabled=true,monitoring.enabled=true $(CHART_DIR)
