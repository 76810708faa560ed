#!/usr/bin/env bash
# Every Go file git tracks starts with the Apache-2.0 license header of
# hack/boilerplate/boilerplate.go.txt (Kubernetes' boilerplate style: the
# block comment, "Copyright <year> The dra-scheduler Authors.", after any
# build constraints). hack/boilerplate.sh adds the header, with this
# year, to files that lack it; hack/boilerplate.sh --verify lists them and
# fails instead: make verify runs it.
set -euo pipefail
cd "$(dirname "$0")/.."

template=hack/boilerplate/boilerplate.go.txt
lines=$(wc -l < "$template")

# header prints the lines of a file that must match the template: those
# after its leading build constraints and blank lines, with the year of
# the copyright line made YEAR.
header() {
  awk -v n="$lines" '
    !started && (/^\/\/go:build / || /^\/\/ \+build / || /^$/) { next }
    { started = 1; if (++seen > n) exit
      if (seen == 2) sub(/Copyright [0-9][0-9][0-9][0-9] /, "Copyright YEAR ")
      print }
  ' "$1"
}

missing=()
while IFS= read -r f; do
  if ! diff -q <(header "$f") "$template" >/dev/null; then
    missing+=("$f")
  fi
done < <(git ls-files '*.go')

if [[ "${1:-}" == "--verify" ]]; then
  if (( ${#missing[@]} > 0 )); then
    echo "these Go files lack the license header of $template (run hack/boilerplate.sh):" >&2
    printf '  %s\n' "${missing[@]}" >&2
    exit 1
  fi
  exit 0
fi

year=$(date +%Y)
for f in "${missing[@]}"; do
  # The header goes after the build constraints, if any, and a blank line.
  awk -v year="$year" -v template="$template" '
    function put() { while ((getline line < template) > 0) { sub(/YEAR/, year, line); print line }; print ""; done = 1 }
    !done && (/^\/\/go:build / || /^\/\/ \+build /) { print; constraint = 1; next }
    !done && constraint && /^$/ { print; put(); next }
    !done { put() }
    { print }
  ' "$f" > "$f.boilerplate" && mv "$f.boilerplate" "$f"
  echo "added the license header to $f"
done
