package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestCountRepeatsRunsThatCompareAndBenchfmtReadAsSamples: --count 4
// reports every scenario four times; compare shows both medians with n=4
// and a p-value or "~"; benchfmt prints one benchmark line per result.
func TestCountRepeatsRunsThatCompareAndBenchfmtReadAsSamples(t *testing.T) {
	dir := t.TempDir()
	reports := []string{filepath.Join(dir, "old.json"), filepath.Join(dir, "new.json")}
	args := append([]string{"allocator", "--scenario", "^schedperf$", "--nodes", "2", "--occupancy", "0", "--count", "4", "--quiet"}, quick...)
	for _, path := range reports {
		if code, stdout, stderr := runArgs(append(args, "--json-out", path)...); code != 0 {
			t.Fatalf("exit code %d\n%s\n%s", code, stdout, stderr)
		}
	}
	code, stdout, stderr := runArgs("compare", reports[0], reports[1])
	if code != 0 {
		t.Fatalf("compare: exit code %d\n%s\n%s", code, stdout, stderr)
	}
	row := regexp.MustCompile(`Allocator/scenario=schedperf/occupancy=0/nodes=2/impl=ours\s+ns/op\s+\S+ \(n=4\)\s+\S+ \(n=4\)\s+[0-9.]+\s+(~ \(p=[0-9.]+\)|[+-][0-9.]+% \(p=[0-9.]+\) (better|worse))`)
	if !row.MatchString(stdout) {
		t.Errorf("compare lacks the node check row with four samples a side and a p-value:\n%s", stdout)
	}
	for _, want := range []string{"old: dra-bench allocator", "new: dra-bench allocator", "impl=upstream"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("compare lacks %q:\n%s", want, stdout)
		}
	}

	code, stdout, stderr = runArgs(append(args, "--count", "2", "--format", "benchfmt")...)
	if code != 0 {
		t.Fatalf("benchfmt: exit code %d\n%s\n%s", code, stdout, stderr)
	}
	if n := strings.Count(stdout, "\nBenchmarkAllocator/scenario=schedperf/occupancy=0/nodes=2/impl=ours 1 "); n != 2 {
		t.Errorf("benchfmt has %d lines of the ours benchmark, want 2 (--count 2):\n%s", n, stdout)
	}
}

func TestCompareRefusesWhatItCannotCompare(t *testing.T) {
	dir := t.TempDir()
	alloc := filepath.Join(dir, "alloc.json")
	if code, stdout, stderr := runArgs(append([]string{"allocator", "--scenario", "^schedperf$", "--nodes", "2", "--occupancy", "0", "--quiet", "--json-out", alloc}, quick...)...); code != 0 {
		t.Fatalf("exit code %d\n%s\n%s", code, stdout, stderr)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"one report", []string{"compare", alloc}, "want two reports"},
		{"a missing report", []string{"compare", alloc, filepath.Join(dir, "missing.json")}, "missing.json"},
		{"a bad --count", []string{"allocator", "--count", "0"}, "--count 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if code, _, stderr := runArgs(tc.args...); code == 0 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit code %d, stderr %q; want failure saying %q", code, stderr, tc.want)
			}
		})
	}
}
