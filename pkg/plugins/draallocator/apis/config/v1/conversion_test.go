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
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/diff"

	"github.com/dra-scheduler/dra-scheduler/pkg/plugins/draallocator/apis/config"
)

func newTestScheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := config.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestInternalToV1ToInternalIsTheIdentity(t *testing.T) {
	tests := []struct {
		name string
		in   config.DRAAllocatorArgs
	}{{
		name: "defaults survive the round trip",
		in: config.DRAAllocatorArgs{
			FilterTimeout:            metav1.Duration{Duration: 10 * time.Second},
			BindingTimeout:           metav1.Duration{Duration: 600 * time.Second},
			ScoringStrategy:          config.ScoringStrategy{Type: config.FirstAvailable},
			DeviceSelectionPolicy:    config.FirstFit,
			Preemption:               config.PreemptionEnabled,
			PlacementScoring:         config.PlacementMostAllocated,
			MaxPlacements:            10,
			ConsistencyCheckInterval: metav1.Duration{Duration: time.Minute},
		},
	}, {
		name: "non-default values survive the round trip",
		in: config.DRAAllocatorArgs{
			FilterTimeout:            metav1.Duration{Duration: 1500 * time.Millisecond},
			BindingTimeout:           metav1.Duration{Duration: time.Hour},
			ScoringStrategy:          config.ScoringStrategy{Type: config.LeastAllocated},
			DeviceSelectionPolicy:    config.Packing,
			Preemption:               config.PreemptionDisabled,
			PlacementScoring:         config.PlacementMostAllocated,
			MaxPlacements:            10,
			ConsistencyCheckInterval: metav1.Duration{Duration: time.Minute},
		},
	}, {
		name: "a zero filter timeout survives the round trip instead of being re-defaulted",
		in: config.DRAAllocatorArgs{
			BindingTimeout:           metav1.Duration{Duration: time.Second},
			ScoringStrategy:          config.ScoringStrategy{Type: config.MostAllocated},
			DeviceSelectionPolicy:    config.FirstFit,
			Preemption:               config.PreemptionEnabled,
			PlacementScoring:         config.PlacementMostAllocated,
			MaxPlacements:            10,
			ConsistencyCheckInterval: metav1.Duration{Duration: time.Minute},
		},
	}}
	s := newTestScheme(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in.DeepCopy()
			versioned := &DRAAllocatorArgs{}
			if err := s.Convert(in, versioned, nil); err != nil {
				t.Fatal(err)
			}
			// Every v1 field is set, so defaulting must not change anything.
			before := versioned.DeepCopy()
			s.Default(versioned)
			if !reflect.DeepEqual(before, versioned) {
				t.Errorf("defaulting converted args changed them (-before +after):\n%s", diff.Diff(before, versioned))
			}
			out := &config.DRAAllocatorArgs{}
			if err := s.Convert(versioned, out, nil); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tc.in, *out) {
				t.Errorf("round trip changed args (-want +got):\n%s", diff.Diff(tc.in, *out))
			}
		})
	}
}

func TestV1ToInternalConvertsEveryField(t *testing.T) {
	s := newTestScheme(t)
	in := &DRAAllocatorArgs{
		FilterTimeout:            dur(3 * time.Second),
		BindingTimeout:           dur(4 * time.Second),
		ScoringStrategy:          strategy(MostAllocated),
		DeviceSelectionPolicy:    policy(Packing),
		Preemption:               preemption(PreemptionDisabled),
		PlacementScoring:         placementScoring(PlacementMostAllocated),
		MaxPlacements:            maxPlacements(10),
		ConsistencyCheckInterval: &metav1.Duration{Duration: 30 * time.Second},
	}
	got := &config.DRAAllocatorArgs{}
	if err := s.Convert(in, got, nil); err != nil {
		t.Fatal(err)
	}
	want := &config.DRAAllocatorArgs{
		FilterTimeout:            metav1.Duration{Duration: 3 * time.Second},
		BindingTimeout:           metav1.Duration{Duration: 4 * time.Second},
		ScoringStrategy:          config.ScoringStrategy{Type: config.MostAllocated},
		DeviceSelectionPolicy:    config.Packing,
		Preemption:               config.PreemptionDisabled,
		PlacementScoring:         config.PlacementMostAllocated,
		MaxPlacements:            10,
		ConsistencyCheckInterval: metav1.Duration{Duration: 30 * time.Second},
	}
	if !reflect.DeepEqual(want, got) {
		t.Errorf("unexpected internal args (-want +got):\n%s", diff.Diff(want, got))
	}
}

func TestV1AndInternalConstantsAgree(t *testing.T) {
	pairs := [][2]string{
		{string(FirstAvailable), string(config.FirstAvailable)},
		{string(MostAllocated), string(config.MostAllocated)},
		{string(LeastAllocated), string(config.LeastAllocated)},
		{string(FirstFit), string(config.FirstFit)},
		{string(Packing), string(config.Packing)},
		{string(PreemptionEnabled), string(config.PreemptionEnabled)},
		{string(PreemptionDisabled), string(config.PreemptionDisabled)},
	}
	for _, p := range pairs {
		if p[0] != p[1] {
			t.Errorf("v1 constant %q differs from internal constant %q", p[0], p[1])
		}
	}
}
