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

package deviceusage

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteText prints the report as two tables, per class and per pool.
func (r *Report) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "CLASS\tDEVICES\tALLOCATED\tSHARED\tFREE")
	for _, c := range r.Classes {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\n", c.Class, c.Devices, c.Allocated, c.Shared, c.Free)
	}
	fmt.Fprintln(tw)
	fmt.Fprintln(tw, "DRIVER/POOL\tNODE\tDEVICES\tALLOCATED\tSHARED\tFREE\tCOUNTERS AND CAPACITY IN USE")
	for _, p := range r.Pools {
		name := p.Driver + "/" + p.Pool
		if p.Incomplete {
			name += " (incomplete)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\n", name, dash(p.Node), p.Devices, p.Allocated, p.Shared, p.Free, consumption(append(p.Counters, p.Capacity...)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "Note: %s\n", n)
	}
	return nil
}

// consumption lists what is in use, as "name used/total"; unused ones are
// left out.
func consumption(cs []Consumption) string {
	var parts []string
	for _, c := range cs {
		if c.Used.IsZero() {
			continue
		}
		parts = append(parts, fmt.Sprintf("%s %s/%s", c.Name, c.Used.String(), c.Total.String()))
	}
	return dash(strings.Join(parts, ", "))
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
