#!/usr/bin/env bash
# smoke.sh BINARY KUBE_VERSION PLUGIN: the built dra-scheduler answers
# --version with its own name and the Kubernetes version it embeds, and
# --help with kube-scheduler's flags; the kubectl plugin lists its
# commands and explain's flags.
set -euo pipefail
bin="$1" kube="$2" plugin="$3"

version="$("$bin" --version)"
echo "$version"
[[ "$version" == dra-scheduler\ * ]] || { echo "--version does not name dra-scheduler: $version" >&2; exit 1; }
[[ "$version" == *"Kubernetes ${kube}"* ]] || { echo "--version does not name Kubernetes ${kube}: $version" >&2; exit 1; }

help="$("$bin" --help)"
for flag in --config --kubeconfig --leader-elect --secure-port --feature-gates; do
  grep -q -- "$flag" <<<"$help" || { echo "--help lacks $flag" >&2; exit 1; }
done
plugin_help="$("$plugin" --help) $("$plugin" explain pod --help)"
for word in explain usage --from --output --feature-gates --policy --scoring; do
  grep -q -- "$word" <<<"$plugin_help" || { echo "kubectl-dra --help lacks $word" >&2; exit 1; }
done
echo "smoke: --version and --help OK"
