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
	"context"
	"fmt"
	"regexp"
	"strings"

	resourceapi "k8s.io/api/resource/v1"

	"github.com/dra-scheduler/dra-scheduler/pkg/inventorygen"
)

// Workload is one measured input: a cluster, the devices already
// allocated in it, and the claims of one pod.
type Workload struct {
	// Scenario names the input family (built-in scenario, or the claim or
	// class a loaded cluster is measured with).
	Scenario string
	// Description says in a few words what the scenario is.
	Description string
	// Occupancy names how full the cluster is ("empty", "half", "full"
	// for built-in scenarios, "as-is" for a loaded cluster).
	Occupancy string
	// Cluster holds nodes, slices and classes; shared, read-only.
	Cluster inventorygen.Cluster
	// Allocated lists the devices other claims hold.
	Allocated inventorygen.Allocated
	// Claims are the pod's claims, all unallocated; read-only.
	Claims []*resourceapi.ResourceClaim
}

// Devices counts the devices of all slices.
func (w *Workload) Devices() int {
	n := 0
	for _, s := range w.Cluster.Slices {
		n += len(s.Spec.Devices)
	}
	return n
}

// String names the workload for progress lines and errors.
func (w *Workload) String() string {
	return fmt.Sprintf("%s nodes=%d occupancy=%s", w.Scenario, len(w.Cluster.Nodes), w.Occupancy)
}

// Job builds one cluster and the workloads measured on it, lazily: Run
// builds a job only when it gets to it, so that the inventories of large
// clusters are not all held at once.
type Job struct {
	// Name describes the job in progress lines.
	Name string
	// Workloads is the number of workloads Build returns (for progress).
	Workloads int
	// Build constructs the workloads.
	Build func(ctx context.Context) ([]Workload, error)
}

// Occupancy is a share of every pool already allocated, as
// inventorygen.Occupancy fills it.
type Occupancy struct {
	// Name is how tables and JSON call it.
	Name string
	// Fraction is the share of devices (or counters, or capacity) taken.
	Fraction float64
}

// DefaultOccupancies returns the built-in fill levels: empty, half, full.
func DefaultOccupancies() []Occupancy {
	return []Occupancy{{"empty", 0}, {"half", 0.5}, {"full", 1}}
}

// ParseOccupancies turns a comma-separated list of names (empty, half,
// full) or fractions between 0 and 1 into occupancies.
func ParseOccupancies(list string) ([]Occupancy, error) {
	var out []Occupancy
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if o, ok := occupancyNamed(f); ok {
			out = append(out, o)
			continue
		}
		var v float64
		if _, err := fmt.Sscanf(f, "%g", &v); err != nil || v < 0 || v > 1 {
			return nil, fmt.Errorf("occupancy %q: want empty, half, full or a fraction between 0 and 1", f)
		}
		out = append(out, Occupancy{Name: f, Fraction: v})
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no occupancy in %q", list)
	}
	return out, nil
}

func occupancyNamed(name string) (Occupancy, bool) {
	for _, o := range DefaultOccupancies() {
		if o.Name == name {
			return o, true
		}
	}
	return Occupancy{}, false
}

// ScenarioJobs returns one job per (cluster size, scenario) for the
// scenarios whose name matches filter (nil: all), smallest sizes first;
// each job measures every occupancy.
func ScenarioJobs(scenarios []Scenario, sizes []int, occupancies []Occupancy, filter *regexp.Regexp) []Job {
	var jobs []Job
	for _, nodes := range sizes {
		for _, sc := range scenarios {
			if filter != nil && !filter.MatchString(sc.Name) {
				continue
			}
			jobs = append(jobs, Job{
				Name:      fmt.Sprintf("%s nodes=%d", sc.Name, nodes),
				Workloads: len(occupancies),
				Build: func(context.Context) ([]Workload, error) {
					return sc.Workloads(nodes, occupancies), nil
				},
			})
		}
	}
	return jobs
}
