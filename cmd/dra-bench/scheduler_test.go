package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/controlplane"
	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedbench"
	"github.com/dra-scheduler/dra-scheduler/pkg/schedulerapp"
)

// TestMain lets the test binary act as the scheduler child of
// `dra-bench scheduler` (which re-executes os.Args[0] with ChildEnv set).
func TestMain(m *testing.M) {
	if encoded := os.Getenv(schedbench.ChildEnv); encoded != "" {
		os.Exit(schedulerapp.RunJSONArgs(encoded))
	}
	os.Exit(m.Run())
}

func TestSchedulerCommandLine(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{"help lists the scheduler command", []string{"--help"}, 0, "scheduler  end-to-end pods/s", ""},
		{"the scheduler's help explains the configurations", []string{"scheduler", "--help"}, 0, "", "no-claims  default plugins, the same pods without claims"},
		{"a bad configuration is a usage error", []string{"scheduler", "--configs", "ours,fast"}, 2, "", `unknown configuration "fast"`},
		{"a bad shape is a usage error", []string{"scheduler", "--shape", "tpu"}, 2, "", `--shape: unknown shape "tpu"`},
		{"a bad claims mode is a usage error", []string{"scheduler", "--claims", "shared"}, 2, "", `--claims "shared"`},
		{"more pods than devices is a usage error", []string{"scheduler", "--nodes", "1", "--pods", "11", "--log-dir", t.TempDir()}, 2, "", "fewer than the 11 pods"},
		{"--create-inventory needs --kubeconfig", []string{"scheduler", "--create-inventory"}, 2, "", "--create-inventory needs --kubeconfig"},
		{"an existing cluster needs --pods", []string{"scheduler", "--kubeconfig", "/nonexistent"}, 2, "", "needs --pods"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runArgs(tc.args...)
			if code != tc.wantCode {
				t.Errorf("exit code %d, want %d\nstdout: %s\nstderr: %s", code, tc.wantCode, stdout, stderr)
			}
			if !strings.Contains(stdout, tc.wantStdout) {
				t.Errorf("stdout lacks %q:\n%s", tc.wantStdout, stdout)
			}
			if !strings.Contains(stderr, tc.wantStderr) {
				t.Errorf("stderr lacks %q:\n%s", tc.wantStderr, stderr)
			}
		})
	}
}

// TestSchedulerEndToEnd runs all three configurations on 5 nodes with 10
// pods: a real control plane per configuration, dra-scheduler as a child
// process (this test binary, see TestMain). Every pod must be bound, every
// claim of the DRA configurations allocated with no device twice, and the
// numbers must be measurements, not zeros.
func TestSchedulerEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three control planes")
	}
	dir := t.TempDir()
	chart := filepath.Join(dir, "chart.svg")
	logDir := filepath.Join(dir, "logs")
	code, stdout, stderr := runArgs("scheduler", "--nodes", "5", "--pods", "10", "--warmup", "1", "--format", "json",
		"--chart", chart, "--log-dir", logDir, "--stall", "30s", "--timeout", "40s")
	if code != 0 {
		t.Fatalf("exit code %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	var rep schedbench.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("stdout is not the JSON report: %v\n%s", err, stdout)
	}
	if len(rep.Results) != 3 {
		t.Fatalf("%d results, want 3:\n%s", len(rep.Results), stdout)
	}
	for i, want := range schedbench.AllConfigs() {
		r := rep.Results[i]
		if r.Config != want || r.Nodes != 5 || r.Devices != 50 || r.Pods != 10 {
			t.Errorf("result %d: config %s, %d nodes, %d devices, %d pods; want %s, 5, 50, 10", i, r.Config, r.Nodes, r.Devices, r.Pods, want)
		}
		if r.Bound != r.Pods || r.Error != "" {
			t.Errorf("%s: %d of %d pods bound, error %q", r.Config, r.Bound, r.Pods, r.Error)
		}
		wantClaims := 11 // the warm-up pod's and the 10 measured pods'
		if !r.Config.HasClaims() {
			wantClaims = 0
		}
		if r.Claims != wantClaims || r.ClaimsAllocated != wantClaims || r.DuplicateDevices != 0 {
			t.Errorf("%s: %d claims, %d allocated, %d devices twice; want %d, %d, 0", r.Config, r.Claims, r.ClaimsAllocated, r.DuplicateDevices, wantClaims, wantClaims)
		}
		l := r.Latency
		if r.PodsPerSecond <= 0 || r.SpanNs <= 0 || l.P50Ns <= 0 || l.P50Ns > l.P90Ns || l.P90Ns > l.P99Ns || l.P99Ns > l.MaxNs {
			t.Errorf("%s: implausible numbers: %.1f pods/s, span %d ns, latency %+v", r.Config, r.PodsPerSecond, r.SpanNs, l)
		}
		if r.SchedulerPeakRSSBytes < 10<<20 || r.SchedulerCPUTotalSeconds <= 0 || r.SchedulerCPUTotalSeconds < r.SchedulerCPUSeconds {
			t.Errorf("%s: scheduler peak RSS %d bytes, CPU %.2fs measured of %.2fs total", r.Config, r.SchedulerPeakRSSBytes, r.SchedulerCPUSeconds, r.SchedulerCPUTotalSeconds)
		}
		if _, err := os.Stat(r.SchedulerLog); err != nil {
			t.Errorf("%s: scheduler log: %v", r.Config, err)
		}
		if r.RatioVsInTree == nil || r.PercentOfNoClaims == nil {
			t.Errorf("%s: comparisons missing", r.Config)
		}
	}
	for _, want := range []string{"[1/3] nodes=5 config=ours: set up", "scheduler ready", "10 pods created", "[3/3] nodes=5 config=no-claims: 10 pods bound", "wrote " + chart} {
		if !strings.Contains(stderr, want) {
			t.Errorf("progress lacks %q:\n%s", want, stderr)
		}
	}
	svg, err := os.ReadFile(chart)
	if err != nil {
		t.Fatal(err)
	}
	for _, series := range []string{"ours", "in-tree", "no-claims p50"} {
		if !bytes.Contains(svg, []byte(`data-series="`+series+`"`)) {
			t.Errorf("chart lacks series %q", series)
		}
	}
	// Every key of the JSON is documented in README.md.
	var doc map[string]any
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	keys := map[string]bool{}
	collectKeys(doc, keys)
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for k := range keys {
		if !bytes.Contains(readme, []byte("`"+k+"`")) {
			missing = append(missing, k)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("README.md does not document the JSON fields %q", missing)
	}
}

// TestSchedulerOnAnExistingCluster points `dra-bench scheduler` at a
// running cluster through --kubeconfig (a control plane this test starts),
// once creating the shape's inventory itself (--create-inventory) and once
// using what the cluster already has. Every pod must be bound and every
// claim allocated, and dra-bench must leave the cluster as it found it:
// its namespaces deleted, and with --create-inventory its nodes and slices
// too (DeviceClasses stay: they may have existed before).
func TestSchedulerOnAnExistingCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	ctx := t.Context()
	cp, err := controlplane.Start(ctx, controlplane.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cp.Stop)
	client := cp.Client

	countLeft := func() (nodes, slices, classes, namespaces int) {
		t.Helper()
		n, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := client.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		c, err := client.ResourceV1().DeviceClasses().List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ns, err := client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, item := range ns.Items {
			// A deleted namespace may linger while its finalizer runs.
			if strings.HasPrefix(item.Name, "dra-bench") && item.DeletionTimestamp == nil {
				namespaces++
			}
		}
		return len(n.Items), len(s.Items), len(c.Items), namespaces
	}
	check := func(t *testing.T, stdout string, wantNodes int) {
		t.Helper()
		var rep schedbench.Report
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatalf("stdout is not the JSON report: %v\n%s", err, stdout)
		}
		if !strings.Contains(rep.Settings.Target, cp.Kubeconfig) {
			t.Errorf("report target %q does not name the kubeconfig %s", rep.Settings.Target, cp.Kubeconfig)
		}
		if len(rep.Results) != 2 {
			t.Fatalf("%d results, want 2 (ours, in-tree):\n%s", len(rep.Results), stdout)
		}
		for _, r := range rep.Results {
			if r.Nodes != wantNodes || r.Bound != 6 || r.Error != "" {
				t.Errorf("%s: %d nodes, %d of 6 pods bound, error %q; want %d nodes", r.Config, r.Nodes, r.Bound, r.Error, wantNodes)
			}
			if r.ClaimsAllocated != r.Claims || r.Claims < 6 || r.DuplicateDevices != 0 {
				t.Errorf("%s: %d of %d claims allocated, %d devices twice", r.Config, r.ClaimsAllocated, r.Claims, r.DuplicateDevices)
			}
		}
	}

	t.Run("with --create-inventory it creates the shape's inventory and deletes it afterwards", func(t *testing.T) {
		code, stdout, stderr := runArgs("scheduler", "--kubeconfig", cp.Kubeconfig, "--create-inventory", "--nodes", "3",
			"--pods", "6", "--warmup", "1", "--configs", "ours,in-tree", "--format", "json", "--log-dir", t.TempDir(),
			"--stall", "30s", "--timeout", "60s")
		if code != 0 {
			t.Fatalf("exit code %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
		}
		check(t, stdout, 3)
		if nodes, slices, _, namespaces := countLeft(); nodes+slices+namespaces != 0 {
			t.Errorf("left behind %d nodes, %d slices, %d namespaces", nodes, slices, namespaces)
		}
	})

	t.Run("without --create-inventory it schedules onto the devices the cluster has, with one ResourceClaim per pod (--claims claim)", func(t *testing.T) {
		cluster := inventorygen.SchedulerPerf(2, 0)
		// As the cluster's drivers and kubelets would have published it.
		if err := schedbench.CreateInventory(ctx, client, cluster, 4); err != nil {
			t.Fatal(err)
		}
		code, stdout, stderr := runArgs("scheduler", "--kubeconfig", cp.Kubeconfig, "--pods", "6", "--warmup", "1", "--claims", "claim",
			"--configs", "ours,in-tree", "--format", "json", "--log-dir", t.TempDir(), "--stall", "30s", "--timeout", "60s")
		if code != 0 {
			t.Fatalf("exit code %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
		}
		check(t, stdout, 2)
		var rep schedbench.Report
		if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Settings.Claims != string(schedbench.ClaimsPerPod) {
			t.Errorf("the report says claims %q, want %q", rep.Settings.Claims, schedbench.ClaimsPerPod)
		}
		nodes, slices, classes, namespaces := countLeft()
		if nodes != 2 || slices != len(cluster.Slices) || classes != len(cluster.Classes) || namespaces != 0 {
			t.Errorf("after the run: %d nodes, %d slices, %d classes, %d namespaces; want the cluster's 2, %d, %d and none of dra-bench's",
				nodes, slices, classes, namespaces, len(cluster.Slices), len(cluster.Classes))
		}
	})
}
