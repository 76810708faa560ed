#!/usr/bin/env bash
# Copyright 2026 The dra-scheduler Authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# Fails when a tracked, non-test, non-generated Go file has more than
# MAX_LINES lines (450 by default): a file has one subject, and one that
# grows past a few hundred lines has found a second one to move out.
set -euo pipefail
cd "$(dirname "$0")/.."
max=${MAX_LINES:-450}
long=$(git ls-files -z -- '*.go' ':!:*_test.go' ':!:**/zz_generated*' |
  xargs -0 -r wc -l | awk -v max="$max" '$2 != "total" && $1 > max')
if [[ -n "$long" ]]; then
  echo "Go files longer than $max lines (split each by subject):" >&2
  echo "$long" >&2
  exit 1
fi
