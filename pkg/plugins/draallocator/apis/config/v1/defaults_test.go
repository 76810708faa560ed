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

package v1

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/diff"
)

func dur(d time.Duration) *metav1.Duration { return &metav1.Duration{Duration: d} }
func strategy(t ScoringStrategyType) *ScoringStrategy {
	return &ScoringStrategy{Type: &t}
}
func policy(p DeviceSelectionPolicy) *DeviceSelectionPolicy         { return &p }
func preemption(m PreemptionMode) *PreemptionMode                   { return &m }
func placementScoring(p PlacementScoringType) *PlacementScoringType { return &p }
func maxPlacements(n int32) *int32                                  { return &n }

func defaulted() *DRAAllocatorArgs {
	return &DRAAllocatorArgs{
		FilterTimeout:            dur(10 * time.Second),
		BindingTimeout:           dur(600 * time.Second),
		ScoringStrategy:          strategy(FirstAvailable),
		DeviceSelectionPolicy:    policy(FirstFit),
		Preemption:               preemption(PreemptionEnabled),
		PlacementScoring:         placementScoring(PlacementMostAllocated),
		MaxPlacements:            maxPlacements(10),
		GroupPlanTimeout:         dur(0),
		ConsistencyCheckInterval: dur(time.Minute),
	}
}

func TestSetDefaults(t *testing.T) {
	tests := []struct {
		name string
		in   *DRAAllocatorArgs
		want *DRAAllocatorArgs
	}{{
		name: "empty args get every default",
		in:   &DRAAllocatorArgs{},
		want: defaulted(),
	}, {
		name: "an empty scoring strategy gets the default type",
		in:   &DRAAllocatorArgs{ScoringStrategy: &ScoringStrategy{}},
		want: defaulted(),
	}, {
		name: "set fields are kept and only missing ones are defaulted",
		in: &DRAAllocatorArgs{
			BindingTimeout:  dur(time.Minute),
			ScoringStrategy: strategy(MostAllocated),
		},
		want: &DRAAllocatorArgs{
			FilterTimeout:            dur(10 * time.Second),
			BindingTimeout:           dur(time.Minute),
			ScoringStrategy:          strategy(MostAllocated),
			DeviceSelectionPolicy:    policy(FirstFit),
			Preemption:               preemption(PreemptionEnabled),
			PlacementScoring:         placementScoring(PlacementMostAllocated),
			MaxPlacements:            maxPlacements(10),
			GroupPlanTimeout:         dur(0),
			ConsistencyCheckInterval: dur(time.Minute),
		},
	}, {
		name: "an explicit zero filter timeout is kept because it disables the limit",
		in:   &DRAAllocatorArgs{FilterTimeout: dur(0)},
		want: &DRAAllocatorArgs{
			FilterTimeout:            dur(0),
			BindingTimeout:           dur(600 * time.Second),
			ScoringStrategy:          strategy(FirstAvailable),
			DeviceSelectionPolicy:    policy(FirstFit),
			Preemption:               preemption(PreemptionEnabled),
			PlacementScoring:         placementScoring(PlacementMostAllocated),
			MaxPlacements:            maxPlacements(10),
			GroupPlanTimeout:         dur(0),
			ConsistencyCheckInterval: dur(time.Minute),
		},
	}, {
		name: "an explicit zero maxPlacements is kept because it tries every domain",
		in:   &DRAAllocatorArgs{MaxPlacements: maxPlacements(0)},
		want: func() *DRAAllocatorArgs { d := defaulted(); d.MaxPlacements = maxPlacements(0); return d }(),
	}, {
		name: "a groupPlanTimeout set is kept",
		in:   &DRAAllocatorArgs{GroupPlanTimeout: dur(2 * time.Second)},
		want: func() *DRAAllocatorArgs { d := defaulted(); d.GroupPlanTimeout = dur(2 * time.Second); return d }(),
	}, {
		name: "an explicit zero consistencyCheckInterval is kept because it checks only on SIGUSR2",
		in:   &DRAAllocatorArgs{ConsistencyCheckInterval: dur(0)},
		want: func() *DRAAllocatorArgs { d := defaulted(); d.ConsistencyCheckInterval = dur(0); return d }(),
	}, {
		name: "placementScoring Packing, its name before 0.1.0, is renamed MostAllocated",
		in:   &DRAAllocatorArgs{PlacementScoring: placementScoring("Packing")},
		want: defaulted(),
	}, {
		name: "placementScoring Spreading, its name before 0.1.0, is renamed LeastAllocated",
		in:   &DRAAllocatorArgs{PlacementScoring: placementScoring("Spreading")},
		want: func() *DRAAllocatorArgs {
			d := defaulted()
			d.PlacementScoring = placementScoring(PlacementLeastAllocated)
			return d
		}(),
	}, {
		name: "an unknown placementScoring is kept for validation to refuse",
		in:   &DRAAllocatorArgs{PlacementScoring: placementScoring("Random")},
		want: func() *DRAAllocatorArgs { d := defaulted(); d.PlacementScoring = placementScoring("Random"); return d }(),
	}, {
		name: "fully set args are left unchanged",
		in: &DRAAllocatorArgs{
			FilterTimeout:            dur(time.Second),
			BindingTimeout:           dur(time.Second),
			ScoringStrategy:          strategy(LeastAllocated),
			DeviceSelectionPolicy:    policy(Packing),
			Preemption:               preemption(PreemptionDisabled),
			PlacementScoring:         placementScoring(PlacementMostAllocated),
			MaxPlacements:            maxPlacements(10),
			GroupPlanTimeout:         dur(3 * time.Second),
			ConsistencyCheckInterval: dur(time.Minute),
		},
		want: &DRAAllocatorArgs{
			FilterTimeout:            dur(time.Second),
			BindingTimeout:           dur(time.Second),
			ScoringStrategy:          strategy(LeastAllocated),
			DeviceSelectionPolicy:    policy(Packing),
			Preemption:               preemption(PreemptionDisabled),
			PlacementScoring:         placementScoring(PlacementMostAllocated),
			MaxPlacements:            maxPlacements(10),
			GroupPlanTimeout:         dur(3 * time.Second),
			ConsistencyCheckInterval: dur(time.Minute),
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			SetDefaults_DRAAllocatorArgs(tc.in)
			if !reflect.DeepEqual(tc.want, tc.in) {
				t.Errorf("unexpected args (-want +got):\n%s", diff.Diff(tc.want, tc.in))
			}
		})
	}
}

func TestDefaultsMatchTheInTreeDynamicResourcesPlugin(t *testing.T) {
	if DefaultFilterTimeout != 10*time.Second {
		t.Errorf("DefaultFilterTimeout = %v, want 10s", DefaultFilterTimeout)
	}
	if DefaultBindingTimeout != 600*time.Second {
		t.Errorf("DefaultBindingTimeout = %v, want 600s", DefaultBindingTimeout)
	}
}

func TestAddToSchemeRegistersTheDefaulter(t *testing.T) {
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	got := &DRAAllocatorArgs{}
	s.Default(got)
	if !reflect.DeepEqual(defaulted(), got) {
		t.Errorf("scheme.Default did not apply v1 defaults (-want +got):\n%s", diff.Diff(defaulted(), got))
	}
	gvks, _, err := s.ObjectKinds(&DRAAllocatorArgs{})
	if err != nil || len(gvks) != 1 || gvks[0].String() != "kubescheduler.config.k8s.io/v1, Kind=DRAAllocatorArgs" {
		t.Errorf("ObjectKinds = %v, %v; want kubescheduler.config.k8s.io/v1 DRAAllocatorArgs", gvks, err)
	}
}

func TestJSONFieldNamesAreCamelCase(t *testing.T) {
	got, err := json.Marshal(defaulted())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"filterTimeout":"10s","bindingTimeout":"10m0s","scoringStrategy":{"type":"FirstAvailable"},"deviceSelectionPolicy":"FirstFit","preemption":"Enabled","placementScoring":"MostAllocated","maxPlacements":10,"groupPlanTimeout":"0s","consistencyCheckInterval":"1m0s"}`
	if string(got) != want {
		t.Errorf("json = %s\nwant   %s", got, want)
	}
	empty, err := json.Marshal(&DRAAllocatorArgs{})
	if err != nil {
		t.Fatal(err)
	}
	if string(empty) != `{}` {
		t.Errorf("unset optional fields must be omitted, got %s", empty)
	}
}

func TestDeepCopyDoesNotShareMemory(t *testing.T) {
	in := defaulted()
	out := in.DeepCopy()
	out.FilterTimeout.Duration = time.Hour
	out.BindingTimeout.Duration = time.Hour
	*out.ScoringStrategy.Type = MostAllocated
	*out.DeviceSelectionPolicy = Packing
	if !reflect.DeepEqual(defaulted(), in) {
		t.Errorf("changing the copy changed the original (-want +got):\n%s", diff.Diff(defaulted(), in))
	}
	if _, ok := in.DeepCopyObject().(*DRAAllocatorArgs); !ok {
		t.Errorf("DeepCopyObject returned %T", in.DeepCopyObject())
	}
	if (*DRAAllocatorArgs)(nil).DeepCopy() != nil {
		t.Error("DeepCopy of nil must be nil")
	}
}
