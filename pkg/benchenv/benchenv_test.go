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

package benchenv

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
)

func TestCaptureDescribesThisProcess(t *testing.T) {
	t.Setenv("GOGC", "400")
	t.Setenv("GOMEMLIMIT", "")
	env := Capture("v1.2.3")
	if env.Version != "v1.2.3" || env.Go != runtime.Version() || env.Platform != runtime.GOOS+"/"+runtime.GOARCH ||
		env.CPUs != runtime.NumCPU() || env.GOMAXPROCS != runtime.GOMAXPROCS(0) {
		t.Errorf("Capture = %+v, not this process", env)
	}
	if env.GOGC != "400" || env.GOMEMLIMIT != "" {
		t.Errorf("GOGC %q, GOMEMLIMIT %q: want the environment's 400 and unset", env.GOGC, env.GOMEMLIMIT)
	}
	if runtime.GOOS == "linux" && (env.Kernel == "" || env.CPUModel == "") {
		t.Errorf("on Linux the kernel (%q) and CPU model (%q) come from /proc", env.Kernel, env.CPUModel)
	}
}

func TestTheVCSStampIsReadFromTheBuildSettings(t *testing.T) {
	for _, tc := range []struct {
		name     string
		settings []debug.BuildSetting
		revision string
		modified bool
	}{
		{"a clean checkout gives its revision", []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "false"}}, "abc123", false},
		{"a dirty one says so", []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "true"}}, "abc123", true},
		{"go test or go run leaves it empty", []debug.BuildSetting{{Key: "GOOS", Value: "linux"}}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			revision, _, modified := vcs(tc.settings)
			if revision != tc.revision || modified != tc.modified {
				t.Errorf("vcs = %q, %v; want %q, %v", revision, modified, tc.revision, tc.modified)
			}
		})
	}
}

func TestTheCPUModelComesFromCpuinfo(t *testing.T) {
	for _, tc := range []struct {
		name, cpuinfo, want string
	}{
		{"x86 names its model", "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU @ 2.20GHz\n", "Intel(R) Xeon(R) CPU @ 2.20GHz"},
		{"arm64 without a model name gives the part", "processor\t: 0\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n", "CPU part 0xd0c"},
		{"nothing known gives nothing", "processor\t: 0\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "cpuinfo")
			if err := os.WriteFile(path, []byte(tc.cpuinfo), 0o600); err != nil {
				t.Fatal(err)
			}
			if got := cpuModel(path); got != tc.want {
				t.Errorf("cpuModel = %q, want %q", got, tc.want)
			}
		})
	}
}
