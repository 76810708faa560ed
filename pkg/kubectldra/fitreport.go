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

package kubectldra

import (
	"fmt"
	"io"
	"strings"

	"github.com/dra-scheduler/dra-scheduler/pkg/simulate"
)

// fitAPIVersion names the schema of fit's -o json.
const fitAPIVersion = "dra-scheduler.io/fit/v1alpha1"

// fitReport is fit's answer, as -o json prints it: its fields are the
// schema docs/troubleshooting.md points to.
type fitReport struct {
	APIVersion string   `json:"apiVersion"`
	Shape      fitShape `json:"shape"`
	// Count is the answer: how many copies fit now.
	Count  int  `json:"count"`
	Wanted int  `json:"wanted"`
	Fits   bool `json:"fits"`
	Exact  bool `json:"exact"`
	// Inexact says why the count may differ from what the scheduler
	// places, when Exact is false.
	Inexact    []string       `json:"inexact"`
	Limited    bool           `json:"limited"`
	Nodes      []fitNode      `json:"nodes"`
	Placements []fitPlacement `json:"placements"`
	Next       fitNext        `json:"next"`
	Notes      []string       `json:"notes"`

	nodes int
}

type fitShape struct {
	// Kind is Pod, or the workload whose pod template is the shape
	// (Deployment, StatefulSet, Job, JobSet).
	Kind string `json:"kind"`
	Name string `json:"name"`
	// ReplicatedJob names the JobSet's replicated job.
	ReplicatedJob string `json:"replicatedJob,omitempty"`
	Unit          string `json:"unit"`
	// Self says that the pod is pending and is the first copy.
	Self bool `json:"self"`
}

type fitNode struct {
	Node  string `json:"node"`
	Count int    `json:"count"`
}

type fitPlacement struct {
	Copy int      `json:"copy"`
	Pods []fitPod `json:"pods"`
}

type fitPod struct {
	Pod     string   `json:"pod"`
	Node    string   `json:"node"`
	Devices []string `json:"devices"`
}

// fitNext is what stops one more copy.
type fitNext struct {
	Problems []string         `json:"problems"`
	Groups   []fitReasonGroup `json:"groups"`
}

type fitReasonGroup struct {
	Reason   string       `json:"reason"`
	Count    int          `json:"count"`
	Examples []fitExample `json:"examples"`
}

type fitExample struct {
	Node     string            `json:"node"`
	Requests []fitRequestCount `json:"requests,omitempty"`
}

// fitRequestCount is one request's devices on one node.
type fitRequestCount struct {
	Claim             string `json:"claim"`
	Request           string `json:"request"`
	Class             string `json:"class"`
	Need              int    `json:"need"`
	Matching          int    `json:"matching"`
	Allocated         int    `json:"allocated"`
	Tainted           int    `json:"tainted"`
	CountersExhausted int    `json:"countersExhausted"`
	CapacityExhausted int    `json:"capacityExhausted"`
	Usable            int    `json:"usable"`
}

// notSimulated is the note every fit report carries.
const notSimulated = "pods pending ahead of these copies, allocations the scheduler holds in memory and preemption are not counted"

// newFitReport is the report of c, the count of copies of the shape
// named by what (its Kind and Name).
func newFitReport(what fitShape, shape simulate.Shape, c *simulate.Count, wanted, nodes int, notes []string) *fitReport {
	what.Unit, what.Self = "pods", shape.Self
	r := &fitReport{
		APIVersion: fitAPIVersion,
		Shape:      what,
		Count:      c.Count, Wanted: wanted, Fits: c.Count >= wanted, Exact: c.Exact, Inexact: nonNil(c.Inexact), Limited: c.Limited,
		Nodes: []fitNode{}, Placements: []fitPlacement{},
		Next:  fitNext{Problems: nonNil(c.Next.Problems), Groups: []fitReasonGroup{}},
		Notes: append(append([]string{}, notes...), notSimulated),
		nodes: nodes,
	}
	for _, n := range c.Nodes {
		r.Nodes = append(r.Nodes, fitNode{Node: n.Node, Count: n.Count})
	}
	for _, p := range c.Placements {
		pod := fitPod{Pod: p.Pod, Node: p.Node, Devices: []string{}}
		for _, cl := range p.Claims {
			for _, d := range cl.Devices {
				pod.Devices = append(pod.Devices, cl.PodClaim+"/"+d)
			}
		}
		r.Placements = append(r.Placements, fitPlacement{Copy: p.Copy, Pods: []fitPod{pod}})
	}
	for _, g := range c.Next.Groups {
		out := fitReasonGroup{Reason: g.Reason, Count: g.Count, Examples: []fitExample{}}
		for _, ex := range g.Examples {
			e := fitExample{Node: ex.Node}
			for _, rq := range ex.Requests {
				e.Requests = append(e.Requests, fitRequestCount{
					Claim: ex.PodClaims[rq.Claim], Request: rq.Request, Class: rq.Class, Need: rq.Need, Matching: rq.Matching,
					Allocated: rq.Allocated, Tainted: rq.Tainted, CountersExhausted: rq.CountersExhausted,
					CapacityExhausted: rq.CapacityExhausted, Usable: rq.Usable,
				})
			}
			out.Examples = append(out.Examples, e)
		}
		r.Next.Groups = append(r.Next.Groups, out)
	}
	return r
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// WriteText prints the report for people.
func (r *fitReport) WriteText(w io.Writer) error {
	var b strings.Builder
	verdict := fmt.Sprintf("%d more %s fit now", r.Count, r.Shape.copies(r.Count))
	if r.Limited {
		verdict = fmt.Sprintf("at least %d more %s fit now (counted to --limit)", r.Count, r.Shape.copies(r.Count))
	}
	fmt.Fprintf(&b, "%s; wanted %d: %s\n", verdict, r.Wanted, map[bool]string{true: "enough", false: "too few"}[r.Fits])
	if r.Exact {
		b.WriteString("Exact: the scheduler places as many, whichever nodes it picks.\n")
	} else {
		fmt.Fprintf(&b, "Not exact: %s.\n", strings.Join(r.Inexact, "; "))
	}
	if len(r.Nodes) > 0 {
		b.WriteString("Nodes:\n")
		for _, n := range r.Nodes {
			fmt.Fprintf(&b, "  %s: %d\n", n.Node, n.Count)
		}
	}
	if !r.Limited {
		b.WriteString("What stops the next one:\n")
		for _, p := range r.Next.Problems {
			fmt.Fprintf(&b, "  %s\n", p)
		}
		for _, g := range r.Next.Groups {
			fmt.Fprintf(&b, "  %d of %d nodes: %s\n", g.Count, r.nodes, g.Reason)
			for _, ex := range g.Examples {
				for _, rq := range ex.Requests {
					fmt.Fprintf(&b, "    %s %s/%s (class %s): need %d, matching %d, allocated %d, tainted %d, counters used up %d, capacity used up %d, usable %d\n",
						ex.Node, rq.Claim, rq.Request, rq.Class, rq.Need, rq.Matching, rq.Allocated, rq.Tainted, rq.CountersExhausted, rq.CapacityExhausted, rq.Usable)
				}
			}
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "Note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// plural picks the word for n.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// copies names n copies of the shape: "copies of pod ml/train", "pods of
// deployment ml/web", "pods of jobset ml/train (replicated job workers)".
func (s fitShape) copies(n int) string {
	if s.Kind == "Pod" {
		return plural(n, "copy of", "copies of") + " pod " + s.Name
	}
	out := plural(n, "pod", "pods") + " of " + strings.ToLower(s.Kind) + " " + s.Name
	if s.ReplicatedJob != "" {
		out += " (replicated job " + s.ReplicatedJob + ")"
	}
	return out
}
