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

# Fails when a tracked file is larger than MAX_BYTES (1 MiB by default):
# a built binary or a benchmark's raw output committed by mistake stays in
# history, and one of 187 MB once made a whole submission too big to land.
# Data a script can make again is made again, not committed.
set -euo pipefail
cd "$(dirname "$0")/.."
max=${MAX_BYTES:-1048576}
big=$(git ls-files -z | xargs -0 -r stat -c '%s %n' 2>/dev/null | awk -v max="$max" '$1 > max')
if [[ -n "$big" ]]; then
  echo "tracked files larger than $max bytes (built binaries or generated data?):" >&2
  echo "$big" >&2
  exit 1
fi
