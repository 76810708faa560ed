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

package allocbench

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/dra-scheduler/dra-scheduler/pkg/benchchart"
	"github.com/dra-scheduler/dra-scheduler/pkg/benchenv"
)

// ReportSchemaVersion is the version of Report's JSON form: 2 added the
// schema version itself and the environment's VCS revision, CPU model,
// kernel, GOGC and GOMEMLIMIT.
const ReportSchemaVersion = 2

// Report is the outcome of a run; its JSON form is documented in
// cmd/dra-bench/README.md.
type Report struct {
	// Tool is "dra-bench allocator"; SchemaVersion the version of this
	// JSON form (ReportSchemaVersion).
	Tool          string `json:"tool"`
	SchemaVersion int    `json:"schemaVersion"`
	// Environment is the build and the machine (its fields are at the top
	// level of the JSON form); Version is set by the command.
	benchenv.Environment
	// UpstreamModule is upstream's allocator module and version, e.g.
	// "k8s.io/dynamic-resource-allocation v0.37.2"; UpstreamAllocator
	// the implementation structured.NewAllocator chose ("incubating").
	UpstreamModule    string `json:"upstreamModule"`
	UpstreamAllocator string `json:"upstreamAllocator"`
	// StartedAt is when the run started (UTC).
	StartedAt time.Time `json:"startedAt"`
	// TimerOverheadNs is the median cost of reading the clock twice,
	// included in every timed node check.
	TimerOverheadNs int64 `json:"timerOverheadNs"`
	// Settings are the run's bounds.
	Settings Settings `json:"settings"`
	// Results has one entry per measured workload, in run order.
	Results []Result `json:"results"`
	// Mismatches is the number of nodes, over all results, where the two
	// allocators disagreed; anything but 0 means the numbers compare
	// different work.
	Mismatches int `json:"mismatches"`
}

// Settings are the bounds a run used.
type Settings struct {
	DurationNs int64 `json:"durationNs"`
	Samples    int   `json:"samples"`
	PodSamples int   `json:"podSamples"`
	BatchSize  int   `json:"batchSize"`
	// Features lists the allocator features enabled for both allocators.
	Features []string `json:"features"`
}

// Result is one workload's measurements.
type Result struct {
	// Scenario, Description and Occupancy identify the workload.
	Scenario    string `json:"scenario"`
	Description string `json:"description,omitempty"`
	Occupancy   string `json:"occupancy"`
	// Nodes, Slices and Devices size the cluster; AllocatedDevices is the
	// number of allocation results other claims hold.
	Nodes            int `json:"nodes"`
	Slices           int `json:"slices"`
	Devices          int `json:"devices"`
	AllocatedDevices int `json:"allocatedDevices"`
	// Claims names the pod's claims (namespace/name).
	Claims []string `json:"claims"`
	// Ours and Upstream are the two allocators' figures.
	Ours     Impl `json:"ours"`
	Upstream Impl `json:"upstream"`
	// Ratio is upstream / ours: above 1 means ours is faster.
	Ratio Ratio `json:"ratio"`
	// Agreement is the comparison of both allocators on every node.
	Agreement Agreement `json:"agreement"`
	// Error says why the workload could not be measured.
	Error string `json:"error,omitempty"`
}

// Impl is one allocator's figures for one workload.
type Impl struct {
	// NodeCheck is one Allocate call for one (pod, node), the pod's
	// allocator already built: what Filter pays per node.
	NodeCheck Latency `json:"nodeCheck"`
	// PerPod is everything one pod costs the allocator across all nodes
	// (see the package documentation).
	PerPod Latency `json:"perPod"`
	// FirstPassNs is the time of one Allocate on every node, before
	// anything was timed; for ours it includes filling its caches.
	FirstPassNs int64 `json:"firstPassNs"`
}

// Ratio compares upstream with ours.
type Ratio struct {
	NodeCheckP50 float64 `json:"nodeCheckP50"`
	NodeCheckP99 float64 `json:"nodeCheckP99"`
	PerPodP50    float64 `json:"perPodP50"`
}

func newResult(w *Workload) Result {
	r := Result{
		Scenario:         w.Scenario,
		Description:      w.Description,
		Occupancy:        w.Occupancy,
		Nodes:            len(w.Cluster.Nodes),
		Slices:           len(w.Cluster.Slices),
		Devices:          w.Devices(),
		AllocatedDevices: w.Allocated.Len(),
		Claims:           []string{},
	}
	for _, c := range w.Claims {
		r.Claims = append(r.Claims, c.Namespace+"/"+c.Name)
	}
	return r
}

func (r *Report) add(res Result) {
	r.Results = append(r.Results, res)
	r.Mismatches += res.Agreement.Mismatches
}

// WriteJSON writes the report as indented JSON.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	return nil
}

// WriteTable writes the human summary: a header naming what was
// compared, one row per result, and every mismatch spelled out below.
func (r *Report) WriteTable(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: ours (pkg/allocator, FirstFit) vs upstream %s (%s)\n", r.Tool, r.UpstreamModule, r.UpstreamAllocator)
	fmt.Fprintf(&b, "%s %s, %d CPUs, GOMAXPROCS=%d; node check = one Allocate per (pod, node); per pod = all nodes (see README)\n",
		r.Go, r.Platform, r.CPUs, r.GOMAXPROCS)
	fmt.Fprintf(&b, "ratio = upstream/ours (>1: ours faster); timer overhead %s per check is included\n\n", fmtNs(r.TimerOverheadNs))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\tnodes\toccupancy\tfit\tours p50\tp90\tp99\tupstream p50\tp90\tp99\tallocs ours\tupstream\tratio p50\tpod ours\tpod upstream\tratio pod\tagree\t")
	for _, res := range r.Results {
		if res.Error != "" {
			fmt.Fprintf(tw, "%s\t%d\t%s\terror: %s\t\n", res.Scenario, res.Nodes, res.Occupancy, res.Error)
			continue
		}
		o, u := res.Ours, res.Upstream
		agree := "ok"
		if res.Agreement.Mismatches > 0 {
			agree = fmt.Sprintf("MISMATCH %d", res.Agreement.Mismatches)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%d/%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.1f×\t%s\t%s\t%.1f×\t%s\t\n",
			res.Scenario, res.Nodes, res.Occupancy, res.Agreement.FitNodes, res.Nodes,
			fmtNs(o.NodeCheck.P50Ns), fmtNs(o.NodeCheck.P90Ns), fmtNs(o.NodeCheck.P99Ns),
			fmtNs(u.NodeCheck.P50Ns), fmtNs(u.NodeCheck.P90Ns), fmtNs(u.NodeCheck.P99Ns),
			benchchart.FormatCount(o.NodeCheck.AllocsPerOp), benchchart.FormatCount(u.NodeCheck.AllocsPerOp),
			res.Ratio.NodeCheckP50, fmtNs(o.PerPod.P50Ns), fmtNs(u.PerPod.P50Ns), res.Ratio.PerPodP50, agree)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if r.Mismatches > 0 {
		fmt.Fprintf(&b, "\n!!! MISMATCH: the allocators disagreed on %d node(s); these numbers compare different work:\n", r.Mismatches)
		for _, res := range r.Results {
			for _, ex := range res.Agreement.Examples {
				fmt.Fprintf(&b, "!!! %s nodes=%d occupancy=%s: %s\n", res.Scenario, res.Nodes, res.Occupancy, ex)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func fmtNs(ns int64) string { return benchchart.FormatNanos(float64(ns)) }
