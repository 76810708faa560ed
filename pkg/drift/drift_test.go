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

package drift_test

import (
	"slices"
	"testing"

	"github.com/dra-scheduler/dra-scheduler/pkg/drift"
)

func TestADifferenceReadsAsItsObjectThenHowItDiffers(t *testing.T) {
	var l drift.List
	l.Add(drift.Allocation, "pool gpu.example.com/node-7", "device %s allocated to %s in the API, free in the tracker", "gpu-3", "default/claim-x")
	got := l.Sorted()[0].String()
	if want := "pool gpu.example.com/node-7: device gpu-3 allocated to default/claim-x in the API, free in the tracker"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
}

func TestSortedOrdersByKindObjectAndMessageAndKeepsEachDifferenceOnce(t *testing.T) {
	var l drift.List
	l.Add(drift.Slice, "slice b", "missing")
	l.Add(drift.Device, "pool d/p", "device x missing")
	l.Add(drift.Slice, "slice a", "missing")
	l.Add(drift.Slice, "slice b", "missing")
	got := l.Sorted()
	want := []drift.Difference{
		{Kind: drift.Device, Object: "pool d/p", Message: "device x missing"},
		{Kind: drift.Slice, Object: "slice a", Message: "missing"},
		{Kind: drift.Slice, Object: "slice b", Message: "missing"},
	}
	if !slices.Equal(got, want) {
		t.Errorf("Sorted() = %v, want %v", got, want)
	}
	if l.Len() != 4 {
		t.Errorf("Len() = %d, want the 4 added", l.Len())
	}
}

func TestCommonKeepsOnlyWhatBothChecksFound(t *testing.T) {
	lasting := drift.Difference{Kind: drift.Pool, Object: "pool d/p", Message: "generation 2 in the API, 1 in the inventory"}
	passing := drift.Difference{Kind: drift.Slice, Object: "slice s", Message: "missing in the inventory"}
	newer := drift.Difference{Kind: drift.Slice, Object: "slice t", Message: "missing in the inventory"}
	got := drift.Common([]drift.Difference{lasting, passing}, []drift.Difference{newer, lasting})
	if !slices.Equal(got, []drift.Difference{lasting}) {
		t.Errorf("Common = %v, want only %v", got, lasting)
	}
	if got := drift.Common(nil, []drift.Difference{lasting}); len(got) != 0 {
		t.Errorf("Common with an empty first check = %v, want nothing", got)
	}
}

func TestCountByKindCountsEachKind(t *testing.T) {
	got := drift.CountByKind([]drift.Difference{{Kind: drift.State}, {Kind: drift.State}, {Kind: drift.Count}})
	if len(got) != 2 || got[drift.State] != 2 || got[drift.Count] != 1 {
		t.Errorf("CountByKind = %v, want state 2, count 1", got)
	}
}

func TestKindsAreSortedAndDistinct(t *testing.T) {
	k := drift.Kinds()
	if !slices.IsSorted(k) || len(slices.Compact(slices.Clone(k))) != len(k) {
		t.Errorf("Kinds() = %v: want sorted, each once", k)
	}
}
