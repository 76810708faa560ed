# Release artifacts (included by the Makefile; docs/release.md says how to
# cut and publish a release).
#
## release: VERSION=vX.Y.Z (required: a v and SemVer, the release's git
## tag) writes DIST (dist/), emptied first: kubectl-dra for
## KUBECTL_DRA_PLATFORMS as kubectl-dra_<V>_<os>_<arch>.tar.gz (.zip on
## Windows) holding kubectl-dra(.exe), LICENSE, NOTICE, its SBOM
## kubectl-dra.cdx.json and third_party_licenses/; dra-scheduler and
## dra-bench for SERVER_PLATFORMS as bare binaries <program>_<V>_<os>_<arch>
## with <program>_<V>_<os>_<arch>.licenses.tar.gz (LICENSE, NOTICE,
## third_party_licenses/) beside each; every binary's CycloneDX SBOM as
## <program>_<V>_<os>_<arch>.cdx.json; the chart package (make chart, when
## hack/make/chart.mk exists); the krew manifest dra.yaml (downloads from
## the GitHub release VERSION); SHA256SUMS over all of them; then
## verify-release. Every binary is built with CGO_ENABLED=0 and the
## Makefile's LDFLAGS (version, commit, Kubernetes), and the ones that run
## here are smoke-tested. Its SBOM comes from its own build information
## (cyclonedx-gomod through go run, release.CycloneDXGomod); a module whose
## license the policy refuses (pkg/release/licenses.go: copyleft, unknown
## or none) stops the release, named. It refuses a tree with uncommitted
## or untracked files (ALLOW_DIRTY=1 for a try-out). Slow: each platform
## links Kubernetes' packages (dra-scheduler and dra-bench ~5-7 min each
## per platform on 2 cores with a cold cache; an SBOM and its license
## texts ~20 s).
## verify-release: DIST as a downloader would check it: SHA256SUMS matches
## every artifact and lists them all (also with sha256sum -c), dra.yaml
## points at each kubectl-dra archive with its sha256, bin and files,
## every binary's SBOM describes it and passes the license policy, and its
## archive or licenses archive holds LICENSE, NOTICE and the license texts
## of every module of the SBOM (hack/release verify), and krew's own
## validator accepts dra.yaml (sigs.k8s.io/krew/cmd/validate-krew-manifest,
## through the Go module proxy, not installing: the archives are not at
## their URLs until the release is published).
## sbom: SBOM_BINARY's (bin/dra-scheduler: make build first) SBOM and its
## modules' license texts, checked by the policy, with LICENSE and NOTICE
## into SBOM_OUT: what the container image ships in /licenses (Dockerfile).
DIST                  ?= dist
RELEASE_OUT           := _output/release
RELEASE_TOOL          := $(RELEASE_OUT)/release-tool
RELEASE_BUILD         := $(RELEASE_OUT)/build
KUBECTL_DRA_PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
SERVER_PLATFORMS      ?= linux/amd64 linux/arm64
SERVER_PROGRAMS       ?= dra-scheduler dra-bench
RELEASE_FILES         := LICENSE NOTICE
KREW_VALIDATOR        := sigs.k8s.io/krew/cmd/validate-krew-manifest@v0.4.3
# Archive entries are dated at the commit, so that the same binaries give
# the same archives.
SOURCE_DATE_EPOCH     ?= $(shell git log -1 --format=%ct 2>/dev/null || echo 946684800)
RELEASE_HOST          := $(shell $(GO) env GOOS)/$(shell $(GO) env GOARCH)

# release_os, release_arch, release_exe PLATFORM: its parts, and .exe on
# Windows. release_bin PLATFORM PROGRAM: where PROGRAM is built for it.
release_os   = $(word 1,$(subst /, ,$(1)))
release_arch = $(word 2,$(subst /, ,$(1)))
release_exe  = $(if $(filter windows,$(call release_os,$(1))),.exe)
release_bin  = $(RELEASE_BUILD)/$(call release_os,$(1))_$(call release_arch,$(1))/$(2)$(call release_exe,$(1))

# release_go_build PLATFORM PROGRAM: one recipe line building it.
define release_go_build
	CGO_ENABLED=0 GOOS=$(call release_os,$(1)) GOARCH=$(call release_arch,$(1)) $(GO) build -ldflags "$(LDFLAGS)" -o $(call release_bin,$(1),$(2)) ./cmd/$(2)

endef

# release_sbom_file, release_texts PLATFORM PROGRAM: where its SBOM and
# the directory of its modules' license texts are written.
release_sbom_file = $(RELEASE_BUILD)/$(call release_os,$(1))_$(call release_arch,$(1))/$(2).cdx.json
release_texts     = $(RELEASE_BUILD)/$(call release_os,$(1))_$(call release_arch,$(1))/$(2).licenses/third_party_licenses

# release_sbom PLATFORM PROGRAM: recipe lines writing its SBOM (with the
# policy's corrections), checking it and collecting its license texts.
define release_sbom
	$(RELEASE_TOOL) sbom -go $(GO) -version $(VERSION) -out $(call release_sbom_file,$(1),$(2)) $(call release_bin,$(1),$(2))
	$(RELEASE_TOOL) licenses -go $(GO) -sbom $(call release_sbom_file,$(1),$(2)) -out $(call release_texts,$(1),$(2))

endef

# release_archive PLATFORM: kubectl-dra built and packed for it, with
# LICENSE, NOTICE, its SBOM and license texts.
define release_archive
$(call release_go_build,$(1),kubectl-dra)
$(call release_sbom,$(1),kubectl-dra)
	$(RELEASE_TOOL) archive -dir $(DIST) -version $(VERSION) -platform $(1) -mtime $(SOURCE_DATE_EPOCH) -sbom $(call release_sbom_file,$(1),kubectl-dra) -licenses $(call release_texts,$(1),kubectl-dra) $(call release_bin,$(1),kubectl-dra) $(RELEASE_FILES)

endef

# release_binary PLATFORM PROGRAM: PROGRAM built for it and copied into
# DIST with its SBOM, and its licenses archive.
define release_binary
$(call release_go_build,$(1),$(2))
$(call release_sbom,$(1),$(2))
	$(RELEASE_TOOL) binary -dir $(DIST) -version $(VERSION) -platform $(1) -mtime $(SOURCE_DATE_EPOCH) -sbom $(call release_sbom_file,$(1),$(2)) -licenses $(call release_texts,$(1),$(2)) $(call release_bin,$(1),$(2)) $(RELEASE_FILES)

endef

# The programs built for this machine, whose --version must name VERSION
# and the commit; release_smoke: hack/smoke.sh can run on them.
release_host_programs := $(if $(filter $(RELEASE_HOST),$(KUBECTL_DRA_PLATFORMS)),kubectl-dra) $(if $(filter $(RELEASE_HOST),$(SERVER_PLATFORMS)),$(SERVER_PROGRAMS))
release_smoke         := $(and $(filter kubectl-dra,$(release_host_programs)),$(filter dra-scheduler,$(release_host_programs)))
release_space         := $(subst ,, )

# release_version_check PROGRAM: one recipe line checking its --version.
define release_version_check
	$(call release_bin,$(RELEASE_HOST),$(1)) --version | grep -F '$(1) $(VERSION) (commit '

endef

.PHONY: release release-tool verify-release sbom

release-tool:
	$(GO) build -o $(RELEASE_TOOL) ./hack/release

release: release-tool
	@$(RELEASE_TOOL) check-version '$(VERSION)' || { echo 'make release needs VERSION=vX.Y.Z, the release tag (got "$(VERSION)")' >&2; exit 2; }
	@if [[ -z "$(ALLOW_DIRTY)" && -n "$$(git status --porcelain 2>/dev/null)" ]]; then \
	  echo 'the tree has changes git status lists: the binaries would not be the commit they name; release a clean checkout (or ALLOW_DIRTY=1 for a try-out)' >&2; exit 2; fi
	rm -rf $(DIST) $(RELEASE_BUILD)
	mkdir -p $(DIST)
	$(foreach p,$(KUBECTL_DRA_PLATFORMS),$(call release_archive,$(p)))
	$(foreach prog,$(SERVER_PROGRAMS),$(foreach p,$(SERVER_PLATFORMS),$(call release_binary,$(p),$(prog))))
	$(if $(release_smoke),hack/smoke.sh $(call release_bin,$(RELEASE_HOST),dra-scheduler) $(KUBE_VERSION) $(call release_bin,$(RELEASE_HOST),kubectl-dra))
	$(foreach prog,$(release_host_programs),$(call release_version_check,$(prog)))
	$(if $(wildcard hack/make/chart.mk),$(MAKE) --no-print-directory chart CHART_DIST=$(DIST))
	$(RELEASE_TOOL) krew -dir $(DIST) -version $(VERSION) -platforms '$(KUBECTL_DRA_PLATFORMS)'
	$(RELEASE_TOOL) checksums -dir $(DIST)
	$(MAKE) --no-print-directory verify-release
	ls -l $(DIST)

verify-release: release-tool
	$(RELEASE_TOOL) verify -dir $(DIST) -version '$(VERSION)' -platforms '$(KUBECTL_DRA_PLATFORMS)' $(if $(strip $(SERVER_PROGRAMS)),-binaries '$(subst $(release_space),$(comma),$(strip $(SERVER_PROGRAMS)))' -binary-platforms '$(SERVER_PLATFORMS)')
	$(if $(wildcard hack/make/chart.mk),test -f $(DIST)/dra-scheduler-$(CHART_VERSION).tgz || { echo "$(DIST) lacks the chart package dra-scheduler-$(CHART_VERSION).tgz" >&2; exit 1; })
	if command -v sha256sum >/dev/null; then cd $(DIST) && sha256sum --check --quiet SHA256SUMS; fi
	$(GO) run $(KREW_VALIDATOR) -manifest $(abspath $(DIST))/dra.yaml -skip-install

SBOM_BINARY ?= $(BIN)/dra-scheduler
SBOM_OUT    ?= _output/sbom
sbom: release-tool
	rm -rf $(SBOM_OUT)
	mkdir -p $(SBOM_OUT)
	$(RELEASE_TOOL) sbom -go $(GO) -version $(VERSION) -out $(SBOM_OUT)/$(notdir $(SBOM_BINARY)).cdx.json $(SBOM_BINARY)
	$(RELEASE_TOOL) licenses -go $(GO) -sbom $(SBOM_OUT)/$(notdir $(SBOM_BINARY)).cdx.json -out $(SBOM_OUT)/third_party_licenses
	cp $(RELEASE_FILES) $(SBOM_OUT)/
