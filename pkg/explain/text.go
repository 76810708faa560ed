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

package explain

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText prints the report for people, kubectl describe style.
func (r *PodReport) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	p := func(format string, args ...any) { fmt.Fprintf(tw, format, args...) }
	p("Pod:\t%s\n", r.Pod)
	p("Scheduler:\t%s\n", r.SchedulerName)
	p("Verdict:\t%s\n", r.Verdict)
	if len(r.Claims) > 0 {
		p("Claims:\n")
		for _, c := range r.Claims {
			from := ""
			if c.Template != "" {
				from = "from template " + c.Template
			}
			p("  %s\t%s\t%s\t%s\n", c.PodClaim, c.Name, from, c.State)
			for _, d := range c.Devices {
				p("  \t  %s\n", d)
			}
		}
	}
	for _, problem := range r.Problems {
		p("Problem:\t%s\n", problem)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Problems) == 0 {
		writeAnswer(w, "Now", r.Now)
		writeAnswer(w, "With nothing allocated", r.Empty)
	}
	if r.Preemption != nil {
		r.Preemption.write(w)
	}
	if r.Gang != nil {
		fmt.Fprintf(w, "Pod group: %s\n", r.Gang.sentence())
		if r.Gang.Preemption != nil {
			r.Gang.Preemption.write(w)
		}
	}
	if len(r.Notes) > 0 {
		fmt.Fprintln(w, "Notes:")
		for _, n := range r.Notes {
			fmt.Fprintf(w, "  %s\n", n)
		}
	}
	return nil
}

func writeAnswer(w io.Writer, title string, a Answer) {
	fmt.Fprintf(w, "%s: fits on %d of %d nodes", title, len(a.FitNodes), a.Nodes)
	if n := len(a.FitNodes); n > 0 && len(a.Candidates) == 0 {
		fmt.Fprintf(w, ": %s", joinSome(a.FitNodes, 10))
	}
	fmt.Fprintln(w)
	if len(a.Candidates) > 0 {
		fmt.Fprintln(w, "  Best nodes (score, devices):")
		for _, c := range a.Candidates {
			fmt.Fprintf(w, "    %s (%d): %s", c.Node, c.Score, strings.Join(c.Devices, ", "))
			if len(c.NodeResources) > 0 {
				fmt.Fprintf(w, "; node resources: %s", strings.Join(c.NodeResources, ", "))
			}
			fmt.Fprintln(w)
		}
	}
	for _, g := range a.NotFit {
		fmt.Fprintf(w, "  %d %s: %s\n", g.Count, plural(g.Count, "node", "nodes"), g.Reason)
		for _, ex := range g.Examples {
			if len(ex.Requests) == 0 {
				fmt.Fprintf(w, "      %s\n", ex.Node)
				continue
			}
			for _, rc := range ex.Requests {
				fmt.Fprintf(w, "      %s: claim %s, request %s (class %s): %s\n", ex.Node, rc.Claim, rc.Request, rc.Class, rc.describe())
			}
			if ex.Closest != "" {
				fmt.Fprintf(w, "      %s: closest: %s\n", ex.Node, ex.Closest)
			}
		}
	}
}

// write prints the preemption's node and victims, or why there is none.
func (p *Preemption) write(w io.Writer) {
	if p.Node == "" {
		fmt.Fprintf(w, "Preemption: cannot help: %s\n", p.NotPossible)
		return
	}
	fmt.Fprintf(w, "Preemption: node %s (evictions make room on %d %s)\n", p.Node, p.Nodes, plural(p.Nodes, "node", "nodes"))
	writeVictims(w, p.Victims)
	fmt.Fprintf(w, "  Devices then: %s\n", strings.Join(p.Devices, ", "))
}

// writeVictims lists the pods a preemption evicts.
func writeVictims(w io.Writer, victims []Victim) {
	fmt.Fprintln(w, "  Pods evicted (priority, claims freed):")
	for _, v := range victims {
		fmt.Fprintf(w, "    %s (%d)", v.Pod, v.Priority)
		if len(v.Claims) > 0 {
			fmt.Fprintf(w, ": %s", strings.Join(v.Claims, ", "))
		}
		if v.Group != "" {
			fmt.Fprintf(w, "; with all of pod group %s", v.Group)
		}
		if v.ViolatesPDB {
			fmt.Fprint(w, "; violates a PodDisruptionBudget")
		}
		fmt.Fprintln(w)
	}
}

// victimList reads like "team/a (priority 10), team/b (priority 10)".
func victimList(victims []Victim) string {
	parts := make([]string, 0, len(victims))
	for _, v := range victims {
		parts = append(parts, fmt.Sprintf("%s (priority %d)", v.Pod, v.Priority))
	}
	return joinSome(parts, 5)
}

// describe reads like "needs 9; 8 match: 3 allocated, 5 usable".
func (rc RequestCount) describe() string {
	parts := []string{}
	add := func(n int, what string) {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, what))
		}
	}
	add(rc.Allocated, "allocated")
	add(rc.NodeOperationsRequired, "skipping node operations the node does not declare")
	add(rc.Tainted, "tainted (not tolerated)")
	add(rc.CountersExhausted, "with shared counters used up")
	add(rc.CapacityExhausted, "with capacity used up")
	parts = append(parts, fmt.Sprintf("%d usable", rc.Usable))
	return fmt.Sprintf("needs %d; %d match: %s", rc.Need, rc.Matching, strings.Join(parts, ", "))
}

func joinSome(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
