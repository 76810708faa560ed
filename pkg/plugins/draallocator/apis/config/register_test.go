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
