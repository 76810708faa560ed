#!/usr/bin/env bash
# update-kubernetes.sh pins k8s.io/kubernetes at the given version (default:
# the one go.mod requires now) and rewrites the replace directives for every
# staging module that k8s.io/kubernetes' own go.mod redirects to
# ./staging/src/..., pointing each at the matching published v0.x.y tag.
#
# Usage: hack/update-kubernetes.sh [v1.37.2]
#
# A Kubernetes bump is therefore one command; never edit the replace block by
# hand.
set -euo pipefail

cd "$(dirname "$0")/.."

version="${1:-$(go list -m -f '{{.Version}}' k8s.io/kubernetes 2>/dev/null || true)}"
if [[ ! "$version" =~ ^v1\.([0-9]+)\.([0-9]+)$ ]]; then
  echo "usage: $0 v1.MINOR.PATCH (got '${version}')" >&2
  exit 2
fi
staging="v0.${BASH_REMATCH[1]}.${BASH_REMATCH[2]}"

gomod="$(go mod download -json "k8s.io/kubernetes@${version}" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')"
if [[ -z "$gomod" || ! -f "$gomod" ]]; then
  echo "could not download the go.mod of k8s.io/kubernetes@${version}" >&2
  exit 1
fi

# Every "k8s.io/<name> => ./staging/src/k8s.io/<name>" line in upstream's go.mod.
mapfile -t modules < <(sed -n 's#^[[:space:]]*\(k8s\.io/[^[:space:]]*\)[[:space:]]*=>[[:space:]]*\./staging/src/.*#\1#p' "$gomod" | sort -u)
if [[ ${#modules[@]} -eq 0 ]]; then
  echo "no staging replace directives found in $gomod" >&2
  exit 1
fi

# Drop the replaces we wrote for an earlier version, then write the new ones.
for old in $(go mod edit -json | sed -n 's#^[[:space:]]*"Path": "\(k8s\.io/[^"]*\)"$#\1#p' | sort -u); do
  go mod edit -dropreplace="$old" 2>/dev/null || true
done
args=()
for m in "${modules[@]}"; do
  args+=("-replace=${m}=${m}@${staging}")
done
go mod edit "${args[@]}"
go mod edit -require="k8s.io/kubernetes@${version}"

echo "k8s.io/kubernetes ${version}: ${#modules[@]} staging modules replaced with ${staging}" >&2
go mod tidy
