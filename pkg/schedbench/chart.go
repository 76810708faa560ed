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

package schedbench

import (
	"fmt"
	"slices"
	"time"

	"github.com/dra-scheduler/dra-scheduler/pkg/benchchart"
)

// configColor keeps each configuration's colour fixed across panels and
// runs: ours blue, in-tree red, device-plugin green, no-claims (and the
// rest) grey.
func configColor(c Config) string {
	switch c {
	case ConfigOurs:
		return "#0072B2"
	case ConfigInTree:
		return "#D55E00"
	case ConfigDevicePlugin:
		return "#009E73"
	}
	return "#777777"
}

// Figure draws throughput and latency against cluster size, one series per
// configuration: throughput (pods/s), p50 latency (solid) with p99 (dashed).
// Results without bound pods are left out.
func (rep *Report) Figure() benchchart.Figure {
	var configs []Config
	for _, r := range rep.Results {
		if !slices.Contains(configs, r.Config) {
			configs = append(configs, r.Config)
		}
	}
	throughput := benchchart.Panel{
		Title: "throughput", XLabel: "nodes", YLabel: "pods/s",
	}
	latency := benchchart.Panel{
		Title: "creation → bound latency", XLabel: "nodes", YLabel: "latency",
		FormatY: benchchart.FormatNanosTick,
	}
	for _, c := range configs {
		color := configColor(c)
		tp := benchchart.Series{Name: string(c), Color: color}
		p50 := benchchart.Series{Name: string(c) + " p50", Color: color}
		p99 := benchchart.Series{Name: string(c) + " p99", Color: color, Dashed: true}
		for _, r := range rep.Results {
			if r.Config != c || r.Bound == 0 {
				continue
			}
			x := float64(r.Nodes)
			tp.Points = append(tp.Points, benchchart.Point{X: x, Y: r.PodsPerSecond,
				Label: fmt.Sprintf("%s, %d nodes: %.1f pods/s (%d pods)", c, r.Nodes, r.PodsPerSecond, r.Bound)})
			p50.Points = append(p50.Points, benchchart.Point{X: x, Y: float64(r.Latency.P50Ns),
				Label: fmt.Sprintf("%s, %d nodes: p50 %v", c, r.Nodes, time.Duration(r.Latency.P50Ns).Round(time.Millisecond))})
			p99.Points = append(p99.Points, benchchart.Point{X: x, Y: float64(r.Latency.P99Ns),
				Label: fmt.Sprintf("%s, %d nodes: p99 %v", c, r.Nodes, time.Duration(r.Latency.P99Ns).Round(time.Millisecond))})
		}
		throughput.Series = append(throughput.Series, tp)
		latency.Series = append(latency.Series, p50, p99)
	}
	return benchchart.Figure{
		Title: "dra-bench scheduler: end-to-end scheduling, " + rep.Settings.Shape + " shape",
		Subtitle: fmt.Sprintf("%s, claims from %s, qps/burst %g/%d, %s %s, %d CPUs",
			rep.Settings.Target, rep.Settings.Claims, rep.Settings.QPS, rep.Settings.Burst, rep.Go, rep.Platform, rep.CPUs),
		Columns: 2,
		Panels:  []benchchart.Panel{throughput, latency},
	}
}
