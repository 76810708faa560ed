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

// Package benchchart draws benchmark results as a self-contained SVG: a
// figure of small panels, each a line chart of named series of (x, y)
// points, such as latency or throughput against cluster size.
//
// It knows nothing about what is measured: callers (dra-bench allocator
// today, a scheduler-throughput benchmark later) turn their results into
// Figure values and call WriteSVG.
//
// # Design
//
//   - Hand-written SVG 1.1 through encoding/xml escaping: no dependency,
//     no fonts or scripts, viewable in any browser and embeddable in
//     Markdown.
//   - Every series is one <g class="series" data-series="name"> group
//     holding its line (<path>) and its markers (<circle>, each with a
//     <title> tooltip naming the point), so tools and tests can find the
//     data again in the document.
//   - Axes are linear or logarithmic (base 10). AutoScale picks log when
//     all values are positive and span at least a factor of 10, which is
//     typical of latency against cluster size.
//
// # Invariants
//
//   - The output is well-formed XML for any input: text is escaped, NaN,
//     infinite and (on a log axis) non-positive values are left out
//     rather than written as invalid coordinates.
//   - Output is deterministic: the same Figure gives the same bytes.
//   - Inputs are not modified.
package benchchart
