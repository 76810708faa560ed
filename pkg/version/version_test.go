/*
Copyright 2026 The dra-scheduler Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package version

import (
	"runtime"
	"testing"
)

func TestStringNamesTheProgramVersionCommitAndKubernetes(t *testing.T) {
	goPlatform := runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH
	for _, tc := range []struct {
		name                         string
		program, version, commit, kv string
		want                         string
	}{
		{
			"a stamped release names all three",
			"dra-scheduler", "v0.1.0", "1a2b3c4", "v1.37.2",
			"dra-scheduler v0.1.0 (commit 1a2b3c4, Kubernetes v1.37.2, " + goPlatform + ")",
		},
		{
			"an unstamped build says dev and unknown",
			"kubectl-dra", "dev", "unknown", "v0.0.0-master+$Format:%H$",
			"kubectl-dra dev (commit unknown, Kubernetes v0.0.0-master+$Format:%H$, " + goPlatform + ")",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := format(tc.program, tc.version, tc.commit, tc.kv); got != tc.want {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestStringReportsTheLinkTimeStamps(t *testing.T) {
	defer func(v, c string) { version, commit = v, c }(version, commit)
	version, commit = "v9.9.9", "abcdef0"
	want := format("dra-bench", "v9.9.9", "abcdef0", Kubernetes())
	if got := String("dra-bench"); got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if Version() != "v9.9.9" || Commit() != "abcdef0" {
		t.Errorf("Version() %q, Commit() %q: want the stamped v9.9.9 and abcdef0", Version(), Commit())
	}
}
