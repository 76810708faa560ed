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
	"fmt"

	"github.com/dra-scheduler/dra-scheduler/pkg/benchchart"
)

// Series colours: one per allocator, so panels read alike.
const (
	colorOurs     = "#0072B2"
	colorUpstream = "#D55E00"
)

// Figure draws the results at one occupancy against cluster size: per
// scenario a latency panel (per-pod cost, solid; node-check p50, dashed;
// ours and upstream) and a throughput panel (pods per second one core
// could allocate: 1 / per-pod p50). Results with errors are left out.
func (r *Report) Figure(occupancy string) benchchart.Figure {
	type lines struct {
		podOurs, podUp, nodeOurs, nodeUp, tputOurs, tputUp []benchchart.Point
	}
	var order []string
	byScenario := map[string]*lines{}
	for _, res := range r.Results {
		if res.Error != "" || res.Occupancy != occupancy {
			continue
		}
		l := byScenario[res.Scenario]
		if l == nil {
			l = &lines{}
			byScenario[res.Scenario] = l
			order = append(order, res.Scenario)
		}
		x := float64(res.Nodes)
		point := func(y float64, what string, samples int) benchchart.Point {
			return benchchart.Point{X: x, Y: y, Label: fmt.Sprintf("%s, %d nodes: %s (%d samples)", what, res.Nodes, benchchart.FormatNanos(y), samples)}
		}
		o, u := res.Ours, res.Upstream
		l.podOurs = append(l.podOurs, point(float64(o.PerPod.P50Ns), "ours per pod p50", o.PerPod.Samples))
		l.podUp = append(l.podUp, point(float64(u.PerPod.P50Ns), "upstream per pod p50", u.PerPod.Samples))
		l.nodeOurs = append(l.nodeOurs, point(float64(o.NodeCheck.P50Ns), "ours node check p50", o.NodeCheck.Samples))
		l.nodeUp = append(l.nodeUp, point(float64(u.NodeCheck.P50Ns), "upstream node check p50", u.NodeCheck.Samples))
		tput := func(ns int64, who string) benchchart.Point {
			v := podsPerSecond(ns)
			return benchchart.Point{X: x, Y: v, Label: fmt.Sprintf("%s, %d nodes: %s pods/s", who, res.Nodes, benchchart.FormatCount(v))}
		}
		l.tputOurs = append(l.tputOurs, tput(o.PerPod.P50Ns, "ours"))
		l.tputUp = append(l.tputUp, tput(u.PerPod.P50Ns, "upstream"))
	}
	fig := benchchart.Figure{
		Title: "DRA allocation: ours vs upstream against cluster size (occupancy " + occupancy + ")",
		Subtitle: fmt.Sprintf("%s (%s) · %s %s, %d CPUs · per pod = all nodes on one core; node check = one (pod, node) Allocate",
			r.UpstreamModule, r.UpstreamAllocator, r.Go, r.Platform, r.CPUs),
		Columns: 4,
	}
	for _, sc := range order {
		l := byScenario[sc]
		fig.Panels = append(fig.Panels, benchchart.Panel{
			Title: sc + ": latency", XLabel: "nodes", YLabel: "time",
			FormatY: benchchart.FormatNanosTick,
			Series: []benchchart.Series{
				{Name: "ours per pod", Color: colorOurs, Points: l.podOurs},
				{Name: "upstream per pod", Color: colorUpstream, Points: l.podUp},
				{Name: "ours node check p50", Color: colorOurs, Dashed: true, Points: l.nodeOurs},
				{Name: "upstream node check p50", Color: colorUpstream, Dashed: true, Points: l.nodeUp},
			},
		}, benchchart.Panel{
			Title: sc + ": throughput", XLabel: "nodes", YLabel: "pods/s (1 core)",
			Series: []benchchart.Series{
				{Name: "ours", Color: colorOurs, Points: l.tputOurs},
				{Name: "upstream", Color: colorUpstream, Points: l.tputUp},
			},
		})
	}
	return fig
}

// podsPerSecond is how many pods per second one core could allocate at
// a per-pod cost of ns.
func podsPerSecond(ns int64) float64 {
	if ns <= 0 {
		return 0
	}
	return 1e9 / float64(ns)
}
