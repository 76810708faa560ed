#!/usr/bin/env bash
# smoke.sh BINARY KUBE_VERSION PLUGIN: the built dra-scheduler answers
# --version with its own name, the git commit it was built from (stamped:
# a commit of this repository when run in a checkout) and the Kubernetes
# version it embeds, and --help with kube-scheduler's flags; the kubectl
# plugin prints the same commit for --version and `version`, and lists its
# commands and explain's flags.
set -euo pipefail
bin="$1" kube="$2" plugin="$3"

version="$("$bin" --version)"
echo "$version"
[[ "$version" == dra-scheduler\ * ]] || { echo "--version does not name dra-scheduler: $version" >&2; exit 1; }
[[ "$version" == *"Kubernetes ${kube}"* ]] || { echo "--version does not name Kubernetes ${kube}: $version" >&2; exit 1; }
[[ "$version" =~ \(commit\ ([0-9a-f]{7,40}), ]] || { echo "--version names no stamped commit: $version" >&2; exit 1; }
commit="${BASH_REMATCH[1]}"
if git rev-parse --git-dir >/dev/null 2>&1; then
  git cat-file -e "${commit}^{commit}" 2>/dev/null || { echo "--version names commit $commit, which this repository does not have" >&2; exit 1; }
fi
for args in --version version; do
  plugin_version="$("$plugin" $args)"
  [[ "$plugin_version" == "kubectl-dra "*"(commit ${commit}, Kubernetes ${kube}, "* ]] ||
    { echo "kubectl-dra $args does not name commit $commit and Kubernetes ${kube}: $plugin_version" >&2; exit 1; }
done

help="$("$bin" --help)"
for flag in --config --kubeconfig --leader-elect --secure-port --feature-gates; do
  grep -q -- "$flag" <<<"$help" || { echo "--help lacks $flag" >&2; exit 1; }
done
plugin_help="$("$plugin" --help) $("$plugin" explain pod --help)"
for word in explain usage --from --output --feature-gates --policy --scoring; do
  grep -q -- "$word" <<<"$plugin_help" || { echo "kubectl-dra --help lacks $word" >&2; exit 1; }
done
echo "smoke: --version and --help OK"
