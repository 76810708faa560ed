#!/usr/bin/env bash
# Lists the packages `make test-race` runs: every package whose tests do not
# link kube-apiserver (k8s.io/kubernetes/pkg/controlplane). Those start an
# in-process control plane per test and would take CI's whole budget under
# the race detector; the allocator, inventory, plugin and the rest link
# only kube-scheduler and run fast enough.
set -euo pipefail
cd "$(dirname "$0")/.."
go list -test -f '{{.ImportPath}} {{join .Deps " "}}' ./... |
  awk '{
    pkg = $1; sub(/\.test$/, "", pkg); sub(/_test$/, "", pkg)
    if (!(pkg in seen)) { seen[pkg] = 1; order[++n] = pkg }
    for (i = 2; i <= NF; i++) if ($i == "k8s.io/kubernetes/pkg/controlplane") heavy[pkg] = 1
  }
  END { for (i = 1; i <= n; i++) if (!(order[i] in heavy)) print order[i] }'
