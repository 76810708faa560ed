#!/usr/bin/env bash
# Regenerates the DRAAllocator args' deep copies, conversions and defaulting
# registration with k8s.io/code-generator (the version go.mod pins, run as
# go tools), as kubernetes-sigs/scheduler-plugins does for its args.
# hack/update-codegen.sh --verify regenerates and fails if anything changed:
# make verify runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

api=github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config
dirs=(pkg/plugins/draallocator/apis/config pkg/plugins/draallocator/apis/config/v1)
# The license header with a fixed year (gengo would put the current year
# for "YEAR" and make --verify fail every January).
header=hack/boilerplate.go.txt

before=""
if [[ "${1:-}" == "--verify" ]]; then
  before=$(mktemp -d)
  trap 'rm -rf "$before"' EXIT
  for d in "${dirs[@]}"; do
    mkdir -p "$before/$d"
    cp "$d"/zz_generated.*.go "$before/$d"/ 2>/dev/null || true
  done
fi

go tool deepcopy-gen --go-header-file "$header" --output-file zz_generated.deepcopy.go "$api" "$api/v1"
go tool defaulter-gen --go-header-file "$header" --output-file zz_generated.defaults.go "$api/v1"
go tool conversion-gen --go-header-file "$header" --output-file zz_generated.conversion.go "$api/v1" 2> >(grep -v -e 'Warning: could not find nor generate a final Conversion function' -e 'the following fields need manual conversion' -e '^E.*conversion.go:79[35]\]       - ' >&2)

if [[ -n "$before" ]]; then
  stale=0
  for d in "${dirs[@]}"; do
    for f in "$d"/zz_generated.*.go; do
      if ! diff -u "$before/$f" "$f" 2>/dev/null; then
        echo "generated file $f was stale" >&2
        stale=1
      fi
    done
  done
  if [[ $stale != 0 ]]; then
    echo "hack/update-codegen.sh changed generated files: commit the result" >&2
    exit 1
  fi
fi
