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

package main

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestGangPreemptionFlags(t *testing.T) {
	for _, tc := range []struct {
		name        string
		args        []string
		wantErr     string
		wantShape   string
		wantConfigs string
		wantSizes   string
	}{
		{"the gang preemption workload runs NVL72 trays beside device-plugin and in-tree", []string{"--workload", "gang-preemption"}, "", "h100x4", "[ours device-plugin in-tree]", "[]"},
		{"--gang-sizes sets the sizes dealt out", []string{"--workload", "gang-preemption", "--gang-sizes", "8,24"}, "", "h100x4", "[ours device-plugin in-tree]", "[8 24]"},
		{"--gangs, --rack-size and --gang-timeout go with it", []string{"--workload", "gang-preemption", "--gangs", "4", "--rack-size", "9", "--gang-timeout", "30s"}, "", "h100x4", "[ours device-plugin in-tree]", "[]"},
		{"--configs overrides the defaults", []string{"--workload", "gang-preemption", "--configs", "ours"}, "", "h100x4", "[ours]", "[]"},
		{"--gang-sizes goes with the gang preemption workload only", []string{"--workload", "gang", "--gang-sizes", "8"}, "--gang-sizes goes with --workload gang-preemption", "", "", ""},
		{"--gang-size goes with the gang workload only", []string{"--workload", "gang-preemption", "--gang-size", "9"}, "--gang-size and --gang-placement go with --workload gang", "", "", ""},
		{"--gang-placement goes with the gang workload only", []string{"--workload", "gang-preemption", "--gang-placement", "any"}, "--gang-size and --gang-placement go with --workload gang", "", "", ""},
		{"a gang size of one pod is a usage error", []string{"--workload", "gang-preemption", "--gang-sizes", "16,1"}, `--gang-sizes: "1" is not a gang size of at least 2 pods`, "", "", ""},
		{"the gang preemption workload draws no chart", []string{"--workload", "gang-preemption", "--chart", "x.svg"}, "not with --workload gang-preemption", "", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, err := parseSchedulerFlags(t, tc.args...)
			switch {
			case tc.wantErr != "":
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("complete: %v, want an error containing %q", err, tc.wantErr)
				}
				return
			case err != nil:
				t.Fatalf("complete: %v", err)
			}
			if f.opts.Shape.Name != tc.wantShape {
				t.Errorf("shape %s, want %s", f.opts.Shape.Name, tc.wantShape)
			}
			if got := fmt.Sprint(f.opts.Configs); got != tc.wantConfigs {
				t.Errorf("configurations %s, want %s", got, tc.wantConfigs)
			}
			if got := fmt.Sprint(f.opts.GangSizes); got != tc.wantSizes {
				t.Errorf("gang sizes %s, want %s", got, tc.wantSizes)
			}
		})
	}
}

func TestGangPreemptionFlagsKeepTheirValues(t *testing.T) {
	f, err := parseSchedulerFlags(t, "--workload", "gang-preemption", "--gangs", "4", "--rack-size", "9", "--gang-timeout", "30s")
	if err != nil {
		t.Fatal(err)
	}
	if f.opts.Gangs != 4 || f.opts.RackSize != 9 || f.opts.GangTimeout != 30*time.Second {
		t.Errorf("gangs %d, rack size %d, gang timeout %v; want 4, 9, 30s", f.opts.Gangs, f.opts.RackSize, f.opts.GangTimeout)
	}
}

func TestGangPreemptionCommandLine(t *testing.T) {
	for _, tc := range []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr string
	}{
		{"the help explains the gang preemption workload", []string{"scheduler", "--help"}, 0, "With --workload gang-preemption the nodes are in racks"},
		{"the help names --gang-sizes", []string{"scheduler", "--help"}, 0, "-gang-sizes string"},
		{"a gang larger than a rack is a usage error", []string{"scheduler", "--workload", "gang-preemption", "--gang-sizes", "80", "--nodes", "72", "--log-dir", t.TempDir()}, 2, "a rack has at most 72 devices"},
		{"no-claims is a usage error", []string{"scheduler", "--workload", "gang-preemption", "--configs", "no-claims", "--log-dir", t.TempDir()}, 2, `configuration "no-claims" has none`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runArgs(tc.args...)
			if code != tc.wantCode || !strings.Contains(stderr, tc.wantStderr) {
				t.Errorf("exit code %d, want %d; stderr lacks %q?\nstdout: %s\nstderr: %s", code, tc.wantCode, tc.wantStderr, stdout, stderr)
			}
		})
	}
}
