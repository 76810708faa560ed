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

package drift

import (
	"cmp"
	"fmt"
	"slices"
)

// Kind says which part of a cache a difference is in.
type Kind string

// The kinds of difference. They label a metric: add one only for a part
// of the state an operator would tell apart.
const (
	// Slice is a ResourceSlice the API has and the cache lacks, or the
	// reverse, or one whose driver, pool or node selection differs.
	Slice Kind = "slice"
	// Pool is a pool's generation, slice count or completeness.
	Pool Kind = "pool"
	// Device is a device missing or extra, or one whose attributes,
	// capacity, counters, taints or other fields differ (DeviceTaintRules
	// applied).
	Device Kind = "device"
	// Index is a cache's own index disagreeing with the objects it
	// indexes.
	Index Kind = "index"
	// Allocation is a device a claim holds in the API and not in the
	// cache, or the reverse, or a share or consumed capacity that
	// differs.
	Allocation Kind = "allocation"
	// InFlight is an allocation the cache holds in flight that the
	// scheduler no longer has in flight: its devices would stay taken.
	InFlight Kind = "in-flight"
	// Count is a count kept per device (holders, shares, consumed
	// capacity) disagreeing with the claims it counts.
	Count Kind = "count"
	// State is the allocated-device view handed to allocators disagreeing
	// with one rebuilt from scratch.
	State Kind = "state"
	// Counters is a pool's shared counters, cached as available,
	// disagreeing with a fresh computation.
	Counters Kind = "counters"
)

// Kinds lists every kind, sorted.
func Kinds() []Kind {
	return []Kind{Allocation, Count, Counters, Device, InFlight, Index, Pool, Slice, State}
}

// Difference is one way a cache differs from the API's objects. It is a
// comparable value: the same difference found twice is equal.
type Difference struct {
	Kind Kind
	// Object names what the difference is about: "pool driver/pool",
	// "slice name", "claim namespace/name", "device driver/pool/name".
	Object string
	// Message says how it differs and names the other objects involved.
	Message string
}

// String renders the difference as "object: message".
func (d Difference) String() string { return d.Object + ": " + d.Message }

func compare(a, b Difference) int {
	return cmp.Or(cmp.Compare(a.Kind, b.Kind), cmp.Compare(a.Object, b.Object), cmp.Compare(a.Message, b.Message))
}

// List collects differences. The zero value is an empty list.
type List struct {
	items []Difference
}

// Add appends a difference of kind about object, its message formatted
// as by fmt.Sprintf.
func (l *List) Add(kind Kind, object, format string, args ...any) {
	l.items = append(l.items, Difference{Kind: kind, Object: object, Message: fmt.Sprintf(format, args...)})
}

// Append appends differences collected elsewhere.
func (l *List) Append(ds ...Difference) { l.items = append(l.items, ds...) }

// Len counts the differences added.
func (l *List) Len() int { return len(l.items) }

// Sorted returns the differences by kind, object and message, each once.
func (l *List) Sorted() []Difference {
	out := slices.Clone(l.items)
	slices.SortFunc(out, compare)
	return slices.Compact(out)
}

// Common returns the differences found by both checks, in a's order: a
// change on its way from the API to the cache when the first check ran is
// gone from the second.
func Common(a, b []Difference) []Difference {
	in := make(map[Difference]struct{}, len(b))
	for _, d := range b {
		in[d] = struct{}{}
	}
	var out []Difference
	for _, d := range a {
		if _, ok := in[d]; ok {
			out = append(out, d)
		}
	}
	return out
}

// CountByKind counts the differences of each kind.
func CountByKind(ds []Difference) map[Kind]int {
	out := map[Kind]int{}
	for _, d := range ds {
		out[d.Kind]++
	}
	return out
}
