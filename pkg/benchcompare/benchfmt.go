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

package benchcompare

import (
	"fmt"
	"io"
	"strings"
)

// WriteBenchfmt writes the report in the Go benchmark format: the
// configuration lines benchstat groups by (goos, goarch, cpu, pkg and the
// build), then one line per result, "Benchmark<name> 1 <value> <unit> ...".
func WriteBenchfmt(w io.Writer, r *Report) error {
	goos, goarch, _ := strings.Cut(r.Env.Platform, "/")
	var b strings.Builder
	for _, kv := range [][2]string{{"goos", goos}, {"goarch", goarch}, {"cpu", r.Env.CPUModel},
		{"pkg", "github.com/dra-scheduler/dra-scheduler/cmd/dra-bench"}, {"tool", r.Tool}, {"version", r.Env.Version}, {"vcs-revision", r.Env.VCSRevision}, {"go", r.Env.Go},
		{"gomaxprocs", fmt.Sprint(r.Env.GOMAXPROCS)}, {"gogc", r.Env.GOGC}, {"gomemlimit", r.Env.GOMEMLIMIT}, {"kernel", r.Env.Kernel}} {
		if kv[1] != "" {
			fmt.Fprintf(&b, "%s: %s\n", kv[0], kv[1])
		}
	}
	for _, res := range r.Result {
		fmt.Fprintf(&b, "Benchmark%s 1", res.Name)
		for _, m := range res.Metrics {
			fmt.Fprintf(&b, " %g %s", m.Value, m.Unit)
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
