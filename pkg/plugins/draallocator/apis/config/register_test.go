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

package config

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func TestAddToSchemeRegistersTheKindUnderTheInternalVersion(t *testing.T) {
	s := runtime.NewScheme()
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	gvks, _, err := s.ObjectKinds(&DRAAllocatorArgs{})
	if err != nil {
		t.Fatal(err)
	}
	want := "kubescheduler.config.k8s.io/__internal, Kind=DRAAllocatorArgs"
	if len(gvks) != 1 || gvks[0].String() != want {
		t.Errorf("ObjectKinds = %v, want [%s]", gvks, want)
	}
}

func TestDeepCopyReturnsAnIndependentEqualCopy(t *testing.T) {
	in := &DRAAllocatorArgs{
		FilterTimeout:         metav1.Duration{Duration: time.Second},
		BindingTimeout:        metav1.Duration{Duration: time.Minute},
		ScoringStrategy:       ScoringStrategy{Type: MostAllocated},
		DeviceSelectionPolicy: Packing,
	}
	out, ok := in.DeepCopyObject().(*DRAAllocatorArgs)
	if !ok || out == in || *out != *in {
		t.Fatalf("DeepCopyObject = %#v, want an equal copy at a new address", out)
	}
	out.ScoringStrategy.Type = LeastAllocated
	if in.ScoringStrategy.Type != MostAllocated {
		t.Error("changing the copy changed the original")
	}
	if (*DRAAllocatorArgs)(nil).DeepCopy() != nil {
		t.Error("DeepCopy of nil must be nil")
	}
}
