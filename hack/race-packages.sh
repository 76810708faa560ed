#!/usr/bin/env bash
# Lists the packages `make test-race` runs: every package whose tests link
# neither kube-apiserver (k8s.io/kubernetes/pkg/controlplane) nor
# kube-scheduler's command (k8s.io/kubernetes/cmd/kube-scheduler/app).
# - kube-apiserver: those tests start an in-process control plane per test
#   and would take CI's whole budget under the race detector.
# - kube-scheduler's command (cmd/dra-scheduler, pkg/schedulerapp): their
#   tests parse flags and configuration, with no goroutines of ours, and
#   instrumenting the whole command's dependencies would add minutes to a
#   cold race build.
# The allocator, inventory, CEL matcher, bit sets, taint rules and the
# plugin (with its framework harness) are all in.
set -euo pipefail
cd "$(dirname "$0")/.."
go list -test -f '{{.ImportPath}} {{join .Deps " "}}' ./... |
  awk '{
    pkg = $1; sub(/\.test$/, "", pkg); sub(/_test$/, "", pkg)
    if (!(pkg in seen)) { seen[pkg] = 1; order[++n] = pkg }
    for (i = 2; i <= NF; i++) if ($i == "k8s.io/kubernetes/pkg/controlplane" || $i == "k8s.io/kubernetes/cmd/kube-scheduler/app") heavy[pkg] = 1
  }
  END { for (i = 1; i <= n; i++) if (!(order[i] in heavy)) print order[i] }'
