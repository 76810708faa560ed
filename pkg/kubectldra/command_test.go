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

package kubectldra_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	resourceapi "k8s.io/api/resource/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/deviceusage"
	"github.com/dra-scheduler/dra-scheduler/pkg/explain"
	"github.com/dra-scheduler/dra-scheduler/pkg/kubectldra"
	"github.com/dra-scheduler/dra-scheduler/pkg/version"
	"github.com/dra-scheduler/dra-scheduler/test/objects"
)

const driver = "gpu.example.com"

// writeDump writes the test cluster as `kubectl get -o yaml` prints it.
func writeDump(t *testing.T) string {
	t.Helper()
	data, err := objects.KubectlList(
		objects.MakeNode("node-1").Obj(),
		objects.MakeNode("node-2").Obj(),
		objects.MakePod("trainer", "team").ClaimFromTemplate("gpu", "two-gpus").Obj(),
		objects.MakeSlice("node-1-gpu", driver, "node-1").Device("gpu-0", nil).Device("gpu-1", nil).Obj(),
		objects.MakeSlice("node-2-gpu", driver, "node-2").Device("gpu-0", nil).Device("gpu-1", nil).
			Taint("maintenance", "", resourceapi.DeviceTaintEffectNoSchedule).Obj(),
		objects.DeviceClass(driver, driver),
		objects.ClaimTemplate("two-gpus", "team", "gpu", driver, 2),
	)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cluster.yaml")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := kubectldra.NewCommand(strings.NewReader(""), &out, &errOut)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(t.Context())
	return out.String(), err
}

func TestExplainPodFromADumpAnswersWithTheSchedulersFeatureGates(t *testing.T) {
	dump := writeDump(t)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"with the default gates a tainted device is not taken", nil, []string{"node-1"}},
		{"with DRADeviceTaints off, as a scheduler with it off, the taint is ignored", []string{"--feature-gates", "DRADeviceTaintRules=false,DRADeviceTaints=false"}, []string{"node-1", "node-2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := run(t, append([]string{"explain", "pod", "trainer", "-n", "team", "--from", dump, "-o", "json"}, tc.args...)...)
			if err != nil {
				t.Fatalf("explain: %v\n%s", err, out)
			}
			var r explain.PodReport
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("output is not a report: %v\n%s", err, out)
			}
			if !reflect.DeepEqual(r.Now.FitNodes, tc.want) {
				t.Errorf("fits on %v, want %v", r.Now.FitNodes, tc.want)
			}
		})
	}

	text, err := run(t, "explain", "pod", "trainer", "-n", "team", "--from", dump)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Verdict:    fits on 1 of 2 nodes now",
		"node-1 (0): gpu/gpu: gpu.example.com/node-1/gpu-0, gpu/gpu: gpu.example.com/node-1/gpu-1",
		`1 node: free devices matching request "gpu" have taints it does not tolerate (class gpu.example.com)`,
		"node-2: claim gpu, request gpu (class gpu.example.com): needs 2; 2 match: 1 tainted (not tolerated), 1 usable",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text output lacks %q:\n%s", want, text)
		}
	}
}

func TestUsageFromADump(t *testing.T) {
	out, err := run(t, "usage", "--from", writeDump(t), "-o", "json")
	if err != nil {
		t.Fatal(err)
	}
	var r deviceusage.Report
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("output is not a report: %v\n%s", err, out)
	}
	if want := []deviceusage.ClassUsage{{Class: driver, Counts: deviceusage.Counts{Devices: 4, Free: 4}}}; !reflect.DeepEqual(r.Classes, want) {
		t.Errorf("classes %+v, want %+v", r.Classes, want)
	}
}

func TestBadArgumentsAreRefusedWithTheFix(t *testing.T) {
	dump := writeDump(t)
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"an unknown output format", []string{"usage", "--from", dump, "-o", "yaml"}, `--output "yaml": want text or json`},
		{"an unknown policy", []string{"explain", "pod", "trainer", "--from", dump, "--policy", "BestFit"}, `--policy "BestFit": want FirstFit or Packing`},
		{"an unknown scoring strategy", []string{"explain", "pod", "trainer", "--from", dump, "--scoring", "Random"}, `--scoring "Random"`},
		{"an unknown feature gate", []string{"explain", "pod", "trainer", "--from", dump, "--feature-gates", "NoSuchGate=true"}, "--feature-gates: unrecognized feature gate: NoSuchGate"},
		{"a pod the dump lacks", []string{"explain", "pod", "nope", "-n", "team", "--from", dump}, "kubectl get pod nope -n team -o yaml"},
		{"a missing file", []string{"usage", "--from", filepath.Join(t.TempDir(), "missing.yaml")}, "missing.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := run(t, tc.args...); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

func TestVersionNamesThePluginItsCommitAndKubernetes(t *testing.T) {
	want := version.String("kubectl-dra") + "\n"
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"the version subcommand prints the build", []string{"version"}},
		{"--version prints the same line", []string{"--version"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := run(t, tc.args...)
			if err != nil {
				t.Fatalf("%v: %v", tc.args, err)
			}
			if out != want {
				t.Errorf("%v printed %q, want %q", tc.args, out, want)
			}
			for _, part := range []string{"kubectl-dra ", "(commit ", "Kubernetes "} {
				if !strings.Contains(out, part) {
					t.Errorf("%v printed %q, which lacks %q", tc.args, out, part)
				}
			}
		})
	}
}
